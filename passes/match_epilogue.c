/* The epilogue of the chain: out[m, n] = act(y[m, n] + bias[n]) + residual[m, n].
 *
 * Candidates are the elementwise ops downstream of the matmul result y, longest first. For each, the
 * ops it depends on (back to y) form the chain; it is valid when no chain value escapes to another
 * user and, evaluated at sample points, it computes the formula above: it is additive in the
 * residual, depends on bias only through y + bias, and as a function of y alone it is the identity,
 * silu or gelu_tanh. Spelling (one generic or several, named ops, f16 or f32, operand order) does not
 * matter; only the arithmetic does. Where the matmul accumulates into a tensor (match.h), y is read with that
 * init added, so a bias or residual there is found as if the epilogue added it. */
#include "match.h"

#include <math.h>
#include <string.h>

static const char kCombinesText[] = "combines the matmul result with an (M, N) tensor other than by adding it last";

typedef struct EpilogueEval {
  const MatmulMatch *mm;
  const OpSet *chain;
  Evaluator ev;
  double y, bias, residual; /* values of the leaves at the element being evaluated */
  bool randomSides;         /* classification run: every side leaf gets synthetic data */
  MlirValue biasLeaf, residualLeaf;
  /* With M = 1 a tensor shaped like y is also shaped like a bias: which it is, the formula decides. */
  MlirValue ambiguous[2];
  int numAmbiguous;
  bool inInit; /* evaluating an element of the matmul's init */
  bool constantSides; /* float tensor constants are sides (a bias folded to one value), not values */
  bool tookConstants; /* a float tensor constant was evaluated by value */
} EpilogueEval;

static bool seeThroughChain(Evaluator *ev, MlirOperation op) {
  EpilogueEval *p = ev->user;
  if (opSetHas(p->chain, op))
    return true;
  /* The init's producers are not in the chain: a broadcast of the bias and its cast to f32 may be one generic. */
  if (p->inInit && isElementwiseProducer(op))
    return true;
  if (opIs(op, "arith.constant") && isFloat(elementTypeOf(mlirOperationGetResult(op, 0)))) {
    if (p->constantSides)
      return false;
    p->tookConstants = true;
  }
  /* Side inputs are read through broadcasts and widening casts (to find a 1-D f16 bias), not reshapes; a view that
   * rounds is a side of its own (a LoRA branch computed in f32 and rounded to f16 before it is added): read through,
   * its f32 source would stand for the rounded values. */
  return isViewProducer(op) && !isReshape(op) && viewOnlyWidens(op);
}

static Scalar chainLeaf(Evaluator *ev, MlirValue tensor, const int64_t *idx) {
  EpilogueEval *p = ev->user;
  if (valueEq(tensor, p->mm->result)) {
    if (mlirValueIsNull(p->mm->init))
      return floatScalar(p->y);
    p->inInit = true; /* y includes its init, read at y's element: a bias or residual side */
    const Scalar init = evalElement(ev, p->mm->init, idx);
    p->inInit = false;
    return floatScalar(p->y + init.f);
  }
  if (p->randomSides) {
    uint64_t h = mix64((uint64_t)(uintptr_t)tensor.ptr);
    for (int i = 0, r = rankOf(tensor); i < r; ++i)
      h = mix64(h ^ (uint64_t)idx[i]);
    return floatScalar((double)(h % 2048) / 1024.0 - 1.0);
  }
  if (valueEq(tensor, p->biasLeaf))
    return floatScalar(p->bias);
  if (valueEq(tensor, p->residualLeaf))
    return floatScalar(p->residual);
  return floatScalar(0);
}

static void resultIndexIn(const MatmulMatch *mm, MlirValue v, int64_t m, int64_t n, int64_t *idx);

