/* The contraction of the chain: y[m, n] = sum_k x[m, k] * Wd[k, n] from a zero init.
 *
 * Accepts linalg.matmul and any contraction generic whose loops are (m, n, k) or (m, n, g, i) with
 * k = g * |i| (IREE's grouped form), whichever input carries the integer codes being the weight -- or whose
 * body computes the weight itself from its inputs other than x (the dequantisation fused into the contraction
 * by upstream's linalg-fuse-elementwise-ops or IREE; match_weight_in_body.c). */
#include "match.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdio.h>
#include <string.h>

static bool isWideningCast(MlirOperation op) {
  MlirValue out = mlirOperationGetResult(op, 0);
  MlirValue in = mlirOperationGetNumOperands(op) ? mlirOperationGetOperand(op, 0) : out;
  return isViewProducer(op) && isFloat(elementTypeOf(in)) && isFloat(elementTypeOf(out)) &&
         mlirFloatTypeGetWidth(elementTypeOf(in)) < mlirFloatTypeGetWidth(elementTypeOf(out)) && viewOnlyWidens(op);
}

/* x may reach the matmul through reshapes and widening casts, never through arithmetic. */
static bool seeThroughX(Evaluator *ev, MlirOperation op) {
  (void)ev;
  return isReshape(op) || isWideningCast(op);
}
static bool seeThroughCasts(Evaluator *ev, MlirOperation op) {
  (void)ev;
  return isWideningCast(op);
}

static bool seeThroughConstants(Evaluator *ev, MlirOperation op) {
  (void)ev;
  return isViewProducer(op);
}

static Scalar leafIndexTag(Evaluator *ev, MlirValue tensor, const int64_t *idx) {
  (void)ev, (void)tensor, (void)idx;
  return floatScalar(1.0);
}

/* Leaf values that depend on the element read (integers 0..15, floats in [1, 2)), so that two evaluations
 * reading the same elements give the same value only if their arithmetic agrees. */
static Scalar positionTag(Evaluator *ev, MlirValue tensor, const int64_t *idx) {
  (void)ev;
  uint64_t h = 0x7a6u;
  for (int i = 0; i < rankOf(tensor); ++i)
    h = mix64(h ^ (uint64_t)idx[i]);
  const int width = intWidth(elementTypeOf(tensor));
  return width ? intScalar(h % 16, width) : floatScalar(1.0 + (double)(h % 1024) / 1024.0);
}

/* Iteration point for (sample row m, k, n): k split over K's loops, innermost fastest. */
static void iterationAt(const MatmulMatch *mm, int64_t m, int64_t k, int64_t n, int64_t *iter) {
  memset(iter, 0, sizeof(int64_t) * kMaxRank);
  if (m > 0)
    iter[mm->rowLoops[m - 1]] = 1;
  iter[mm->dimN] = n % mm->nInner;
  if (mm->dimNOuter >= 0)
    iter[mm->dimNOuter] = n / mm->nInner;
  for (int i = mm->numKLoops - 1; i >= 0; --i) {
    const int64_t range = i > 0 ? mm->view.loopRange[mm->kLoops[i]] : k + 1; /* the outermost takes the rest */
    iter[mm->kLoops[i]] = k % range, k /= range;
  }
}

void matmulResultIndex(const MatmulMatch *mm, int64_t m, int64_t n, int64_t *idx) {
  int rank = rankOf(mm->result);
  memset(idx, 0, sizeof(int64_t) * (size_t)rank);
  if (m > 0)
    idx[mm->rowPos[m - 1]] = 1;
  idx[rank - 1] = n % mm->nInner;
  if (mm->dimNOuter >= 0)
    idx[rank - 2] = n / mm->nInner;
}

int matmulNDims(const MatmulMatch *mm) { return mm->dimNOuter >= 0 ? 2 : 1; }

int matmulXDim(const MatmulMatch *mm, int d) { return mm->xTransposed ? mm->xPerm[d] : d; }

/* Whether v holds y's elements with y's row dims regrouped (not y's own) -- an expand_shape of the rows into
 * [B, S] or a collapse of [1, M] into M, as torch-mlir leaves a rank-3 linear's epilogue -- and y's N dims kept.
 * Every row dim but the outermost is static in both, so that the row-major order both share is known; the
 * outermost ones are both static with equal products, or both dynamic (the IR that ties v to y then fixes them:
 * an epilogue operand has its result's shape). Or y has one, dynamic row dim (M) and v splits it into dims of
 * which more than the outermost are dynamic (torch-mlir with a dynamic batch and sequence): the row-major split is
 * the expand_shape's that made v, the one reshape the epilogue takes there (match_epilogue.c), which gives the
 * fused result its sizes. */
