/* Scalar interpreter for linalg bodies and arith/math ops; see eval.h. */
#include "eval.h"
#include "half.h" /* the runtime's f16 / bf16 decoding (runtime/src) */

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <string.h>

enum { kEvalBudget = 200000, kBodyCache = 64, kMaxDepth = 200 };

Scalar floatScalar(double f) { return (Scalar){.f = f}; }

static uint64_t mask(uint64_t bits, int width) {
  return width >= 64 ? bits : bits & ((UINT64_C(1) << width) - 1);
}
Scalar intScalar(uint64_t bits, int width) { return (Scalar){.bits = mask(bits, width), .width = width}; }

int64_t scalarSigned(Scalar s) {
  if (s.width >= 64 || s.width == 0)
    return (int64_t)s.bits;
  uint64_t sign = UINT64_C(1) << (s.width - 1);
  return (int64_t)((s.bits ^ sign) - sign);
}

void evalInit(Evaluator *ev, bool (*seeThrough)(Evaluator *, MlirOperation),
               Scalar (*leafValue)(Evaluator *, MlirValue, const int64_t *), void *user) {
  memset(ev, 0, sizeof *ev);
  ev->seeThrough = seeThrough;
  ev->leafValue = leafValue;
  ev->user = user;
  ev->budget = kEvalBudget;
}

void evalReset(Evaluator *ev) {
  ev->numReads = 0;
  ev->error = NULL;
}

const char kEvalTooLarge[] = "expression too large to analyse";

static Scalar fail(Evaluator *ev, const char *why) {
  if (!ev->error)
    ev->error = why;
  return floatScalar(0);
}

static void touch(Evaluator *ev, MlirOperation op) {
  for (int i = 0; i < ev->numTouched; ++i)
    if (opEq(ev->touched[i], op))
      return;
  if (ev->numTouched < kMaxTouched)
    ev->touched[ev->numTouched++] = op;
}

/* --- scalar semantics of arith/math ops ------------------------------------------------------- */

static bool nameIs(const char *name, const char *want) { return strcmp(name, want) == 0; }

/* arith.maximumf: IEEE 754-2019 maximum, which propagates NaN (C's fmax ignores it) and orders -0 < +0. */
static double maximumf(double a, double b) {
  if (isnan(a) || isnan(b))
    return NAN;
  if (a == b)
    return signbit(a) ? b : a;
  return a > b ? a : b;
}

static bool cmpf(int64_t predicate, double a, double b) {
  bool unordered = isnan(a) || isnan(b);
  switch (predicate) {
  case 0: return false;
  case 1: return !unordered && a == b;
  case 2: return !unordered && a > b;
  case 3: return !unordered && a >= b;
  case 4: return !unordered && a < b;
  case 5: return !unordered && a <= b;
  case 6: return !unordered && a != b;
  case 7: return !unordered;
  case 8: return unordered || a == b;
  case 9: return unordered || a > b;
  case 10: return unordered || a >= b;
  case 11: return unordered || a < b;
  case 12: return unordered || a <= b;
  case 13: return unordered || a != b;
  case 14: return unordered;
  default: return true;
  }
}

static bool cmpi(int64_t predicate, Scalar a, Scalar b) {
  int64_t sa = scalarSigned(a), sb = scalarSigned(b);
  switch (predicate) {
  case 0: return a.bits == b.bits;
  case 1: return a.bits != b.bits;
  case 2: return sa < sb;
  case 3: return sa <= sb;
  case 4: return sa > sb;
  case 5: return sa >= sb;
  case 6: return a.bits < b.bits;
  case 7: return a.bits <= b.bits;
  case 8: return a.bits > b.bits;
  default: return a.bits >= b.bits;
  }
}

static int64_t predicateOf(MlirOperation op) {
  MlirAttribute p = attr(op, "predicate");
  return mlirAttributeIsNull(p) ? -1 : mlirIntegerAttrGetValueInt(p);
}

static bool constantScalar(MlirAttribute a, MlirType type, Scalar *out) {
  if (mlirAttributeIsADenseElements(a)) {
    if (!mlirDenseElementsAttrIsSplat(a))
      return false;
    a = mlirDenseElementsAttrGetSplatValue(a);
  }
  if (mlirAttributeIsAFloat(a)) {
    *out = floatScalar(mlirFloatAttrGetValueDouble(a));
    return true;
  }
  if (mlirAttributeIsAInteger(a)) {
    int width = intWidth(mlirAttributeGetType(a));
    *out = intScalar((uint64_t)mlirIntegerAttrGetValueInt(a), width ? width : intWidth(type));
    return true;
  }
  if (mlirAttributeIsABool(a)) {
    *out = intScalar(mlirBoolAttrGetValue(a), 1);
    return true;
  }
  return false;
}

/* --- IEEE rounding of float results (Evaluator.ieeeRounding) --------------------------------------- */

/* x rounded to nearest even with `mantissa` explicit significand bits and exponent range [minExp, maxExp]
 * of normal numbers (subnormals below, infinity above), for formats narrower than double. */
static double roundToFormat(double x, int mantissa, int minExp, int maxExp) {
  if (x == 0 || isnan(x) || isinf(x))
    return x;
  int e;
  frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
  int exp = e - 1 < minExp ? minExp : e - 1;
  double quantum = ldexp(1.0, exp - mantissa);
  double r = nearbyint(x / quantum) * quantum; /* x / quantum is exact: a power of two */
  if (fabs(r) >= ldexp(1.0, maxExp + 1)) /* rounded past the largest finite value */
    return copysign(INFINITY, x);
  return r;
}

