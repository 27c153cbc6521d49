/* w4a16-fuse: rewrites each dequant -> matmul -> bias -> activation -> residual chain into one
 * w4a16.fused_matmul (see match.h for what each part must compute), erasing producers left dead.
 * With explain on, every matmul fed by a dequantised weight gets a located remark: what it was
 * fused as, or the first reason it was not. IR that does not match is not touched. */
#include "rewrite.h"
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
      named(ctx, "activation", namedString(ctx, w4a16_activation_name(ep->activation))),
      named(ctx, "group_size", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), kGroupSize)),
      named(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 5, segments)),
      named(ctx, "scales_layout", namedString(ctx, w4a16_scales_layout_name(dq->scalesLayout))),
      named(ctx, "weight_layout", namedString(ctx, w4a16_weight_layout_name(dq->weightLayout))),
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
  eraseDeadOps(&dead);
  return fused;
}

static void describeChain(const DequantMatch *dq, const EpilogueMatch *ep, char *out, size_t size) {
  const bool act = ep->activation != W4A16_ACT_NONE;
  snprintf(out, size, "dequant(%s, scales %s) -> matmul%s%s%s%s", w4a16_weight_layout_name(dq->weightLayout),
           w4a16_scales_layout_name(dq->scalesLayout), ep->hasBias ? " -> bias" : "", act ? " -> " : "",
           act ? w4a16_activation_name(ep->activation) : "", ep->hasResidual ? " -> residual" : "");
}

static void fuseChainAt(MlirOperation op, const W4a16FuseOptions *options) {
  MatmulMatch mm;
  DequantMatch dq;
  EpilogueMatch ep;
  Reason why = {0};
  if (!matchMatmul(op, &mm, &why) || !matchDequant(&mm, &dq, &why) || !matchEpilogue(&mm, &ep, &why)) {
    if (why.text[0])
      explainRemark(options, "w4a16", op, "not fused: %s", why.text);
    return;
  }
  /* A chain the runtime cannot run stays unfused: compiled code must never fail on it at run time. */
  w4a16_shape_rule rule = w4a16_check_shape(mm.K, mm.N, kGroupSize);
  if (rule != W4A16_SHAPE_OK) {
    explainRemark(options, "w4a16", op, "not fused: K = %lld, N = %lld: %s", (long long)mm.K, (long long)mm.N,
                  w4a16_shape_rule_text(rule));
    return;
  }
  char chain[256], stop[640] = "";
  describeChain(&dq, &ep, chain, sizeof chain);
  if (ep.stop.text[0] && !mlirOperationIsNull(ep.stop.at)) {
    char where[256];
    locationText(mlirOperationGetLocation(ep.stop.at), where, sizeof where);
    snprintf(stop, sizeof stop, "; chain ends before %s: %s", where, ep.stop.text);
  }
  explainRemark(options, "w4a16", op, "fused as %s%s", chain, stop);
  buildFusedOp(&mm, &dq, &ep);
}

/* --- the pass ----------------------------------------------------------------------------------- */

static _Alignas(8) char fusePassId;

static const ContractionPassSpec kFusePass = {
    &fusePassId, "W4a16Fuse", "w4a16-fuse", "Fuse dequant-matmul-epilogue chains into w4a16.fused_matmul",
    fuseChainAt};

MlirPass w4a16CreateFusePass(W4a16FuseOptions options) { return createContractionPass(&kFusePass, options); }

void w4a16AddFusePass(MlirOpPassManager pm, W4a16FuseOptions options) {
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateFusePass(options));
}
