/* w4a16-gpu-split-reductions: on the GPU target, a long sum over the innermost loop (RMSNorm's mean of
 * squares, softmax's denominator) is split in two, so that it is not one GPU thread per row walking all of K:
 *
 *   out[p] += f(in...)[p, r]                   r < R
 * becomes
 *   partial[p, t] = 0;  partial[p, t] += f(in...)[p, j * T + t]     t < T (parallel), j < R / T
 *   out[p] += partial[p, t]                                          t < T
 *
 * with T lanes, a power of two up to 256 that divides R with R / T >= 8: the first generic is a (p, t) parallel
 * loop whose T threads read T consecutive elements at each step (coalesced), the second sums T partials per
 * row -- and is split again when T allows (4096 = 16 steps x 256 lanes, then 8 x 32, then 32): the generated
 * loops wait for one load per step, so what counts is the longest chain of steps (56 instead of 4096). The
 * summation order changes (within f32 rounding, like any parallel reduction) but stays fixed: replays are
 * bitwise identical. Sums, maxima and minima are split (the body yields combine(x, acc) with x independent of
 * acc; max and min come out bit for bit as before, softmax's row max for one); fewer than 16 lanes are not
 * worth a kernel; everything else is left as it is. Runs on tensors, before bufferization. */
#include "gpu_passes.h"
#include "ir_build.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Lanes per row: as many as 256 while each walks at least 8 steps; fewer than 16 do not pay. */
enum { kMaxLanes = 256, kMinLanes = 16, kMinStepsPerLane = 8 };

/* The lanes for a sum over `extent` (a power of two that divides it), or 0: leave the sum as it is. */
static int64_t lanesFor(int64_t extent) {
  int64_t lanes = kMaxLanes;
  while (lanes >= kMinLanes && (extent % lanes != 0 || extent / lanes < kMinStepsPerLane))
    lanes /= 2;
  return lanes >= kMinLanes ? lanes : 0;
}

/* The reductions split: an associative, commutative combiner and its identity, which the partials start
 * from. Max and min give the same bits in any order; a sum is reassociated (within f32 rounding). */
typedef struct Combiner {
  const char *op;
  double identity;
} Combiner;
static const Combiner kCombiners[] = {{"arith.addf", 0.0},          {"arith.maximumf", -INFINITY},
                                      {"arith.maxnumf", -INFINITY}, {"arith.minimumf", INFINITY},
                                      {"arith.minnumf", INFINITY}};

/* The combiner of a body whose accumulator is used once, by the combiner op the body yields, whose other
 * operand does not depend on it; NULL for anything else. */
static const Combiner *combinerOf(MlirBlock body, MlirValue acc) {
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationGetNumOperands(yield) != 1 || userCount(acc) != 1)
    return NULL;
  MlirOperation combine = producer(mlirOperationGetOperand(yield, 0));
  if (mlirOperationIsNull(combine) || mlirOperationGetNumOperands(combine) != 2 ||
      !(valueEq(mlirOperationGetOperand(combine, 0), acc) || valueEq(mlirOperationGetOperand(combine, 1), acc)))
    return NULL;
  for (size_t i = 0; i < sizeof kCombiners / sizeof kCombiners[0]; ++i)
    if (opIs(combine, kCombiners[i].op))
      return &kCombiners[i];
  return NULL;
}

/* A body that reads linalg.index computes with r itself, which the split renumbers. */
static bool readsLoopIndex(MlirBlock body) {
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    if (opIs(o, "linalg.index") || mlirOperationGetNumRegions(o) > 0)
      return true;
  return false;
}

typedef struct Split {
  LinalgView view;
  int reduction; /* the loop reduced: the last one */
  int64_t extent, lanes;
  const Combiner *combiner;
} Split;

