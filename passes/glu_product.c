/* The GLU product check shared by w4a16-merge-siblings and w4a16-split-chunked-glu; see glu_product.h. */
#include "glu_product.h"

#include "match.h"
#include "rewrite.h"

#include <math.h>
#include <string.h>

enum { kMaxPath = kGluMaxPath, kSamples = 16 };

/* --- the paths from the factors to the consumer ---------------------------------------------------- */

/* a and b are g and u seen through the same views: identical view ops, each the only data user of the value
 * before it, applied in the same order. */
static bool sameViews(MlirValue a, MlirValue g, MlirValue b, MlirValue u, int depth) {
  if (valueEq(a, g) || valueEq(b, u))
    return valueEq(a, g) && valueEq(b, u);
  MlirOperation pa = producer(a), pb = producer(b);
  if (depth > kMaxPath || mlirOperationIsNull(pa) || mlirOperationIsNull(pb) || !isViewProducer(pa) ||
      mlirOperationGetNumResults(pa) != 1 || dataUserCount(a) != 1 || dataUserCount(b) != 1 ||
      !opIs(pb, opName(pa, (char[64]){0}, 64)) || !sameAttributes(pa, pb) ||
      !mlirTypeEqual(mlirValueGetType(a), mlirValueGetType(b)) ||
      mlirOperationGetNumOperands(pa) != mlirOperationGetNumOperands(pb) || mlirOperationGetNumRegions(pa) != 0)
    return false;
  for (intptr_t i = 1, n = mlirOperationGetNumOperands(pa); i < n; ++i)
    if (!sameValue(mlirOperationGetOperand(pa, i), mlirOperationGetOperand(pb, i), 0))
      return false;
  return sameViews(mlirOperationGetOperand(pa, 0), g, mlirOperationGetOperand(pb, 0), u, depth + 1);
}

/* v through the views that are its only data use, one after the other: the value its first other user reads
 * (null when some value on the way has another number of data users than one). */
static MlirValue throughViews(MlirValue v) {
  MlirOperation user;
  for (int depth = 0; depth < kMaxPath && !mlirOperationIsNull(user = onlyDataUser(v)); ++depth) {
    if (!isViewProducer(user) || mlirOperationGetNumResults(user) != 1 || !valueEq(mlirOperationGetOperand(user, 0), v))
      return v;
    v = mlirOperationGetResult(user, 0);
  }
  return (MlirValue){NULL};
}

/* The ops from v on, each the only data user of the one before: elementwise ops with one result, and the op
 * after the last of them. */
typedef struct Path {
  MlirOperation ops[kMaxPath];
  int count;
} Path;

int gluForwardPath(MlirValue v, bool throughViews, MlirOperation *ops, int max) {
  int count = 0;
  MlirOperation user;
  while (count < max && !mlirOperationIsNull(user = onlyDataUser(v))) {
    ops[count++] = user;
    if (!(isElementwiseProducer(user) || (throughViews && isViewProducer(user))) ||
        mlirOperationGetNumResults(user) != 1)
      break;
    v = mlirOperationGetResult(user, 0);
  }
  return count;
}

static void pathFrom(MlirValue v, Path *path) { path->count = gluForwardPath(v, false, path->ops, kMaxPath); }

static int indexIn(const Path *path, MlirOperation op) {
  for (int i = 0; i < path->count; ++i)
    if (opEq(path->ops[i], op))
      return i;
  return -1;
}

/* --- the evaluation ------------------------------------------------------------------------------------ */

typedef struct ProductEval {
  Evaluator ev;
  const Path *path[2];
  int length[2]; /* ops of each path evaluated through: up to the consumer, which both hold */
  MlirValue a, b;
} ProductEval;

static bool seeThroughPaths(Evaluator *ev, MlirOperation op) {
  const ProductEval *p = ev->user;
  for (int s = 0; s < 2; ++s) {
    const int i = indexIn(p->path[s], op);
    if (i >= 0 && i < p->length[s])
      return true;
  }
  return false;
}

/* Synthetic data for the two factors: distinct and position-dependent, of both signs and magnitudes from 0.3 to
 * 3000, so that relu(a) * b or min(a, 6) * b cannot pass for a * b, nor relu(a) * b for silu(a) * b. */