double roundToType(double x, MlirType t) {
  if (mlirTypeIsAF32(t))
    return (double)(float)x;
  if (mlirTypeIsAF16(t))
    return roundToFormat(x, 10, -14, 15);
  if (mlirTypeIsABF16(t))
    return roundToFormat(x, 7, -126, 127);
  return x; /* f64, and formats this interpreter does not model */
}

static Scalar applyOpExact(Evaluator *ev, MlirOperation op, const Scalar *x, intptr_t n, MlirType resultType);

/* arith.bitcast of integer bits to f16, bf16 or f32: the "magic number" int4 -> f16 conversion of GPU kernels
 * (FasterTransformer, Marlin: the bits 0x6400 | q are the f16 1024 + q). The other direction reads a float's
 * encoding, which the formula does not model. */
static Scalar bitcastToFloat(Evaluator *ev, Scalar v, MlirType to) {
  if (mlirTypeIsAF16(to) && v.width == 16)
    return floatScalar(w4a16_h2f((uint16_t)v.bits));
  if (mlirTypeIsABF16(to) && v.width == 16)
    return floatScalar(w4a16_bf2f((uint16_t)v.bits));
  if (mlirTypeIsAF32(to) && v.width == 32) {
    const uint32_t word = (uint32_t)v.bits;
    float f;
    memcpy(&f, &word, sizeof f);
    return floatScalar(f);
  }
  return fail(ev, "a bitcast other than integer bits to f16, bf16 or f32");
}

/* Applies a scalar arith/math op to already evaluated operands. */
static Scalar applyOp(Evaluator *ev, MlirOperation op, const Scalar *x, intptr_t n, MlirType resultType) {
  MlirType element = mlirTypeIsAShaped(resultType) ? mlirShapedTypeGetElementType(resultType) : resultType;
  /* Values are exact in double and rounded (ieeeRounding) to f32, f16 or bf16 only: a computation through
   * a narrower float (f8 say) would be taken as exact and pass for the formula. */
  if (isFloat(element) && !mlirTypeIsAF64(element) && !mlirTypeIsAF32(element) && !mlirTypeIsAF16(element) &&
      !mlirTypeIsABF16(element))
    return fail(ev, "computes in a float type narrower than f16 and bf16 (f8?), which the formula does not model");
  Scalar s = applyOpExact(ev, op, x, n, resultType);
  if (ev->ieeeRounding && s.width == 0 && isFloat(element))
    s.f = roundToType(s.f, element);
  return s;
}