static double evalAt(EpilogueEval *p, MlirValue end, int64_t m, int64_t n, double y, double bias, double residual) {
  int64_t idx[kMaxRank];
  resultIndexIn(p->mm, end, m, n, idx);
  p->y = y, p->bias = bias, p->residual = residual;
  evalReset(&p->ev);
  return evalElement(&p->ev, end, idx).f;
}

static double silu(double t) { return activationValue(W4A16_ACT_SILU, t); }
static double geluTanh(double t) { return activationValue(W4A16_ACT_GELU_TANH, t); }
static double geluErf(double t) { return 0.5 * t * (1 + erf(t / sqrt(2.0))); }
static double relu(double t) { return t > 0 ? t : 0; }
static double identity(double t) { return t; }

/* y values the formula is checked at: around the activations' bends, and far out (a clamp such as
 * min(t, 6.5) agreed with the plain formula at every value up to 6 and fused), up to f16's largest value and past
 * it: HF T5's fp16 guard clamps at +-64504, and a saturating cast clamps an f32 result to +-65504 before truncf;
 * both fused when the samples stopped at 20000, and the op, which rounds to the output type unclamped, dropped them.
 * The chain is evaluated in double, so values past f16's range stay finite. */
static const double kSampleValues[] = {-98304, -65504, -20000, -300, -40, -7.5, -5, -3,   -2,    -1.25, -0.5,
                                       -0.1,   0.2,    0.75,   1.5,  2.5, 4,    6,  40,   300,   20000, 65504,
                                       98304};

/* The element the i-th formula sample is taken at: a sample row (match.h) and a column spread over N, so
 * that an epilogue computing with positions (y + n, a bias made from the row index) cannot pass for the
 * formula by being checked at (0, 0) only. */
static void samplePoint(const EpilogueEval *p, size_t i, int64_t *m, int64_t *n) {
  const int64_t N = p->mm->N, columns[] = {0, N - 1, N / 2 + 1, 1, N / 3, 2 * N / 3 + 5, 7};
  *m = (int64_t)(i % (size_t)(p->mm->numRows + 1));
  *n = columns[i % (sizeof columns / sizeof columns[0])] % N;
}

/* Frontend constants may be rounded to f16, so activations match to 2e-3 relative, which still
 * separates gelu_tanh from erf-gelu (10 % apart at -3). */
static bool actIs(EpilogueEval *p, MlirValue end, double (*f)(double)) {
  for (size_t i = 0; i < sizeof kSampleValues / sizeof kSampleValues[0]; ++i) {
    int64_t m, n;
    samplePoint(p, i, &m, &n);
    double t = kSampleValues[i], got = evalAt(p, end, m, n, t, 0, 0), want = f(t);
    if (p->ev.error || !(fabs(got - want) <= 2e-3 * fabs(want) + 1e-6))
      return false;
  }
  return true;
}

/* How v's shape holds y's elements: 0 as y's own shape; 1 as y's shape with its last dim (N) split into two static
 * ones (an expand_shape to [.., H, D], as upstream's reshape propagation leaves an epilogue on a reshaped y); 2 with
 * y's row dims regrouped (matmulRowsRegrouped); -1 none of these. */
static int resultLayout(const MatmulMatch *mm, MlirValue v) {
  const int rank = rankOf(mm->result);
  bool same = rankOf(v) == rank;
  for (int i = 0; same && i < rank; ++i)
    same = dimOf(v, i) == dimOf(mm->result, i);
  if (same)
    return 0;
  if (matmulNDimsOf(mm, v) > matmulNDims(mm))
    return 1;
  return matmulRowsRegrouped(mm, v) ? 2 : -1;
}

static bool sameShapeAsResult(const MatmulMatch *mm, MlirValue v) { return resultLayout(mm, v) >= 0; }