bool matmulRowsRegrouped(const MatmulMatch *mm, MlirValue v) {
  const int nDims = matmulNDims(mm), rowsY = rankOf(mm->result) - nDims, rowsV = rankOf(v) - nDims;
  if (rowsV < 1)
    return false;
  for (int d = 0; d < nDims; ++d)
    if (dimOf(v, rowsV + d) != dimOf(mm->result, rowsY + d))
      return false;
  if (rowsY == 0) { /* a matvec's one row, expanded to unit dims ([1, 1, N]: a decode step's rank-3 result) */
    for (int d = 0; d < rowsV; ++d)
      if (dimOf(v, d) != 1)
        return false;
    return true;
  }
  bool sameRows = rowsV == rowsY; /* y's own rows are not regrouped */
  for (int d = 0; sameRows && d < rowsY; ++d)
    sameRows = dimOf(v, d) == dimOf(mm->result, d);
  if (sameRows)
    return false;
  int64_t innerY = 1, innerV = 1;
  for (int d = 1; d < rowsY; ++d)
    innerY = dimOf(mm->result, d) < 0 || innerY < 0 ? -1 : innerY * dimOf(mm->result, d);
  for (int d = 1; d < rowsV; ++d)
    innerV = dimOf(v, d) < 0 || innerV < 0 ? -1 : innerV * dimOf(v, d);
  const int64_t outerY = dimOf(mm->result, 0), outerV = dimOf(v, 0);
  if (innerY < 0)
    return false;
  if (innerV < 0)
    return rowsY == 1 && outerY < 0;
  if (outerY < 0 || outerV < 0)
    return outerY < 0 && outerV < 0;
  return outerY * innerY == outerV * innerV;
}

/* One more than y's where v has y's row dims and N split in two (an epilogue past an expand_shape of N); y's where
 * v has y's N dims (its rows possibly regrouped: match_epilogue.c). */
int matmulNDimsOf(const MatmulMatch *mm, MlirValue v) {
  const int rank = rankOf(mm->result);
  bool splitN = matmulNDims(mm) == 1 && rankOf(v) == rank + 1 && dimOf(v, rank - 1) > 0 && dimOf(v, rank) > 0 &&
                dimOf(v, rank - 1) * dimOf(v, rank) == mm->N;
  for (int d = 0; splitN && d < rank - 1; ++d)
    splitN = dimOf(v, d) == dimOf(mm->result, d);
  return matmulNDims(mm) + (splitN ? 1 : 0);
}

/* Wd at iteration point iter: an element of the weight operand, or the body's weight value there. */
static Scalar weightAtIter(const MatmulMatch *mm, Evaluator *ev, const int64_t *iter) {
  if (mm->weightInput < 0)
    return evalBodyValue(ev, &mm->view, iter, mm->weightInBody);
  int64_t idx[kMaxRank];
  evalAffineMap(mm->view.maps[mm->weightInput], iter, idx);
  return evalElement(ev, linalgInput(&mm->view, mm->weightInput), idx);
}

Scalar matmulWeightAt(const MatmulMatch *mm, Evaluator *ev, int64_t k, int64_t n) {
  int64_t iter[kMaxRank];
  iterationAt(mm, 0, k, n, iter);
  return weightAtIter(mm, ev, iter);
}

/* Whether the weight depends on loop d: its operand's map uses d, or (weight in the body) the map of an input
 * whose argument it reads does, or it reads linalg.index d (a tensor.extract from a tensor the body captures). */
static bool weightUsesLoop(const MatmulMatch *mm, int d) {
  const LinalgView *v = &mm->view;
  if (mm->weightInput >= 0)
    return mapUsesDim(v->maps[mm->weightInput], d);
  return bodyValueUsesLoop(v, mm->weightInBody, d);
}

MlirType matmulIoType(const MatmulMatch *mm) {
  if (!mlirValueIsNull(mm->xExpr))
    return mlirValueGetType(mm->xExpr);
  return mlirTypeIsNull(mm->xNarrowTo) ? elementTypeOf(mm->x) : mm->xNarrowTo;
}

/* Evaluates the x operand at iteration point iter and returns the one leaf it reads, or NULL. */
static const LeafRead *readXAtIter(MatmulMatch *mm, Evaluator *ev, const int64_t *iter) {
  int64_t idx[kMaxRank];
  evalAffineMap(mm->view.maps[mm->xInput], iter, idx);
  evalReset(ev);
  evalElement(ev, linalgInput(&mm->view, mm->xInput), idx);
  return ev->error || ev->numReads != 1 ? NULL : &ev->reads[0];
}

