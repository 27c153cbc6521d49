/* The LLM.int8 correction-operand preparation; see match_int8_prep.h.
 *
 * Three steps, each on what the IR computes rather than how it is spelled:
 *   1. the anchor: a contraction (M, L) x (L, N) -> (M, N) over one reduction loop L, whose operands
 *      (looked at through widening casts) are evaluated at one element to find the leaves they read:
 *      a contraction is a candidate only when an operand reads a rank-1 integer tensor (a column list).
 *      Where upstream's elementwise fusion moved the gathers into the contraction's body, the operands are
 *      the two factors of the body's acc + a * b, evaluated at iteration points (evalOperand);
 *   2. sample elements in exact (double) arithmetic with synthetic leaves: which elements are read
 *      (A[m, cols[l]], CB[n, cols[l]], SCB[n]) and the value, proportional to code * SCB[n] with the
 *      constant c = value at code = SCB = 1, which must be the f32 1/127 bit for bit;
 *   3. the rounding: the interpreter's IEEE rounding on, subB at inputs whose correctly rounded f32 result
 *      lies within one f32 ulp of an f16 rounding tie, compared bit for bit with
 *      f16(f32(f32(code) * SCB) * c); any other order, precision or fused multiply-add flips some of them.
 * Leaves: a tensor read by tensor.extract is always a leaf (A, CB), so the gathers' sources are never
 * looked into; every other elementwise op and view on the way is evaluated through. */
#include "match_int8_prep.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <math.h>
#include <string.h>

enum { kMaxFragile = 128, kMaxSamples = kMaxFragile + 8 };

static float scaleConstant(void) {
  uint32_t bits = W4A16_INT8_PREP_SCALE_BITS;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint32_t floatBits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}

/* --- evaluation policy and synthetic leaves ---------------------------------------------------------- */

static bool usedAsExtractSource(MlirValue v) {
  for (MlirOpOperand use = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
    if (opIs(mlirOpOperandGetOwner(use), "tensor.extract") && mlirOpOperandGetOperandNumber(use) == 0)
      return true;
  return false;
}

static bool prepSeeThrough(Evaluator *ev, MlirOperation op) {
  (void)ev;
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i)
    if (usedAsExtractSource(mlirOperationGetResult(op, i)))
      return false; /* the source of a gather is a leaf: A or CB as the frontend passes them */
  return isViewProducer(op) || isElementwiseProducer(op);
}

typedef struct PrepData {
  bool discovery; /* integers read 0, floats 1: every index is in bounds */
  MlirValue a, cb, scb, cols;
  int64_t colRange; /* synthetic column indices lie in [0, colRange) */
  int64_t code;     /* the sample's CB element and SCB element */
  double scale;
  bool aSpecial;    /* A reads aValue everywhere (NaN, infinities: what a copy must keep) */
  double aValue;
} PrepData;

/* A column index for l, different from l itself so that A[m, cols[l]] and A[m, l] differ; rows 1 and 2
 * read the last and the first column (a test of the index value, cols[l] == K - 1, must show; row 0, the
 * first checked, keeps a column inside so that a shifted read gets its own reason, not "out of bounds"). */
static int64_t colOf(const PrepData *d, int64_t l) {
  if (d->colRange > 3 && (l == 1 || l == 2))
    return l == 1 ? d->colRange - 1 : 0;
  int64_t c = (int64_t)(mix64(0xc015u + (uint64_t)l) % (uint64_t)d->colRange);
  if (d->colRange > 1 && c == l % d->colRange)
    c = (c + 1) % d->colRange;
  return c;
}

/* A distinct f16-exact value per element of A. */
static double aTag(int64_t m, int64_t k) {
  return 1.0 + (double)(mix64(((uint64_t)m << 32) ^ (uint64_t)k) % 1024) / 1024.0;
}

static Scalar prepLeaf(Evaluator *ev, MlirValue tensor, const int64_t *idx) {
  const PrepData *d = ev->user;
  int width = intWidth(elementTypeOf(tensor));
  if (d->discovery)
    return width ? intScalar(0, width) : floatScalar(1.0);
  if (valueEq(tensor, d->cols))
    return intScalar((uint64_t)colOf(d, idx[0]), width);
  if (valueEq(tensor, d->cb))
    return intScalar((uint64_t)d->code, width);
  if (valueEq(tensor, d->scb))
    return floatScalar(d->scale);
  if (valueEq(tensor, d->a))
    return floatScalar(d->aSpecial ? d->aValue : aTag(idx[0], idx[1]));
  return width ? intScalar(0, width) : floatScalar(0.0);
}