static Scalar applyOpExact(Evaluator *ev, MlirOperation op, const Scalar *x, intptr_t n, MlirType resultType) {
  char name[64];
  opName(op, name, sizeof name);
  int w = intWidth(resultType);
  if (nameIs(name, "arith.constant")) {
    Scalar s;
    if (constantScalar(attr(op, "value"), resultType, &s))
      return s;
    return fail(ev, "non-splat constant");
  }
  if (n == 1) {
    double a = x[0].f;
    if (nameIs(name, "arith.negf")) return floatScalar(-a);
    if (nameIs(name, "arith.extf") || nameIs(name, "arith.truncf")) return floatScalar(a);
    if (nameIs(name, "math.exp")) return floatScalar(exp(a));
    if (nameIs(name, "math.exp2")) return floatScalar(exp2(a));
    if (nameIs(name, "math.expm1")) return floatScalar(expm1(a));
    if (nameIs(name, "math.log")) return floatScalar(log(a));
    if (nameIs(name, "math.log1p")) return floatScalar(log1p(a));
    if (nameIs(name, "math.log2")) return floatScalar(log2(a));
    if (nameIs(name, "math.tanh")) return floatScalar(tanh(a));
    if (nameIs(name, "math.sqrt")) return floatScalar(sqrt(a));
    if (nameIs(name, "math.rsqrt")) return floatScalar(1.0 / sqrt(a));
    if (nameIs(name, "math.absf")) return floatScalar(fabs(a));
    if (nameIs(name, "math.erf")) return floatScalar(erf(a));
    if (nameIs(name, "math.sin")) return floatScalar(sin(a));
    if (nameIs(name, "math.cos")) return floatScalar(cos(a));
    if (nameIs(name, "math.floor")) return floatScalar(floor(a));
    if (nameIs(name, "math.ceil")) return floatScalar(ceil(a));
    if (nameIs(name, "arith.uitofp")) return floatScalar((double)x[0].bits);
    if (nameIs(name, "arith.bitcast"))
      return bitcastToFloat(ev, x[0], mlirTypeIsAShaped(resultType) ? mlirShapedTypeGetElementType(resultType) : resultType);
    if (nameIs(name, "arith.sitofp")) return floatScalar((double)scalarSigned(x[0]));
    if (nameIs(name, "arith.fptoui") || nameIs(name, "arith.fptosi")) return intScalar((uint64_t)(int64_t)a, w);
    if (nameIs(name, "arith.extui") || nameIs(name, "arith.index_castui") || nameIs(name, "arith.trunci"))
      return intScalar(x[0].bits, w);
    if (nameIs(name, "arith.extsi") || nameIs(name, "arith.index_cast"))
      return intScalar((uint64_t)scalarSigned(x[0]), w);
  }
  if (n == 2) {
    double a = x[0].f, b = x[1].f;
    Scalar p = x[0], q = x[1];
    if (nameIs(name, "arith.addf")) return floatScalar(a + b);
    if (nameIs(name, "arith.subf")) return floatScalar(a - b);
    if (nameIs(name, "arith.mulf")) return floatScalar(a * b);
    if (nameIs(name, "arith.divf")) return floatScalar(a / b);
    if (nameIs(name, "arith.remf")) return floatScalar(fmod(a, b));
    if (nameIs(name, "arith.maximumf")) return floatScalar(maximumf(a, b));
    if (nameIs(name, "arith.minimumf")) return floatScalar(-maximumf(-a, -b));
    if (nameIs(name, "arith.maxnumf")) return floatScalar(fmax(a, b)); /* NaN-ignoring */
    if (nameIs(name, "arith.minnumf")) return floatScalar(fmin(a, b));
    if (nameIs(name, "math.powf")) return floatScalar(pow(a, b));
    if (nameIs(name, "math.fpowi")) return floatScalar(pow(a, (double)scalarSigned(q)));
    if (nameIs(name, "math.copysign")) return floatScalar(copysign(a, b));
    if (nameIs(name, "arith.cmpf")) return intScalar(cmpf(predicateOf(op), a, b), 1);
    if (nameIs(name, "arith.cmpi")) return intScalar(cmpi(predicateOf(op), p, q), 1);
    if (nameIs(name, "arith.addi")) return intScalar(p.bits + q.bits, w);
    if (nameIs(name, "arith.subi")) return intScalar(p.bits - q.bits, w);
    if (nameIs(name, "arith.muli")) return intScalar(p.bits * q.bits, w);
    if (nameIs(name, "arith.andi")) return intScalar(p.bits & q.bits, w);
    if (nameIs(name, "arith.ori")) return intScalar(p.bits | q.bits, w);
    if (nameIs(name, "arith.xori")) return intScalar(p.bits ^ q.bits, w);
    bool shift = nameIs(name, "arith.shli") || nameIs(name, "arith.shrui") || nameIs(name, "arith.shrsi");
    /* arith's shifts by the bit width or more are poison: what the compiled code computes is not defined, so
     * no formula may be read from them (a mutated unpack shifting by -1 fused as a plain unpack). */
    if (shift && q.bits >= (uint64_t)w)
      return fail(ev, "a shift by at least the bit width (poison in arith)");
    if (nameIs(name, "arith.shli")) return intScalar(p.bits << q.bits, w);
    if (nameIs(name, "arith.shrui")) return intScalar(p.bits >> q.bits, w);
    if (nameIs(name, "arith.shrsi")) return intScalar((uint64_t)(scalarSigned(p) >> (int)q.bits), w);
    if (nameIs(name, "arith.maxsi")) return scalarSigned(p) >= scalarSigned(q) ? p : q;
    if (nameIs(name, "arith.minsi")) return scalarSigned(p) <= scalarSigned(q) ? p : q;
    if (nameIs(name, "arith.maxui")) return p.bits >= q.bits ? p : q;
    if (nameIs(name, "arith.minui")) return p.bits <= q.bits ? p : q;
    bool divide = nameIs(name, "arith.divui") || nameIs(name, "arith.divsi") || nameIs(name, "arith.remui") ||
                  nameIs(name, "arith.remsi") || nameIs(name, "arith.floordivsi") || nameIs(name, "arith.ceildivsi");
    if (divide && q.bits == 0)
      return fail(ev, "division by zero");
    /* The signed minimum over -1 overflows: undefined in arith, and a trap in the host's own division. */
    const bool signedDivide = divide && !nameIs(name, "arith.divui") && !nameIs(name, "arith.remui");
    if (signedDivide && w > 0 && scalarSigned(q) == -1 && p.bits == (uint64_t)1 << (w - 1))
      return fail(ev, "a signed division of the minimum by -1 (overflow, undefined in arith)");
    if (nameIs(name, "arith.divui")) return intScalar(p.bits / q.bits, w);
    if (nameIs(name, "arith.remui")) return intScalar(p.bits % q.bits, w);
    if (nameIs(name, "arith.divsi")) return intScalar((uint64_t)(scalarSigned(p) / scalarSigned(q)), w);
    if (nameIs(name, "arith.remsi")) return intScalar((uint64_t)(scalarSigned(p) % scalarSigned(q)), w);
    if (nameIs(name, "arith.floordivsi")) {
      int64_t a0 = scalarSigned(p), b0 = scalarSigned(q);
      return intScalar((uint64_t)(a0 / b0 - ((a0 % b0 != 0) && ((a0 < 0) != (b0 < 0)))), w);
    }
    if (nameIs(name, "arith.ceildivsi")) {
      int64_t a0 = scalarSigned(p), b0 = scalarSigned(q);
      return intScalar((uint64_t)(a0 / b0 + ((a0 % b0 != 0) && ((a0 < 0) == (b0 < 0)))), w);
    }
  }
  if (n == 3) {
    if (nameIs(name, "arith.select")) return x[0].bits ? x[1] : x[2];
    if (nameIs(name, "math.fma")) return floatScalar(x[0].f * x[1].f + x[2].f);
  }
  return fail(ev, "unsupported op in an elementwise computation");
}

/* --- values outside any body: scalar constants and arith ops on them -------------------------- */

static Scalar evalScalar(Evaluator *ev, MlirValue v, int depth) {
  MlirOperation p = producer(v);
  if (mlirOperationIsNull(p) || depth > 32)
    return fail(ev, "depends on a scalar known only at run time");
  if (!opInDialect(p, "arith") && !opInDialect(p, "math"))
    return fail(ev, "depends on a scalar known only at run time");
  intptr_t n = mlirOperationGetNumOperands(p);
  if (n > 3)
    return fail(ev, "unsupported op in an elementwise computation");
  Scalar x[3];
  for (intptr_t i = 0; i < n; ++i)
    x[i] = evalScalar(ev, mlirOperationGetOperand(p, i), depth + 1);
  return applyOp(ev, p, x, n, mlirValueGetType(v));
}

