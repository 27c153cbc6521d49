/* Building ops through the C API's generic OperationState: the rewrites of the passes and the lowering passes that
 * create IR op by op (the GPU target's) rather than from template text. */
#ifndef W4A16_IR_BUILD_H
#define W4A16_IR_BUILD_H

#include "mlir-c/AffineMap.h"
#include "mlir-c/IR.h"

#include <stdbool.h>

/* An op named `name` at loc with the given operands, result types and attributes (inherent ones such as
 * operandSegmentSizes included), owning `body` when it is not NULL. Not inserted anywhere. */
MlirOperation buildOp(const char *name, MlirLocation loc, intptr_t numOperands, const MlirValue *operands,
                      intptr_t numResults, const MlirType *results, intptr_t numAttributes,
                      const MlirNamedAttribute *attributes, MlirRegion *body);

MlirNamedAttribute namedAttr(MlirContext ctx, const char *name, MlirAttribute value);

/* Inserts op before `before` (in its block); returns op's first result. */
MlirValue insertBefore(MlirOperation before, MlirOperation op);

/* arith.constant `value` of integer or index type `type`, inserted before `before`. */
MlirValue buildConstant(MlirType type, int64_t value, MlirOperation before, MlirLocation loc);

/* tensor.dim of `value` at dim, inserted before `before`. */
MlirValue buildDim(MlirValue value, int64_t dim, MlirOperation before, MlirLocation loc);

/* Replaces op by a func.call of `callee` with op's operands and result types (before it; op is destroyed). False,
 * and nothing changed, when op has more than 32 operands or 8 results. */
bool replaceWithCall(MlirOperation op, const char *callee);

/* #linalg.iterator_type<kind>, kind "parallel" or "reduction". */
MlirAttribute iteratorType(MlirContext ctx, const char *kind);

/* A linalg.generic reading operands[0, numInputs) into the init operands[numInputs], one result of type `result`,
 * through maps[0, numInputs] (inputs, then the init), over numLoops loops of the given iterator types, owning `body`.
 * Not inserted anywhere. */
MlirOperation buildGeneric(MlirLocation loc, intptr_t numInputs, const MlirValue *operands, MlirType result,
                           const MlirAffineMap *maps, intptr_t numLoops, const MlirAttribute *iterators,
                           MlirRegion body);

#endif