/* --- the anchor contraction ----------------------------------------------------------------------- */

/* The two dims of a map with two plain dim results. */
static bool mapDims(MlirAffineMap map, int *d0, int *d1) {
  if (mlirAffineMapGetNumResults(map) != 2)
    return false;
  MlirAffineExpr e0 = mlirAffineMapGetResult(map, 0), e1 = mlirAffineMapGetResult(map, 1);
  if (!mlirAffineExprIsADim(e0) || !mlirAffineExprIsADim(e1))
    return false;
  *d0 = (int)mlirAffineDimExprGetPosition(e0);
  *d1 = (int)mlirAffineDimExprGetPosition(e1);
  return true;
}

/* An operand seen through widening float casts (arith.extf on tensors, or a linalg copy that only extends),
 * so that an f32-accumulating matmul still finds the f16 tensors the preparation produces. */
static MlirValue peelWidening(MlirValue v) {
  for (int guard = 0; guard < 8; ++guard) {
    MlirOperation p = producer(v);
    if (mlirOperationIsNull(p) || mlirOperationGetNumOperands(p) < 1 || mlirOperationGetNumResults(p) != 1)
      break;
    MlirValue in = mlirOperationGetOperand(p, 0);
    LinalgView view;
    bool cast = opIs(p, "arith.extf") && isRankedTensor(in);
    if (!cast && linalgView(p, &view) && view.numInputs == 1 && linalgIsView(&view) &&
        mlirAffineMapEqual(view.maps[0], view.maps[1]) && mlirAffineMapIsIdentity(view.maps[0]))
      cast = true;
    MlirType from = elementTypeOf(in), to = elementTypeOf(v);
    if (!cast || !isFloat(from) || !isFloat(to) || mlirFloatTypeGetWidth(from) >= mlirFloatTypeGetWidth(to))
      break;
    v = in;
  }
  return v;
}

static bool matchContraction(MlirOperation op, Int8PrepMatch *pm) {
  LinalgView *v = &pm->view;
  if (!linalgView(op, v) || v->numInputs != 2 || v->numInits != 1 || v->numLoops != 3 ||
      !mlirLinalgIsAContractionOp(op))
    return false;
  int dm, dn;
  if (!mapDims(v->maps[2], &dm, &dn) || dm == dn)
    return false;
  int dl = 3 - dm - dn;
  pm->aInput = pm->bInput = -1;
  bool aTransposed = false;
  for (int i = 0; i < 2; ++i) {
    int d0, d1;
    if (!mapDims(v->maps[i], &d0, &d1))
      return false;
    if ((d0 == dm && d1 == dl) || (d0 == dl && d1 == dm)) {
      pm->aInput = i;
      aTransposed = d0 == dl;
    } else if ((d0 == dl && d1 == dn) || (d0 == dn && d1 == dl)) {
      pm->bInput = i;
      pm->bTransposed = d0 == dn;
    }
  }
  if (pm->aInput < 0 || pm->bInput < 0 || aTransposed)
    return false; /* an (L, M) left operand is not how the correction is written */
  pm->subA = peelWidening(linalgInput(v, pm->aInput));
  pm->subB = peelWidening(linalgInput(v, pm->bInput));
  /* A transposed read is rewritten into a plain one by editing the map: only where the map is an attribute
   * and subB is the operand itself. */
  if (pm->bTransposed && (!valueEq(pm->subB, linalgInput(v, pm->bInput)) ||
                          !(opIs(op, "linalg.matmul") || opIs(op, "linalg.generic") || opIs(op, "linalg.contract"))))
    return false;
  return rankOf(pm->subA) == 2 && rankOf(pm->subB) == 2;
}

static bool inList(const MlirValue *values, int count, MlirValue v) {
  for (int i = 0; i < count; ++i)
    if (valueEq(values[i], v))
      return true;
  return false;
}

/* The body form's multiply-accumulate into pm->accumulate. False when one of its ops also reads another value
 * computed in the body: the product is then not separable from the gathers. */
