/* w4a16-fuse: rewrites each dequant -> matmul -> bias -> activation -> residual chain into one
 * w4a16.fused_matmul (see match.h for what each part must compute), erasing producers left dead.
 * With explain on, every matmul fed by a dequantised weight gets a located remark: what it was
 * fused as, or the first reason it was not. IR that does not match is not touched. */
#include "ir_build.h"
#include "rewrite.h"
#include "split_by_input.h"
#include "w4a16/dialect.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Tensor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- rewriting ---------------------------------------------------------------------------------- */

static MlirAttribute namedString(MlirContext ctx, const char *s) {
  return mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(s));
}

/* tensor.collapse_shape of `value` to shape `to` (rank toRank), or tensor.expand_shape when `to` has the
 * higher rank: dims [ends[g-1], ends[g]) of the higher-rank side form dim g of the lower-rank one. The
 * expanded dynamic dims take their sizes from dynamicSizes, in order. */
static MlirValue reshape(MlirValue value, const int64_t *to, int toRank, const int *ends, const MlirValue *dynamicSizes,
                         MlirOperation before, MlirLocation loc) {
  const bool expand = toRank > rankOf(value);
  const int numGroups = expand ? rankOf(value) : toRank;
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirAttribute groups[kMaxRank];
  for (int g = 0, lo = 0; g < numGroups; lo = ends[g++]) {
    MlirAttribute dims[kMaxRank];
    for (int d = lo; d < ends[g]; ++d)
      dims[d - lo] = mlirIntegerAttrGet(i64, d);
    groups[g] = mlirArrayAttrGet(ctx, ends[g] - lo, dims);
  }
  MlirType type = mlirRankedTensorTypeGet(toRank, to, elementTypeOf(value), mlirAttributeGetNull());
  MlirValue operands[1 + kMaxRank] = {value};
  MlirNamedAttribute attrs[2] = {namedAttr(ctx, "reassociation", mlirArrayAttrGet(ctx, numGroups, groups)),
                                 namedAttr(ctx, "static_output_shape", mlirDenseI64ArrayGet(ctx, toRank, to))};
  int numDynamic = 0;
  for (int d = 0; expand && d < toRank; ++d)
    if (mlirShapedTypeIsDynamicSize(to[d]))
      operands[1 + numDynamic] = dynamicSizes[numDynamic], ++numDynamic;
  return insertBefore(before, buildOp(expand ? "tensor.expand_shape" : "tensor.collapse_shape", loc, 1 + numDynamic,
                                      operands, 1, &type, expand ? 2 : 1, attrs, NULL));
}

/* Size of dims [lo, hi) of value taken together (dynamic if any of them is). */
static int64_t sizeOfDims(MlirValue value, int lo, int hi) {
  int64_t size = 1;
  for (int d = lo; d < hi; ++d) {
    if (dimOf(value, d) < 0)
      return mlirShapedTypeGetDynamicSize();
    size *= dimOf(value, d);
  }
  return size;
}

/* `value` as 2-D: its dims [0, split) and [split, rank) collapsed (one group if split == rank). */
static MlirValue collapseTo(MlirValue value, int split, MlirOperation before, MlirLocation loc) {
  const int rank = rankOf(value), numGroups = split == rank ? 1 : 2;
  if (rank == numGroups)
    return value;
  const int ends[2] = {split, rank};
  const int64_t to[2] = {sizeOfDims(value, 0, split), sizeOfDims(value, split, rank)};
  if (numGroups == 1)
    return reshape(value, to, 1, ends, NULL, before, loc); /* split == rank */
  return reshape(value, to, 2, ends, NULL, before, loc);
}

/* A stored operand (static shape, row-major) as the op's 2-D (rows, cols) operand: its leading `split` dims
 * collapsed into the rows, or, with split 0 (no leading dims form the rows: HQQ's [N*K/G, G] codes of an (N, K)
 * layout), collapsed into one dim and expanded to (rows, cols). */