/* Evaluates the x operand at (sample row m, k). */
static const LeafRead *readX(MatmulMatch *mm, Evaluator *ev, int64_t m, int64_t k) {
  int64_t iter[kMaxRank];
  iterationAt(mm, m, k, 0, iter);
  return readXAtIter(mm, ev, iter);
}

/* How far x's element moves, row-major over the tensor x's leaf read (linearIndex), when loop d goes from 0 to 1
 * (every other loop at 0); -1 if x is not read as one element there. */
static int64_t xStride(MatmulMatch *mm, int d) {
  Evaluator ev;
  evalInit(&ev, seeThroughX, leafIndexTag, NULL);
  int64_t iter[kMaxRank] = {0};
  const LeafRead *r = readXAtIter(mm, &ev, iter);
  if (!r)
    return -1;
  const int64_t from = linearIndex(r->tensor, r->idx); /* before the next read reuses ev */
  iter[d] = 1;
  r = readXAtIter(mm, &ev, iter);
  return r ? linearIndex(r->tensor, r->idx) - from : -1;
}

static bool readAnyInteger(const Evaluator *ev) {
  for (int r = 0; r < ev->numReads; ++r)
    if (intWidth(elementTypeOf(ev->reads[r].tensor)) > 0)
      return true;
  return false;
}

/* Whether input i of the contraction is computed from integer data (a quantised weight; codes folded to a splat
 * constant too). *tooLarge (may be null): its producers are too deep or too many to tell. */
static bool readsIntegerCodesOrTooLarge(const LinalgView *view, int i, bool *tooLarge) {
  Evaluator ev;
  evalInit(&ev, constantsSeeThrough, leafIndexTag, NULL);
  int64_t zero[kMaxRank] = {0}, idx[kMaxRank];
  evalAffineMap(view->maps[i], zero, idx);
  evalElement(&ev, linalgInput(view, i), idx);
  if (tooLarge)
    *tooLarge = ev.error == kEvalTooLarge;
  return readAnyInteger(&ev);
}

static bool readsIntegerCodes(const LinalgView *view, int i) { return readsIntegerCodesOrTooLarge(view, i, NULL); }

/* view reduces one input that an elementwise op (*product) computes from integer codes and float data: a contraction
 * split in two, as torch-mlir lowers torch.sum(x.unsqueeze(1) * W, -1). */
static bool sumsProductOfDequantisedData(const LinalgView *view, MlirOperation *product) {
  LinalgView pv;
  *product = view->numInputs == 1 ? producer(linalgInput(view, 0)) : (MlirOperation){NULL};
  if (mlirOperationIsNull(*product) || !linalgView(*product, &pv) || !linalgIsElementwise(&pv) || pv.numInputs < 2)
    return false;
  bool codes = false, floats = false;
  for (int i = 0; i < pv.numInputs; ++i)
    *(readsIntegerCodes(&pv, i) ? &codes : &floats) = true;
  return codes && floats;
}

/* Whether the weight operand's values do not depend on loop d (a weight broadcast along a batch dim, as
 * torch-mlir lowers [B, S, K] x (K, N): a [B, K, N] broadcast and linalg.batch_matmul): it reads the
 * same stored elements at d = 0 and d = 1. */
static bool weightIgnoresLoop(const MatmulMatch *mm, int d) {
  const LinalgView *v = &mm->view;
  if (v->loopRange[d] == 1)
    return true;
  /* the same stored elements and the same value at b = 0 and at every b in the loop's range (dynamic: 0..63):
   * a weight can also differ by b through arithmetic on the position, zero point 8 + b say */
  const int64_t range = v->loopRange[d] < 0 ? 64 : v->loopRange[d];
  for (int point = 0; point < 2; ++point) { /* every loop at 0; then the static ones at their last value */
    int64_t iter[kMaxRank] = {0};
    for (int l = 0; point == 1 && l < v->numLoops; ++l)
      iter[l] = v->loopRange[l] > 1 ? v->loopRange[l] - 1 : 0;
    Evaluator at[2];
    double value[2] = {0, 0};
    for (int64_t b = 1; b < range; ++b) {
      for (int side = 0; side < 2; ++side) {
        iter[d] = side ? b : 0;
        evalInit(&at[side], dequantSeeThrough, positionTag, NULL);
        value[side] = weightAtIter(mm, &at[side], iter).f;
      }
      if (at[0].error || at[1].error || at[0].numReads != at[1].numReads || at[0].numReads == 0 ||
          value[0] != value[1])
        return false;
      for (int r = 0; r < at[0].numReads; ++r)
        if (!valueEq(at[0].reads[r].tensor, at[1].reads[r].tensor) || at[0].reads[r].rank != at[1].reads[r].rank ||
            memcmp(at[0].reads[r].idx, at[1].reads[r].idx, sizeof(int64_t) * (size_t)at[0].reads[r].rank) != 0)
          return false;
    }
  }
  return true;
}