static bool isSplittableSum(MlirOperation op, Split *s) {
  if (!opIs(op, "linalg.generic") || !linalgView(op, &s->view) || s->view.numInits != 1 ||
      mlirOperationGetNumResults(op) != 1 || !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return false;
  MlirContext ctx = mlirOperationGetContext(op);
  MlirAttribute iterators = attr(op, "iterator_types"), reduction = iteratorType(ctx, "reduction");
  const int n = s->view.numLoops;
  for (int i = 0; i < n; ++i)
    if (mlirAttributeEqual(mlirArrayAttrGetElement(iterators, i), reduction) != (i == n - 1))
      return false;
  s->reduction = n - 1;
  s->extent = s->view.loopRange[n - 1];
  s->lanes = s->extent > 0 ? lanesFor(s->extent) : 0;
  if (s->lanes == 0)
    return false;
  MlirAffineMap init = s->view.maps[s->view.numInputs];
  for (intptr_t r = 0; r < mlirAffineMapGetNumResults(init); ++r)
    if (mlirAffineExprIsFunctionOfDim(mlirAffineMapGetResult(init, r), s->reduction))
      return false;
  for (int i = 0; i < s->view.numInputs; ++i)
    for (intptr_t q = 0; q < mlirAffineMapGetNumResults(s->view.maps[i]); ++q) {
      MlirAffineExpr e = mlirAffineMapGetResult(s->view.maps[i], q);
      if (mlirAffineExprIsFunctionOfDim(e, s->reduction) &&
          !(mlirAffineExprIsADim(e) && mlirAffineDimExprGetPosition(e) == s->reduction))
        return false;
    }
  MlirValue acc = mlirBlockGetArgument(s->view.body, s->view.numInputs);
  s->combiner = combinerOf(s->view.body, acc);
  return s->combiner && !readsLoopIndex(s->view.body);
}

static bool collectSums(MlirOperation op, void *unused) {
  (void)unused;
  Split s;
  return isSplittableSum(op, &s);
}

/* map with its dims renumbered into numDims dims and extra results appended. */
static MlirAffineMap withResults(MlirAffineMap map, intptr_t numDims, intptr_t numExtra, const MlirAffineExpr *extra) {
  intptr_t n = mlirAffineMapGetNumResults(map);
  MlirAffineExpr results[kMaxRank + 2];
  for (intptr_t i = 0; i < n; ++i)
    results[i] = mlirAffineMapGetResult(map, i);
  for (intptr_t i = 0; i < numExtra; ++i)
    results[n + i] = extra[i];
  return mlirAffineMapGet(mlirAffineMapGetContext(map), numDims, 0, n + numExtra, results);
}

/* One result, no region. */
static MlirOperation createSimple(const char *name, MlirLocation loc, intptr_t numOperands, const MlirValue *operands,
                                  MlirType result, intptr_t numAttributes, const MlirNamedAttribute *attributes) {
  return buildOp(name, loc, numOperands, operands, 1, &result, numAttributes, attributes, NULL);
}

/* tensor.dim of every dynamic dim of v, inserted before `before`; returns how many. */
static intptr_t dynamicSizesOf(MlirOperation before, MlirValue v, MlirValue *sizes) {
  MlirLocation loc = mlirOperationGetLocation(before);
  intptr_t numDynamic = 0;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(mlirValueGetType(v)); ++d)
    if (mlirShapedTypeIsDynamicDim(mlirValueGetType(v), d))
      sizes[numDynamic++] = buildDim(v, d, before, loc);
  return numDynamic;
}

/* v with its dim q (of static size R) expanded into (R / lanes, lanes): step j, lane t. */
static MlirValue expandReduced(MlirOperation before, MlirValue v, intptr_t q, int64_t lanes) {
  MlirContext ctx = mlirOperationGetContext(before);
  MlirType type = mlirValueGetType(v);
  const intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t shape[kMaxRank + 1];
  MlirAttribute groups[kMaxRank];
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  for (intptr_t d = 0, o = 0; d < rank; ++d) {
    MlirAttribute members[2] = {mlirIntegerAttrGet(i64, o), mlirIntegerAttrGet(i64, o + 1)};
    if (d == q) {
      shape[o++] = mlirShapedTypeGetDimSize(type, d) / lanes;
      shape[o++] = lanes;
    } else {
      shape[o++] = mlirShapedTypeGetDimSize(type, d);
    }
    groups[d] = mlirArrayAttrGet(ctx, d == q ? 2 : 1, members);
  }
  MlirValue sizes[kMaxRank];
  intptr_t numDynamic = dynamicSizesOf(before, v, sizes);
  MlirNamedAttribute attributes[2] = {
      namedAttr(ctx, "reassociation", mlirArrayAttrGet(ctx, rank, groups)),
      namedAttr(ctx, "static_output_shape", mlirDenseI64ArrayGet(ctx, rank + 1, shape))};
  MlirValue operands[kMaxRank + 1] = {v};
  for (intptr_t i = 0; i < numDynamic; ++i)
    operands[1 + i] = sizes[i];
  MlirType expanded = mlirRankedTensorTypeGet(rank + 1, shape, mlirShapedTypeGetElementType(type), mlirAttributeGetNull());
  MlirOperation op = createSimple("tensor.expand_shape", mlirOperationGetLocation(before), 1 + numDynamic, operands,
                                  expanded, 2, attributes);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
  return mlirOperationGetResult(op, 0);
}

