/* Loads the IRDL definition of the w4a16 dialect, embedded at build time from w4a16.irdl.mlir. */
#include "w4a16/dialect.h"

#include "mlir-c/Dialect/IRDL.h"
#include "w4a16_irdl.inc"

#include "mlir-c/BuiltinAttributes.h"

#include <string.h>

MlirLogicalResult w4a16LoadDialect(MlirContext ctx) {
  /* IRDL registers dialects globally per context; loading twice would redefine them. */
  if (mlirContextIsRegisteredOperation(ctx, mlirStringRefCreateFromCString(W4A16_FUSED_MATMUL_OP)))
    return mlirLogicalResultSuccess();
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__irdl__(), ctx);
  MlirModule definition = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(w4a16_irdl_source));
  if (mlirModuleIsNull(definition))
    return mlirLogicalResultFailure();
  MlirLogicalResult loaded = mlirLoadIRDLDialects(definition);
  mlirModuleDestroy(definition);
  return loaded;
}

static bool isNamed(MlirOperation op, const char *opName) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length == strlen(opName) && memcmp(name.data, opName, name.length) == 0;
}

bool w4a16IsFusedMatmul(MlirOperation op) { return isNamed(op, W4A16_FUSED_MATMUL_OP); }
bool w4a16IsMergedMatmul(MlirOperation op) { return isNamed(op, W4A16_MERGED_MATMUL_OP); }
bool w4a16IsInt8Prep(MlirOperation op) { return isNamed(op, W4A16_INT8_PREP_OP); }

bool w4a16MergedSlots(MlirOperation op, W4a16MergedSlots *slots) {
  MlirAttribute seg = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  *slots = (W4a16MergedSlots){0};
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) || mlirDenseArrayGetNumElements(seg) != 17)
    return false;
  int *counts[] = {&slots->weights, &slots->scales, &slots->zeroPoints, &slots->biases};
  for (int group = 0; group < 4; ++group)
    for (int slot = 0; slot < 4; ++slot) /* a group's members fill its slots from 0 */
      if (mlirDenseI32ArrayGetElement(seg, 1 + 4 * group + slot) && (*counts[group])++ != slot)
        return false;
  slots->members = slots->weights;
  return true;
}
