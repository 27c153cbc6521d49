/* Loads the IRDL definition of the w4a16 dialect, embedded at build time from w4a16.irdl.mlir. */
#include "w4a16/dialect.h"

#include "mlir-c/Dialect/IRDL.h"
#include "w4a16_irdl.inc"

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
