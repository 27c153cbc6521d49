/* The contraction of the chain: y[m, n] = sum_k x[m, k] * Wd[k, n] from a zero init.
 *
 * Accepts linalg.matmul and any contraction generic whose loops are (m, n, k) or (m, n, g, i) with
 * k = g * |i| (IREE's grouped form), whichever input carries the integer codes being the weight. */
#include "match.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <string.h>

static bool mapUsesDim(MlirAffineMap map, int dim) {
  for (intptr_t r = 0, n = mlirAffineMapGetNumResults(map); r < n; ++r)
    if (mlirAffineExprIsFunctionOfDim(mlirAffineMapGetResult(map, r), dim))
      return true;
  return false;
}

/* x may reach the matmul through reshapes and widening casts, never through arithmetic. */
static bool seeThroughX(Probe *probe, MlirOperation op) {
  (void)probe;
  if (opIs(op, "tensor.expand_shape") || opIs(op, "tensor.collapse_shape"))
    return true;
  MlirValue out = mlirOperationGetResult(op, 0);
  MlirValue in = mlirOperationGetNumOperands(op) ? mlirOperationGetOperand(op, 0) : out;
  return isViewProducer(op) && isFloat(elementTypeOf(in)) && isFloat(elementTypeOf(out)) &&
         mlirFloatTypeGetWidth(elementTypeOf(in)) < mlirFloatTypeGetWidth(elementTypeOf(out));
}

static bool seeThroughConstants(Probe *probe, MlirOperation op) {
  (void)probe;
  return isViewProducer(op);
}

static Scalar leafIndexTag(Probe *probe, MlirValue tensor, const int64_t *idx) {
  (void)probe, (void)tensor, (void)idx;
  return floatScalar(1.0);
}

/* Iteration point for (m, k, n): K splits into (outer, inner) when the contraction is grouped. */
static void iterationAt(const MatmulMatch *mm, int64_t m, int64_t k, int64_t n, int64_t *iter) {
  memset(iter, 0, sizeof(int64_t) * kMaxRank);
  iter[mm->dimM] = m;
  iter[mm->dimN] = n;
  if (mm->dimKOuter >= 0)
    iter[mm->dimKOuter] = k / mm->kInner;
  iter[mm->dimKInner] = mm->dimKOuter >= 0 ? k % mm->kInner : k;
}

void matmulWeightIndex(const MatmulMatch *mm, int64_t k, int64_t n, int64_t *idx) {
  int64_t iter[kMaxRank];
  iterationAt(mm, 0, k, n, iter);
  evalAffineMap(mm->view.maps[mm->weightInput], iter, idx);
}

/* Evaluates the x operand at (m, k) and returns the one leaf it reads, or NULL. */
static const LeafRead *readX(MatmulMatch *mm, Probe *probe, int64_t m, int64_t k) {
  int64_t iter[kMaxRank], idx[kMaxRank];
  iterationAt(mm, m, k, 0, iter);
  evalAffineMap(mm->view.maps[mm->xInput], iter, idx);
  probeReset(probe);
  probeElement(probe, linalgInput(&mm->view, mm->xInput), idx);
  return probe->error || probe->numReads != 1 ? NULL : &probe->reads[0];
}

/* Whether input i of the contraction is computed from integer data (a quantised weight). */
static bool readsIntegerCodes(const LinalgView *view, int i) {
  Probe probe;
  probeInit(&probe, dequantSeeThrough, leafIndexTag, NULL);
  int64_t zero[kMaxRank] = {0}, idx[kMaxRank];
  evalAffineMap(view->maps[i], zero, idx);
  probeElement(&probe, linalgInput(view, i), idx);
  for (int r = 0; r < probe.numReads; ++r)
    if (intWidth(elementTypeOf(probe.reads[r].tensor)) > 0)
      return true;
  return false;
}