static MlirValue asOperand(MlirValue value, int split, int64_t rows, int64_t cols, MlirOperation before,
                           MlirLocation loc) {
  if (split > 0)
    return collapseTo(value, split, before, loc);
  const MlirValue flat = collapseTo(value, rankOf(value), before, loc);
  const int64_t to[2] = {rows, cols};
  const int ends[1] = {2};
  return reshape(flat, to, 2, ends, NULL, before, loc);
}

/* `value` as (rows, cols): its leading rowDims dims are the rows, the rest the columns. */
static MlirValue asMatrix(MlirValue value, int rowDims, MlirOperation before, MlirLocation loc) {
  if (rowDims > 0)
    return collapseTo(value, rowDims, before, loc);
  return asOperand(value, 0, 1, sizeOfDims(value, 0, rankOf(value)), before, loc); /* a matvec operand: one row */
}

/* x's (rows, K) operand with K static: a tensor.cast where x's type left K dynamic (rowDimsOf). */
static MlirValue withStaticK(MlirValue x, int64_t K, MlirOperation before, MlirLocation loc) {
  if (dimOf(x, 1) >= 0)
    return x;
  const int64_t shape[2] = {dimOf(x, 0) < 0 ? mlirShapedTypeGetDynamicSize() : dimOf(x, 0), K};
  MlirType type = mlirRankedTensorTypeGet(2, shape, elementTypeOf(x), mlirAttributeGetNull());
  return insertBefore(before, buildOp("tensor.cast", loc, 1, &x, 1, &type, 0, NULL, NULL));
}

/* arith.truncf of tensor `value` to element type `to`, inserted before `before`. */
static MlirValue narrowed(MlirValue value, MlirType to, MlirOperation before, MlirLocation loc) {
  const int rank = rankOf(value);
  int64_t shape[kMaxRank];
  for (int d = 0; d < rank; ++d)
    shape[d] = dimOf(value, d) < 0 ? mlirShapedTypeGetDynamicSize() : dimOf(value, d);
  MlirType type = mlirRankedTensorTypeGet(rank, shape, to, mlirAttributeGetNull());
  return insertBefore(before, buildOp("arith.truncf", loc, 1, &value, 1, &type, 0, NULL, NULL));
}

/* x's leaf with its dims in the order xPerm (matchX): a linalg.generic copying x[.., xPerm[d], ..] to dim d, which
 * upstream lowers as any transpose. */
static MlirValue transposedX(const MatmulMatch *mm, MlirOperation before, MlirLocation loc) {
  MlirContext ctx = mlirLocationGetContext(loc);
  const MlirValue x = mm->x;
  const int rank = rankOf(x);
  int64_t shape[kMaxRank];
  MlirValue sizes[kMaxRank];
  MlirAffineExpr reads[kMaxRank];
  MlirAttribute iterators[kMaxRank];
  int numDynamic = 0;
  for (int d = 0; d < rank; ++d) {
    const int from = mm->xPerm[d];
    shape[d] = dimOf(x, from) < 0 ? mlirShapedTypeGetDynamicSize() : dimOf(x, from);
    if (dimOf(x, from) < 0)
      sizes[numDynamic++] = buildDim(x, from, before, loc);
    reads[from] = mlirAffineDimExprGet(ctx, d);
    iterators[d] = iteratorType(ctx, "parallel");
  }
  MlirType element = elementTypeOf(x), type = mlirRankedTensorTypeGet(rank, shape, element, mlirAttributeGetNull());
  MlirValue operands[2] = {x, insertBefore(before, buildOp("tensor.empty", loc, numDynamic, sizes, 1, &type, 0, NULL,
                                                           NULL))};
  MlirAffineMap maps[2] = {mlirAffineMapGet(ctx, (intptr_t)rank, 0, (intptr_t)rank, reads),
                           mlirAffineMapMultiDimIdentityGet(ctx, (intptr_t)rank)};
  MlirType argTypes[2] = {element, element};
  MlirLocation argLocs[2] = {loc, loc};
  MlirBlock body = mlirBlockCreate(2, argTypes, argLocs);
  MlirValue in = mlirBlockGetArgument(body, 0);
  mlirBlockAppendOwnedOperation(body, buildOp("linalg.yield", loc, 1, &in, 0, NULL, 0, NULL, NULL));
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  return insertBefore(before, buildGeneric(loc, 1, operands, type, maps, rank, iterators, region));
}

