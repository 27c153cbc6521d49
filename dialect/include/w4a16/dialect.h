/* The w4a16 dialect: w4a16.fused_matmul, w4a16.merged_matmul (sibling fused matmuls of one x) and
 * w4a16.int8_prep, defined in IRDL (dialect/w4a16.irdl.mlir). */
#ifndef W4A16_DIALECT_H
#define W4A16_DIALECT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

#define W4A16_FUSED_MATMUL_OP "w4a16.fused_matmul"
#define W4A16_MERGED_MATMUL_OP "w4a16.merged_matmul" /* sibling fused matmuls sharing x (issue #21) */
#define W4A16_INT8_PREP_OP "w4a16.int8_prep" /* LLM.int8 outlier-correction operands (issue #6) */

/* Loads the IRDL definition into ctx (idempotent). Fails only if the embedded definition is broken. */
MlirLogicalResult w4a16LoadDialect(MlirContext ctx);

/* Checks what IRDL cannot: shapes and element types of every w4a16 op under root, emitting a located
 * error for each violation through the context's diagnostic handlers. */
MlirLogicalResult w4a16VerifyOps(MlirOperation root);

bool w4a16IsFusedMatmul(MlirOperation op);
bool w4a16IsMergedMatmul(MlirOperation op);
bool w4a16IsInt8Prep(MlirOperation op);

/* A w4a16.merged_matmul's members as its operandSegmentSizes states them (x; weight_0..3; scales_0..3;
 * zero_points_0..3; bias_0..3): how many members, and whether they have zero points and biases. Operands come
 * in that order, each group's members from slot 0 on. False when the attribute is not of that form. */
typedef struct W4a16MergedSlots {
  int members, zeroPoints, biases; /* zeroPoints, biases: 0 or members (else the op is malformed) */
  int weights, scales;             /* as counted: equal to members in a well-formed op */
} W4a16MergedSlots;
bool w4a16MergedSlots(MlirOperation op, W4a16MergedSlots *slots);

/* The element types w4a16.fused_matmul takes, which are what the runtime reads: x, bias, residual and the
 * result f16 or bf16 (one type per op), scales f16 or bf16, zero points i4, i8, i32, f16, bf16 or f32.
 * The verifier checks them; the matcher declines chains outside them. */
bool w4a16IsActivationType(MlirType element);
bool w4a16IsScalesType(MlirType element);
bool w4a16IsZeroPointType(MlirType element);

#ifdef __cplusplus
}
#endif
#endif