/* Whether v is a tensor.cast to a type with more dynamic dims than its source's (torch-mlir casts operands to ?x?). */
static bool castErasesSizes(MlirValue v) {
  MlirOperation cast = producer(v);
  if (mlirOperationIsNull(cast) || !opIs(cast, "tensor.cast"))
    return false;
  MlirValue source = mlirOperationGetOperand(cast, 0);
  for (int d = 0, r = rankOf(v); d < r && rankOf(source) == r; ++d)
    if (dimOf(v, d) < 0 && dimOf(source, d) >= 0)
      return true;
  return false;
}

/* y's dims: N last (or split over the last two: y[.., h, d] with n = h * |d| + d); before it the row loops (shared by x and y, not the weight; M is their product: a
 * [B, S, K] activation's y[b, s, n]; a weight broadcast along them counts as not indexed by them) and
 * unit dims, or nothing in a matvec. Loops outside y are K, shared by
 * x and W. Whether x holds the rows in y's order, row-major, is matchX's to check. */
static bool matchDims(MatmulMatch *mm, Reason *why) {
  const LinalgView *v = &mm->view;
  MlirAffineMap xMap = v->maps[mm->xInput], outMap = v->maps[v->numInputs];
  const int numOut = (int)mlirAffineMapGetNumResults(outMap);
  bool inResult[kMaxRank] = {false};
  mm->dimN = mm->dimNOuter = -1, mm->numRows = 0;
  for (int r = 0; r < numOut; ++r) {
    MlirAffineExpr e = mlirAffineMapGetResult(outMap, r);
    if (!mlirAffineExprIsADim(e)) {
      setReason(why, v->op, "result is not indexed by loops");
      return false;
    }
    int d = (int)mlirAffineDimExprGetPosition(e);
    inResult[d] = true;
    if (v->loopRange[d] == 1 && r < numOut - 1)
      continue; /* a unit dim of y: a batch of one, a static M = 1, whatever reads it */
    bool inX = mapUsesDim(xMap, d), inW = weightUsesLoop(mm, d);
    if (inX && inW && r != numOut - 1 && weightIgnoresLoop(mm, d))
      inW = false; /* a batch dim the weight is only broadcast along: rows, like x's own */
    if (r == numOut - 1 && mm->dimNOuter >= 0 && !(inW && !inX)) {
      setReason(why, v->op, "result is transposed: (N, M) instead of (M, N)");
      return false;
    }
    if (inW && !inX) {
      if (r < numOut - 2 || (r == numOut - 2 && v->loopRange[d] < 0)) {
        setReason(why, v->op, "result is transposed: (N, M) instead of (M, N)");
        return false;
      }
      *(r == numOut - 1 ? &mm->dimN : &mm->dimNOuter) = d;
    } else if (inX && !inW) {
      mm->rowLoops[mm->numRows] = d, mm->rowPos[mm->numRows++] = r;
    } else {
      setReason(why, v->op, inX && inW ? "batched matmul is not supported" : "not a plain (M, K) x (K, N) contraction");
      return false;
    }
  }
  if (mm->dimN < 0) {
    setReason(why, v->op, "no result dim is indexed by the weight alone (N)");
    return false;
  }
  int kLoops[kMaxRank], numK = 0;
  for (int d = 0; d < v->numLoops; ++d) {
    if (inResult[d] || v->loopRange[d] == 1)
      continue; /* a unit reduction (x's unit dim reduced, as --linalg-fold-unit-extent-dims can leave it) sums one term */
    if (!mapUsesDim(xMap, d) || !weightUsesLoop(mm, d)) {
      setReason(why, v->op, "loop d%d is not shared by x and the weight", d);
      return false;
    }
    kLoops[numK++] = d;
  }
  if (numK < 1) {
    setReason(why, v->op, "no contraction loop shared by x and the weight (K)");
    return false;
  }
  mm->nInner = v->loopRange[mm->dimN];
  mm->N = mm->dimNOuter < 0 || mm->nInner < 0 ? mm->nInner : v->loopRange[mm->dimNOuter] * mm->nInner;
  mm->K = 1;
  for (int i = 0; i < numK; ++i)
    mm->K = v->loopRange[kLoops[i]] < 0 || mm->K < 0 ? -1 : mm->K * v->loopRange[kLoops[i]];
  for (int d = 0; d < v->numLoops; ++d)
    if (v->loopRange[d] == 0) {
      setReason(why, v->op, "empty contraction (a dimension of size 0)");
      return false;
    }
  if (mm->K < 0 || mm->N < 0) {
    const bool castAway = castErasesSizes(linalgInput(v, mm->xInput)) ||
                          (mm->weightInput >= 0 && castErasesSizes(linalgInput(v, mm->weightInput)));
    setReason(why, v->op, "dynamic %s (%s must be static)%s", mm->K < 0 ? "K" : "N", mm->K < 0 ? "K" : "N",
              castAway ? ": an operand's static sizes are cast away by tensor.cast (--canonicalize folds such casts)"
                       : "");
    return false;
  }
  if (mm->K % W4A16_MIN_GROUP_SIZE != 0) { /* the group size itself is the dequantisation's to find */
    setReason(why, v->op, "K = %lld is not a multiple of %d (no supported group size divides it)", (long long)mm->K,
              W4A16_MIN_GROUP_SIZE);
    return false;
  }
  /* K's loops in x's order, outermost first (by how far each moves x; matchX checks the row-major reading) */
  int64_t stride[kMaxRank];
  for (int i = 0; i < numK; ++i)
    stride[i] = numK > 1 ? xStride(mm, kLoops[i]) : 1;
  for (int i = 1; i < numK; ++i)
    for (int j = i; j > 0 && stride[j] > stride[j - 1]; --j) {
      const int64_t s = stride[j];
      const int d = kLoops[j];
      stride[j] = stride[j - 1], kLoops[j] = kLoops[j - 1];
      stride[j - 1] = s, kLoops[j - 1] = d;
    }
  mm->numKLoops = numK;
  memcpy(mm->kLoops, kLoops, sizeof(int) * (size_t)numK);
  return true;
}