/* --- bodies of linalg ops --------------------------------------------------------------------- */

typedef struct BodyFrame {
  Evaluator *ev;
  const LinalgView *view;
  const int64_t *iter;
  MlirOperation cachedOp[kBodyCache];
  Scalar cachedValue[kBodyCache];
  int numCached;
} BodyFrame;

static Scalar evalInBody(BodyFrame *f, MlirValue v);

bool constantIntElement(MlirValue tensor, const int64_t *idx, Scalar *out) {
  MlirOperation p = producer(tensor);
  if (mlirOperationIsNull(p) || !opIs(p, "arith.constant"))
    return false;
  MlirAttribute table = attr(p, "value");
  MlirType element = elementTypeOf(tensor);
  const int width = mlirTypeIsAIndex(element) ? 64 : intWidth(element);
  if (!mlirAttributeIsADenseIntElements(table) || (width != 8 && width != 16 && width != 32 && width != 64) ||
      numElements(tensor) < 0)
    return false;
  int64_t linear = 0;
  for (int i = 0; i < rankOf(tensor); ++i)
    linear = linear * dimOf(tensor, i) + idx[i];
  const intptr_t pos = mlirDenseElementsAttrIsSplat(table) ? 0 : (intptr_t)linear;
  const int64_t value = mlirTypeIsAIndex(element) ? (int64_t)mlirDenseElementsAttrGetIndexValue(table, pos)
                        : width == 8  ? mlirDenseElementsAttrGetInt8Value(table, pos)
                        : width == 16 ? mlirDenseElementsAttrGetInt16Value(table, pos)
                        : width == 32 ? mlirDenseElementsAttrGetInt32Value(table, pos)
                                      : mlirDenseElementsAttrGetInt64Value(table, pos);
  *out = intScalar((uint64_t)value, width);
  return true;
}

static void noteIndexTable(Evaluator *ev, MlirValue tensor) {
  if (numElements(tensor) > 16 && mlirValueIsNull(ev->indexTable))
    ev->indexTable = tensor;
}

/* A constant integer table of at most 16 elements, or a 1-D one, is index arithmetic whatever reads it
 * (AWQ's nibble order and the per-nibble shifts torch-mlir materialises for GPTQ's `qweight >> wf`; a
 * constant g_idx = k / G that torch-mlir's aten.index lowering passes to a linalg op as an operand): the
 * data a chain reads -- codes, zero points -- has a K (or group) and an N dim, and more than 16 elements.
 * Its values are evaluated, not made up as a leaf's. */
static bool smallIndexTable(MlirValue tensor, const int64_t *idx, Scalar *out) {
  return numElements(tensor) >= 0 && (numElements(tensor) <= 16 || rankOf(tensor) == 1) &&
         constantIntElement(tensor, idx, out);
}

/* Whether `extract` (reading `tensor` at idx) takes an element of a constant integer table that the
 * computation uses as an index -- GPTQ's g_idx = k / G as a dense constant, say -- or of a small table
 * (smallIndexTable), and if so, its value. Such tables are part of the index arithmetic, not data: their
 * values are evaluated, where a constant weight (whose elements are not indices) stays a leaf. */
static bool indexTableElement(MlirOperation extract, MlirValue tensor, const int64_t *idx, Scalar *out) {
  if (smallIndexTable(tensor, idx, out))
    return true;
  bool usedAsIndex = false;
  MlirValue v = mlirOperationGetResult(extract, 0);
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    usedAsIndex |= opIs(user, "arith.index_cast") || opIs(user, "arith.index_castui") ||
                   (opIs(user, "tensor.extract") && mlirOpOperandGetOperandNumber(u) > 0);
  }
  return usedAsIndex && constantIntElement(tensor, idx, out);
}

/* What result "decides" at h's point: its bits; with `first` (a min / max's first operand), whether it picks that
 * operand. */
static uint64_t decisionAt(BodyFrame *h, MlirValue result, MlirValue first) {
  const uint64_t bits = evalInBody(h, result).bits;
  return mlirValueIsNull(first) ? bits : bits == evalInBody(h, first).bits;
}

/* Whether condition `result` (an i1 that decides a value: a select's condition, or a boolean turned into a number)
 * in f's body, if it depends on the iteration point alone, is the same at every value of each loop (the others
 * held at f's point; dynamic loops over 0..63). Data-dependent conditions (`code >= 8`, say) are the formula's
 * business and pass; so do comparisons of positions that no value depends on in the end (the `k < 0` fix-up of an
 * expanded floordivsi, false at every k). With `first`, result is an integer min / max, and what must not change is
 * which operand it picks. Each condition is scanned once per evaluator. */
