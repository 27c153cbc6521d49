/* Shared rewrite plumbing of the fuse passes; see rewrite.h. */
#include "rewrite.h"

#include "w4a16/dialect.h"

#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Tensor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* --- erasing dead producers -------------------------------------------------------------------- */

static bool isPureProducer(MlirOperation op) {
  return opIs(op, "tensor.empty") || opIs(op, "tensor.dim") || opIs(op, "arith.constant") || isViewProducer(op) ||
         isElementwiseProducer(op);
}

static bool isDead(MlirOperation op) {
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i)
    if (userCount(mlirOperationGetResult(op, i)) != 0)
      return false;
  return true;
}

/* A linalg op on tensors whose results only feed tensor.dim: those shape queries read its inits instead (a result
 * has its init's shape), so that the op dies (frontends query the dims of a dequantised weight). */
static void rerouteShapeQueries(MlirOperation op) {
  LinalgView view;
  const intptr_t numResults = mlirOperationGetNumResults(op);
  if (!linalgView(op, &view) || view.numInits != numResults)
    return;
  for (intptr_t i = 0; i < numResults; ++i)
    if (dataUserCount(mlirOperationGetResult(op, i)) != 0)
      return;
  for (intptr_t i = 0; i < numResults; ++i) {
    MlirValue result = mlirOperationGetResult(op, i);
    for (MlirOpOperand use = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(use);
         use = mlirValueGetFirstUse(result))
      mlirOperationSetOperand(mlirOpOperandGetOwner(use), mlirOpOperandGetOperandNumber(use), linalgInit(&view, (int)i));
  }
}

typedef struct Producers {
  OpSet *set;
  MlirBlock outer; /* values captured from this block by a body */
} Producers;

/* Adds the pure producers of op's operands, and of values its bodies capture from `outer`. */
static MlirWalkResult addProducers(MlirOperation op, void *userData) {
  Producers *p = userData;
  for (intptr_t j = 0, n = mlirOperationGetNumOperands(op); j < n; ++j) {
    MlirOperation def = producer(mlirOperationGetOperand(op, j));
    if (!mlirOperationIsNull(def) && mlirBlockEqual(mlirOperationGetBlock(def), p->outer) && isPureProducer(def))
      opSetAdd(p->set, def);
  }
  return MlirWalkResultAdvance;
}

void eraseDeadOps(OpSet *candidates) {
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < candidates->count; ++i) {
      MlirOperation op = candidates->ops[i];
      rerouteShapeQueries(op);
      if (!isDead(op))
        continue;
      candidates->ops[i--] = candidates->ops[--candidates->count];
      Producers producers = {candidates, mlirOperationGetBlock(op)};
      mlirOperationWalk(op, addProducers, &producers, MlirWalkPreOrder);
      mlirOperationDestroy(op);
      changed = true;
    }
  }
}

/* --- explain remarks --------------------------------------------------------------------------- */

void explainRemark(const W4a16FuseOptions *options, const char *tag, MlirOperation at, const char *fmt, ...) {
  if (!options->explain)
    return;
  char where[256], msg[1024];
  locationText(mlirOperationGetLocation(at), where, sizeof where);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  FILE *out = options->explain_stream ? options->explain_stream : stderr;
  fprintf(out, "%s: remark: %s: %s\n", where, tag, msg);
}

/* --- the pass object ------------------------------------------------------------------------------ */

typedef struct PassState {
  const OptionsPassSpec *spec;
  W4a16FuseOptions options;
} PassState;

/* Candidates: contractions, and any other linalg op that reduces (one init, an init map that drops a loop), so
 * that a reduction over dequantised data which is not a multiply-accumulate still gets its explain remark, and a
 * contraction whose body reads the weight itself (tensor.extract from a captured tensor: x its only input) is seen. */
static bool isCandidate(MlirOperation op, void *unused) {
  (void)unused;
  if (!opInDialect(op, "linalg"))
    return false;
  if (mlirLinalgIsAContractionOp(op))
    return true;
  LinalgView view;
  return linalgView(op, &view) && view.numInputs >= 1 && view.numInits == 1 && !linalgIsElementwise(&view);
}

static void passRun(MlirOperation root, MlirExternalPass pass, void *userData) {
  (void)pass;
  const PassState *state = userData;
  if (state->spec->runOnRoot) {
    state->spec->runOnRoot(root, &state->options);
    return;
  }
  OpList c = collectOps(root, isCandidate, NULL, MlirWalkPreOrder);
  bool *done = calloc((size_t)c.count + 1, sizeof *done);
  for (int i = 0; state->spec->rewriteFirst && i < c.count; ++i)
    if ((done[i] = state->spec->rewriteFirst(c.ops[i])))
      state->spec->rewriteAt(c.ops[i], &state->options);
  for (int i = 0; i < c.count; ++i)
    if (!done[i])
      state->spec->rewriteAt(c.ops[i], &state->options);
  free(done);
  free(c.ops);
}

static MlirLogicalResult passInitialize(MlirContext ctx, void *userData) {
  (void)userData;
  return w4a16LoadDialect(ctx);
}

static void *passClone(void *userData) {
  PassState *copy = malloc(sizeof *copy);
  *copy = *(const PassState *)userData;
  return copy;
}

static void passConstruct(void *userData) { (void)userData; }

MlirPass createOptionsPass(const OptionsPassSpec *spec, W4a16FuseOptions options) {
  MlirExternalPassCallbacks callbacks = {passConstruct, free, passInitialize, passClone, passRun};
  /* rewrites may create tensor.collapse_shape / expand_shape and arith.constant (a merged op's zero bias) */
  MlirDialectHandle dialects[2] = {mlirGetDialectHandle__tensor__(), mlirGetDialectHandle__arith__()};
  PassState state = {spec, options};
  return mlirCreateExternalPass(mlirTypeIDCreate(spec->typeId), mlirStringRefCreateFromCString(spec->name),
                                mlirStringRefCreateFromCString(spec->argument),
                                mlirStringRefCreateFromCString(spec->description), mlirStringRefCreateFromCString(""),
                                2, dialects, callbacks, passClone(&state));
}

bool isFusedMatmulOp(MlirOperation op, void *unused) {
  (void)unused;
  return w4a16IsFusedMatmul(op);
}