/* value / divisor (index), inserted before `before`. */
static MlirValue divideIndex(MlirValue value, int64_t divisor, MlirOperation before, MlirLocation loc) {
  if (divisor == 1)
    return value;
  MlirType index = mlirIndexTypeGet(mlirLocationGetContext(loc));
  MlirValue operands[2] = {value, buildConstant(index, divisor, before, loc)};
  return insertBefore(before, buildOp("arith.divui", loc, 2, operands, 1, &index, 0, NULL, NULL));
}

/* The fused (M, N) result reshaped to the shape of `like`, the chain's end (unit dims, row dims, (N) for a matvec,
 * or y's rows regrouped), after `after`. A dynamic row dim of y takes its size from x's dim that holds the same row
 * loop (x's non-unit row dims are y's, in order: matchX); with one row loop, from M itself; a regrouped one, from the
 * chain's expand_shape. */
static MlirValue asResultShape(const MatmulMatch *mm, MlirValue fused, MlirValue like, const OpSet *chain,
                               MlirOperation after, MlirLocation loc) {
  const int rank = rankOf(like), nDims = matmulNDimsOf(mm, like);
  if (rank == 2 && nDims == 1)
    return fused;
  MlirOperation next = mlirOperationGetNextInBlock(after);
  int64_t to[kMaxRank];
  for (int d = 0; d < rank; ++d)
    to[d] = dimOf(like, d) < 0 ? mlirShapedTypeGetDynamicSize() : dimOf(like, d);
  if (rank == nDims) { /* a matvec: no row dim; (1, N) to (N), then to (H, D) where N is split */
    const int all[1] = {2};
    const int64_t flat[1] = {mm->N};
    MlirValue vector = reshape(fused, flat, 1, all, NULL, next, loc);
    return rank == 1 ? vector : reshape(vector, to, rank, (const int[1]){rank}, NULL, next, loc);
  }
  MlirValue sizes[kMaxRank];
  int numDynamic = 0, xRow = 0;
  /* y's rows regrouped (where N is split too, the split reads it) */
  if (nDims == matmulNDims(mm) && matmulRowsRegrouped(mm, like)) {
    /* The sizes the chain's own expand_shape gave the dynamic dims (x's batch and sequence, say), so that siblings
     * expanded alike stay alike (merge-siblings compares their views); without one (only the outermost dim is
     * dynamic then: match_epilogue.c), the result's rows / the inner rows. */
    MlirOperation expand = {NULL};
    for (int i = 0; i < chain->count; ++i)
      if (opIs(chain->ops[i], "tensor.expand_shape") &&
          mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(chain->ops[i], 0)), mlirValueGetType(like)))
        expand = chain->ops[i];
    if (!mlirOperationIsNull(expand))
      for (intptr_t i = 1; i < mlirOperationGetNumOperands(expand); ++i)
        sizes[numDynamic++] = mlirOperationGetOperand(expand, i);
    else if (dimOf(like, 0) < 0) {
      int64_t inner = 1; /* static here */
      for (int d = 1; d < rank - nDims; ++d)
        inner *= dimOf(like, d);
      sizes[numDynamic++] = divideIndex(buildDim(fused, 0, next, loc), inner, next, loc);
    }
    const int ends[2] = {rank - nDims, rank};
    return reshape(fused, to, rank, ends, sizes, next, loc);
  }
  for (int d = 0; d < rank - nDims; ++d) {
    if (dimOf(like, d) == 1)
      continue;
    while (xRow < mm->xRowDims && dimOf(mm->x, matmulXDim(mm, xRow)) == 1)
      ++xRow; /* x's next non-unit row dim: this row loop's */
    if (dimOf(like, d) < 0)
      sizes[numDynamic++] =
          mm->numRows <= 1 ? buildDim(fused, 0, next, loc) : buildDim(mm->x, matmulXDim(mm, xRow), next, loc);
    ++xRow;
  }
  const int ends[2] = {rank - nDims, rank};
  return reshape(fused, to, rank, ends, sizes, next, loc);
}