static bool findAccumulateOps(Int8PrepMatch *pm) {
  MlirBlock body = pm->view.body;
  MlirValue reached[kMaxAccumulateOps + 3] = {pm->bodyA, pm->bodyB, mlirBlockGetArgument(body, pm->view.numInputs)};
  int numReached = 3;
  pm->numAccumulate = 0;
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
    bool reads = false;
    for (intptr_t i = 0, n = mlirOperationGetNumOperands(o); i < n; ++i)
      reads |= inList(reached, numReached, mlirOperationGetOperand(o, i));
    if (!reads)
      continue;
    if (pm->numAccumulate == kMaxAccumulateOps || mlirOperationGetNumResults(o) > 1)
      return false;
    for (intptr_t i = 0, n = mlirOperationGetNumOperands(o); i < n; ++i) {
      MlirValue operand = mlirOperationGetOperand(o, i);
      const bool inBody = mlirValueIsABlockArgument(operand)
                              ? mlirBlockEqual(mlirBlockArgumentGetOwner(operand), body)
                              : !mlirOperationIsNull(ancestorIn(producer(operand), body));
      if (inBody && !inList(reached, numReached, operand))
        return false;
    }
    pm->accumulate[pm->numAccumulate++] = o;
    if (mlirOperationGetNumResults(o) == 1)
      reached[numReached++] = mlirOperationGetResult(o, 0);
  }
  return pm->numAccumulate > 0 && opIs(pm->accumulate[pm->numAccumulate - 1], "linalg.yield");
}

/* The correction as upstream's elementwise fusion leaves it: one contraction over loops (m, n, l) whose body
 * yields acc + a * b (through widening casts and a final truncf; acc the init's argument), a computed over loops
 * m and l only and b over l and n only, neither reading acc. Both are evaluated where they are (evalOperand). */