static bool positionInvariant(BodyFrame *f, MlirValue result, MlirValue first) {
  Evaluator *ev = f->ev;
  for (int i = 0; i < ev->numCheckedConditions; ++i)
    if (valueEq(ev->checkedConditions[i], result))
      return true;
  if (ev->numCheckedConditions == (int)(sizeof ev->checkedConditions / sizeof ev->checkedConditions[0]))
    return false; /* more position tests than a dequantisation or an epilogue has: do not guess */
  ev->checkedConditions[ev->numCheckedConditions++] = result;
  const int readsBefore = ev->numReads;
  const long budget = ev->budget;
  ev->budget = kEvalBudget * 64L;
  int64_t iter[kMaxRank];
  memcpy(iter, f->iter, sizeof iter);
  BodyFrame g = {.ev = ev, .view = f->view, .iter = iter};
  const uint64_t here = decisionAt(&g, result, first);
  bool invariant = true;
  if (ev->numReads == readsBefore) { /* positions only */
    for (int d = 0; d < f->view->numLoops && invariant && !ev->error; ++d) {
      const int64_t range = f->view->loopRange[d] < 0 ? 64 : f->view->loopRange[d];
      for (int64_t at = 0; at < range && invariant && !ev->error; ++at) {
        iter[d] = at;
        BodyFrame h = {.ev = ev, .view = f->view, .iter = iter};
        invariant = decisionAt(&h, result, first) == here && ev->numReads == readsBefore;
      }
      iter[d] = f->iter[d];
    }
  }
  ev->numReads = readsBefore; /* the probe's reads are not the chain's */
  ev->budget = budget;
  return invariant || ev->error;
}

/* The i1 operand through which op's value depends on a condition (a select's condition; the operand of a cast from
 * i1), or a null value. Boolean ops (andi, ori, xori on i1) only combine conditions: the one they make is checked
 * where it decides a value. */
static MlirValue decidingCondition(MlirOperation op) {
  const bool select = opIs(op, "arith.select");
  if (!select && !opIs(op, "arith.extui") && !opIs(op, "arith.extsi") && !opIs(op, "arith.uitofp") &&
      !opIs(op, "arith.sitofp") && !opIs(op, "arith.index_cast") && !opIs(op, "arith.index_castui"))
    return (MlirValue){NULL};
  const MlirValue condition = mlirOperationGetOperand(op, 0);
  return intWidth(mlirValueGetType(condition)) == 1 ? condition : (MlirValue){NULL};
}

/* Condition c at f's point (0 or 1) when it depends on positions alone; -1 when it reads data. */
static int positionsOnlyCondition(BodyFrame *f, MlirValue c) {
  const int readsBefore = f->ev->numReads;
  const int value = (int)(evalInBody(f, c).bits & 1);
  const bool positionsOnly = f->ev->numReads == readsBefore;
  f->ev->numReads = readsBefore; /* the probe's reads are not the chain's */
  return positionsOnly ? value : -1;
}

/* Whether condition c (an i1 of f's body) changes with the iteration point: a comparison of positions that is not
 * the same over each loop's range, or a boolean combination of such. A conjunct that is false (a disjunct that is
 * true) at every point decides the combination alone: an expanded floordivsi's `k % 8 != 0 && k < 0` never holds. */
static bool conditionVaries(BodyFrame *f, MlirValue c, int depth) {
  MlirOperation def = mlirValueIsABlockArgument(c) ? (MlirOperation){NULL} : producer(c);
  const bool conjunction = !mlirOperationIsNull(def) && opIs(def, "arith.andi");
  if (depth < 8 && (conjunction || (!mlirOperationIsNull(def) && opIs(def, "arith.ori")))) {
    const MlirValue a = mlirOperationGetOperand(def, 0), b = mlirOperationGetOperand(def, 1);
    const bool variesA = conditionVaries(f, a, depth + 1), variesB = conditionVaries(f, b, depth + 1);
    const bool decisive = !conjunction; /* false decides an and, true an or */
    if ((!variesA && positionsOnlyCondition(f, a) == (int)decisive) ||
        (!variesB && positionsOnlyCondition(f, b) == (int)decisive))
      return false;
    return variesA || variesB;
  }
  return !positionInvariant(f, c, (MlirValue){NULL});
}

static bool isIntegerMinMax(MlirOperation op) {
  return opIs(op, "arith.minsi") || opIs(op, "arith.minui") || opIs(op, "arith.maxsi") || opIs(op, "arith.maxui");
}