static MlirOperation buildFusedOp(const MatmulMatch *mm, const DequantMatch *dq, const EpilogueMatch *ep) {
  MlirOperation matmul = mm->view.op;
  MlirOperation last = valueEq(ep->end, mm->result) ? matmul : producer(ep->end);
  MlirLocation loc = mlirOperationGetLocation(matmul);
  MlirContext ctx = mlirOperationGetContext(matmul);

  MlirValue operands[7];
  int n = 0;
  const MlirValue x = !mlirValueIsNull(mm->xExpr) ? splitByInput(&mm->view, mm->xExpr, mm->xInput, last, loc)
                      : mm->xTransposed          ? transposedX(mm, last, loc)
                                                 : mm->x;
  operands[n++] = withStaticK(asMatrix(x, mm->xRowDims, last, loc), mm->K, last, loc);
  if (!mlirTypeEqual(elementTypeOf(x), matmulIoType(mm))) /* an f32 x the contraction's body narrowed */
    operands[0] = narrowed(operands[0], matmulIoType(mm), last, loc);
  const int64_t K = mm->K, N = mm->N, groups = K / dq->groupSize;
  int64_t rows, cols;
  w4a16_weight_shape(dq->weightLayout, K, N, &rows, &cols);
  operands[n++] = asOperand(dq->codes, dq->codesSplit, rows, cols, last, loc);
  const bool scalesByGroup = dq->scalesLayout == W4A16_SCALES_G_N;
  operands[n++] =
      asOperand(dq->scales, dq->scalesSplit, scalesByGroup ? groups : N, scalesByGroup ? N : groups, last, loc);
  if (ep->hasBias)
    operands[n++] = collapseTo(ep->bias, rankOf(ep->bias), last, loc);
  if (ep->hasResidual)
    operands[n++] = asMatrix(ep->residual, rankOf(ep->residual) - matmulNDimsOf(mm, ep->residual), last, loc);
  const bool hasZeroPoints = !mlirValueIsNull(dq->zeroPoints);
  if (hasZeroPoints) {
    int64_t rows, cols;
    w4a16_zp_shape(dq->zpLayout, groups, N, &rows, &cols);
    operands[n++] = asOperand(dq->zeroPoints, dq->zpSplit, rows, cols, last, loc);
  }
  const bool actOrder = !mlirValueIsNull(dq->groupIndex);
  if (actOrder)
    operands[n++] = collapseTo(dq->groupIndex, rankOf(dq->groupIndex), last, loc);

  int32_t segments[7] = {1, 1, 1, ep->hasBias, ep->hasResidual, hasZeroPoints, actOrder};
  MlirNamedAttribute attrs[14] = {
      namedAttr(ctx, "activation", namedString(ctx, w4a16_activation_name(ep->activation))),
      namedAttr(ctx, "group_size", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), dq->groupSize)),
      namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 7, segments)),
      namedAttr(ctx, "scales_layout", namedString(ctx, w4a16_scales_layout_name(dq->scalesLayout))),
      namedAttr(ctx, "weight_layout", namedString(ctx, w4a16_weight_layout_name(dq->weightLayout))),
  };
  int numAttrs = 5;
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  if (hasZeroPoints) {
    attrs[numAttrs++] = namedAttr(ctx, "zero_point_layout", namedString(ctx, w4a16_zero_point_layout_name(dq->zpLayout)));
    if (dq->zpOffset)
      attrs[numAttrs++] = namedAttr(ctx, "zero_point_offset", mlirIntegerAttrGet(i64, dq->zpOffset));
    if (dq->zpWraps)
      attrs[numAttrs++] = namedAttr(ctx, "zero_point_offset_wraps", mlirUnitAttrGet(ctx));
    if (dq->offsets)
      attrs[numAttrs++] = namedAttr(ctx, "zero_points_are_offsets", mlirUnitAttrGet(ctx));
    if (dq->offsetsSubtracted)
      attrs[numAttrs++] = namedAttr(ctx, "offsets_subtracted", mlirUnitAttrGet(ctx));
    if (dq->zpSigned)
      attrs[numAttrs++] = namedAttr(ctx, "zero_points_signed", mlirUnitAttrGet(ctx));
  }
  if ((!hasZeroPoints || dq->offsets) && dq->zeroPoint != W4A16_ZERO_POINT) {
    attrs[numAttrs++] = namedAttr(ctx, "zero_point", mlirFloatAttrDoubleGet(ctx, mlirF64TypeGet(ctx), dq->zeroPoint));
  }
  if (dq->signedCodes)
    attrs[numAttrs++] = namedAttr(ctx, "signed_codes", mlirUnitAttrGet(ctx));
  /* (M, N), M the product of y's row dims; y's own shape may add unit dims, split M into several row dims
     or, in a matvec, lack M (reshaped back below) */
  const int64_t shape[2] = {sizeOfDims(ep->end, 0, rankOf(ep->end) - matmulNDimsOf(mm, ep->end)), mm->N};
  MlirType resultType = mlirRankedTensorTypeGet(2, shape, elementTypeOf(ep->end), mlirAttributeGetNull());
  MlirOperation fused = buildOp(W4A16_FUSED_MATMUL_OP, loc, n, operands, 1, &resultType, numAttrs, attrs, NULL);
  insertBefore(last, fused);
  mlirValueReplaceAllUsesOfWith(ep->end, asResultShape(mm, mlirOperationGetResult(fused, 0), ep->end, &ep->ops, fused, loc));

  OpSet dead = ep->ops;
  opSetAdd(&dead, matmul);
  for (int i = 0; i < mm->producers.count; ++i)
    opSetAdd(&dead, mm->producers.ops[i]);
  for (int i = 0; i < dq->producers.count; ++i)
    opSetAdd(&dead, dq->producers.ops[i]);
  eraseDeadOps(&dead);
  return fused;
}

