/* w4a16-fuse-int8-prep: rewrites the LLM.int8 correction-operand preparation feeding a matmul
 * (subA = A[:, cols], subB = f16(CB[:, cols] * SCB[:, None] * 1/127).t(); see match_int8_prep.h) into one
 * w4a16.int8_prep op with the two results; the correction matmul and everything else stay. Ops of the
 * preparation left without users are erased. With explain on, every matmul fed by a gather through a
 * column list gets a located remark: "fused as ..." or the first reason it was not. */
#include "match_int8_prep.h"
#include "w4a16/dialect.h"
#include "w4a16/passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Tensor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void remark(const W4a16FuseOptions *options, MlirOperation at, const char *fmt, ...) {
  if (!options->explain)
    return;
  char where[256], msg[768];
  locationText(mlirOperationGetLocation(at), where, sizeof where);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  FILE *out = options->explain_stream ? options->explain_stream : stderr;
  fprintf(out, "%s: remark: w4a16-int8-prep: %s\n", where, msg);
}

/* --- rewriting ---------------------------------------------------------------------------------- */

/* The ancestor of op (or op itself) that lies in block, or a null op. */
static MlirOperation ancestorIn(MlirOperation op, MlirBlock block) {
  while (!mlirOperationIsNull(op) && !mlirBlockEqual(mlirOperationGetBlock(op), block))
    op = mlirOperationGetParentOperation(op);
  return op;
}

/* The op to insert before in `block` so that every value in `values` is defined above it: just after the
 * last of their definitions in the block, or at the top of the block. */
static MlirOperation insertionPoint(MlirBlock block, const MlirValue *values, int count) {
  MlirOperation last = {NULL};
  for (int i = 0; i < count; ++i) {
    MlirOperation def = producer(values[i]);
    if (mlirOperationIsNull(def))
      continue; /* a block argument: available in the whole block, or defined outside it */
    def = ancestorIn(def, block);
    if (!mlirOperationIsNull(def) && (mlirOperationIsNull(last) || mlirOperationIsBeforeInBlock(last, def)))
      last = def;
  }
  return mlirOperationIsNull(last) ? mlirBlockGetFirstOperation(block) : mlirOperationGetNextInBlock(last);
}

/* Uses of `from` by ops placed after `after` (in its block, directly or nested) now use `to`. */
static void replaceUsesAfter(MlirValue from, MlirValue to, MlirOperation after) {
  MlirBlock block = mlirOperationGetBlock(after);
  MlirOpOperand uses[256];
  int count = 0;
  for (MlirOpOperand use = mlirValueGetFirstUse(from); !mlirOpOperandIsNull(use) && count < 256;
       use = mlirOpOperandGetNextUse(use))
    uses[count++] = use;
  for (int i = 0; i < count; ++i) {
    MlirOperation owner = mlirOpOperandGetOwner(uses[i]);
    MlirOperation anc = ancestorIn(owner, block);
    if (!mlirOperationIsNull(anc) && !mlirOperationEqual(anc, after) && mlirOperationIsBeforeInBlock(after, anc))
      mlirOperationSetOperand(owner, (intptr_t)mlirOpOperandGetOperandNumber(uses[i]), to);
  }
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
  MlirBlock outer;
} Producers;

static MlirWalkResult addProducers(MlirOperation op, void *userData) {
  Producers *p = userData;
  for (intptr_t j = 0, n = mlirOperationGetNumOperands(op); j < n; ++j) {
    MlirOperation def = producer(mlirOperationGetOperand(op, j));
    if (!mlirOperationIsNull(def) && mlirBlockEqual(mlirOperationGetBlock(def), p->outer) && isPureProducer(def))
      opSetAdd(p->set, def);
  }
  return MlirWalkResultAdvance;
}

/* Erases the candidates left without users, then the pure producers (empties, dims, constants, views,
 * elementwise ops, and values captured by their bodies) that this leaves without users. */
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

static MlirType transposedType(MlirValue v) {
  int64_t shape[2] = {mlirShapedTypeGetDimSize(mlirValueGetType(v), 1), mlirShapedTypeGetDimSize(mlirValueGetType(v), 0)};
  return mlirRankedTensorTypeGet(2, shape, elementTypeOf(v), mlirAttributeGetNull());
}

/* The matmul read its B operand (N, L) through a permuted map: it now reads the op's (L, N) result
 * through the map with the two results swapped. */