/* The indices of element (sample row m, n) of y in v (resultLayout >= 0). */
static void resultIndexIn(const MatmulMatch *mm, MlirValue v, int64_t m, int64_t n, int64_t *idx) {
  const int layout = resultLayout(mm, v);
  if (layout == 2) { /* the row's position in the row-major order of y's rows, then of v's */
    int64_t yIdx[kMaxRank], row = 0;
    matmulResultIndex(mm, m, n, yIdx);
    const int nDims = matmulNDims(mm), rowsY = rankOf(mm->result) - nDims, rowsV = rankOf(v) - nDims;
    for (int d = 0; d < rowsY; ++d)
      row = row * dimOf(mm->result, d) + yIdx[d];
    for (int d = rowsV - 1; d > 0; --d) { /* a dynamic dim holds any sample row (as reshapeResultToSource takes it) */
      const int64_t size = dimOf(v, d) < 0 ? kDynamicGroupExtent : dimOf(v, d);
      idx[d] = row % size, row /= size;
    }
    idx[0] = row; /* the outermost row dim, possibly dynamic */
    for (int d = 0; d < nDims; ++d)
      idx[rowsV + d] = yIdx[rowsY + d];
    return;
  }
  matmulResultIndex(mm, m, n, idx);
  if (layout == 1) {
    const int last = rankOf(mm->result) - 1;
    const int64_t inner = dimOf(v, last + 1);
    idx[last] = n / inner, idx[last + 1] = n % inner;
  }
}

/* Whether a read of `t` at idx is element (m, n) of a tensor shaped like y. */
static bool readsResultElement(const MatmulMatch *mm, MlirValue t, const int64_t *idx, int64_t m, int64_t n) {
  int64_t want[kMaxRank];
  if (!sameShapeAsResult(mm, t))
    return false;
  resultIndexIn(mm, t, m, n, want);
  return memcmp(idx, want, sizeof(int64_t) * (size_t)rankOf(t)) == 0;
}

/* Chain ops of candidate end: end and everything in `forward` it depends on. */
static void chainOf(MlirOperation end, const OpSet *forward, OpSet *chain) {
  chain->count = 0;
  opSetAdd(chain, end);
  for (int i = 0; i < chain->count; ++i)
    for (intptr_t j = 0, n = mlirOperationGetNumOperands(chain->ops[i]); j < n; ++j) {
      MlirOperation p = producer(mlirOperationGetOperand(chain->ops[i], j));
      if (!mlirOperationIsNull(p) && opSetHas(forward, p))
        opSetAdd(chain, p);
    }
}

/* Whether every user of v is in the chain; with shapeQueries, tensor.dim users may be anywhere (a shape query reads
 * no element; the rewrite points those of the matmul result at its init, rewrite.c). */
static bool usersInside(MlirValue v, const OpSet *chain, bool shapeQueries) {
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
    if (!opSetHas(chain, mlirOpOperandGetOwner(u)) && !(shapeQueries && opIs(mlirOpOperandGetOwner(u), "tensor.dim")))
      return false;
  return true;
}

static bool noValueEscapes(const MatmulMatch *mm, MlirOperation end, const OpSet *chain, Reason *why) {
  if (!usersInside(mm->result, chain, true)) {
    setReason(why, mm->view.op, "matmul result has %ld users", (long)dataUserCount(mm->result));
    return false;
  }
  for (int i = 0; i < chain->count; ++i) {
    MlirOperation op = chain->ops[i];
    if (opEq(op, end))
      continue;
    MlirValue v = mlirOperationGetResult(op, 0);
    if (!usersInside(v, chain, false)) {
      char name[64];
      setReason(why, op, "result of %s inside the chain has %ld users", opName(op, name, sizeof name), (long)userCount(v));
      return false;
    }
  }
  return true;
}

/* The reason for an end that reads the matmul result at another element; where, at the last column, that read
 * indexes a dynamic dim of y beyond the sample rows (0 and 1, match.h) -- y[n, m], say -- it says so: such IR
 * reads out of bounds wherever that dim is smaller. */
