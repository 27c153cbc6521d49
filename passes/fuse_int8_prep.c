/* w4a16-fuse-int8-prep: rewrites the LLM.int8 correction-operand preparation feeding a matmul
 * (subA = A[:, cols], subB = f16(CB[:, cols] * SCB[:, None] * 1/127).t(); see match_int8_prep.h) into one
 * w4a16.int8_prep op with the two results; the correction matmul and everything else stay. Ops of the
 * preparation left without users are erased. With explain on, every matmul fed by a gather through a
 * column list gets a located remark: "fused as ..." or the first reason it was not. */
#include "ir_build.h"
#include "match_int8_prep.h"
#include "rewrite.h"
#include "w4a16/dialect.h"
#include "w4a16/passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Tensor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* --- rewriting ---------------------------------------------------------------------------------- */

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
  MlirOperation prep = buildOp(W4A16_INT8_PREP_OP, mlirOperationGetLocation(mm), 4, operands, 2, results, 0, NULL, NULL);
  mlirBlockInsertOwnedOperationBefore(block, insertionPoint(block, operands, 4), prep);

  replaceUsesAfter(pm->subA, mlirOperationGetResult(prep, 0), prep);
  if (pm->bTransposed)
    readUntransposed(pm, mlirOperationGetResult(prep, 1));
  else
    replaceUsesAfter(pm->subB, mlirOperationGetResult(prep, 1), prep);

  OpSet dead = pm->producers;
  opSetAdd(&dead, producer(pm->subA));
  opSetAdd(&dead, producer(pm->subB));
  eraseDeadOps(&dead);
  return prep;
}

static MlirType f16Matrix(MlirContext ctx, int64_t rows, int64_t cols) {
  int64_t shape[2] = {rows < 0 ? mlirShapedTypeGetDynamicSize() : rows, cols < 0 ? mlirShapedTypeGetDynamicSize() : cols};
  return mlirRankedTensorTypeGet(2, shape, mlirF16TypeGet(ctx), mlirAttributeGetNull());
}

/* The map (d0, d1, d2) -> (d_i, d_j). */
static MlirAffineMap loopPair(MlirContext ctx, int i, int j) {
  MlirAffineExpr results[2] = {mlirAffineDimExprGet(ctx, i), mlirAffineDimExprGet(ctx, j)};
  return mlirAffineMapGet(ctx, 3, 0, 2, results);
}

/* The body form: the op computes subA and subB as tensors, and a new contraction reads them in the old one's place
 * over the same loops, its body the old body's multiply-accumulate (Int8PrepMatch::accumulate), so that the product,
 * its casts and its rounding stay as the frontend wrote them. */
static MlirOperation buildPrepOpInBody(Int8PrepMatch *pm) {
  MlirOperation mm = pm->matmul;
  MlirContext ctx = mlirOperationGetContext(mm);
  MlirLocation loc = mlirOperationGetLocation(mm);
  const LinalgView *v = &pm->view;
  MlirValue operands[4] = {pm->a, pm->cb, pm->scb, pm->cols};
  MlirType results[2] = {f16Matrix(ctx, v->loopRange[pm->loopM], v->loopRange[pm->loopL]),
                         f16Matrix(ctx, v->loopRange[pm->loopL], v->loopRange[pm->loopN])};
  MlirOperation prep = buildOp(W4A16_INT8_PREP_OP, loc, 4, operands, 2, results, 0, NULL, NULL);
  insertBefore(mm, prep);

  const MlirOperation *ops = pm->accumulate;
  const int count = pm->numAccumulate;
  MlirValue init = linalgInit(v, 0), accArg = mlirBlockGetArgument(v->body, v->numInputs);
  MlirType argTypes[3] = {mlirValueGetType(pm->bodyA), mlirValueGetType(pm->bodyB), mlirValueGetType(accArg)};
  MlirLocation argLocs[3] = {loc, loc, loc};
  MlirBlock block = mlirBlockCreate(3, argTypes, argLocs);
  MlirValue from[kMaxAccumulateOps + 3] = {pm->bodyA, pm->bodyB, accArg};
  MlirValue to[kMaxAccumulateOps + 3] = {mlirBlockGetArgument(block, 0), mlirBlockGetArgument(block, 1),
                                             mlirBlockGetArgument(block, 2)};
  int mapped = 3;
  for (int i = 0; i < count; ++i) {
    MlirOperation copy = mlirOperationClone(ops[i]);
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(copy); k < n; ++k) {
      MlirValue operand = mlirOperationGetOperand(copy, k);
      for (int j = 0; j < mapped; ++j) /* else a value from outside the body, read as it was */
        if (valueEq(from[j], operand)) {
          mlirOperationSetOperand(copy, k, to[j]);
          break;
        }
    }
    mlirBlockAppendOwnedOperation(block, copy);
    if (mlirOperationGetNumResults(copy) == 1)
      from[mapped] = mlirOperationGetResult(ops[i], 0), to[mapped++] = mlirOperationGetResult(copy, 0);
  }
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, block);

  MlirValue inputs[3] = {mlirOperationGetResult(prep, 0), mlirOperationGetResult(prep, 1), init};
  MlirAffineMap maps[3] = {loopPair(ctx, pm->loopM, pm->loopL), loopPair(ctx, pm->loopL, pm->loopN),
                           v->maps[v->numInputs]};
  MlirAttribute iteratorsAttr = mlirOperationGetAttributeByName(mm, mlirStringRefCreateFromCString("iterator_types"));
  MlirAttribute iterators[3];
  for (int i = 0; i < 3; ++i)
    iterators[i] = mlirArrayAttrGetElement(iteratorsAttr, i);
  MlirOperation contraction = buildGeneric(loc, 2, inputs, mlirValueGetType(mlirOperationGetResult(mm, 0)), maps, 3,
                                           iterators, region);
  insertBefore(mm, contraction);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(mm, 0), mlirOperationGetResult(contraction, 0));
  OpSet dead = pm->producers;
  opSetAdd(&dead, mm);
  eraseDeadOps(&dead);
  return prep;
}