/* The split of t's dims into rows (leading) and K (the trailing dims, static, of product K), or -1. Its
 * row dims other than unit dims hold the row loops, one each (or one of them all, for one row loop). */
static int rowDimsOf(const MatmulMatch *mm, const int64_t *dims, int rank) {
  int split = rank;
  int64_t product = 1;
  while (split > 0 && product < mm->K && dims[split - 1] > 0)
    product *= dims[--split];
  /* x typed with a dynamic K (tensor<?x?xf16>, an exporter's fully dynamic signature): its last dim alone is K,
   * whose size the weight gives (the rewrite casts x to it; readsRowMajor checks the reads) */
  if (split == rank && split > 0 && dims[split - 1] < 0)
    --split, product = mm->K;
  if (product != mm->K)
    return -1;
  int nonUnit = 0;
  for (int i = 0; i < split; ++i)
    nonUnit += dims[i] != 1;
  return nonUnit <= 1 || nonUnit == mm->numRows ? split : -1;
}

/* Whether `r` reads element (sample row m, k) of t as a row-major (M, K) matrix with rowDims leading row
 * dims: k in the trailing dims; the row dims other than unit dims at 0, except, for m > 0, the one that
 * holds row loop m - 1 (the (m-1)-th of them, y's order; with one row loop, any one) at 1. */
static bool readsRowMajor(const MatmulMatch *mm, const int64_t *idx, const int64_t *dims, int rank, int rowDims,
                          int64_t m, int64_t k) {
  int64_t linear = 0;
  for (int i = rowDims; i < rank; ++i)
    linear = linear * dims[i] + idx[i];
  if (linear != k)
    return false;
  int64_t ones = 0, nonUnit = 0;
  bool inOrder = true;
  for (int i = 0; i < rowDims; ++i) {
    if (idx[i] != 0 && idx[i] != 1)
      return false;
    ones += idx[i];
    if (dims[i] == 1)
      continue;
    ++nonUnit;
    inOrder &= idx[i] == (nonUnit == m ? 1 : 0);
  }
  return ones == (m > 0 ? 1 : 0) && (mm->numRows <= 1 || inOrder);
}

/* The 16-bit float type every element of f32 tensor t is a widening of, where its producer is an elementwise linalg
 * op whose body yields arith.extf of such a value (upstream's elementwise fusion folds x's widening into the norm
 * that computes it); a null type otherwise. The fused op then takes x narrowed back to it, which is exact. */
static MlirType widenedFrom(MlirValue t) {
  MlirOperation p = producer(t);
  LinalgView view;
  if (mlirOperationIsNull(p) || !isF32(elementTypeOf(t)) || !linalgView(p, &view) || !linalgIsElementwise(&view))
    return (MlirType){NULL};
  MlirOperation yield = mlirBlockGetTerminator(view.body), ext = producer(mlirOperationGetOperand(yield, resultIndex(t)));
  if (mlirOperationIsNull(ext) || !opIs(ext, "arith.extf"))
    return (MlirType){NULL};
  const MlirType from = mlirValueGetType(mlirOperationGetOperand(ext, 0));
  return w4a16IsActivationType(from) ? from : (MlirType){NULL};
}