static bool matchBodyContraction(MlirOperation op, Int8PrepMatch *pm) {
  LinalgView *v = &pm->view;
  if (!linalgView(op, v) || v->numInits != 1 || v->numLoops != 3 || linalgIsElementwise(v))
    return false;
  int dm, dn;
  if (!mapDims(v->maps[v->numInputs], &dm, &dn) || dm == dn)
    return false;
  MlirOperation yield = mlirBlockGetTerminator(v->body);
  if (mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirValue sum = mlirOperationGetOperand(yield, 0);
  if (!mlirOperationIsNull(producer(sum)) && opIs(producer(sum), "arith.truncf"))
    sum = mlirOperationGetOperand(producer(sum), 0);
  MlirOperation add = producer(sum);
  if (mlirOperationIsNull(add) || !opIs(add, "arith.addf"))
    return false;
  for (int accSide = 0; accSide < 2; ++accSide) {
    MlirValue acc = throughWidening(mlirOperationGetOperand(add, accSide));
    MlirOperation mul = producer(throughWidening(mlirOperationGetOperand(add, 1 - accSide)));
    if (!mlirValueIsABlockArgument(acc) || !mlirBlockEqual(mlirBlockArgumentGetOwner(acc), v->body) ||
        mlirBlockArgumentGetArgNumber(acc) != v->numInputs || mlirOperationIsNull(mul) || !opIs(mul, "arith.mulf"))
      continue;
    for (int aSide = 0; aSide < 2; ++aSide) {
      MlirValue a = throughWidening(mlirOperationGetOperand(mul, aSide));
      MlirValue b = throughWidening(mlirOperationGetOperand(mul, 1 - aSide));
      if (bodyValueUsesLoop(v, a, dn) || bodyValueUsesLoop(v, b, dm) || !bodyValueUsesLoop(v, a, dm) ||
          !bodyValueUsesLoop(v, b, dn) || bodyDepsOf(a, v->body).arg[v->numInputs] ||
          bodyDepsOf(b, v->body).arg[v->numInputs])
        continue;
      pm->bodyA = a, pm->bodyB = b;
      pm->loopM = dm, pm->loopN = dn, pm->loopL = 3 - dm - dn;
      if (findAccumulateOps(pm))
        return true;
      pm->bodyA = pm->bodyB = (MlirValue){NULL};
    }
  }
  return false;
}

/* --- leaves ------------------------------------------------------------------------------------ */

typedef struct Leaves {
  MlirValue tensor[kMaxLeafReads];
  int count;
} Leaves;

static void addLeaf(Leaves *leaves, MlirValue t) {
  for (int i = 0; i < leaves->count; ++i)
    if (valueEq(leaves->tensor[i], t))
      return;
  leaves->tensor[leaves->count++] = t;
}

static bool isIndexList(MlirValue t) { return rankOf(t) == 1 && intWidth(elementTypeOf(t)) > 0; }

/* Element idx of subA (isB false: (m, l)) or subB (as the matmul reads it: (l, n), or (n, l) when bTransposed):
 * the tensor's element, or the body's value at that iteration point (at 0 along the loop it does not read). */
static Scalar evalOperand(Evaluator *ev, const Int8PrepMatch *pm, bool isB, const int64_t *idx) {
  if (!int8PrepInBody(pm))
    return evalElement(ev, isB ? pm->subB : pm->subA, idx);
  int64_t iter[3] = {0, 0, 0};
  iter[isB ? pm->loopL : pm->loopM] = idx[0];
  iter[isB ? pm->loopN : pm->loopL] = idx[1];
  return evalBodyValue(ev, &pm->view, iter, isB ? pm->bodyB : pm->bodyA);
}

/* The distinct tensors element (0, 0) of subA or subB reads. */
static bool discover(Evaluator *ev, const Int8PrepMatch *pm, bool isB, Leaves *leaves, const char *what, Reason *why,
                     MlirOperation at) {
  int64_t zero[2] = {0, 0};
  evalReset(ev);
  evalOperand(ev, pm, isB, zero);
  if (ev->error) {
    setReason(why, at, "%s: %s", what, ev->error);
    return false;
  }
  leaves->count = 0;
  for (int i = 0; i < ev->numReads; ++i)
    addLeaf(leaves, ev->reads[i].tensor);
  return true;
}

static bool readsIndexList(const Leaves *leaves) {
  for (int i = 0; i < leaves->count; ++i)
    if (isIndexList(leaves->tensor[i]))
      return true;
  return false;
}

static bool classifyA(Int8PrepMatch *pm, const Leaves *leaves, Reason *why) {
  MlirOperation at = pm->matmul;
  char name[64];
  for (int i = 0; i < leaves->count; ++i) {
    MlirValue t = leaves->tensor[i];
    if (isIndexList(t) && mlirValueIsNull(pm->cols)) {
      pm->cols = t;
    } else if (isFloat(elementTypeOf(t)) && mlirValueIsNull(pm->a)) {
      pm->a = t;
    } else {
      setReason(why, at, "subA[m, l] reads %d tensors, expected A and the column list", leaves->count);
      return false;
    }
  }
  if (mlirValueIsNull(pm->cols)) {
    setReason(why, at, "subA is not gathered through a column list (A[:, cols])");
    return false;
  }
  if (mlirValueIsNull(pm->a)) {
    setReason(why, at, "subA reads no float tensor A");
    return false;
  }
  if (rankOf(pm->a) != 2 || !isF16(elementTypeOf(pm->a))) {
    setReason(why, at, "subA is gathered from %s, expected an (M, K) f16 tensor",
              typeName(mlirValueGetType(pm->a), name, sizeof name));
    return false;
  }
  return true;
}

static bool classifyB(Int8PrepMatch *pm, const Leaves *leaves, Reason *why) {
  MlirOperation at = pm->matmul;
  char name[64];
  MlirValue cols = {NULL}, cb = {NULL}, scb = {NULL};
  for (int i = 0; i < leaves->count; ++i) {
    MlirValue t = leaves->tensor[i];
    if (isIndexList(t) && mlirValueIsNull(cols))
      cols = t;
    else if (intWidth(elementTypeOf(t)) > 0 && mlirValueIsNull(cb))
      cb = t;
    else if (isFloat(elementTypeOf(t)) && mlirValueIsNull(scb))
      scb = t;
    else {
      setReason(why, at, "subB[l, n] reads %d tensors, expected CB, SCB and the column list", leaves->count);
      return false;
    }
  }
  if (mlirValueIsNull(cols)) {
    setReason(why, at, "subB is not gathered through a column list (CB[:, cols])");
    return false;
  }
  if (!valueEq(cols, pm->cols)) {
    setReason(why, at, "subA and subB are gathered through different column lists");
    return false;
  }
  if (mlirValueIsNull(cb) || rankOf(cb) != 2) {
    setReason(why, at, "subB reads no (N, K) integer code tensor CB");
    return false;
  }
  if (intWidth(elementTypeOf(cb)) != 8) {
    setReason(why, at, "codes CB are i%d, expected i8", intWidth(elementTypeOf(cb)));
    return false;
  }
  if (mlirValueIsNull(scb)) {
    setReason(why, at, "subB reads no scale vector SCB");
    return false;
  }
  if (rankOf(scb) != 1 || !isF32(elementTypeOf(scb))) {
    setReason(why, at, "SCB is %s, expected an (N) f32 vector", typeName(mlirValueGetType(scb), name, sizeof name));
    return false;
  }
  MlirType colType = elementTypeOf(cols);
  if (!mlirTypeIsAInteger(colType) || intWidth(colType) != 64) {
    setReason(why, at, "column indices are %s, expected i64", typeName(colType, name, sizeof name));
    return false;
  }
  pm->cb = cb, pm->scb = scb;
  return true;
}

/* --- sampling in exact arithmetic ----------------------------------------------------------------- */

typedef struct Points {
  int64_t m[4], l[5], n[4];
  int numM, numL, numN;
} Points;

static int pick(const int64_t *want, int count, int64_t size, int64_t *out) {
  int n = 0;
  for (int i = 0; i < count; ++i) {
    bool seen = false;
    for (int j = 0; j < n; ++j)
      seen |= out[j] == want[i];
    if ((size < 0 || want[i] < size) && want[i] >= 0 && !seen)
      out[n++] = want[i];
  }
  if (n == 0)
    out[n++] = 0; /* an empty dim: the element is still defined symbolically */
  return n;
}

static void samplePoints(const Int8PrepMatch *pm, Points *p) {
  int64_t M, L, N;
  if (int8PrepInBody(pm))
    M = pm->view.loopRange[pm->loopM], L = pm->view.loopRange[pm->loopL], N = pm->view.loopRange[pm->loopN];
  else
    M = dimOf(pm->subA, 0), L = dimOf(pm->subA, 1), N = dimOf(pm->subB, pm->bTransposed ? 0 : 1);
  int64_t ms[] = {0, 1, 3, M > 0 ? M - 1 : 0};
  int64_t ls[] = {0, 1, 2, 5, L > 0 ? L - 1 : 0};
  int64_t ns[] = {0, 1, N > 0 ? N / 2 + 1 : 7, N > 0 ? N - 1 : 33};
  p->numM = pick(ms, 4, M, p->m);
  p->numL = pick(ls, 5, L, p->l);
  p->numN = pick(ns, 4, N, p->n);
}

static void subBIndex(const Int8PrepMatch *pm, int64_t l, int64_t n, int64_t *idx) {
  idx[0] = pm->bTransposed ? n : l;
  idx[1] = pm->bTransposed ? l : n;
}

static bool checkSubA(Int8PrepMatch *pm, Evaluator *ev, const Points *pts, Reason *why) {
  const PrepData *d = ev->user;
  for (int i = 0; i < pts->numM; ++i)
    for (int j = 0; j < pts->numL; ++j) {
      int64_t m = pts->m[i], l = pts->l[j], col = colOf(d, l), idx[2] = {m, l};
      evalReset(ev);
      double value = evalOperand(ev, pm, false, idx).f;
      if (ev->error) {
        setReason(why, pm->matmul, "subA: %s", ev->error);
        return false;
      }
      int aReads = 0;
      for (int r = 0; r < ev->numReads; ++r) {
        const LeafRead *read = &ev->reads[r];
        if (valueEq(read->tensor, d->cols) && read->idx[0] == l)
          continue;
        if (valueEq(read->tensor, d->a) && read->idx[0] == m && read->idx[1] == col) {
          ++aReads;
          continue;
        }
        if (valueEq(read->tensor, d->a))
          setReason(why, pm->matmul, "subA[%lld, %lld] reads A[%lld, %lld], expected A[m, cols[l]] = A[%lld, %lld]",
                    (long long)m, (long long)l, (long long)read->idx[0], (long long)read->idx[1], (long long)m,
                    (long long)col);
        else
          setReason(why, pm->matmul, "subA[%lld, %lld] reads the column list at %lld, expected cols[l]",
                    (long long)m, (long long)l, (long long)read->idx[0]);
        return false;
      }
      if (aReads == 0 || value != aTag(m, col)) {
        setReason(why, pm->matmul, "subA[m, l] is not a copy of A[m, cols[l]]");
        return false;
      }
    }
  /* A copy keeps NaN and the infinities (a clamp or a NaN scrub on A agrees with it on finite samples). */
  static const double specials[] = {NAN, INFINITY, -INFINITY};
  PrepData *data = ev->user;
  for (size_t s = 0; s < sizeof specials / sizeof specials[0]; ++s) {
    int64_t idx[2] = {pts->m[0], pts->l[0]};
    data->aSpecial = true, data->aValue = specials[s];
    evalReset(ev);
    const double value = evalOperand(ev, pm, false, idx).f;
    data->aSpecial = false;
    if (!ev->error && !(isnan(specials[s]) ? isnan(value) : value == specials[s])) {
      setReason(why, pm->matmul, "subA is not a copy of A for A = %g (a clamp or a NaN test on A)", specials[s]);
      return false;
    }
  }
  return true;
}

/* Evaluates subB[l, n] for (code, scale) and checks which elements it read. */
static bool evalSubB(Int8PrepMatch *pm, Evaluator *ev, int64_t l, int64_t n, int64_t code, double scale, double *value,
                     Reason *why) {
  PrepData *d = ev->user;
  d->code = code, d->scale = scale;
  int64_t idx[2], col = colOf(d, l);
  subBIndex(pm, l, n, idx);
  evalReset(ev);
  *value = evalOperand(ev, pm, true, idx).f;
  if (ev->error) {
    setReason(why, pm->matmul, "subB: %s", ev->error);
    return false;
  }
  for (int r = 0; r < ev->numReads; ++r) {
    const LeafRead *read = &ev->reads[r];
    if (valueEq(read->tensor, d->cols) && read->idx[0] == l)
      continue;
    if (valueEq(read->tensor, d->cb) && read->idx[0] == n && read->idx[1] == col)
      continue;
    if (valueEq(read->tensor, d->scb) && read->idx[0] == n)
      continue;
    if (valueEq(read->tensor, d->cb) && read->idx[0] == col && read->idx[1] == n)
      setReason(why, pm->matmul, "CB is read as CB[cols[l], n]: expected CB (N, K) read at CB[n, cols[l]]");
    else if (valueEq(read->tensor, d->cb))
      setReason(why, pm->matmul, "subB[%lld, %lld] reads CB[%lld, %lld], expected CB[n, cols[l]] = CB[%lld, %lld]",
                (long long)l, (long long)n, (long long)read->idx[0], (long long)read->idx[1], (long long)n,
                (long long)col);
    else if (valueEq(read->tensor, d->scb))
      setReason(why, pm->matmul, "subB[%lld, %lld] reads SCB[%lld], expected SCB[n] (one scale per output column)",
                (long long)l, (long long)n, (long long)read->idx[0]);
    else
      setReason(why, pm->matmul, "subB[%lld, %lld] reads the column list at %lld, expected cols[l]", (long long)l,
                (long long)n, (long long)read->idx[0]);
    return false;
  }
  return true;
}

static bool nearlyEqual(double a, double b) { return a == b || fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)); }