static Scalar evalBodyOp(BodyFrame *f, MlirOperation op, MlirValue v) {
  Evaluator *ev = f->ev;
  const MlirValue condition = ev->positionInvariantConditions ? decidingCondition(op) : (MlirValue){NULL};
  if (!mlirValueIsNull(condition) && conditionVaries(f, condition, 0))
    return fail(ev, "a comparison of positions computes another formula at some rows, columns or k");
  /* an integer min / max is a comparison too: a clamp of positions must clamp everywhere or nowhere */
  if (ev->positionInvariantConditions && isIntegerMinMax(op) &&
      !positionInvariant(f, v, mlirOperationGetOperand(op, 0)))
    return fail(ev, "a min / max of positions computes another formula at some rows, columns or k");
  if (opIs(op, "linalg.index")) {
    int64_t dim = mlirIntegerAttrGetValueInt(attr(op, "dim"));
    return intScalar((uint64_t)f->iter[dim], 64);
  }
  if (opIs(op, "affine.apply")) { /* index arithmetic some lowerings leave in bodies (torch-mlir's gathers) */
    MlirAttribute mapAttr = attr(op, "map");
    if (mlirAttributeIsNull(mapAttr) || !mlirAttributeIsAAffineMap(mapAttr))
      return fail(ev, "affine.apply without a map");
    MlirAffineMap map = mlirAffineMapAttrGetValue(mapAttr);
    const intptr_t numDims = mlirAffineMapGetNumDims(map), n = mlirOperationGetNumOperands(op);
    int64_t operands[2 * kMaxRank];
    if (n > 2 * kMaxRank || n != numDims + mlirAffineMapGetNumSymbols(map) || mlirAffineMapGetNumResults(map) != 1)
      return fail(ev, "unsupported affine.apply");
    for (intptr_t i = 0; i < n; ++i)
      operands[i] = (int64_t)evalInBody(f, mlirOperationGetOperand(op, i)).bits;
    return intScalar((uint64_t)evalAffineExprWith(mlirAffineMapGetResult(map, 0), operands, operands + numDims), 64);
  }
  if (opIs(op, "tensor.extract")) {
    MlirValue tensor = mlirOperationGetOperand(op, 0);
    int64_t idx[kMaxRank];
    intptr_t n = mlirOperationGetNumOperands(op) - 1;
    if (n > kMaxRank)
      return fail(ev, "tensor.extract of too high a rank");
    const int readsBefore = ev->numReads;
    int runtimeDim = -1; /* the first index read from a tensor */
    for (intptr_t i = 0; i < n; ++i) {
      const int before = ev->numReads;
      idx[i] = (int64_t)evalInBody(f, mlirOperationGetOperand(op, i + 1)).bits;
      if (runtimeDim < 0 && ev->numReads > before)
        runtimeDim = (int)i;
    }
    /* An index read from a tensor that is not a constant: a gather whose positions are only known at
     * run time (act-order GPTQ's g_idx), not an index the IR computes -- unless it is the group index the
     * matcher is trying. */
    bool fromGroupIndex = !mlirValueIsNull(ev->groupIndex);
    for (int r = readsBefore; r < ev->numReads; ++r)
      fromGroupIndex &= valueEq(ev->reads[r].tensor, ev->groupIndex);
    if (ev->indicesFromConstantsOnly && runtimeDim >= 0 && !fromGroupIndex) {
      MlirOperation table = producer(tensor);
      if (!mlirOperationIsNull(table) && opIs(table, "arith.constant"))
        return fail(ev, "data index a constant table (a code book such as NF4 or FP4: its entries, not (code - z) "
                        "* scale, are the weights)");
      for (int r = readsBefore; r < ev->numReads && mlirValueIsNull(ev->runtimeIndex); ++r)
        if (!valueEq(ev->reads[r].tensor, ev->groupIndex))
          ev->runtimeIndex = ev->reads[r].tensor;
      ev->runtimeIndexRange = dimOf(tensor, runtimeDim);
      ev->runtimeIndexed = tensor;
      return fail(ev, "an index is read from a runtime tensor (a gather such as act-order g_idx)");
    }
    for (intptr_t i = 0; i < n; ++i)
      if (idx[i] < 0 || (dimOf(tensor, (int)i) >= 0 && idx[i] >= dimOf(tensor, (int)i)))
        return fail(ev, "tensor.extract out of bounds");
    Scalar table;
    if (!valueEq(tensor, ev->groupIndex) && indexTableElement(op, tensor, idx, &table)) {
      noteIndexTable(ev, tensor);
      return table;
    }
    return evalElement(ev, tensor, idx);
  }
  if (mlirOperationGetNumResults(op) != 1 || mlirOperationGetNumRegions(op) != 0 ||
      (!opInDialect(op, "arith") && !opInDialect(op, "math")))
    return fail(ev, "unsupported op in an elementwise computation");
  intptr_t n = mlirOperationGetNumOperands(op);
  if (n > 3)
    return fail(ev, "unsupported op in an elementwise computation");
  Scalar x[3];
  for (intptr_t i = 0; i < n; ++i)
    x[i] = evalInBody(f, mlirOperationGetOperand(op, i));
  return applyOp(ev, op, x, n, mlirValueGetType(v));
}

static Scalar evalInBody(BodyFrame *f, MlirValue v) {
  Evaluator *ev = f->ev;
  if (ev->error || --ev->budget < 0 || ev->depth >= kMaxDepth)
    return fail(ev, kEvalTooLarge);
  if (mlirValueIsABlockArgument(v)) {
    if (!mlirBlockEqual(mlirBlockArgumentGetOwner(v), f->view->body))
      return fail(ev, "depends on a value of an enclosing region");
    int a = (int)mlirBlockArgumentGetArgNumber(v);
    MlirValue operand = mlirOperationGetOperand(f->view->op, a);
    if (!isRankedTensor(operand))
      return evalScalar(ev, operand, 0);
    int64_t idx[kMaxRank];
    evalAffineMap(f->view->maps[a], f->iter, idx);
    return evalElement(ev, operand, idx);
  }
  MlirOperation op = producer(v);
  if (!mlirBlockEqual(mlirOperationGetBlock(op), f->view->body))
    return evalScalar(ev, v, 0);
  for (int i = 0; i < f->numCached; ++i)
    if (opEq(f->cachedOp[i], op))
      return f->cachedValue[i];
  ++ev->depth;
  Scalar s = evalBodyOp(f, op, v);
  --ev->depth;
  if (f->numCached < kBodyCache) {
    f->cachedOp[f->numCached] = op;
    f->cachedValue[f->numCached++] = s;
  }
  return s;
}

Scalar evalBodyValue(Evaluator *ev, const LinalgView *view, const int64_t *iter, MlirValue v) {
  BodyFrame frame = {.ev = ev, .view = view, .iter = iter};
  return evalInBody(&frame, v);
}

/* --- tensors ------------------------------------------------------------------------------------ */

static bool isArithOnTensors(MlirOperation op) {
  if ((!opInDialect(op, "arith") && !opInDialect(op, "math")) || mlirOperationGetNumResults(op) != 1)
    return false;
  MlirValue result = mlirOperationGetResult(op, 0);
  if (!isRankedTensor(result))
    return false;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (!isRankedTensor(mlirOperationGetOperand(op, i)))
      return false;
  return true;
}

