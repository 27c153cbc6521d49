/* The part of the w4a16 ops' contract that IRDL cannot state: attribute values, shapes and element types, all
 * from contract.h (the runtime's rules, so that a verified op always runs). w4a16.merged_matmul checks each
 * member as a fused_matmul of its own, and how the members fill the operand slots.
 *
 *   activation, weight_layout, scales_layout: names from contract.h's table;
 *   x (M, K) and out (M, N) in one 16-bit float type T (f16 or bf16), K and N static and passing
 *   w4a16_check_shape(K, N, group_size); weight per weight_layout, scales per scales_layout in f16 or bf16
 *   (independently of T), bias (N) T, residual (M, N) T. */
#include "w4a16/contract.h"
#include "w4a16/dialect.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* The contract value that string attribute `attr` names in `name`'s table, or -1 with an error
 * listing the accepted names. */
static int enumAttr(Verifier *v, const char *attr, const char *(*name)(int)) {
  MlirAttribute a = mlirOperationGetAttributeByName(v->op, mlirStringRefCreateFromCString(attr));
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAString(a)) {
    MlirStringRef s = mlirStringAttrGetValue(a);
    int value = w4a16_value_of(name, s.data, s.length);
    if (value >= 0)
      return value;
  }
  char accepted[128] = "";
  for (int i = 0; name(i); ++i)
    snprintf(accepted + strlen(accepted), sizeof accepted - strlen(accepted), "%s\"%s\"", i ? ", " : "", name(i));
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAString(a)) {
    MlirStringRef s = mlirStringAttrGetValue(a);
    fail(v, "%s \"%.*s\" is not one of %s", attr, (int)s.length, s.data, accepted);
  } else {
    fail(v, "%s must be a string attribute, one of %s", attr, accepted);
  }
  return -1;
}

static bool isF16(MlirType t) { return mlirTypeIsAF16(t); }
static bool isBF16(MlirType t) { return mlirTypeIsABF16(t); }
bool w4a16IsActivationType(MlirType t) { return mlirTypeIsAF16(t) || mlirTypeIsABF16(t); }
bool w4a16IsScalesType(MlirType t) { return mlirTypeIsAF16(t) || mlirTypeIsABF16(t); }
static bool isCodeContainer(MlirType t) {
  return mlirTypeIsAInteger(t) && (mlirIntegerTypeGetWidth(t) == 4 || mlirIntegerTypeGetWidth(t) == 8);
}
static bool isI32(MlirType t) { return mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 32; }
static bool isI8(MlirType t) { return mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 8; }

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

/* operandSegmentSizes = [x, weight, scales, bias, residual, zero_points, g_idx]; IRDL has checked its
 * presence. optional[i] gets the operand of segment 3 + i, or null. */
enum { kNumOptionalOperands = 4 };
static void optionalOperands(MlirOperation op, MlirValue optional[kNumOptionalOperands]) {
  MlirAttribute seg = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  for (int i = 0; i < kNumOptionalOperands; ++i)
    optional[i] = (MlirValue){NULL};
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) != 3 + kNumOptionalOperands)
    return;
  intptr_t next = 3;
  for (int i = 0; i < kNumOptionalOperands; ++i)
    if (mlirDenseI32ArrayGetElement(seg, 3 + i))
      optional[i] = mlirOperationGetOperand(op, next++);
}

bool w4a16IsZeroPointType(MlirType t) {
  if (mlirTypeIsAInteger(t))
    return mlirIntegerTypeGetWidth(t) == 4 || mlirIntegerTypeGetWidth(t) == 8 || mlirIntegerTypeGetWidth(t) == 32;
  return mlirTypeIsAF16(t) || mlirTypeIsABF16(t) || mlirTypeIsAF32(t);
}

static bool hasAttr(MlirOperation op, const char *name) {
  return !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name)));
}