/* partial: (init's shape..., lanes) of the accumulator's element type, filled with the combiner's identity. */
static MlirValue identityPartials(MlirOperation before, MlirValue init, MlirType partialType, double identity) {
  MlirContext ctx = mlirOperationGetContext(before);
  MlirLocation loc = mlirOperationGetLocation(before);
  MlirBlock block = mlirOperationGetBlock(before);
  MlirType element = mlirShapedTypeGetElementType(partialType);
  MlirValue dynamicSizes[kMaxRank];
  intptr_t numDynamic = dynamicSizesOf(before, init, dynamicSizes);
  MlirOperation empty = createSimple("tensor.empty", loc, numDynamic, dynamicSizes, partialType, 0, NULL);
  mlirBlockInsertOwnedOperationBefore(block, before, empty);
  MlirNamedAttribute zeroValue = namedAttr(ctx, "value", mlirFloatAttrDoubleGet(ctx, element, identity));
  MlirOperation zero = createSimple("arith.constant", loc, 0, NULL, element, 1, &zeroValue);
  mlirBlockInsertOwnedOperationBefore(block, before, zero);
  MlirValue fillOperands[2] = {mlirOperationGetResult(zero, 0), mlirOperationGetResult(empty, 0)};
  const int32_t segments[2] = {1, 1};
  MlirNamedAttribute segmentSizes = namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, segments));
  MlirRegion fillBody = mlirRegionCreate();
  MlirOperation fill = buildOp("linalg.fill", loc, 2, fillOperands, 1, &partialType, 1, &segmentSizes, &fillBody);
  mlirLinalgFillBuiltinNamedOpRegion(fill);
  mlirBlockInsertOwnedOperationBefore(block, before, fill);
  return mlirOperationGetResult(fill, 0);
}

/* The combine's body: out = combiner(partial, out). */
static MlirRegion combineBody(const Combiner *combiner, MlirLocation loc, MlirType element) {
  MlirType types[2] = {element, element};
  MlirLocation locs[2] = {loc, loc};
  MlirBlock block = mlirBlockCreate(2, types, locs);
  MlirValue operands[2] = {mlirBlockGetArgument(block, 0), mlirBlockGetArgument(block, 1)};
  MlirOperation add = createSimple(combiner->op, loc, 2, operands, element, 0, NULL);
  mlirBlockAppendOwnedOperation(block, add);
  MlirValue sum = mlirOperationGetResult(add, 0);
  mlirBlockAppendOwnedOperation(block, buildOp("linalg.yield", loc, 1, &sum, 0, NULL, 0, NULL, NULL));
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, block);
  return region;
}