static Scalar factorValue(Evaluator *ev, MlirValue tensor, const int64_t *idx) {
  static const double kMagnitudes[] = {0.3, 1.7, 4.5, 60, 3000};
  ProductEval *p = ev->user;
  uint64_t h = mix64(valueEq(tensor, p->a) ? 0x9e37 : valueEq(tensor, p->b) ? 0x7f4a : 0x1234);
  for (int i = 0, r = rankOf(tensor); i < r; ++i)
    h = mix64(h ^ (uint64_t)idx[i]);
  const double v = kMagnitudes[h % 5] * (1 + (double)((h >> 8) % 64) / 128.0) * ((h >> 16) & 1 ? -1 : 1);
  return floatScalar(valueEq(tensor, p->a) || valueEq(tensor, p->b) ? v : NAN);
}

/* The readings the product may be: act(a) * b or a * act(b). The plain product is exact (the factors are the
 * only data); an activation matches like the fuse pass's epilogue does (2e-3 relative, frontend constants may be
 * rounded to f16), as act(gate) = got / up. */
enum { kPlain, kSiluA, kSiluB, kGeluA, kGeluB, kNumReadings };

static bool readingHolds(int reading, double got, double va, double vb) {
  if (reading == kPlain)
    return fabs(got - va * vb) <= 1e-12 * fabs(va * vb);
  const int activation = reading == kSiluA || reading == kSiluB ? W4A16_ACT_SILU : W4A16_ACT_GELU_TANH;
  const bool gateIsA = reading == kSiluA || reading == kGeluA;
  const double want = activationValue(activation, gateIsA ? va : vb), seen = got / (gateIsA ? vb : va);
  return fabs(seen - want) <= 2e-3 * fabs(want) + 1e-6;
}

/* Which readings the consumer's result matches at every sampled element (a bit per reading; 0 on a failed
 * evaluation, a read of anything but the two factors at the element evaluated, or one factor unread). */
static unsigned evaluateProduct(ProductEval *p, MlirValue out) {
  const int rank = rankOf(out);
  unsigned holds = (1u << kNumReadings) - 1;
  for (int s = 0; s < kSamples && holds; ++s) {
    int64_t idx[kMaxRank];
    for (int d = 0; d < rank; ++d) {
      /* a dynamic dim is sampled at 0..2 too: at 0 alone, a factor broadcast along it (read at row 0 for every row)
       * would pass for the product of matching elements */
      const int64_t size = dimOf(out, d) > 0 ? dimOf(out, d) : 3;
      idx[d] = (int64_t)(mix64((uint64_t)(s * 31 + d)) % (uint64_t)size);
    }
    evalReset(&p->ev);
    const Scalar got = evalElement(&p->ev, out, idx);
    if (p->ev.error || p->ev.numReads < 2)
      return 0;
    bool readA = false, readB = false;
    for (int r = 0; r < p->ev.numReads; ++r) {
      const LeafRead *read = &p->ev.reads[r];
      if (memcmp(read->idx, idx, sizeof(int64_t) * (size_t)rank) != 0)
        return 0;
      readA |= valueEq(read->tensor, p->a), readB |= valueEq(read->tensor, p->b);
    }
    if (!readA || !readB)
      return 0;
    const double va = factorValue(&p->ev, p->a, idx).f, vb = factorValue(&p->ev, p->b, idx).f;
    for (int reading = 0; reading < kNumReadings; ++reading)
      if (!readingHolds(reading, got.f, va, vb))
        holds &= ~(1u << reading);
  }
  return holds;
}

/* --- the check ------------------------------------------------------------------------------------------ */

