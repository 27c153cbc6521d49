/* w4a16-fuse: rewrites each dequant -> matmul -> bias -> activation -> residual chain into one
 * w4a16.fused_matmul (see match.h for what each part must compute), erasing producers left dead.
 * With explain on, every matmul fed by a dequantised weight gets a located remark: what it was
 * fused as, or the first reason it was not. IR that does not match is not touched. */
#include "match.h"
#include "w4a16/dialect.h"
#include "w4a16/passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Tensor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- explain remarks ---------------------------------------------------------------------------- */

typedef struct Text {
  char buf[512];
  size_t used;
} Text;

static void textWrite(MlirStringRef s, void *userData) {
  Text *t = userData;
  size_t room = sizeof t->buf - 1 - t->used, n = s.length < room ? s.length : room;
  memcpy(t->buf + t->used, s.data, n);
  t->used += n;
  t->buf[t->used] = 0;
}

/* `loc("f.mlir":3:7)` -> `f.mlir:3:7`, the way mlir-opt prints diagnostics. */
static void formatLocation(MlirLocation loc, char *out, size_t size) {
  Text t = {{0}, 0};
  mlirLocationPrint(loc, textWrite, &t);
  const char *open = strchr(t.buf, '"');
  const char *close = open ? strchr(open + 1, '"') : NULL;
  if (!close) {
    snprintf(out, size, "%s", t.buf);
    return;
  }
  size_t lineCol = strspn(close + 1, ":0123456789");
  snprintf(out, size, "%.*s%.*s", (int)(close - open - 1), open + 1, (int)lineCol, close + 1);
}

static void remark(const W4a16FuseOptions *options, MlirOperation at, const char *fmt, ...) {
  if (!options->explain)
    return;
  char where[256], msg[768];
  formatLocation(mlirOperationGetLocation(at), where, sizeof where);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  FILE *out = options->explain_stream ? options->explain_stream : stderr;
  fprintf(out, "%s: remark: w4a16: %s\n", where, msg);
}

/* --- rewriting ---------------------------------------------------------------------------------- */

static MlirAttribute namedString(MlirContext ctx, const char *s) {
  return mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(s));
}

static MlirNamedAttribute named(MlirContext ctx, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(name)), value);
}

/* tensor.collapse_shape of `value` into dims [0, split) and [split, rank) (one group if split == rank). */
static MlirValue collapseTo(MlirValue value, int split, MlirOperation before, MlirLocation loc) {
  int rank = rankOf(value);
  int numGroups = split == rank ? 1 : 2;
  if (rank == numGroups)
    return value;
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirAttribute groups[2];
  int64_t shape[2] = {1, 1};
  for (int g = 0; g < numGroups; ++g) {
    int lo = g == 0 ? 0 : split, hi = g == 0 ? split : rank;
    MlirAttribute dims[kMaxRank];
    for (int d = lo; d < hi; ++d) {
      dims[d - lo] = mlirIntegerAttrGet(i64, d);
      shape[g] *= dimOf(value, d);
    }
    groups[g] = mlirArrayAttrGet(ctx, hi - lo, dims);
  }
  MlirType type = mlirRankedTensorTypeGet(numGroups, shape, elementTypeOf(value), mlirAttributeGetNull());
  MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString("tensor.collapse_shape"), loc);
  mlirOperationStateAddOperands(&state, 1, &value);
  mlirOperationStateAddResults(&state, 1, &type);
  MlirNamedAttribute reassociation = named(ctx, "reassociation", mlirArrayAttrGet(ctx, numGroups, groups));
  mlirOperationStateAddAttributes(&state, 1, &reassociation);
  MlirOperation op = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
  return mlirOperationGetResult(op, 0);
}

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

/* Erases the candidates left without users, and then their pure producers left without users. */
static void eraseDead(OpSet *candidates) {
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < candidates->count; ++i) {
      MlirOperation op = candidates->ops[i];
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

static MlirOperation buildFusedOp(const MatmulMatch *mm, const DequantMatch *dq, const EpilogueMatch *ep) {
  MlirOperation matmul = mm->view.op;
  MlirOperation last = valueEq(ep->end, mm->result) ? matmul : producer(ep->end);
  MlirLocation loc = mlirOperationGetLocation(matmul);
  MlirContext ctx = mlirOperationGetContext(matmul);

  MlirValue operands[5];
  int n = 0;
  operands[n++] = mm->x;
  operands[n++] = collapseTo(dq->codes, dq->codesSplit, last, loc);
  operands[n++] = collapseTo(dq->scales, dq->scalesSplit, last, loc);
  if (ep->hasBias)
    operands[n++] = collapseTo(ep->bias, rankOf(ep->bias), last, loc);
  if (ep->hasResidual)
    operands[n++] = ep->residual;

  int32_t segments[5] = {1, 1, 1, ep->hasBias, ep->hasResidual};
  MlirNamedAttribute attrs[] = {
      named(ctx, "activation", namedString(ctx, ep->activation)),
      named(ctx, "group_size", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), kGroupSize)),
      named(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 5, segments)),
      named(ctx, "scales_layout", namedString(ctx, dq->scalesLayout)),
      named(ctx, "weight_layout", namedString(ctx, dq->weightLayout)),
  };
  MlirType resultType = mlirValueGetType(ep->end);
  MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString(W4A16_FUSED_MATMUL_OP), loc);
  mlirOperationStateAddOperands(&state, n, operands);
  mlirOperationStateAddResults(&state, 1, &resultType);
  mlirOperationStateAddAttributes(&state, sizeof attrs / sizeof attrs[0], attrs);
  MlirOperation fused = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(last), last, fused);
  mlirValueReplaceAllUsesOfWith(ep->end, mlirOperationGetResult(fused, 0));

  OpSet dead = ep->ops;
  opSetAdd(&dead, matmul);
  for (int i = 0; i < mm->producers.count; ++i)
    opSetAdd(&dead, mm->producers.ops[i]);
  for (int i = 0; i < dq->producers.count; ++i)
    opSetAdd(&dead, dq->producers.ops[i]);
  eraseDead(&dead);
  return fused;
}