/* x is the f16 tensor whose row-major elements x[m, k] are: the leaf reached through reshapes and
 * casts (the reshapes then become dead), or else the matmul's operand before its widening casts
 * (reshapes whose sizes are dynamic, e.g. [B, S, K] collapsed to (B*S, K), stay as written). */
static bool tryXOnce(MatmulMatch *mm, bool (*seeThrough)(Evaluator *, MlirOperation), Reason *why) {
  Evaluator ev;
  evalInit(&ev, seeThrough, leafIndexTag, NULL);
  const int64_t ks[] = {0, 1, 2, 127, 128, 129, mm->K / 2 + 3, mm->K - 1};
  for (int m = 0; m <= mm->numRows; ++m)
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) {
      const LeafRead *r = readX(mm, &ev, m, ks[i]);
      if (!r) {
        setReason(why, mm->view.op, "x is not a tensor read directly (through reshapes or casts only)");
        return false;
      }
      MlirType t = mlirValueIsNull(mm->xExpr) ? elementTypeOf(r->tensor) : mlirValueGetType(mm->xExpr);
      if (isF32(t) && mlirTypeIsNull(mm->xNarrowTo) && mlirValueIsNull(mm->xExpr))
        mm->xNarrowTo = widenedFrom(r->tensor);
      if (!mlirTypeIsNull(mm->xNarrowTo) && !isF32(t) && !mlirTypeEqual(t, mm->xNarrowTo)) {
        char name[32], to[32];
        setReason(why, mm->view.op, "x is %s, widened and narrowed to %s in the contraction's body",
                  typeName(t, name, sizeof name), typeName(mm->xNarrowTo, to, sizeof to));
        return false;
      }
      if (!w4a16IsActivationType(t) && !(isF32(t) && !mlirTypeIsNull(mm->xNarrowTo))) {
        char name[32], op[64];
        MlirOperation from = producer(r->tensor);
        if (!mlirOperationIsNull(from) && mlirOperationGetNumOperands(from) > 0) /* computed, not an argument */
          setReason(why, mm->view.op, "x is %s, computed by %s, which is not a reshape or a widening cast of an f16 "
                                      "or bf16 tensor", typeName(t, name, sizeof name), opName(from, op, sizeof op));
        else
          setReason(why, mm->view.op, "x is %s, expected f16 or bf16", typeName(t, name, sizeof name));
        return false;
      }
      int64_t idx[kMaxRank], dims[kMaxRank]; /* the read in the order the fused op takes x's dims */
      for (int d = 0; d < r->rank; ++d)
        idx[d] = r->idx[matmulXDim(mm, d)], dims[d] = dimOf(r->tensor, matmulXDim(mm, d));
      int rowDims = rowDimsOf(mm, dims, r->rank);
      if (rowDims < 0 || !readsRowMajor(mm, idx, dims, r->rank, rowDims, m, ks[i]) ||
          ((m > 0 || i > 0) && !valueEq(r->tensor, mm->x))) {
        setReason(why, mm->view.op, "x is not read as a row-major (M, K) tensor");
        return false;
      }
      mm->x = r->tensor, mm->xRowDims = rowDims;
    }
  for (int i = 0; i < ev.numTouched; ++i)
    opSetAdd(&mm->producers, ev.touched[i]);
  return true;
}

static bool tryX(MatmulMatch *mm, bool (*seeThrough)(Evaluator *, MlirOperation), Reason *why) {
  const MlirType narrowTo = mm->xNarrowTo; /* tryXOnce may set it (widenedFrom): not for the next try */
  if (tryXOnce(mm, seeThrough, why))
    return true;
  mm->xNarrowTo = narrowTo;
  return false;
}

/* An x computed in the body reads its inputs where they are: the expression is computed over their shape. */
static bool seeThroughNothing(Evaluator *ev, MlirOperation op) {
  (void)ev, (void)op;
  return false;
}

/* The dim of x's leaf read at (sample row m, k) that moves from 0 to 1 (every other at 0), or -1. */
static int dimSteppedAt(MatmulMatch *mm, Evaluator *ev, MlirValue leaf, int64_t m, int64_t k) {
  const LeafRead *r = readX(mm, ev, m, k);
  if (!r || !valueEq(r->tensor, leaf))
    return -1;
  int stepped = -1;
  for (int d = 0; d < r->rank; ++d)
    if (r->idx[d] != 0) {
      if (stepped >= 0 || r->idx[d] != 1)
        return -1;
      stepped = d;
    }
  return stepped;
}