static void readOutsideRows(EpilogueEval *p, MlirValue end, MlirOperation endOp, Reason *why) {
  const MatmulMatch *mm = p->mm;
  evalAt(p, end, 0, mm->N - 1, 0.37, 0, 0);
  for (int r = 0; !p->ev.error && r < p->ev.numReads; ++r) {
    const LeafRead *read = &p->ev.reads[r];
    if (!valueEq(read->tensor, mm->result))
      continue;
    for (int d = 0; d < read->rank; ++d)
      if (dimOf(read->tensor, d) < 0 && read->idx[d] > 1) {
        setReason(why, endOp, "reads the matmul result at another element (transposed or shifted): index %lld "
                              "along its dynamic dim %d, out of bounds wherever that dim is smaller",
                  (long long)read->idx[d], d);
        return;
      }
  }
  setReason(why, endOp, "reads the matmul result at another element (transposed or shifted)");
}

/* Sorts what the end reads at element (m, n) into the matmul result (there only), bias[n] and residual[m, n]. */
static bool classifyReadsAt(EpilogueEval *p, MlirValue end, MlirOperation endOp, int64_t m, int64_t n, Reason *why) {
  const MatmulMatch *mm = p->mm;
  evalAt(p, end, m, n, 0.37, 0, 0);
  if (p->ev.error) {
    setReason(why, endOp, "epilogue: %s", p->ev.error);
    return false;
  }
  for (int r = 0; r < p->ev.numReads; ++r) {
    const LeafRead *read = &p->ev.reads[r];
    MlirValue t = read->tensor;
    char type[48];
    if (valueEq(t, mm->result)) {
      if (!readsResultElement(mm, t, read->idx, m, n)) {
        readOutsideRows(p, end, endOp, why);
        return false;
      }
      continue;
    }
    bool isBias = numElements(t) == mm->N && linearIndex(t, read->idx) == n;
    bool isResidual = readsResultElement(mm, t, read->idx, m, n);
    if (isBias && isResidual) {
      bool seen = false;
      for (int a = 0; a < p->numAmbiguous; ++a)
        seen |= valueEq(p->ambiguous[a], t);
      if (!seen && p->numAmbiguous == 2) {
        setReason(why, endOp, "adds more than two (N)-shaped tensors");
        return false;
      }
      if (!seen)
        p->ambiguous[p->numAmbiguous++] = t;
      continue;
    }
    MlirValue *slot = isBias ? &p->biasLeaf : isResidual ? &p->residualLeaf : NULL;
    if (!slot) {
      setReason(why, endOp, "reads a %s tensor that is neither a bias (N) nor a residual (M, N)",
                typeName(mlirValueGetType(t), type, sizeof type));
      return false;
    }
    if (!mlirValueIsNull(*slot) && !valueEq(*slot, t)) {
      setReason(why, endOp, "adds more than one %s", isBias ? "bias" : "residual");
      return false;
    }
    *slot = t;
  }
  return true;
}

/* Finds which side tensors the end reads as bias[n] and residual[m, n]. */
static bool classifySides(EpilogueEval *p, MlirValue end, MlirOperation endOp, Reason *why) {
  const MatmulMatch *mm = p->mm;
  const int64_t firstRow = mm->numRows > 0 ? 1 : 0, lastRow = mm->numRows; /* sample rows (match.h) */
  const int64_t points[][2] = {{0, 0}, {0, 1}, {firstRow, mm->N - 1}, {lastRow, mm->N / 2 + 1}};
  p->randomSides = true;
  for (size_t i = 0; i < sizeof points / sizeof points[0]; ++i)
    if (!classifyReadsAt(p, end, endOp, points[i][0], points[i][1] % mm->N, why))
      return false;
  /* Positions read through a constant index table (`bias[perm[n]]`) are checked at every column: a table that
   * differs from the identity at one column only passes any sample of columns. */
  for (int64_t n = 0; !mlirValueIsNull(p->ev.indexTable) && n < mm->N; ++n)
    if (!classifyReadsAt(p, end, endOp, lastRow, n, why))
      return false;
  p->randomSides = false;
  return true;
}