static bool matchDims(MatmulMatch *mm, Reason *why) {
  const LinalgView *v = &mm->view;
  MlirAffineMap xMap = v->maps[mm->xInput], wMap = v->maps[mm->weightInput], outMap = v->maps[2];
  if (mlirAffineMapGetNumResults(outMap) != 2 ||
      !mlirAffineExprIsADim(mlirAffineMapGetResult(outMap, 0)) || !mlirAffineExprIsADim(mlirAffineMapGetResult(outMap, 1))) {
    setReason(why, v->op, mlirAffineMapGetNumResults(outMap) > 2 ? "batched matmul is not supported"
                                                                 : "result is not a 2-D (M, N) tensor");
    return false;
  }
  int d0 = (int)mlirAffineDimExprGetPosition(mlirAffineMapGetResult(outMap, 0));
  int d1 = (int)mlirAffineDimExprGetPosition(mlirAffineMapGetResult(outMap, 1));
  if (mapUsesDim(xMap, d0) && !mapUsesDim(wMap, d0) && mapUsesDim(wMap, d1) && !mapUsesDim(xMap, d1)) {
    mm->dimM = d0, mm->dimN = d1;
  } else {
    setReason(why, v->op,
              mapUsesDim(wMap, d0) && mapUsesDim(xMap, d1) ? "result is transposed: (N, M) instead of (M, N)"
                                                           : "not a plain (M, K) x (K, N) contraction");
    return false;
  }
  int kLoops[kMaxRank], numK = 0;
  for (int d = 0; d < v->numLoops; ++d) {
    if (d == d0 || d == d1)
      continue;
    if (!mapUsesDim(xMap, d) || !mapUsesDim(wMap, d)) {
      setReason(why, v->op, "loop d%d is not shared by x and the weight", d);
      return false;
    }
    kLoops[numK++] = d;
  }
  if (numK < 1 || numK > 2) {
    setReason(why, v->op, "contraction over %d loops (expected K, or K split into groups)", numK);
    return false;
  }
  mm->N = v->loopRange[mm->dimN];
  mm->K = 1;
  for (int i = 0; i < numK; ++i)
    mm->K = v->loopRange[kLoops[i]] < 0 || mm->K < 0 ? -1 : mm->K * v->loopRange[kLoops[i]];
  for (int d = 0; d < v->numLoops; ++d)
    if (v->loopRange[d] == 0) {
      setReason(why, v->op, "empty contraction (a dimension of size 0)");
      return false;
    }
  if (mm->K < 0 || mm->N < 0) {
    setReason(why, v->op, mm->K < 0 ? "dynamic K (K must be static)" : "dynamic N (N must be static)");
    return false;
  }
  if (mm->K % kGroupSize != 0) {
    setReason(why, v->op, "K = %lld is not a multiple of %d", (long long)mm->K, kGroupSize);
    return false;
  }
  mm->dimKOuter = -1;
  mm->dimKInner = kLoops[0];
  mm->kInner = mm->K;
  if (numK == 2) { /* the inner loop is the one that moves x by one element */
    mm->dimKOuter = kLoops[0], mm->dimKInner = kLoops[1], mm->kInner = v->loopRange[kLoops[1]];
    Probe probe;
    probeInit(&probe, seeThroughX, leafIndexTag, NULL);
    const LeafRead *r = readX(mm, &probe, 0, 1);
    if (r && r->rank == 2 && r->idx[1] != 1) {
      mm->dimKOuter = kLoops[1], mm->dimKInner = kLoops[0], mm->kInner = v->loopRange[kLoops[0]];
    }
  }
  return true;
}

static bool matchX(MatmulMatch *mm, Reason *why) {
  Probe probe;
  probeInit(&probe, seeThroughX, leafIndexTag, NULL);
  const int64_t ks[] = {0, 1, 2, 127, 128, 129, mm->K / 2 + 3, mm->K - 1};
  for (int m = 0; m < 2; ++m)
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) {
      const LeafRead *r = readX(mm, &probe, m, ks[i]);
      if (!r) {
        setReason(why, mm->view.op, "x is not a tensor read directly (through reshapes or casts only)");
        return false;
      }
      MlirType t = elementTypeOf(r->tensor);
      if (!isF16(t)) {
        char name[32];
        setReason(why, mm->view.op, "x is %s, expected f16", typeName(t, name, sizeof name));
        return false;
      }
      if (r->rank != 2 || dimOf(r->tensor, 1) != mm->K || r->idx[0] != m || r->idx[1] != ks[i]) {
        setReason(why, mm->view.op, "x is not read as a row-major (M, K) tensor");
        return false;
      }
      mm->x = r->tensor;
    }
  for (int i = 0; i < probe.numTouched; ++i)
    opSetAdd(&mm->producers, probe.touched[i]);
  return true;
}

static bool matchZeroInit(MatmulMatch *mm, Reason *why) {
  Probe probe;
  probeInit(&probe, seeThroughConstants, leafIndexTag, NULL);
  int64_t idx[2] = {0, 0};
  Scalar init = probeElement(&probe, linalgInit(&mm->view, 0), idx);
  if (probe.error || probe.numReads != 0 || init.f != 0.0 || init.bits != 0) {
    setReason(why, mm->view.op, "matmul accumulates into a non-zero init");
    return false;
  }
  for (int i = 0; i < probe.numTouched; ++i)
    opSetAdd(&mm->producers, probe.touched[i]);
  return true;
}

bool matchMatmul(MlirOperation op, MatmulMatch *mm, Reason *why) {
  memset(mm, 0, sizeof *mm);
  if (!linalgView(op, &mm->view) || mm->view.numInputs != 2 || mm->view.numInits != 1 ||
      !mlirLinalgIsAContractionOp(op))
    return false;
  bool codes0 = readsIntegerCodes(&mm->view, 0), codes1 = readsIntegerCodes(&mm->view, 1);
  if (codes0 == codes1)
    return false; /* no dequantised operand: a plain matmul, nothing to report */
  mm->weightInput = codes0 ? 0 : 1;
  mm->xInput = 1 - mm->weightInput;
  mm->result = mlirOperationGetResult(op, 0);
  MlirType resultType = elementTypeOf(mm->result);
  if (!isF16(resultType) && !isF32(resultType)) {
    char name[32];
    setReason(why, op, "matmul result is %s, expected f16 or f32", typeName(resultType, name, sizeof name));
    return false;
  }
  return matchDims(mm, why) && matchX(mm, why) && matchZeroInit(mm, why);
}