/* A dim or loop size for a remark: "?" when dynamic. */
static void sizeText(int64_t size, char *buf, size_t bufSize) {
  if (size < 0)
    snprintf(buf, bufSize, "?");
  else
    snprintf(buf, bufSize, "%lld", (long long)size);
}

static void fuseAt(MlirOperation op, const W4a16FuseOptions *options) {
  Int8PrepMatch pm;
  Reason why = {0};
  if (!matchInt8Prep(op, &pm, &why)) {
    if (why.text[0])
      explainRemark(options, "w4a16-int8-prep", op, "not fused: %s", why.text);
    return;
  }
  char m[24], l[24], n[24];
  const int64_t *loops = pm.view.loopRange;
  const bool inBody = int8PrepInBody(&pm);
  sizeText(inBody ? loops[pm.loopM] : dimOf(pm.subA, 0), m, sizeof m);
  sizeText(inBody ? loops[pm.loopL] : dimOf(pm.subA, 1), l, sizeof l);
  sizeText(inBody ? loops[pm.loopN] : dimOf(pm.subB, pm.bTransposed ? 0 : 1), n, sizeof n);
  /* In the body form a factor that is a block argument was an input tensor (its gather stayed outside). */
  const bool aInBody = inBody && !mlirValueIsABlockArgument(pm.bodyA);
  const bool bInBody = inBody && !mlirValueIsABlockArgument(pm.bodyB);
  explainRemark(options, "w4a16-int8-prep", op,
         "fused as subA = A[:, cols] (%sx%s), subB = f16(f32(CB[:, cols]) * SCB[:, None] * 1/127).t() (%sx%s)%s", m, l,
         l, n,
         aInBody && bInBody ? "; both were computed inside the contraction's body, which now reads them"
         : aInBody          ? "; subA was computed inside the contraction's body, which now reads it"
         : bInBody          ? "; subB was computed inside the contraction's body, which now reads it"
         : pm.bTransposed   ? "; the matmul's transposed read of subB is now a plain one"
                            : "");
  if (inBody)
    buildPrepOpInBody(&pm);
  else
    buildPrepOp(&pm);
}

/* --- the pass ----------------------------------------------------------------------------------- */

static _Alignas(8) char fuseInt8PrepPassId;

static const OptionsPassSpec kFuseInt8PrepPass = {
    &fuseInt8PrepPassId, "W4a16FuseInt8Prep", "w4a16-fuse-int8-prep",
    "Fuse the LLM.int8 correction-operand preparation into w4a16.int8_prep", fuseAt, NULL, NULL};

MlirPass w4a16CreateFuseInt8PrepPass(W4a16FuseOptions options) {
  return createOptionsPass(&kFuseInt8PrepPass, options);
}

void w4a16AddFuseInt8PrepPass(MlirOpPassManager pm, W4a16FuseOptions options) {
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateFuseInt8PrepPass(options));
}