/* zero_points per zero_point_layout, or (without them) the constant zero_point exact in f16. */
static void verifyZeroPoints(Verifier *v, MlirValue zeroPoints, int64_t K, int64_t N, int64_t groupSize) {
  MlirOperation op = v->op;
  MlirAttribute offset = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("zero_point_offset"));
  if (!mlirAttributeIsNull(offset) && (!mlirAttributeIsAInteger(offset) || mlirIntegerAttrGetValueInt(offset) < 0 ||
                                        mlirIntegerAttrGetValueInt(offset) > 1))
    fail(v, "zero_point_offset must be 0 or 1 : i64");
  const bool integerZeroPoints =
      !mlirValueIsNull(zeroPoints) && mlirTypeIsAInteger(mlirShapedTypeGetElementType(mlirValueGetType(zeroPoints)));
  if (hasAttr(op, "zero_point_offset_wraps") && (mlirAttributeIsNull(offset) || !integerZeroPoints))
    fail(v, "zero_point_offset_wraps needs integer zero_points and zero_point_offset");
  if (hasAttr(op, "offsets_subtracted") && !hasAttr(op, "zero_points_are_offsets"))
    fail(v, "offsets_subtracted needs zero_points_are_offsets");
  if (hasAttr(op, "zero_points_signed") && (!hasAttr(op, "signed_codes") || !integerZeroPoints))
    fail(v, "zero_points_signed needs signed_codes and integer zero_points");
  MlirAttribute z = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("zero_point"));
  if (!mlirAttributeIsNull(z)) {
    double value = mlirAttributeIsAFloat(z) ? mlirFloatAttrGetValueDouble(z) : -1e9;
    if (!(value >= -64 && value <= 64 && value * 8 == (double)(int64_t)(value * 8)))
      fail(v, "zero_point must be a float exact in f16 (a multiple of 1/8 within [-64, 64])");
  }
  if (mlirValueIsNull(zeroPoints)) {
    if (hasAttr(op, "zero_point_layout"))
      fail(v, "zero_point_layout without a zero_points operand");
    return;
  }
  const int layout = enumAttr(v, "zero_point_layout", w4a16_zero_point_layout_name);
  const int64_t groups = K / groupSize;
  if (layout < 0)
    return;
  int64_t shape[2];
  w4a16_zp_shape(layout, groups, N, &shape[0], &shape[1]);
  const int packedIn = w4a16_zp_container_bits(layout);
  if (packedIn == 32)
    expectTensor(v, zeroPoints, "zero_points", 2, shape, isI32, "i32");
  else if (packedIn == 8)
    expectTensor(v, zeroPoints, "zero_points", 2, shape, isI8, "i8");
  else
    expectTensor(v, zeroPoints, "zero_points", 2, shape, w4a16IsZeroPointType, "i4, i8, i32, f16, bf16 or f32");
}

/* The attributes every matmul op of the dialect carries. */
typedef struct MatmulAttrs {
  int weightLayout, scalesLayout;
  int64_t groupSize;
} MatmulAttrs;

static MatmulAttrs verifyMatmulAttrs(Verifier *v) {
  MatmulAttrs a = {-1, -1, -1};
  enumAttr(v, "activation", w4a16_activation_name);
  a.weightLayout = enumAttr(v, "weight_layout", w4a16_weight_layout_name);
  a.scalesLayout = enumAttr(v, "scales_layout", w4a16_scales_layout_name);
  MlirAttribute group = mlirOperationGetAttributeByName(v->op, mlirStringRefCreateFromCString("group_size"));
  if (mlirAttributeIsNull(group) || !mlirAttributeIsAInteger(group) ||
      !w4a16_group_size_supported(a.groupSize = mlirIntegerAttrGetValueInt(group)))
    fail(v, "group_size must be 32, 64 or 128 : i64");
  return a;
}

/* One projection x (M, K) @ dequant(weight, scales) -> (M, N) with its optional operands (null: absent);
 * `what` names it in messages ("" for fused_matmul, "member 1: " for a merged op's second). */
typedef struct Projection {
  MlirValue weight, scales, bias, residual, zeroPoints, groupIndex;
} Projection;