static bool checkSubBExact(Int8PrepMatch *pm, Evaluator *ev, const Points *pts, Reason *why) {
  double c;
  if (!evalSubB(pm, ev, pts->l[0], pts->n[0], 1, 1.0, &c, why))
    return false;
  static const int64_t codes[] = {-128, -127, -3, -1, 1, 2, 77, 127};
  static const double scales[] = {0.5, -1.75, 3.0, -0.0078125, 1234.5}; /* both signs: |SCB| is not SCB */
  int sample = 0;
  for (int i = 0; i < pts->numL; ++i)
    for (int j = 0; j < pts->numN; ++j)
      for (int k = 0; k < 2; ++k, ++sample) {
        int64_t code = codes[sample % 8];
        double scale = scales[sample % 5], value;
        if (!evalSubB(pm, ev, pts->l[i], pts->n[j], code, scale, &value, why))
          return false;
        if (nearlyEqual(value, (double)code * scale * c) && c != 0)
          continue;
        if (code < 0 && nearlyEqual(value, (double)(code + 256) * scale * c))
          setReason(why, pm->matmul, "codes are converted as unsigned (uitofp or extui); LLM.int8 codes are signed");
        else
          setReason(why, pm->matmul, "subB[l, n] is not CB[n, cols[l]] * SCB[n] * a constant");
        return false;
      }
  /* NaN and infinite scales give NaN and infinities (a NaN scrub or a NaN-ignoring max agrees with the
   * formula on finite samples) */
  static const double specialScales[] = {NAN, INFINITY, -INFINITY};
  for (size_t s = 0; s < sizeof specialScales / sizeof specialScales[0]; ++s) {
    double value;
    if (!evalSubB(pm, ev, pts->l[0], pts->n[0], 3, specialScales[s], &value, why))
      return false;
    const double want = 3.0 * specialScales[s] * c;
    if (!(isnan(want) ? isnan(value) : value == want)) {
      setReason(why, pm->matmul, "subB is not CB * SCB * a constant for SCB = %g (a NaN test or a clamp on the scale)",
                specialScales[s]);
      return false;
    }
  }
  float want = scaleConstant();
  if (c == (double)want)
    return true;
  if ((double)(float)c == c)
    setReason(why, pm->matmul, "multiplies by %.9g (f32 0x%08X), expected 1/127 in f32 = 7.874015718698502e-3 (0x%08X)",
              c, floatBits((float)c), W4A16_INT8_PREP_SCALE_BITS);
  else
    setReason(why, pm->matmul,
              "multiplies by %.17g, which is not an f32 constant; expected 1/127 in f32 (0x%08X): a division by 127 "
              "or an f64 constant rounds differently",
              c, W4A16_INT8_PREP_SCALE_BITS);
  return false;
}