/* Where x's leaf is read with its dims in another order than row-major (M, K) -- a transpose folded into the
 * contraction's map, as upstream's elementwise fusion leaves attention's [B, H, S, D] read as [B, S, H * D] -- the
 * order that makes it so, into xPerm: its unit dims, the dim each row loop steps (y's order), then the dims k steps,
 * outermost first (each one's stride the product of the sizes inside it). matchX then checks every sample in that
 * order, and the rewrite transposes x. False where no order of whole dims does. */
static bool findXTranspose(MatmulMatch *mm) {
  Evaluator ev;
  evalInit(&ev, seeThroughX, leafIndexTag, NULL);
  const LeafRead *origin = readX(mm, &ev, 0, 0);
  if (!origin)
    return false;
  const MlirValue leaf = origin->tensor;
  const int rank = origin->rank;
  int order[kMaxRank], n = 0, kDims[kMaxRank], numK = 0;
  bool placed[kMaxRank] = {false};
  for (int d = 0; d < rank; ++d) {
    if (origin->idx[d] != 0)
      return false;
    if (dimOf(leaf, d) == 1)
      order[n++] = d, placed[d] = true;
  }
  for (int m = 1; m <= mm->numRows; ++m) {
    const int d = dimSteppedAt(mm, &ev, leaf, m, 0);
    if (d < 0 || placed[d])
      return false;
    order[n++] = d, placed[d] = true;
  }
  for (int64_t stride = 1; n + numK < rank; ) {
    const int d = stride < mm->K ? dimSteppedAt(mm, &ev, leaf, 0, stride) : -1;
    if (d < 0 || placed[d] || dimOf(leaf, d) <= 1)
      return false;
    kDims[numK++] = d, placed[d] = true, stride *= dimOf(leaf, d);
  }
  bool identity = true;
  for (int i = numK - 1; i >= 0; --i)
    order[n++] = kDims[i];
  for (int d = 0; d < rank; ++d)
    identity &= order[d] == d;
  if (identity)
    return false; /* x's own order: not row-major for another reason */
  memcpy(mm->xPerm, order, sizeof order);
  return mm->xTransposed = true;
}

static bool matchX(MatmulMatch *mm, Reason *why) {
  if (!mlirValueIsNull(mm->xExpr))
    return tryX(mm, seeThroughNothing, why);
  Reason throughReshapes = {0}, transposed = {0};
  if (tryX(mm, seeThroughX, &throughReshapes))
    return true;
  if (tryX(mm, seeThroughCasts, why))
    return true;
  if (findXTranspose(mm) && tryX(mm, seeThroughX, &transposed))
    return true;
  mm->xTransposed = false;
  *why = throughReshapes;
  return false;
}

/* y accumulates into its init: zero (a fill, evaluated through and erased with the matmul), or a tensor that is then
 * part of y: the epilogue reads it as y's bias or residual (match_epilogue.c). Upstream's fold-add-into-dest
 * leaves `matmul(x, W, outs = broadcast(bias))`; `acc += x @ W` accumulates into a residual. A non-zero constant
 * is neither. */
static bool matchInit(MatmulMatch *mm, Reason *why) {
  Evaluator ev;
  evalInit(&ev, seeThroughConstants, leafIndexTag, NULL);
  int64_t idx[kMaxRank] = {0};
  const MlirValue init = linalgInit(&mm->view, 0);
  const Scalar value = evalElement(&ev, init, idx);
  if (ev.error) {
    setReason(why, mm->view.op, "matmul's init: %s", ev.error);
    return false;
  }
  if (ev.numReads != 0) {
    mm->init = init;
    return true;
  }
  if (value.f != 0.0 || value.bits != 0) {
    setReason(why, mm->view.op, "matmul accumulates into a non-zero init: the constant %g, not a bias or residual "
                                "tensor", value.width ? (double)value.bits : value.f);
    return false;
  }
  for (int i = 0; i < ev.numTouched; ++i)
    opSetAdd(&mm->producers, ev.touched[i]);
  return true;
}

/* Whether the body reads integer tensors itself (tensor.extract): a dequantisation fused into the contraction. */
static bool bodyExtractsIntegers(const LinalgView *view) {
  MlirOperation yield = mlirBlockGetTerminator(view->body);
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(yield); i < n; ++i)
    if (bodyDepsOf(mlirOperationGetOperand(yield, i), view->body).extractsIntegers)
      return true;
  return false;
}