/* The runtime takes bias and residual in x's type (f16 or bf16); checked after the arithmetic, whose
 * mismatch is the more useful reason (a product with an f32 tensor is not "an f32 residual"). */
static bool sidesHaveXType(const EpilogueEval *p, MlirOperation endOp, Reason *why) {
  MlirValue sides[2] = {p->biasLeaf, p->residualLeaf};
  const MlirType io = matmulIoType(p->mm);
  for (int i = 0; i < 2; ++i)
    if (!mlirValueIsNull(sides[i]) && !mlirTypeEqual(elementTypeOf(sides[i]), io)) {
      char type[48], want[48];
      setReason(why, endOp, "%s is %s, expected %s (x's type)", i == 0 ? "bias" : "residual",
                typeName(elementTypeOf(sides[i]), type, sizeof type), typeName(io, want, sizeof want));
      return false;
    }
  return true;
}

/* The arithmetic: additive residual, bias inside the activation, activation of a known kind (-1: none
 * of them, with a reason). */
static int matchFormula(EpilogueEval *p, MlirValue end, MlirOperation endOp, Reason *why) {
  for (size_t i = 0; i < sizeof kSampleValues / sizeof kSampleValues[0]; ++i) {
    double t = kSampleValues[i], b = 0.625 - 0.125 * (double)i, r = 1.5 - 0.25 * (double)i;
    int64_t m, n;
    samplePoint(p, i, &m, &n);
    double withResidual = evalAt(p, end, m, n, t, b, r), without = evalAt(p, end, m, n, t, b, 0);
    if (!mlirValueIsNull(p->residualLeaf) && fabs(withResidual - without - r) > 1e-9 * (1 + fabs(withResidual))) {
      setReason(why, endOp, "%s", kCombinesText);
      return -1;
    }
    double shifted = evalAt(p, end, m, n, t + b, 0, 0);
    if (!mlirValueIsNull(p->biasLeaf) && fabs(without - shifted) > 1e-9 * (1 + fabs(without))) {
      setReason(why, endOp, "bias is not added to the matmul result before the activation");
      return -1;
    }
  }
  const int act = actIs(p, end, identity) ? W4A16_ACT_NONE
                  : actIs(p, end, silu)   ? W4A16_ACT_SILU
                  : actIs(p, end, geluTanh) ? W4A16_ACT_GELU_TANH
                                          : -1;
  if (act >= 0) {
    /* The op propagates a NaN product (so do the activations' formulas); a select on isnan or a
     * NaN-ignoring max or min would turn it into a number the samples above never show. */
    if (!isnan(evalAt(p, end, 0, 0, NAN, 0, 0)) && !p->ev.error) {
      setReason(why, endOp, "replaces a NaN result (a NaN test or a NaN-ignoring max/min): the fused op propagates NaN");
      return -1;
    }
    return act;
  }
  if (actIs(p, end, geluErf))
    setReason(why, endOp, "activation is gelu with erf; only the tanh approximation is supported");
  else if (actIs(p, end, relu))
    setReason(why, endOp, "activation is relu; only silu and gelu_tanh are supported");
  else
    setReason(why, endOp, "computes something other than act(y + bias) + residual with act in {silu, gelu_tanh}");
  return -1;
}

/* Which sides `end` reads as bias and residual, and its activation, into ep; chain: the epilogue's ops (empty where
 * end is y itself, read with its init); constantSides: float tensor constants are sides; *tookConstants: whether
 * any was evaluated by value. */