const char *findGluProduct(MlirValue a, MlirValue b, bool pathActivation, GluProduct *p) {
  *p = (GluProduct){.activation = W4A16_ACT_NONE};
  if (!mlirTypeEqual(mlirValueGetType(a), mlirValueGetType(b)))
    return "they differ in type";
  p->aSeen = throughViews(a), p->bSeen = throughViews(b);
  if (mlirValueIsNull(p->aSeen) || mlirValueIsNull(p->bSeen))
    return "each must be used once, through views, by the product";
  Path path[2];
  pathFrom(p->aSeen, &path[0]);
  pathFrom(p->bSeen, &path[1]);
  int at[2] = {-1, -1};
  for (int i = 0; i < path[0].count && at[0] < 0; ++i)
    if ((at[1] = indexIn(&path[1], path[0].ops[i])) >= 0)
      at[0] = i;
  if (at[0] < 0)
    return "they do not meet in one elementwise op (each used once, through views and elementwise ops)";
  p->consumer = path[0].ops[at[0]];
  if (!sameViews(p->aSeen, a, p->bSeen, b, 0))
    return "they are seen through different views";
  for (int s = 0; s < 2; ++s) { /* shaped like the factors, so that a tensor.dim of them reads the result's dims */
    p->pathLength[s] = at[s];
    for (int i = 0; i < at[s]; ++i) {
      p->path[s][i] = path[s].ops[i];
      const MlirValue v = mlirOperationGetResult(path[s].ops[i], 0);
      for (int d = 0; d < rankOf(p->aSeen); ++d)
        if (rankOf(v) != rankOf(p->aSeen) || dimOf(v, d) != dimOf(p->aSeen, d))
          return "an op on the way to their product changes the shape";
    }
  }
  const MlirValue out = mlirOperationGetResult(p->consumer, 0);
  if (!isElementwiseProducer(p->consumer) || mlirOperationGetNumResults(p->consumer) != 1 || rankOf(out) < 1 ||
      !mlirTypeEqual(mlirValueGetType(out), mlirValueGetType(p->aSeen)))
    return "the op they meet in is not elementwise with their type";
  ProductEval eval = {.path = {&path[0], &path[1]}, .length = {at[0] + 1, at[1] + 1}, .a = p->aSeen, .b = p->bSeen};
  evalInit(&eval.ev, seeThroughPaths, factorValue, &eval);
  eval.ev.positionInvariantConditions = true; /* select(n == 77, ...) is no product */
  const unsigned holds = evaluateProduct(&eval, out) & (pathActivation ? ~0u : 1u << kPlain);
  static const int kActivation[kNumReadings] = {W4A16_ACT_NONE, W4A16_ACT_SILU, W4A16_ACT_SILU, W4A16_ACT_GELU_TANH,
                                                W4A16_ACT_GELU_TANH};
  for (int reading = 0; reading < kNumReadings; ++reading)
    if (holds & (1u << reading)) {
      p->activation = kActivation[reading];
      p->bIsGate = reading == kSiluB || reading == kGeluB;
      return NULL;
    }
  return pathActivation ? "the op they meet in does not compute act(gate) * up (act none, silu or gelu_tanh)"
                        : "the op they meet in does not compute gate * up";
}

/* tensor.dim users of v read the same dims of w (of v's shape). */
static void redirectDims(MlirValue v, MlirValue w) {
  MlirOpOperand use = mlirValueGetFirstUse(v);
  while (!mlirOpOperandIsNull(use)) {
    const MlirOpOperand next = mlirOpOperandGetNextUse(use);
    if (opIs(mlirOpOperandGetOwner(use), "tensor.dim"))
      mlirOperationSetOperand(mlirOpOperandGetOwner(use), mlirOpOperandGetOperandNumber(use), w);
    use = next;
  }
}

/* The views that take `from` to `seen`, applied to `to`: to[d] is it through the first d of them, each clone
 * inserted right before the view it copies (where that view's other operands are defined, before any user of
 * its result). Returns their number; the clones go to *made. */
static int cloneViews(MlirValue from, MlirValue seen, MlirValue *to, OpSet *made) {
  MlirOperation chain[kMaxPath + 1];
  int depth = 0;
  for (MlirValue v = seen; !valueEq(v, from); v = mlirOperationGetOperand(producer(v), 0))
    chain[depth++] = producer(v);
  for (int d = 1; d <= depth; ++d) {
    MlirOperation view = chain[depth - d], copy = mlirOperationClone(view);
    mlirOperationSetOperand(copy, 0, to[d - 1]);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(view), view, copy);
    to[d] = mlirOperationGetResult(copy, 0);
    opSetAdd(made, copy);
  }
  return depth;
}

void replaceGluConsumer(const GluProduct *p, MlirValue a, MlirValue b, MlirValue merged) {
  OpSet made = {.count = 0};
  MlirValue viewed[2][kMaxPath + 1] = {{merged}, {merged}};
  const MlirValue factor[2] = {a, b}, seen[2] = {p->aSeen, p->bSeen};
  for (int s = 0; s < 2; ++s) {
    const int depth = cloneViews(factor[s], seen[s], viewed[s], &made);
    MlirValue v = seen[s];
    for (int d = depth;; --d, v = mlirOperationGetOperand(producer(v), 0)) {
      redirectDims(v, viewed[s][d]);
      if (d == 0)
        break;
    }
    for (int i = 0; i < p->pathLength[s]; ++i)
      redirectDims(mlirOperationGetResult(p->path[s][i], 0), viewed[s][depth]);
    if (s == 0)
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(p->consumer, 0), viewed[0][depth]);
  }
  eraseDeadOps(&made); /* b's clones where no tensor.dim reads them */
}
