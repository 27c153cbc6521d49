/* The part of w4a16.fused_matmul's contract that IRDL cannot state: shapes and element types.
 *
 *   x (M, K) f16, out (M, N) f16, K % group_size == 0, group_size == 128, K and N static;
 *   weight per weight_layout, scales per scales_layout, bias (N) f16, residual (M, N) f16. */
#include "w4a16/dialect.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { kGroupSize = 128 };

typedef struct Verifier {
  MlirOperation op;
  bool ok;
} Verifier;

static void fail(Verifier *v, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char full[640];
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(v->op));
  snprintf(full, sizeof full, "'%.*s' op %s", (int)name.length, name.data, msg);
  mlirEmitError(mlirOperationGetLocation(v->op), full);
  v->ok = false;
}

static bool stringAttrIs(MlirOperation op, const char *name, const char *value) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  return s.length == strlen(value) && memcmp(s.data, value, s.length) == 0;
}

static bool isF16(MlirType t) { return mlirTypeIsAF16(t); }
static bool isCodeContainer(MlirType t) {
  return mlirTypeIsAInteger(t) && (mlirIntegerTypeGetWidth(t) == 4 || mlirIntegerTypeGetWidth(t) == 8);
}
static bool isI32(MlirType t) { return mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 32; }

/* Checks that `value` is a ranked tensor of `rank` whose dims equal `dims` (a dynamic expectation,
 * -1, accepts anything) and whose element type passes `elementOk`. */
static void expectTensor(Verifier *v, MlirValue value, const char *what, int rank, const int64_t *dims,
                         bool (*elementOk)(MlirType), const char *elementName) {
  MlirType t = mlirValueGetType(value);
  if (!mlirTypeIsARankedTensor(t) || mlirShapedTypeGetRank(t) != rank) {
    fail(v, "%s must be a rank-%d tensor", what, rank);
    return;
  }
  if (!elementOk(mlirShapedTypeGetElementType(t)))
    fail(v, "%s must have %s elements", what, elementName);
  for (int i = 0; i < rank; ++i) {
    int64_t got = mlirShapedTypeGetDimSize(t, i);
    bool dynamic = mlirShapedTypeIsDynamicSize(got);
    if (dims[i] >= 0 && (dynamic || got != dims[i])) {
      char gotText[32];
      snprintf(gotText, sizeof gotText, dynamic ? "?" : "%lld", (long long)got);
      fail(v, "%s dim %d is %s, expected %lld", what, i, gotText, (long long)dims[i]);
    }
  }
}

static int64_t staticDim(MlirValue value, int i) {
  MlirType t = mlirValueGetType(value);
  if (!mlirTypeIsARankedTensor(t) || mlirShapedTypeGetRank(t) <= i)
    return -1;
  int64_t d = mlirShapedTypeGetDimSize(t, i);
  return mlirShapedTypeIsDynamicSize(d) ? -1 : d;
}

/* operandSegmentSizes = [x, weight, scales, bias, residual]; IRDL has checked its presence. */
static void optionalOperands(MlirOperation op, MlirValue *bias, MlirValue *residual) {
  MlirAttribute seg = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  *bias = *residual = (MlirValue){NULL};
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) || mlirDenseArrayGetNumElements(seg) != 5)
    return;
  intptr_t next = 3;
  if (mlirDenseI32ArrayGetElement(seg, 3))
    *bias = mlirOperationGetOperand(op, next++);
  if (mlirDenseI32ArrayGetElement(seg, 4))
    *residual = mlirOperationGetOperand(op, next);
}

