#include "ir_build.h"

MlirOperation buildOp(const char *name, MlirLocation loc, intptr_t numOperands, const MlirValue *operands,
                      intptr_t numResults, const MlirType *results, intptr_t numAttributes,
                      const MlirNamedAttribute *attributes, MlirRegion *body) {
  MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString(name), loc);
  mlirOperationStateAddOperands(&state, numOperands, operands);
  mlirOperationStateAddResults(&state, numResults, results);
  mlirOperationStateAddAttributes(&state, numAttributes, attributes);
  if (body)
    mlirOperationStateAddOwnedRegions(&state, 1, body);
  return mlirOperationCreate(&state);
}

MlirNamedAttribute namedAttr(MlirContext ctx, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(name)), value);
}