static void verifyProjection(Verifier *v, const MatmulAttrs *a, MlirValue x, int64_t N, const Projection *p,
                             const char *what) {
  int64_t M = staticDim(x, 0), K = staticDim(x, 1);
  const bool bf16 = isBF16(mlirShapedTypeGetElementType(mlirValueGetType(x)));
  bool (*const ioType)(MlirType) = bf16 ? isBF16 : isF16;
  const char *const ioName = bf16 ? "bf16 (x's type)" : "f16 (x's type)";
  if (K < 0 || N < 0) {
    fail(v, "%sK and N must be static", what);
    return;
  }
  w4a16_shape_rule rule = w4a16_check_shape(K, N, a->groupSize);
  if (rule != W4A16_SHAPE_OK) {
    fail(v, "%sK = %lld, N = %lld, group size %lld: %s", what, (long long)K, (long long)N, (long long)a->groupSize,
         w4a16_shape_rule_text(rule));
    return;
  }
  int64_t rows, cols;
  w4a16_weight_shape(a->weightLayout, K, N, &rows, &cols);
  char name[64];
  snprintf(name, sizeof name, "%sweight", what);
  switch (w4a16_weight_container(a->weightLayout)) {
  case W4A16_CODES_IN_WORDS: expectTensor(v, p->weight, name, 2, (int64_t[]){rows, cols}, isI32, "i32"); break;
  case W4A16_CODES_IN_BYTE_PAIRS: expectTensor(v, p->weight, name, 2, (int64_t[]){rows, cols}, isI8, "i8"); break;
  default: expectTensor(v, p->weight, name, 2, (int64_t[]){rows, cols}, isCodeContainer, "i4 or i8");
  }
  const int64_t groups = K / a->groupSize;
  snprintf(name, sizeof name, "%sscales", what);
  if (a->scalesLayout == W4A16_SCALES_G_N)
    expectTensor(v, p->scales, name, 2, (int64_t[]){groups, N}, w4a16IsScalesType, "f16 or bf16");
  else
    expectTensor(v, p->scales, name, 2, (int64_t[]){N, groups}, w4a16IsScalesType, "f16 or bf16");
  snprintf(name, sizeof name, "%sbias", what);
  if (!mlirValueIsNull(p->bias))
    expectTensor(v, p->bias, name, 1, (int64_t[]){N}, ioType, ioName);
  if (!mlirValueIsNull(p->residual))
    expectTensor(v, p->residual, "residual", 2, (int64_t[]){M, N}, ioType, ioName);
  verifyZeroPoints(v, p->zeroPoints, K, N, a->groupSize);
  /* each group holding group_size rows is a property of g_idx's values, checked when the runtime prepares it */
  if (!mlirValueIsNull(p->groupIndex))
    expectTensor(v, p->groupIndex, "g_idx", 1, (int64_t[]){K}, isI32, "i32");
}

/* x (M, K) f16 or bf16, and `out` (M, any) of x's type. */
static void verifyIo(Verifier *v, MlirValue x, MlirValue out, const char *outName) {
  expectTensor(v, x, "x", 2, (int64_t[]){-1, -1}, w4a16IsActivationType, "f16 or bf16");
  if (!v->ok)
    return;
  /* x's element type is the op's: out, bias and residual must have it too. */
  const bool bf16 = isBF16(mlirShapedTypeGetElementType(mlirValueGetType(x)));
  expectTensor(v, out, outName, 2, (int64_t[]){staticDim(x, 0), -1}, bf16 ? isBF16 : isF16,
               bf16 ? "bf16 (x's type)" : "f16 (x's type)");
}