static bool matchSidesAs(const MatmulMatch *mm, MlirValue end, MlirOperation endOp, bool constantSides,
                         bool *tookConstants, EpilogueMatch *ep, Reason *why) {
  EpilogueEval p = {.mm = mm, .chain = &ep->ops, .constantSides = constantSides};
  evalInit(&p.ev, seeThroughChain, chainLeaf, &p);
  p.ev.positionInvariantConditions = true;
  const bool classified = classifySides(&p, end, endOp, why);
  *tookConstants = p.tookConstants;
  if (!classified)
    return false;
  /* Each (N)-shaped side at M = 1 is tried as bias, then as residual; the first reason is reported. */
  const MlirValue bias = p.biasLeaf, residual = p.residualLeaf;
  int act = -1;
  for (int roles = 0; roles < (1 << p.numAmbiguous) && act < 0; ++roles) {
    p.biasLeaf = bias, p.residualLeaf = residual;
    bool assignable = true;
    for (int a = 0; a < p.numAmbiguous; ++a) {
      MlirValue *slot = roles >> a & 1 ? &p.residualLeaf : &p.biasLeaf;
      assignable &= mlirValueIsNull(*slot);
      *slot = p.ambiguous[a];
    }
    Reason attempt = {0};
    if (assignable)
      act = matchFormula(&p, end, endOp, roles == 0 ? why : &attempt);
  }
  if (act < 0 && !why->text[0])
    setReason(why, endOp, "cannot tell the bias from the residual");
  *tookConstants = p.tookConstants;
  if (act < 0 || !sidesHaveXType(&p, endOp, why))
    return false;
  ep->end = end;
  ep->activation = (w4a16_activation)act;
  ep->bias = p.biasLeaf, ep->hasBias = !mlirValueIsNull(p.biasLeaf);
  ep->residual = p.residualLeaf, ep->hasResidual = !mlirValueIsNull(p.residualLeaf);
  for (int i = 0; i < p.ev.numTouched; ++i)
    opSetAdd(&ep->ops, p.ev.touched[i]);
  return true;
}

/* A splat bias or residual constant (a frontend's folding, a placeholder checkpoint) is first taken by value, which
 * makes y + c no formula of the chain: where the first evaluation took a float tensor constant by value and failed,
 * evaluated again with those constants as sides -- only then, so that a tensor of ones in a sigmoid stays the
 * constant it is. The reason, if neither holds, is the first try's. */
static bool matchSides(const MatmulMatch *mm, MlirValue end, MlirOperation endOp, EpilogueMatch *ep, Reason *why) {
  bool tookConstants = false, unused;
  if (matchSidesAs(mm, end, endOp, false, &tookConstants, ep, why))
    return true;
  Reason again = {0};
  return tookConstants && matchSidesAs(mm, end, endOp, true, &unused, ep, &again);
}

static bool tryEnd(const MatmulMatch *mm, MlirOperation endOp, const OpSet *forward, EpilogueMatch *ep, Reason *why) {
  chainOf(endOp, forward, &ep->ops);
  return noValueEscapes(mm, endOp, &ep->ops, why) && matchSides(mm, mlirOperationGetResult(endOp, 0), endOp, ep, why);
}

/* Whether v's row dims past the outermost have a dynamic one (y's rows regrouped that way: only an expand_shape
 * names those sizes, which the fused result's reshape needs). */
static bool innerRowsDynamic(const MatmulMatch *mm, MlirValue v) {
  for (int d = 1; d < rankOf(v) - matmulNDims(mm); ++d)
    if (dimOf(v, d) < 0)
      return true;
  return false;
}

/* Elementwise ops reachable from y through values of y's shape (or y's shape with N split, past an expand_shape
 * that splits it, or with its rows regrouped, past a reshape of the rows), in the matmul's block. */