/* --- rounding: bit-exact samples next to f16 ties --------------------------------------------------- */

typedef struct Sample {
  int64_t code;
  float scale;
} Sample;

/* Inputs whose correctly rounded f32(f32(code * scale) * c) lies within one f32 ulp of an f16 rounding tie
 * (f16 normal range), so that any other rounding sequence is likely to flip the f16 result; then zero,
 * f16-subnormal, f32-subnormal and overflowing products. Deterministic. */
static int roundingSamples(Sample *out) {
  const float c = scaleConstant();
  int count = 0;
  uint64_t h = 0x1db8;
  for (long it = 0; it < 8000000 && count < kMaxFragile; ++it) {
    h = mix64(h);
    int64_t code = (int64_t)(h % 256) - 128;
    if (code == 0)
      continue;
    int e = (int)((h >> 8) % 26) - 12;
    double frac = 1.0 + (double)((h >> 16) & 0xffffff) / 16777216.0;
    float scale = (float)(ldexp(frac, e) * 127.0 / fabs((double)code));
    float q = ((float)code * scale) * c;
    uint32_t low = floatBits(q) & 0x1fffu;
    if (fabsf(q) < 0x1p-14f || fabsf(q) > 65504.0f || low < 0x0fffu || low > 0x1001u)
      continue;
    out[count++] = (Sample){code, scale};
  }
  static const Sample specials[] = {{-5, 0.0f}, {7, 0.0f}, {3, 1e-5f}, {-128, 3e-6f}, {127, 1e-40f},
                                    {-128, 3e38f}, {127, 70000.0f}, {-1, 1.0f}};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; ++i)
    out[count++] = specials[i];
  return count;
}