static void describeChain(const DequantMatch *dq, const EpilogueMatch *ep, char *out, size_t size) {
  snprintf(out, size, "dequant(%s, scales %s) -> matmul%s%s%s%s", dq->weightLayout, dq->scalesLayout,
           ep->hasBias ? " -> bias" : "", strcmp(ep->activation, "none") ? " -> " : "",
           strcmp(ep->activation, "none") ? ep->activation : "", ep->hasResidual ? " -> residual" : "");
}

static void fuseChainAt(MlirOperation op, const W4a16FuseOptions *options) {
  MatmulMatch mm;
  DequantMatch dq;
  EpilogueMatch ep;
  Reason why = {0};
  if (!matchMatmul(op, &mm, &why) || !matchDequant(&mm, &dq, &why) || !matchEpilogue(&mm, &ep, &why)) {
    if (why.text[0])
      remark(options, op, "not fused: %s", why.text);
    return;
  }
  char chain[256], stop[640] = "";
  describeChain(&dq, &ep, chain, sizeof chain);
  if (ep.stop.text[0] && !mlirOperationIsNull(ep.stop.at)) {
    char where[256];
    formatLocation(mlirOperationGetLocation(ep.stop.at), where, sizeof where);
    snprintf(stop, sizeof stop, "; chain ends before %s: %s", where, ep.stop.text);
  }
  remark(options, op, "fused as %s%s", chain, stop);
  buildFusedOp(&mm, &dq, &ep);
}

/* --- the pass ----------------------------------------------------------------------------------- */

typedef struct Candidates {
  MlirOperation *ops;
  int count, capacity;
} Candidates;

static MlirWalkResult collectContraction(MlirOperation op, void *userData) {
  Candidates *c = userData;
  if (!opInDialect(op, "linalg") || !mlirLinalgIsAContractionOp(op))
    return MlirWalkResultAdvance;
  if (c->count == c->capacity) {
    c->capacity = c->capacity ? 2 * c->capacity : 16;
    c->ops = realloc(c->ops, sizeof *c->ops * (size_t)c->capacity);
  }
  c->ops[c->count++] = op;
  return MlirWalkResultAdvance;
}

static void fuseRun(MlirOperation root, MlirExternalPass pass, void *userData) {
  (void)pass;
  const W4a16FuseOptions *options = userData;
  Candidates c = {NULL, 0, 0};
  mlirOperationWalk(root, collectContraction, &c, MlirWalkPreOrder);
  /* Rewriting only erases ops of the chain being fused, never another candidate matmul. */
  for (int i = 0; i < c.count; ++i)
    fuseChainAt(c.ops[i], options);
  free(c.ops);
}

static MlirLogicalResult fuseInitialize(MlirContext ctx, void *userData) {
  (void)userData;
  return w4a16LoadDialect(ctx);
}

static void *fuseClone(void *userData) {
  W4a16FuseOptions *copy = malloc(sizeof *copy);
  *copy = *(const W4a16FuseOptions *)userData;
  return copy;
}

static void fuseConstruct(void *userData) { (void)userData; }

static _Alignas(8) char fusePassId;

MlirPass w4a16CreateFusePass(W4a16FuseOptions options) {
  MlirExternalPassCallbacks callbacks = {fuseConstruct, free, fuseInitialize, fuseClone, fuseRun};
  MlirDialectHandle tensor = mlirGetDialectHandle__tensor__();
  return mlirCreateExternalPass(mlirTypeIDCreate(&fusePassId), mlirStringRefCreateFromCString("W4a16Fuse"),
                                mlirStringRefCreateFromCString("w4a16-fuse"),
                                mlirStringRefCreateFromCString("Fuse dequant-matmul-epilogue chains into w4a16.fused_matmul"),
                                mlirStringRefCreateFromCString(""), 1, &tensor, callbacks, fuseClone(&options));
}

void w4a16AddFusePass(MlirOpPassManager pm, W4a16FuseOptions options) {
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateFusePass(options));
}