static void forwardSlice(const MatmulMatch *mm, OpSet *forward) {
  MlirBlock block = mlirOperationGetBlock(mm->view.op);
  MlirValue frontier[kMaxChainOps + 1];
  int numFrontier = 0;
  frontier[numFrontier++] = mm->result;
  for (int i = 0; i < numFrontier; ++i)
    for (MlirOpOperand u = mlirValueGetFirstUse(frontier[i]); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      const bool reshapes = opIs(user, "tensor.expand_shape") || opIs(user, "tensor.collapse_shape");
      const int from = resultLayout(mm, frontier[i]);
      const int to = mlirOperationGetNumResults(user) == 1 ? resultLayout(mm, mlirOperationGetResult(user, 0)) : -1;
      /* an expand_shape that splits N, or a reshape that regroups the rows (from or to y's own rows) */
      const bool splitsN = opIs(user, "tensor.expand_shape") && from == 0 && to == 1;
      const bool regroupsRows = reshapes && from != 1 && to != 1 && (from == 2 || to == 2) &&
                                (to != 2 || opIs(user, "tensor.expand_shape") ||
                                 !innerRowsDynamic(mm, mlirOperationGetResult(user, 0)));
      if (opSetHas(forward, user) || forward->count >= kMaxChainOps || !mlirBlockEqual(mlirOperationGetBlock(user), block) ||
          !(isElementwiseProducer(user) || splitsN || regroupsRows) || mlirOperationGetNumResults(user) != 1 ||
          !sameShapeAsResult(mm, mlirOperationGetResult(user, 0)))
        continue;
      opSetAdd(forward, user);
      frontier[numFrontier++] = mlirOperationGetResult(user, 0);
    }
}

bool matchEpilogue(const MatmulMatch *mm, EpilogueMatch *ep, Reason *why) {
  memset(ep, 0, sizeof *ep);
  OpSet forward = {.count = 0};
  forwardSlice(mm, &forward);
  /* Longest first: the candidate latest in the block. */
  for (int i = 0; i < forward.count; ++i)
    for (int j = i + 1; j < forward.count; ++j)
      if (mlirOperationIsBeforeInBlock(forward.ops[i], forward.ops[j])) {
        MlirOperation t = forward.ops[i];
        forward.ops[i] = forward.ops[j], forward.ops[j] = t;
      }
  for (int i = 0; i < forward.count; ++i) {
    if (!mlirTypeEqual(elementTypeOf(mlirOperationGetResult(forward.ops[i], 0)), matmulIoType(mm)))
      continue; /* the chain ends in x's type */
    Reason candidateWhy = {0};
    if (tryEnd(mm, forward.ops[i], &forward, ep, &candidateWhy))
      return true;
    /* The longest candidate's reason, unless it is the product with another tensor that ends a GLU's gate: then
     * the reason its own part fails (a relu) says more. */
    if (!ep->stop.text[0] || (strcmp(ep->stop.text, kCombinesText) == 0 && strcmp(candidateWhy.text, kCombinesText)))
      ep->stop = candidateWhy;
  }
  ep->ops.count = 0;
  if (!mlirTypeEqual(elementTypeOf(mm->result), matmulIoType(mm))) {
    char type[48], want[48];
    if (ep->stop.text[0]) /* ops after the matmul reach x's type, but not as an epilogue: say why */
      setReason(why, ep->stop.at, "matmul result is %s, and the ops that truncate it to %s are not a fused epilogue: "
                "%s", typeName(elementTypeOf(mm->result), type, sizeof type),
                typeName(matmulIoType(mm), want, sizeof want), ep->stop.text);
    else
      setReason(why, mm->view.op, "matmul result is %s and never truncated to %s (x's type)",
                typeName(elementTypeOf(mm->result), type, sizeof type),
                typeName(matmulIoType(mm), want, sizeof want));
    return false;
  }
  if (!mlirValueIsNull(mm->init)) { /* y alone: its init is the bias or residual */
    Reason initWhy = {0};
    if (matchSides(mm, mm->result, mm->view.op, ep, &initWhy))
      return true;
    setReason(why, mm->view.op, "matmul accumulates into a non-zero init that is not a bias or residual: %s",
              initWhy.text);
    return false;
  }
  ep->end = mm->result;
  ep->activation = W4A16_ACT_NONE;
  return true;
}