/* Whether the weight reads integer data: evaluated, or (where evaluation stops early) seen in the body. */
static bool weightReadsIntegers(const MatmulMatch *mm) {
  if (mm->weightInput < 0) {
    const BodyDeps deps = bodyDepsOf(mm->weightInBody, mm->view.body);
    if (deps.integerArgs || deps.extractsIntegers)
      return true;
  }
  Evaluator ev;
  evalInit(&ev, dequantSeeThrough, leafIndexTag, NULL);
  int64_t zero[kMaxRank] = {0};
  weightAtIter(mm, &ev, zero);
  return readAnyInteger(&ev);
}

/* Whether input i varies along the loop of the output's last dim (n), as a weight does and x does not. */
static bool readsOutputColumns(const LinalgView *view, int i) {
  MlirAffineMap out = view->maps[view->numInputs];
  const intptr_t results = mlirAffineMapGetNumResults(out);
  if (results == 0)
    return false;
  MlirAffineExpr last = mlirAffineMapGetResult(out, results - 1);
  return mlirAffineExprIsADim(last) && mapUsesDim(view->maps[i], (int)mlirAffineDimExprGetPosition(last));
}

bool matchMatmul(MlirOperation op, MatmulMatch *mm, Reason *why) {
  memset(mm, 0, sizeof *mm);
  if (!linalgView(op, &mm->view) || mm->view.numInits != 1 || mm->view.numInputs < 1 ||
      linalgIsElementwise(&mm->view))
    return false;
  bool codes[kMaxLinalgOperands] = {false}, anyCodes = false;
  int tooLarge = -1; /* an input whose producers were not analysed */
  for (int i = 0; i < mm->view.numInputs; ++i) {
    bool large = false;
    anyCodes |= codes[i] = readsIntegerCodesOrTooLarge(&mm->view, i, &large);
    if (large && tooLarge < 0)
      tooLarge = i;
  }
  /* A reduction of one integer input (a sum, an argmax) is no candidate; one whose body reads integer tensors
   * itself may be a contraction that dequantises its weight there. */
  if (!(anyCodes && mm->view.numInputs >= 2) && !bodyExtractsIntegers(&mm->view)) {
    MlirOperation product;
    if (anyCodes && sumsProductOfDequantisedData(&mm->view, &product)) {
      char where[256];
      locationText(mlirOperationGetLocation(product), where, sizeof where);
      setReason(why, op, "sums the product (%s) of a dequantised weight and float data: a contraction split into "
                         "product and sum; upstream's linalg-fuse-elementwise-ops joins them into one, which fuses",
                where);
    }
    else if (!anyCodes && tooLarge >= 0 && readsOutputColumns(&mm->view, tooLarge))
      /* silence would read as "a plain matmul", which this may not be; an x too deep to analyse (the residual
       * stream of a deep model) is of no concern */
      setReason(why, op, "operand %d is computed by a chain of producers too deep or too large to analyse (more "
                         "than ~200 ops in a row): whether it is a dequantised weight is not known", tooLarge);
    return false; /* no dequantised operand: a plain matmul (or not one at all), nothing to report */
  }
  /* From here on the op reads integer data: every way it fails to match gets a reason. */
  if (mm->view.numInputs == 2 && mlirLinalgIsAContractionOp(op)) {
    if (codes[0] && codes[1]) {
      setReason(why, op, "both operands are computed from integer tensors: x must be a 16-bit float tensor read "
                         "through reshapes and casts only (an embedding lookup or a gather feeding x is not)");
      return false;
    }
    mm->weightInput = codes[0] ? 0 : 1;
    mm->xInput = 1 - mm->weightInput;
  } else if (!matchWeightInBody(mm, why)) {
    if (!why->text[0])
      setReason(why, op, "reads integer codes but is not a multiply-accumulate contraction: its body does not yield "
                         "acc + x * w, x a float input (through casts) or computed elementwise from float inputs over "
                         "x's loops, and w computed without x");
    return false;
  } else if (!weightReadsIntegers(mm)) {
    setReason(why, op, "reads integer codes outside its weight: x must be a 16-bit float tensor read through "
                       "reshapes and casts only");
    return false;
  }
  mm->result = mlirOperationGetResult(op, 0);
  MlirType resultType = elementTypeOf(mm->result);
  if (!is16BitFloat(resultType) && !isF32(resultType)) {
    char name[32];
    setReason(why, op, "matmul result is %s, expected f16, bf16 or f32", typeName(resultType, name, sizeof name));
    return false;
  }
  return matchDims(mm, why) && matchX(mm, why) && matchInit(mm, why);
}