static void split(MlirOperation op) {
  Split s;
  if (!isSplittableSum(op, &s))
    return;
  MlirContext ctx = mlirOperationGetContext(op);
  MlirLocation loc = mlirOperationGetLocation(op);
  const int n = s.view.numLoops, numInputs = s.view.numInputs; /* loops p_0..p_{n-2}, r = n - 1 */
  MlirValue init = linalgInit(&s.view, 0);
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirType element = mlirShapedTypeGetElementType(resultType);

  /* partial's type: the init's shape with the lanes appended. */
  int64_t shape[kMaxRank + 1];
  const intptr_t initRank = mlirShapedTypeGetRank(resultType);
  for (intptr_t d = 0; d < initRank; ++d)
    shape[d] = mlirShapedTypeGetDimSize(resultType, d);
  shape[initRank] = s.lanes;
  MlirType partialType = mlirRankedTensorTypeGet(initRank + 1, shape, element, mlirAttributeGetNull());
  MlirValue partialInit = identityPartials(op, init, partialType, s.combiner->identity);

  /* Partial sums: loops (p..., t, j), r = j * lanes + t: an input that reads r at position q is expanded
   * there into (j, t). */
  MlirAffineExpr t = mlirAffineDimExprGet(ctx, n - 1), j = mlirAffineDimExprGet(ctx, n);
  MlirAffineMap maps[kMaxLinalgOperands + 1];
  MlirValue operands[kMaxLinalgOperands + 1];
  for (int i = 0; i < numInputs; ++i) {
    MlirAffineMap map = s.view.maps[i];
    MlirAffineExpr results[kMaxRank + 1];
    intptr_t numResults = 0, reducedAt = -1;
    for (intptr_t q = 0; q < mlirAffineMapGetNumResults(map); ++q) {
      MlirAffineExpr e = mlirAffineMapGetResult(map, q);
      if (mlirAffineExprIsFunctionOfDim(e, s.reduction)) {
        reducedAt = q;
        results[numResults++] = j;
        results[numResults++] = t;
      } else {
        results[numResults++] = e;
      }
    }
    maps[i] = mlirAffineMapGet(ctx, n + 1, 0, numResults, results);
    operands[i] = reducedAt < 0 ? linalgInput(&s.view, i) : expandReduced(op, linalgInput(&s.view, i), reducedAt, s.lanes);
  }
  maps[numInputs] = withResults(s.view.maps[numInputs], n + 1, 1, &t);
  operands[numInputs] = partialInit;
  MlirAttribute parallel = iteratorType(ctx, "parallel"), reduction = iteratorType(ctx, "reduction");
  MlirAttribute iterators[kMaxRank + 2];
  for (int i = 0; i < n; ++i)
    iterators[i] = parallel;
  iterators[n] = reduction;
  MlirOperation bodyOwner = mlirOperationClone(op);
  MlirRegion body = mlirRegionCreate();
  mlirRegionTakeBody(body, mlirOperationGetRegion(bodyOwner, 0));
  mlirOperationDestroy(bodyOwner);
  MlirOperation partial =
      buildGeneric(loc, numInputs, operands, partialType, maps, n + 1, iterators, body);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, partial);

  /* Combine: loops (p..., t), out[p] += partial[p, t]. */
  MlirAffineExpr t2 = mlirAffineDimExprGet(ctx, n - 1);
  MlirAffineMap combineMaps[2] = {withResults(s.view.maps[numInputs], n, 1, &t2),
                                  withResults(s.view.maps[numInputs], n, 0, NULL)};
  MlirValue combineOperands[2] = {mlirOperationGetResult(partial, 0), init};
  iterators[n - 1] = reduction;
  MlirOperation combine = buildGeneric(loc, 1, combineOperands, resultType, combineMaps, n, iterators,
                                        combineBody(s.combiner, loc, element));
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, combine);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(combine, 0));
  mlirOperationDestroy(op);
}

static void run(MlirOperation module, MlirExternalPass pass) {
  (void)pass;
  /* A combine over 256 lanes is itself split (into 32): rounds until no long sum is left. */
  for (int round = 0; round < 4; ++round) {
    OpList sums = collectOps(module, collectSums, NULL, MlirWalkPreOrder);
    for (int i = 0; i < sums.count; ++i)
      split(sums.ops[i]);
    free(sums.ops);
    if (sums.count == 0)
      break;
  }
}

static _Alignas(8) char passId;
static const StatelessPassSpec kSplitReductionsPass = {
    &passId, "W4a16GpuSplitReductions", "w4a16-gpu-split-reductions",
    "GPU target, on tensors: split long innermost sums, maxima and minima into up to 256 coalesced partial "
    "results per row and a combine (split again while long), so that a row's reduction is not one GPU thread's "
    "loop",
    "builtin.module", NULL, run, mlirGetDialectHandle__linalg__};

MlirPass w4a16CreateSplitReductionsPass(void) { return createStatelessPass(&kSplitReductionsPass); }