static void readUntransposed(const Int8PrepMatch *pm, MlirValue subB) {
  MlirOperation mm = pm->matmul;
  MlirContext ctx = mlirOperationGetContext(mm);
  MlirAttribute maps[3];
  for (int i = 0; i < 3; ++i) {
    MlirAffineMap map = pm->view.maps[i];
    if (i == pm->bInput) {
      MlirAffineExpr swapped[2] = {mlirAffineMapGetResult(map, 1), mlirAffineMapGetResult(map, 0)};
      map = mlirAffineMapGet(ctx, mlirAffineMapGetNumDims(map), mlirAffineMapGetNumSymbols(map), 2, swapped);
    }
    maps[i] = mlirAffineMapAttrGet(map);
  }
  mlirOperationSetAttributeByName(mm, mlirStringRefCreateFromCString("indexing_maps"), mlirArrayAttrGet(ctx, 3, maps));
  mlirOperationSetOperand(mm, pm->bInput, subB);
}

static MlirOperation buildPrepOp(Int8PrepMatch *pm) {
  MlirOperation mm = pm->matmul;
  MlirBlock block = mlirOperationGetBlock(mm);
  MlirValue operands[4] = {pm->a, pm->cb, pm->scb, pm->cols};
  MlirType results[2] = {mlirValueGetType(pm->subA),
                         pm->bTransposed ? transposedType(pm->subB) : mlirValueGetType(pm->subB)};
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString(W4A16_INT8_PREP_OP), mlirOperationGetLocation(mm));
  mlirOperationStateAddOperands(&state, 4, operands);
  mlirOperationStateAddResults(&state, 2, results);
  MlirOperation prep = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationBefore(block, insertionPoint(block, operands, 4), prep);

  replaceUsesAfter(pm->subA, mlirOperationGetResult(prep, 0), prep);
  if (pm->bTransposed)
    readUntransposed(pm, mlirOperationGetResult(prep, 1));
  else
    replaceUsesAfter(pm->subB, mlirOperationGetResult(prep, 1), prep);

  OpSet dead = pm->producers;
  opSetAdd(&dead, producer(pm->subA));
  opSetAdd(&dead, producer(pm->subB));
  eraseDead(&dead);
  return prep;
}

static void dimText(MlirValue v, int i, char *buf, size_t size) {
  int64_t d = dimOf(v, i);
  if (d < 0)
    snprintf(buf, size, "?");
  else
    snprintf(buf, size, "%lld", (long long)d);
}

static void fuseAt(MlirOperation op, const W4a16FuseOptions *options) {
  Int8PrepMatch pm;
  Reason why = {0};
  if (!matchInt8Prep(op, &pm, &why)) {
    if (why.text[0])
      remark(options, op, "not fused: %s", why.text);
    return;
  }
  char m[24], l[24], n[24];
  dimText(pm.subA, 0, m, sizeof m);
  dimText(pm.subA, 1, l, sizeof l);
  dimText(pm.subB, pm.bTransposed ? 0 : 1, n, sizeof n);
  remark(options, op,
         "fused as subA = A[:, cols] (%sx%s), subB = f16(f32(CB[:, cols]) * SCB[:, None] * 1/127).t() (%sx%s)%s", m, l,
         l, n, pm.bTransposed ? "; the matmul's transposed read of subB is now a plain one" : "");
  buildPrepOp(&pm);
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
  /* A rewrite erases only ops of the preparation it replaced, never a contraction. */
  for (int i = 0; i < c.count; ++i)
    fuseAt(c.ops[i], options);
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

static _Alignas(8) char fuseInt8PrepPassId;

MlirPass w4a16CreateFuseInt8PrepPass(W4a16FuseOptions options) {
  MlirExternalPassCallbacks callbacks = {fuseConstruct, free, fuseInitialize, fuseClone, fuseRun};
  MlirDialectHandle tensor = mlirGetDialectHandle__tensor__();
  return mlirCreateExternalPass(
      mlirTypeIDCreate(&fuseInt8PrepPassId), mlirStringRefCreateFromCString("W4a16FuseInt8Prep"),
      mlirStringRefCreateFromCString("w4a16-fuse-int8-prep"),
      mlirStringRefCreateFromCString("Fuse the LLM.int8 correction-operand preparation into w4a16.int8_prep"),
      mlirStringRefCreateFromCString(""), 1, &tensor, callbacks, fuseClone(&options));
}

void w4a16AddFuseInt8PrepPass(MlirOpPassManager pm, W4a16FuseOptions options) {
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateFuseInt8PrepPass(options));
}