/* " [x bf16, scales f16]" when the op is not all f16 (the kernels it runs on depend on it), else "". */
static void describeTypes(const MatmulMatch *mm, const DequantMatch *dq, char *out, size_t size) {
  const MlirType x = matmulIoType(mm), scales = elementTypeOf(dq->scales);
  out[0] = 0;
  if (isF16(x) && isF16(scales))
    return;
  char xName[16], scalesName[16];
  snprintf(out, size, " [x %s, scales %s]", typeName(x, xName, sizeof xName), typeName(scales, scalesName, sizeof scalesName));
}

static void describeChain(const DequantMatch *dq, const EpilogueMatch *ep, char *out, size_t size) {
  const bool act = ep->activation != W4A16_ACT_NONE;
  char group[160] = "";
  int used = 0;
  if (dq->groupSize != W4A16_DEFAULT_GROUP_SIZE)
    used = snprintf(group, sizeof group, ", group %lld", (long long)dq->groupSize);
  if (!mlirValueIsNull(dq->zeroPoints)) {
    char type[48];
    const char *layout = w4a16_zero_point_layout_name(dq->zpLayout);
    typeName(mlirValueGetType(dq->zeroPoints), type, sizeof type);
    if (dq->offsets)
      snprintf(group + used, sizeof group - (size_t)used, ", offsets %s%s %s, zero point %g",
               dq->offsetsSubtracted ? "subtracted " : "", layout, type, dq->zeroPoint);
    else
      snprintf(group + used, sizeof group - (size_t)used, "%s, zero points %s %s%s",
               dq->zpSigned ? ", signed codes" : "", layout, type,
               dq->zpSigned ? " signed" : dq->zpWraps ? " + 1 mod 16" : dq->zpOffset ? " + 1" : "");
  } else if (dq->zeroPoint != W4A16_ZERO_POINT) {
    snprintf(group + used, sizeof group - (size_t)used, ", zero point %g", dq->zeroPoint);
  } else if (dq->signedCodes) {
    snprintf(group + used, sizeof group - (size_t)used, ", signed codes");
  }
  if (!mlirValueIsNull(dq->groupIndex)) {
    used = (int)strlen(group);
    snprintf(group + used, sizeof group - (size_t)used, ", act-order g_idx");
  }
  snprintf(out, size, "dequant(%s, scales %s%s) -> matmul%s%s%s%s", w4a16_weight_layout_name(dq->weightLayout),
           w4a16_scales_layout_name(dq->scalesLayout), group, ep->hasBias ? " -> bias" : "", act ? " -> " : "",
           act ? w4a16_activation_name(ep->activation) : "", ep->hasResidual ? " -> residual" : "");
}