static void verifyFusedMatmul(Verifier *v) {
  MlirOperation op = v->op;
  if (mlirOperationGetNumOperands(op) < 3 || mlirOperationGetNumResults(op) != 1) {
    fail(v, "needs operands (x, weight, scales[, bias][, residual]) and one result");
    return;
  }
  MlirValue x = mlirOperationGetOperand(op, 0), out = mlirOperationGetResult(op, 0);
  int64_t M = staticDim(x, 0), K = staticDim(x, 1), N = staticDim(out, 1);

  MlirAttribute group = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("group_size"));
  if (mlirAttributeIsNull(group) || !mlirAttributeIsAInteger(group) || mlirIntegerAttrGetValueInt(group) != kGroupSize)
    fail(v, "group_size must be 128 : i64");

  expectTensor(v, x, "x", 2, (int64_t[]){-1, -1}, isF16, "f16");
  expectTensor(v, out, "result", 2, (int64_t[]){M, -1}, isF16, "f16");
  if (!v->ok)
    return;
  if (K < 0 || N < 0) {
    fail(v, "K and N must be static");
    return;
  }
  if (K % kGroupSize != 0) {
    fail(v, "K = %lld is not a multiple of the group size %d", (long long)K, kGroupSize);
    return;
  }

  MlirValue weight = mlirOperationGetOperand(op, 1), scales = mlirOperationGetOperand(op, 2);
  if (stringAttrIs(op, "weight_layout", "packed_k8_n"))
    expectTensor(v, weight, "weight", 2, (int64_t[]){K / 8, N}, isI32, "i32");
  else if (stringAttrIs(op, "weight_layout", "k_n"))
    expectTensor(v, weight, "weight", 2, (int64_t[]){K, N}, isCodeContainer, "i4 or i8");
  else if (stringAttrIs(op, "weight_layout", "n_k"))
    expectTensor(v, weight, "weight", 2, (int64_t[]){N, K}, isCodeContainer, "i4 or i8");
  else
    fail(v, "weight_layout must be \"packed_k8_n\", \"k_n\" or \"n_k\"");

  if (stringAttrIs(op, "scales_layout", "g_n"))
    expectTensor(v, scales, "scales", 2, (int64_t[]){K / kGroupSize, N}, isF16, "f16");
  else if (stringAttrIs(op, "scales_layout", "n_g"))
    expectTensor(v, scales, "scales", 2, (int64_t[]){N, K / kGroupSize}, isF16, "f16");
  else
    fail(v, "scales_layout must be \"g_n\" or \"n_g\"");

  MlirValue bias, residual;
  optionalOperands(op, &bias, &residual);
  if (!mlirValueIsNull(bias))
    expectTensor(v, bias, "bias", 1, (int64_t[]){N}, isF16, "f16");
  if (!mlirValueIsNull(residual))
    expectTensor(v, residual, "residual", 2, (int64_t[]){M, N}, isF16, "f16");
}

/* w4a16.int8_prep: A (M, K) f16, CB (N, K) i8, SCB (N) f32, cols (L) i64 -> subA (M, L) f16, subB (L, N) f16.
 * A dim is checked against another only where both are static. */
static bool isI8(MlirType t) { return mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 8; }
static bool isI64(MlirType t) { return mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 64; }
static bool isF32(MlirType t) { return mlirTypeIsAF32(t); }

static void expectSameDim(Verifier *v, MlirValue a, int i, const char *aName, MlirValue b, int j, const char *bName) {
  int64_t x = staticDim(a, i), y = staticDim(b, j);
  if (x >= 0 && y >= 0 && x != y)
    fail(v, "%s dim %d is %lld but %s dim %d is %lld", aName, i, (long long)x, bName, j, (long long)y);
}

static void verifyInt8Prep(Verifier *v) {
  MlirOperation op = v->op;
  if (mlirOperationGetNumOperands(op) != 4 || mlirOperationGetNumResults(op) != 2) {
    fail(v, "needs operands (A, CB, SCB, cols) and results (subA, subB)");
    return;
  }
  MlirValue a = mlirOperationGetOperand(op, 0), cb = mlirOperationGetOperand(op, 1);
  MlirValue scb = mlirOperationGetOperand(op, 2), cols = mlirOperationGetOperand(op, 3);
  MlirValue subA = mlirOperationGetResult(op, 0), subB = mlirOperationGetResult(op, 1);
  const int64_t any2[2] = {-1, -1}, any1[1] = {-1};
  expectTensor(v, a, "A", 2, any2, isF16, "f16");
  expectTensor(v, cb, "CB", 2, any2, isI8, "i8");
  expectTensor(v, scb, "SCB", 1, any1, isF32, "f32");
  expectTensor(v, cols, "cols", 1, any1, isI64, "i64");
  expectTensor(v, subA, "subA", 2, any2, isF16, "f16");
  expectTensor(v, subB, "subB", 2, any2, isF16, "f16");
  if (!v->ok)
    return;
  expectSameDim(v, cb, 1, "CB", a, 1, "A");         /* K */
  expectSameDim(v, scb, 0, "SCB", cb, 0, "CB");     /* N */
  expectSameDim(v, subA, 0, "subA", a, 0, "A");     /* M */
  expectSameDim(v, subA, 1, "subA", cols, 0, "cols"); /* L */
  expectSameDim(v, subB, 0, "subB", cols, 0, "cols");
  expectSameDim(v, subB, 1, "subB", cb, 0, "CB");
}

static bool isInt8Prep(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length == strlen(W4A16_INT8_PREP_OP) && memcmp(name.data, W4A16_INT8_PREP_OP, name.length) == 0;
}

static MlirWalkResult verifyOne(MlirOperation op, void *userData) {
  Verifier *all = userData;
  if (w4a16IsFusedMatmul(op)) {
    Verifier v = {op, true};
    verifyFusedMatmul(&v);
    all->ok &= v.ok;
  } else if (isInt8Prep(op)) {
    Verifier v = {op, true};
    verifyInt8Prep(&v);
    all->ok &= v.ok;
  }
  return MlirWalkResultAdvance;
}

MlirLogicalResult w4a16VerifyOps(MlirOperation root) {
  Verifier all = {root, true};
  mlirOperationWalk(root, verifyOne, &all, MlirWalkPreOrder);
  return all.ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}
