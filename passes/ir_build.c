#include "ir_build.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>

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

MlirValue insertBefore(MlirOperation before, MlirOperation op) {
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
  return mlirOperationGetResult(op, 0);
}

MlirValue buildConstant(MlirType type, int64_t value, MlirOperation before, MlirLocation loc) {
  MlirNamedAttribute v = namedAttr(mlirLocationGetContext(loc), "value", mlirIntegerAttrGet(type, value));
  return insertBefore(before, buildOp("arith.constant", loc, 0, NULL, 1, &type, 1, &v, NULL));
}

MlirValue buildDim(MlirValue value, int64_t dim, MlirOperation before, MlirLocation loc) {
  MlirType index = mlirIndexTypeGet(mlirLocationGetContext(loc));
  MlirValue operands[2] = {value, buildConstant(index, dim, before, loc)};
  return insertBefore(before, buildOp("tensor.dim", loc, 2, operands, 1, &index, 0, NULL, NULL));
}

bool replaceWithCall(MlirOperation op, const char *callee) {
  enum { kMaxOperands = 32, kMaxResults = 8 };
  const intptr_t numOperands = mlirOperationGetNumOperands(op), numResults = mlirOperationGetNumResults(op);
  if (numOperands > kMaxOperands || numResults > kMaxResults)
    return false;
  MlirValue operands[kMaxOperands];
  MlirType results[kMaxResults];
  for (intptr_t i = 0; i < numOperands; ++i)
    operands[i] = mlirOperationGetOperand(op, i);
  for (intptr_t i = 0; i < numResults; ++i)
    results[i] = mlirValueGetType(mlirOperationGetResult(op, i));
  MlirContext ctx = mlirOperationGetContext(op);
  MlirNamedAttribute symbol = namedAttr(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, mlirStringRefCreateFromCString(callee)));
  MlirOperation call =
      buildOp("func.call", mlirOperationGetLocation(op), numOperands, operands, numResults, results, 1, &symbol, NULL);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, call);
  for (intptr_t i = 0; i < numResults; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i), mlirOperationGetResult(call, i));
  mlirOperationDestroy(op);
  return true;
}

MlirAttribute iteratorType(MlirContext ctx, const char *kind) {
  char text[64];
  snprintf(text, sizeof text, "#linalg.iterator_type<%s>", kind);
  return mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(text));
}

MlirOperation buildGeneric(MlirLocation loc, intptr_t numInputs, const MlirValue *operands, MlirType result,
                           const MlirAffineMap *maps, intptr_t numLoops, const MlirAttribute *iterators,
                           MlirRegion body) {
  enum { kMaxOperands = 32 };
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirAttribute mapAttrs[kMaxOperands];
  for (intptr_t i = 0; i <= numInputs && i < kMaxOperands; ++i)
    mapAttrs[i] = mlirAffineMapAttrGet(maps[i]);
  const int32_t segments[2] = {(int32_t)numInputs, 1};
  MlirNamedAttribute attributes[3] = {
      namedAttr(ctx, "indexing_maps", mlirArrayAttrGet(ctx, numInputs + 1, mapAttrs)),
      namedAttr(ctx, "iterator_types", mlirArrayAttrGet(ctx, numLoops, iterators)),
      namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, segments))};
  return buildOp("linalg.generic", loc, numInputs + 1, operands, 1, &result, 3, attributes, &body);
}