/* The epilogue, where y's consumer combines it with another tensor of its shape first split into its parts
 * (split_by_input.c): upstream's elementwise fusion leaves a GLU's biases, activation and product as one generic
 * reading both projections' results, and each finds its epilogue in its own part. */
static bool matchEpilogueOrSplit(const MatmulMatch *mm, EpilogueMatch *ep, Reason *why) {
  if (matchEpilogue(mm, ep, why))
    return true;
  if (!splitConsumerOf(mm->result))
    return false;
  *why = (Reason){0}; /* the split IR's reason, if it still does not match */
  return matchEpilogue(mm, ep, why);
}

static void fuseChainAt(MlirOperation op, const W4a16FuseOptions *options) {
  MatmulMatch mm;
  DequantMatch dq;
  EpilogueMatch ep;
  Reason why = {0};
  if (!matchMatmul(op, &mm, &why) || !matchDequant(&mm, &dq, &why) || !matchEpilogueOrSplit(&mm, &ep, &why)) {
    if (why.text[0])
      explainRemark(options, "w4a16", op, "not fused: %s", why.text);
    return;
  }
  /* A chain the runtime cannot run stays unfused: compiled code must never fail on it at run time. */
  w4a16_shape_rule rule = w4a16_check_shape(mm.K, mm.N, dq.groupSize);
  if (rule != W4A16_SHAPE_OK) {
    explainRemark(options, "w4a16", op, "not fused: K = %lld, N = %lld: %s", (long long)mm.K, (long long)mm.N,
                  w4a16_shape_rule_text(rule));
    return;
  }
  char chain[256], types[48], stop[640] = "";
  describeChain(&dq, &ep, chain, sizeof chain);
  describeTypes(&mm, &dq, types, sizeof types);
  if (ep.stop.text[0] && !mlirOperationIsNull(ep.stop.at)) {
    char where[256];
    locationText(mlirOperationGetLocation(ep.stop.at), where, sizeof where);
    snprintf(stop, sizeof stop, "; chain ends before %s: %s", where, ep.stop.text);
  }
  char shared[96] = "";
  if (dq.weightOtherUsers > 0)
    snprintf(shared, sizeof shared, "; the dequantised weight has %ld other user%s, which keep%s it", (long)dq.weightOtherUsers,
             dq.weightOtherUsers > 1 ? "s" : "", dq.weightOtherUsers > 1 ? "" : "s");
  explainRemark(options, "w4a16", op, "fused as %s%s%s%s", chain, types, shared, stop);
  buildFusedOp(&mm, &dq, &ep);
}

/* --- the pass ----------------------------------------------------------------------------------- */

static _Alignas(8) char fusePassId;

/* Contractions whose body computes their x go first: computing x before them again gives the chains that produce
 * x's inputs their epilogues back (the gate's silu and truncf, which upstream's fusion moved into the down
 * projection's body), which those chains' own matches need. */
static bool computesXInBody(MlirOperation op) {
  MatmulMatch mm;
  Reason why = {0};
  return matchMatmul(op, &mm, &why) && !mlirValueIsNull(mm.xExpr);
}

static const OptionsPassSpec kFusePass = {
    &fusePassId, "W4a16Fuse", "w4a16-fuse", "Fuse dequant-matmul-epilogue chains into w4a16.fused_matmul",
    fuseChainAt, NULL, computesXInBody};

MlirPass w4a16CreateFusePass(W4a16FuseOptions options) { return createOptionsPass(&kFusePass, options); }

void w4a16AddFusePass(MlirOpPassManager pm, W4a16FuseOptions options) {
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateFusePass(options));
}