static void verifyFusedMatmul(Verifier *v) {
  MlirOperation op = v->op;
  if (mlirOperationGetNumOperands(op) < 3 || mlirOperationGetNumResults(op) != 1) {
    fail(v, "needs operands (x, weight, scales[, bias][, residual][, zero_points][, g_idx]) and one result");
    return;
  }
  MlirValue x = mlirOperationGetOperand(op, 0), out = mlirOperationGetResult(op, 0);
  MatmulAttrs a = verifyMatmulAttrs(v);
  verifyIo(v, x, out, "result");
  if (!v->ok)
    return;
  MlirValue optional[kNumOptionalOperands];
  optionalOperands(op, optional);
  Projection p = {mlirOperationGetOperand(op, 1), mlirOperationGetOperand(op, 2), optional[0], optional[1],
                  optional[2], optional[3]};
  verifyProjection(v, &a, x, staticDim(out, 1), &p, "");
}

/* w4a16.merged_matmul: n members in slots 0..n-1 (w4a16MergedSlots), zero points and biases for none or all;
 * n results ("outputs") or one ("glu": n = 2, gate then up, the result (M, N) with N each member's). */
static void verifyMergedMatmul(Verifier *v) {
  MlirOperation op = v->op;
  MlirAttribute combine = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("combine"));
  const bool glu = !mlirAttributeIsNull(combine) && mlirAttributeIsAString(combine) &&
                   mlirStringRefEqual(mlirStringAttrGetValue(combine), mlirStringRefCreateFromCString("glu"));
  if (!glu && (mlirAttributeIsNull(combine) || !mlirAttributeIsAString(combine) ||
               !mlirStringRefEqual(mlirStringAttrGetValue(combine), mlirStringRefCreateFromCString("outputs")))) {
    fail(v, "combine must be \"outputs\" or \"glu\"");
    return;
  }
  W4a16MergedSlots slots;
  const bool slotsOk = w4a16MergedSlots(op, &slots);
  const int32_t n = slots.members, numZeroPoints = slots.zeroPoints, numBiases = slots.biases;
  const intptr_t numResults = mlirOperationGetNumResults(op);
  if (!slotsOk || n < 2 || n > W4A16_MAX_MERGED || slots.scales != n ||
      (numZeroPoints != 0 && numZeroPoints != n) || (numBiases != 0 && numBiases != n) ||
      numResults != (glu ? 1 : n) || (glu && n != 2)) {
    fail(v, "needs x, 2 to %d weights in slots from 0, as many scales, zero_points for none or all, biases for none "
            "or all, and a result per weight (combine \"outputs\") or, for \"glu\", two weights and one result",
         W4A16_MAX_MERGED);
    return;
  }
  MlirValue x = mlirOperationGetOperand(op, 0);
  MatmulAttrs a = verifyMatmulAttrs(v);
  for (intptr_t r = 0; r < numResults && v->ok; ++r)
    verifyIo(v, x, mlirOperationGetResult(op, r), "result");
  for (int32_t i = 0; i < n && v->ok; ++i) {
    Projection p = {mlirOperationGetOperand(op, 1 + i), mlirOperationGetOperand(op, 1 + n + i),
                    numBiases ? mlirOperationGetOperand(op, 1 + 2 * n + numZeroPoints + i) : (MlirValue){NULL},
                    (MlirValue){NULL}, numZeroPoints ? mlirOperationGetOperand(op, 1 + 2 * n + i) : (MlirValue){NULL},
                    (MlirValue){NULL}};
    char what[32];
    snprintf(what, sizeof what, "member %d: ", (int)i);
    verifyProjection(v, &a, x, staticDim(mlirOperationGetResult(op, glu ? 0 : i), 1), &p, what);
  }
}

/* w4a16.int8_prep: A (M, K) f16, CB (N, K) i8, SCB (N) f32, cols (L) i64 -> subA (M, L) f16, subB (L, N) f16.
 * A dim is checked against another only where both are static. */
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

static MlirWalkResult verifyOne(MlirOperation op, void *userData) {
  Verifier *all = userData;
  if (w4a16IsFusedMatmul(op)) {
    Verifier v = {op, true};
    verifyFusedMatmul(&v);
    all->ok &= v.ok;
  } else if (w4a16IsMergedMatmul(op)) {
    Verifier v = {op, true};
    verifyMergedMatmul(&v);
    all->ok &= v.ok;
  } else if (w4a16IsInt8Prep(op)) {
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