typedef struct Alternative {
  const char *text;
  double (*f)(int64_t code, float scale, MlirType f16);
} Alternative;

static double expected(int64_t code, float scale, MlirType f16) {
  float p = (float)code * scale;
  return roundToType((double)(p * scaleConstant()), f16);
}
static double scaleFirst(int64_t code, float scale, MlirType f16) {
  float s = scale * scaleConstant();
  return roundToType((double)((float)code * s), f16);
}
static double codeFirst(int64_t code, float scale, MlirType f16) {
  float p = (float)code * scaleConstant();
  return roundToType((double)(p * scale), f16);
}
static double unrounded(int64_t code, float scale, MlirType f16) {
  return roundToType((double)code * (double)scale * (double)scaleConstant(), f16);
}
static double f16Product(int64_t code, float scale, MlirType f16) {
  double p = roundToType((double)((float)code * scale), f16);
  return roundToType((double)((float)p * scaleConstant()), f16);
}

static bool sameBits(double a, double b) { return (a == b && signbit(a) == signbit(b)) || (isnan(a) && isnan(b)); }

static bool checkRounding(Int8PrepMatch *pm, Evaluator *ev, const Points *pts, Reason *why) {
  Sample samples[kMaxSamples];
  double got[kMaxSamples];
  int count = roundingSamples(samples);
  MlirType f16 = mlirF16TypeGet(mlirOperationGetContext(pm->matmul));
  ev->ieeeRounding = true;
  int wrong = 0;
  for (int i = 0; i < count; ++i) {
    int64_t l = pts->l[i % pts->numL], n = pts->n[(i / pts->numL) % pts->numN];
    if (!evalSubB(pm, ev, l, n, samples[i].code, samples[i].scale, &got[i], why)) {
      ev->ieeeRounding = false;
      return false;
    }
    wrong += !sameBits(got[i], expected(samples[i].code, samples[i].scale, f16));
  }
  ev->ieeeRounding = false;
  if (!wrong)
    return true;
  static const Alternative alternatives[] = {
      {"SCB * 1/127 is rounded to f32 before the code multiplies it", scaleFirst},
      {"code * 1/127 is rounded to f32 before SCB multiplies it", codeFirst},
      {"code * SCB is rounded to f16 before the multiplication by 1/127", f16Product},
      {"the products are not rounded to f32 (f64 arithmetic or a fused multiply-add)", unrounded},
  };
  const char *which = "a different multiplication order, intermediate precision or a fused multiply-add";
  for (size_t a = 0; a < sizeof alternatives / sizeof alternatives[0]; ++a) {
    bool all = true;
    for (int i = 0; i < count && all; ++i)
      all = sameBits(got[i], alternatives[a].f(samples[i].code, samples[i].scale, f16));
    if (all) {
      which = alternatives[a].text;
      break;
    }
  }
  setReason(why, pm->matmul,
            "dequantisation rounds differently from f16(f32(f32(code) * SCB[n]) * 1/127) on %d of %d inputs next to "
            "f16 rounding ties: %s",
            wrong, count, which);
  return false;
}