static bool isSplatConstant(MlirOperation op) {
  if (!opIs(op, "arith.constant"))
    return false;
  MlirAttribute value = attr(op, "value");
  return mlirAttributeIsADenseElements(value) && mlirDenseElementsAttrIsSplat(value);
}

/* A fill written as a generic (what linalg-generalize-named-ops makes of linalg.fill): no input, and the body
 * yields a value defined outside it. */
static bool isGenericFill(const LinalgView *view) {
  if (view->numInputs != 0 || view->numInits != 1 || !linalgIsElementwise(view))
    return false;
  MlirOperation yield = mlirBlockGetTerminator(view->body);
  if (mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirValue v = mlirOperationGetOperand(yield, 0);
  MlirOperation p = producer(v);
  return mlirValueIsABlockArgument(v) ? !mlirBlockEqual(mlirBlockArgumentGetOwner(v), view->body)
                                      : !mlirBlockEqual(mlirOperationGetBlock(p), view->body);
}

bool isReshape(MlirOperation op) {
  return opIs(op, "tensor.expand_shape") || opIs(op, "tensor.collapse_shape") || isUnitDimSlice(op);
}

bool isViewProducer(MlirOperation op) {
  LinalgView view;
  if (opIs(op, "linalg.fill") || isSplatConstant(op) || isReshape(op))
    return true;
  if (isArithOnTensors(op) && (opIs(op, "arith.extf") || opIs(op, "arith.truncf")))
    return true;
  return linalgView(op, &view) && (linalgIsView(&view) || isGenericFill(&view));
}

/* A float cast that loses values: narrower, or f16 <-> bf16. */
static bool roundsFloats(MlirType from, MlirType to) {
  return isFloat(from) && isFloat(to) &&
         (mlirFloatTypeGetWidth(to) < mlirFloatTypeGetWidth(from) ||
          (mlirFloatTypeGetWidth(to) == mlirFloatTypeGetWidth(from) && !mlirTypeEqual(from, to)));
}

bool viewOnlyWidens(MlirOperation op) {
  LinalgView view;
  if (!linalgView(op, &view)) /* a cast on tensors */
    return mlirOperationGetNumOperands(op) != 1 || mlirOperationGetNumResults(op) != 1 ||
           !roundsFloats(elementTypeOf(mlirOperationGetOperand(op, 0)), elementTypeOf(mlirOperationGetResult(op, 0)));
  MlirValue v = mlirOperationGetOperand(mlirBlockGetTerminator(view.body), 0);
  for (MlirOperation cast = producer(v); !mlirOperationIsNull(cast) && mlirOperationGetNumOperands(cast) == 1;
       cast = producer(v)) {
    if (roundsFloats(mlirValueGetType(mlirOperationGetOperand(cast, 0)), mlirValueGetType(v)))
      return false;
    v = mlirOperationGetOperand(cast, 0);
  }
  return true;
}

bool isElementwiseProducer(MlirOperation op) {
  LinalgView view;
  if (isArithOnTensors(op))
    return true;
  return !opIs(op, "linalg.fill") && linalgView(op, &view) && linalgIsElementwise(&view);
}

static bool staticOffsetsAndStrides(MlirAttribute offsets, MlirAttribute strides) {
  if (mlirAttributeIsNull(offsets) || mlirAttributeIsNull(strides) || !mlirAttributeIsADenseI64Array(offsets) ||
      !mlirAttributeIsADenseI64Array(strides))
    return false;
  for (intptr_t d = 0, n = mlirDenseArrayGetNumElements(offsets); d < n; ++d)
    if (mlirShapedTypeIsDynamicStrideOrOffset(mlirDenseI64ArrayGetElement(offsets, d)) ||
        mlirShapedTypeIsDynamicStrideOrOffset(mlirDenseI64ArrayGetElement(strides, d)))
      return false;
  return true;
}

/* Element idx of `tensor.insert_slice %source into %dest[offsets] [sizes] [strides]` (static offsets and strides;
 * the source may lack unit dims of the slice): the source's element where idx falls on the slice, else the
 * destination's (torch.cat lowers to a chain of these). */
static bool evalInsertSlice(Evaluator *ev, MlirOperation op, const int64_t *idx, Scalar *out) {
  const MlirValue source = mlirOperationGetOperand(op, 0), dest = mlirOperationGetOperand(op, 1);
  MlirAttribute offsets = attr(op, "static_offsets"), sizes = attr(op, "static_sizes"),
                strides = attr(op, "static_strides");
  bool dropped[kMaxRank];
  const int rank = rankOf(dest);
  if (sliceRankMask(op, dropped) != rank || !staticOffsetsAndStrides(offsets, strides))
    return false;
  /* a dynamic size leaves open where the slice ends, unless it covers the whole destination */
  const bool whole = isUnitDimSlice(op);
  int64_t src[kMaxRank];
  int s = 0;
  bool inside = true;
  for (int d = 0; d < rank && inside; ++d) {
    const int64_t from = idx[d] - mlirDenseI64ArrayGetElement(offsets, d);
    const int64_t step = mlirDenseI64ArrayGetElement(strides, d);
    const int64_t size = mlirDenseI64ArrayGetElement(sizes, d);
    const int64_t at = step > 0 ? from / step : -1;
    if (mlirShapedTypeIsDynamicSize(size) && !whole)
      return false;
    inside = step > 0 && from >= 0 && from % step == 0 && (whole || at < size);
    if (!dropped[d])
      src[s++] = at;
  }
  *out = evalElement(ev, inside ? source : dest, inside ? src : idx);
  return true;
}

/* Element idx of `tensor.extract_slice %source[offsets] [sizes] [strides]` (static offsets and strides; the result
 * may lack unit dims of the slice). */
static bool evalExtractSlice(Evaluator *ev, MlirOperation op, const int64_t *idx, Scalar *out) {
  MlirAttribute offsets = attr(op, "static_offsets"), strides = attr(op, "static_strides");
  bool dropped[kMaxRank];
  const MlirValue source = mlirOperationGetOperand(op, 0);
  const int rank = rankOf(source);
  if (sliceRankMask(op, dropped) != rank || !staticOffsetsAndStrides(offsets, strides))
    return false;
  int64_t src[kMaxRank];
  for (int d = 0, r = 0; d < rank; ++d)
    src[d] = mlirDenseI64ArrayGetElement(offsets, d) +
             (dropped[d] ? 0 : idx[r++]) * mlirDenseI64ArrayGetElement(strides, d);
  *out = evalElement(ev, source, src);
  return true;
}

static bool evalProducer(Evaluator *ev, MlirOperation op, intptr_t result, const int64_t *idx, Scalar *out) {
  if (opIs(op, "linalg.fill")) {
    *out = evalScalar(ev, mlirOperationGetOperand(op, 0), 0);
    return true;
  }
  if (opIs(op, "arith.constant"))
    return isSplatConstant(op) && constantScalar(attr(op, "value"), elementTypeOf(mlirOperationGetResult(op, 0)), out);
  if (opIs(op, "tensor.cast")) { /* same elements, another static/dynamic spelling of the shape */
    *out = evalElement(ev, mlirOperationGetOperand(op, 0), idx);
    return true;
  }
  if (opIs(op, "tensor.extract_slice"))
    return evalExtractSlice(ev, op, idx, out);
  if (opIs(op, "tensor.insert_slice"))
    return evalInsertSlice(ev, op, idx, out);
  if (opIs(op, "tensor.concat")) {
    const MlirAttribute dimAttr = attr(op, "dim");
    const int rank = rankOf(mlirOperationGetResult(op, 0));
    const int dim =
        !mlirAttributeIsNull(dimAttr) && mlirAttributeIsAInteger(dimAttr) ? (int)mlirIntegerAttrGetValueInt(dimAttr) : -1;
    if (dim < 0 || dim >= rank)
      return false;
    int64_t src[kMaxRank];
    memcpy(src, idx, sizeof(int64_t) * (size_t)rank);
    for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
      const MlirValue part = mlirOperationGetOperand(op, i);
      if (dimOf(part, dim) < 0)
        return false;
      if (src[dim] < dimOf(part, dim)) {
        *out = evalElement(ev, part, src);
        return true;
      }
      src[dim] -= dimOf(part, dim);
    }
    return false;
  }
  if (opIs(op, "tensor.expand_shape") || opIs(op, "tensor.collapse_shape")) {
    int64_t src[kMaxRank];
    if (rankOf(mlirOperationGetOperand(op, 0)) > kMaxRank || !reshapeResultToSource(op, idx, src))
      return false;
    *out = evalElement(ev, mlirOperationGetOperand(op, 0), src);
    return true;
  }
  if (isArithOnTensors(op)) {
    intptr_t n = mlirOperationGetNumOperands(op);
    Scalar x[3];
    if (n > 3)
      return false;
    for (intptr_t i = 0; i < n; ++i)
      x[i] = evalElement(ev, mlirOperationGetOperand(op, i), idx);
    *out = applyOp(ev, op, x, n, elementTypeOf(mlirOperationGetResult(op, 0)));
    return true;
  }
  LinalgView view;
  if (!linalgView(op, &view) || !linalgIsElementwise(&view))
    return false;
  BodyFrame frame = {.ev = ev, .view = &view};
  int64_t iter[kMaxRank];
  invertPermutation(view.maps[view.numInputs + result], idx, iter);
  frame.iter = iter;
  MlirOperation yield = mlirBlockGetTerminator(view.body);
  if (mlirOperationGetNumOperands(yield) <= result)
    return false;
  *out = evalInBody(&frame, mlirOperationGetOperand(yield, result));
  return true;
}

Scalar evalElement(Evaluator *ev, MlirValue tensor, const int64_t *idx) {
  if (ev->error || --ev->budget < 0 || ev->depth >= kMaxDepth)
    return fail(ev, kEvalTooLarge);
  MlirOperation p = producer(tensor);
  if (!mlirOperationIsNull(p) && rankOf(tensor) <= kMaxRank && ev->seeThrough(ev, p)) {
    Scalar out;
    ++ev->depth;
    bool evaluated = evalProducer(ev, p, resultIndex(tensor), idx, &out);
    --ev->depth;
    if (evaluated) {
      touch(ev, p);
      return out;
    }
  }
  if (!mlirOperationIsNull(p) && opIs(p, "tensor.empty"))
    return fail(ev, "reads an element that no op wrote (of a tensor.empty)");
  Scalar table; /* index arithmetic, not data (also as a linalg operand) */
  if (!valueEq(tensor, ev->groupIndex) && smallIndexTable(tensor, idx, &table)) {
    noteIndexTable(ev, tensor);
    return table;
  }
  if (ev->numReads < kMaxLeafReads) {
    LeafRead *r = &ev->reads[ev->numReads++];
    r->tensor = tensor;
    r->rank = rankOf(tensor) < 0 ? 0 : rankOf(tensor);
    if (r->rank > kMaxRank)
      return fail(ev, "tensor of too high a rank");
    memcpy(r->idx, idx, sizeof(int64_t) * (size_t)r->rank);
  } else {
    return fail(ev, "reads too many tensors");
  }
  return ev->leafValue(ev, tensor, idx);
}