/* Whether body value v depends on a column list: an integer argument of a 1-D input, or an integer element the
 * body extracts from a tensor it captures (an index read from a table). */
static bool readsIndexArgument(MlirValue v, const LinalgView *view) {
  const BodyDeps deps = bodyDepsOf(v, view->body);
  if (deps.extractsIntegers)
    return true;
  for (int a = 0; a < view->numInputs && a < kMaxLinalgOperands; ++a)
    if (deps.arg[a] && isIndexList(linalgInput(view, a)))
      return true;
  return false;
}

/* A reduction whose body gathers with tensor.extract at indices read from a column list: the whole correction
 * (both gathers, CB's dequantisation and the matmul) in one contraction, as upstream's elementwise fusion leaves it. */
static bool gathersInBody(MlirOperation op) {
  LinalgView view;
  if (!linalgView(op, &view) || view.numInits != 1 || linalgIsElementwise(&view))
    return false;
  for (MlirOperation o = mlirBlockGetFirstOperation(view.body); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    if (opIs(o, "tensor.extract"))
      for (intptr_t i = 1, n = mlirOperationGetNumOperands(o); i < n; ++i)
        if (readsIndexArgument(mlirOperationGetOperand(o, i), &view))
          return true;
  return false;
}

/* --- entry point ------------------------------------------------------------------------------------ */

bool matchInt8Prep(MlirOperation op, Int8PrepMatch *pm, Reason *why) {
  memset(pm, 0, sizeof *pm);
  pm->matmul = op;
  if (!matchContraction(op, pm)) {
    memset(pm, 0, sizeof *pm);
    pm->matmul = op;
    if (!gathersInBody(op))
      return false;
    if (!matchBodyContraction(op, pm)) {
      setReason(why, op, "the correction's column gathers are computed inside a contraction whose body does not "
                         "yield acc + a * b with a over loops (m, l) and b over (l, n)");
      return false;
    }
  }
  PrepData data = {.discovery = true};
  Evaluator ev;
  evalInit(&ev, prepSeeThrough, prepLeaf, &data);
  ev.positionInvariantConditions = true; /* subB[3, 5] = 0 by a select on positions must not pass */

  Leaves leavesA, leavesB;
  Reason quiet = {0};
  bool okA = discover(&ev, pm, false, &leavesA, "subA", &quiet, op);
  bool okB = discover(&ev, pm, true, &leavesB, "subB", &quiet, op);
  if (!(okA && readsIndexList(&leavesA)) && !(okB && readsIndexList(&leavesB)))
    return false; /* no column list anywhere: not this pattern, nothing to report */
  if (!okA || !okB) {
    setReason(why, quiet.at, "%s", quiet.text);
    return false;
  }
  const MlirType typeA = int8PrepInBody(pm) ? mlirValueGetType(pm->bodyA) : elementTypeOf(pm->subA);
  const MlirType typeB = int8PrepInBody(pm) ? mlirValueGetType(pm->bodyB) : elementTypeOf(pm->subB);
  if (!isF16(typeA) || !isF16(typeB)) {
    char name[64];
    setReason(why, op, "correction operands are %s, expected f16", typeName(isF16(typeA) ? typeB : typeA, name, sizeof name));
    return false;
  }
  if (!classifyA(pm, &leavesA, why) || !classifyB(pm, &leavesB, why))
    return false;

  data.discovery = false;
  data.a = pm->a, data.cb = pm->cb, data.scb = pm->scb, data.cols = pm->cols;
  int64_t kA = dimOf(pm->a, 1), kB = dimOf(pm->cb, 1);
  data.colRange = kA > 0 && kB > 0 ? (kA < kB ? kA : kB) : kA > 0 ? kA : kB > 0 ? kB : 1 << 20;
  Points pts;
  samplePoints(pm, &pts);
  if (!checkSubA(pm, &ev, &pts, why) || !checkSubBExact(pm, &ev, &pts, why) ||
      !checkRounding(pm, &ev, &pts, why))
    return false;
  for (int i = 0; i < ev.numTouched; ++i)
    opSetAdd(&pm->producers, ev.touched[i]);
  return true;
}
