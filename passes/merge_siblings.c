/* w4a16-merge-siblings: fused matmuls that read the same x become one w4a16.merged_matmul, one launch
 * (issue #21). At decode each projection is a small GEMM that pays a fixed per-call cost on top of its
 * bytes; one call over the siblings' columns pays it once.
 *
 *   glu:     gate = fused(x, Wg[, bg]) with an activation (or none), up = fused(x, Wu[, bu]) with none, and an
 *            elementwise consumer that computes gate * up, or act(gate) * up when neither fused op applies an
 *            activation (glu_product.c: evaluated at sample points, any spelling, either order, through identical
 *            views of both) -> one op whose result is act(x Wg + bg) * (x Wu + bu): SwiGLU, GeGLU.
 *   outputs: the other siblings with the same activation -> one op with a result per sibling (QKV).
 *
 * Siblings merge only where the runtime can run them as one plan: the same quantisation form (layouts, group
 * size, zero-point form, element types), no residual and no act-order g_idx. A member without bias among biased
 * ones gets a zero bias (one bias addition per column costs nothing in the epilogue). In explain mode every sibling
 * gets a remark: what it merged with, or why it did not. */
#include "glu_product.h"
#include "match.h"
#include "ir_build.h"
#include "rewrite.h"
#include "w4a16/contract.h"
#include "w4a16/dialect.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- what a fused op reads ------------------------------------------------------------------------ */

enum { kX, kWeight, kScales, kBias, kResidual, kZeroPoints, kGroupIndex, kNumFusedOperands };

typedef struct Sibling {
  MlirOperation op;
  MlirValue operand[kNumFusedOperands]; /* null where absent */
  int activation;
  bool merged;
} Sibling;

static Sibling siblingOf(MlirOperation op) {
  Sibling s = {op, {{NULL}}, W4A16_ACT_NONE, false};
  MlirAttribute seg = attr(op, "operandSegmentSizes");
  for (int i = 0, next = 0; i < kNumFusedOperands; ++i)
    if (i < kBias || mlirDenseI32ArrayGetElement(seg, i))
      s.operand[i] = mlirOperationGetOperand(op, next++);
  MlirAttribute act = attr(op, "activation"); /* IRDL only requires it present; the C verifier runs later */
  s.activation = mlirAttributeIsNull(act) || !mlirAttributeIsAString(act)
                     ? -1
                     : w4a16_value_of(w4a16_activation_name, mlirStringAttrGetValue(act).data,
                                      mlirStringAttrGetValue(act).length);
  return s;
}

static bool has(const Sibling *s, int operand) { return !mlirValueIsNull(s->operand[operand]); }
static MlirValue resultOf(const Sibling *s) { return mlirOperationGetResult(s->op, 0); }

/* --- what may merge ---------------------------------------------------------------------------------- */

static bool sameElementType(MlirValue a, MlirValue b) {
  return mlirValueIsNull(a) == mlirValueIsNull(b) &&
         (mlirValueIsNull(a) || mlirTypeEqual(elementTypeOf(a), elementTypeOf(b)));
}

/* Why s cannot be a member of a merged op at all (NULL: it can). */
static const char *cannotMerge(const Sibling *s) {
  if (s->activation < 0)
    return "its activation attribute is not one the op takes";
  if (has(s, kResidual))
    return "it adds a residual";
  if (has(s, kGroupIndex))
    return "it has an act-order g_idx";
  return NULL;
}

/* Why a and b cannot run as one plan (NULL: they can); activations are the caller's business. */
static const char *differentForm(const Sibling *a, const Sibling *b) {
  /* Every attribute that changes what a member's weight element is (the merged op carries the lead's), and what
   * a difference in it means. */
  static const struct {
    const char *attr, *why;
  } kForm[] = {
      {"weight_layout", "weight layouts differ"},
      {"scales_layout", "scales layouts differ"},
      {"group_size", "group sizes differ"},
      {"zero_point", "zero points differ"},
      {"zero_point_layout", "zero-point layouts differ"},
      {"zero_point_offset", "zero-point offsets differ"},
      {"zero_point_offset_wraps", "zero-point offsets differ"},
      {"zero_points_are_offsets", "one adds offsets, the other subtracts zero points"},
      {"offsets_subtracted", "one subtracts its offsets, the other adds them"},
      {"signed_codes", "one has signed codes, the other unsigned"},
      {"zero_points_signed", "one reads its zero points as signed nibbles, the other not"},
  };
  for (size_t i = 0; i < sizeof kForm / sizeof kForm[0]; ++i) {
    MlirAttribute x = attr(a->op, kForm[i].attr), y = attr(b->op, kForm[i].attr);
    if (mlirAttributeIsNull(x) != mlirAttributeIsNull(y) || (!mlirAttributeIsNull(x) && !mlirAttributeEqual(x, y)))
      return kForm[i].why;
  }
  if (!sameElementType(a->operand[kWeight], b->operand[kWeight]))
    return "weight element types differ";
  if (!sameElementType(a->operand[kScales], b->operand[kScales]))
    return "scales element types differ";
  if (!sameElementType(a->operand[kZeroPoints], b->operand[kZeroPoints]))
    return "one has a zero-point tensor the other has not, or of another type";
  return NULL;
}

/* --- where the merged op may go ----------------------------------------------------------------------- */

/* v is available right before `point`. */
static bool availableAt(MlirValue v, MlirOperation point) {
  if (mlirValueIsNull(v) || mlirValueIsABlockArgument(v))
    return true; /* siblings share a block: its arguments and those of enclosing blocks dominate it */
  MlirOperation def = producer(v), at = ancestorIn(point, mlirOperationGetBlock(def));
  return !mlirOperationIsNull(at) && mlirOperationIsBeforeInBlock(def, at);
}

/* No user of v comes before `point`. */
static bool unusedBefore(MlirValue v, MlirOperation point) {
  for (MlirOpOperand use = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation at = ancestorIn(mlirOpOperandGetOwner(use), mlirOperationGetBlock(point));
    if (mlirOperationIsNull(at) || mlirOperationIsBeforeInBlock(at, point))
      return false;
  }
  return true;
}

/* Whether v, defined after `point` in its block, can be defined there instead: a constant (frontends that emit each
 * weight right before its use), or a reshape or shape query of values that are available there or can move there too
 * (a projection's own view of its weight, which the fuse pass leaves right before it). */
static bool movableTo(MlirValue v, MlirOperation point, int depth) {
  MlirOperation def = producer(v);
  if (mlirOperationIsNull(def) || depth > 4 || mlirOperationGetNumRegions(def) > 0 ||
      !mlirBlockEqual(mlirOperationGetBlock(def), mlirOperationGetBlock(point)))
    return false;
  if (opIs(def, "arith.constant"))
    return true;
  if (!isReshape(def) && !opIs(def, "tensor.dim"))
    return false;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(def); i < n; ++i)
    if (!availableAt(mlirOperationGetOperand(def, i), point) && !movableTo(mlirOperationGetOperand(def, i), point, depth + 1))
      return false;
  return true;
}

/* Moves the ops defining v (movableTo) up to `point`, producers first. */
static void moveTo(MlirValue v, MlirOperation point) {
  if (availableAt(v, point))
    return;
  MlirOperation def = producer(v);
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(def); i < n; ++i)
    moveTo(mlirOperationGetOperand(def, i), point);
  mlirOperationMoveBefore(def, point);
}

/* Where a merged op of members[0..n) can be inserted: before the first member when every operand is defined
 * by then (constants and views defined later are moved up, movableTo), else before the last when no member's result is used until
 * then; null when neither holds. */
static const Sibling *earliest(Sibling *const *members, int n) {
  const Sibling *e = members[0];
  for (int i = 1; i < n; ++i)
    if (mlirOperationIsBeforeInBlock(members[i]->op, e->op))
      e = members[i];
  return e;
}

/* The earliest value of v's chain of tensor.cast ops that has v's type: casts that end where they started (to a
 * dynamic shape and back, as torch-mlir leaves them) do not make another x. */
static MlirValue castRoundTripSource(MlirValue v) {
  MlirValue source = v;
  for (MlirValue at = v; !mlirOperationIsNull(producer(at)) && opIs(producer(at), "tensor.cast");) {
    at = mlirOperationGetOperand(producer(at), 0);
    if (mlirTypeEqual(mlirValueGetType(at), mlirValueGetType(v)))
      source = at;
  }
  return source;
}

/* x is not checked: the merged op reads the earliest member's x (each sibling may reshape x itself, right
 * before it), which is defined before either point. */
static MlirOperation insertionPoint(Sibling *const *members, int n) {
  MlirOperation first = earliest(members, n)->op, last = members[0]->op;
  for (int i = 1; i < n; ++i)
    if (mlirOperationIsBeforeInBlock(last, members[i]->op))
      last = members[i]->op;
  bool early = true, late = true;
  for (int i = 0; i < n; ++i) {
    for (int j = kX + 1; j < kNumFusedOperands; ++j)
      early &= availableAt(members[i]->operand[j], first) || movableTo(members[i]->operand[j], first, 0);
    late &= opEq(members[i]->op, last) || unusedBefore(resultOf(members[i]), last);
  }
  if (late && !early)
    return last;
  if (!early)
    return (MlirOperation){NULL};
  for (int i = 0; i < n; ++i)
    for (int j = kX + 1; j < kNumFusedOperands; ++j)
      moveTo(members[i]->operand[j], first);
  return first;
}

/* --- building the merged op ------------------------------------------------------------------------------ */

/* A zero bias for member s (merged with siblings that have biases), as a constant before `before`. */
static MlirValue zeroBias(const Sibling *s, MlirOperation before) {
  MlirContext ctx = mlirOperationGetContext(before);
  const int64_t n = dimOf(resultOf(s), 1);
  MlirType type = mlirRankedTensorTypeGet(1, &n, elementTypeOf(s->operand[kX]), mlirAttributeGetNull());
  MlirAttribute zero = mlirDenseElementsAttrSplatGet(type, mlirFloatAttrDoubleGet(ctx, elementTypeOf(s->operand[kX]), 0));
  MlirNamedAttribute value = namedAttr(ctx, "value", zero);
  return insertBefore(before, buildOp("arith.constant", mlirOperationGetLocation(s->op), 0, NULL, 1, &type, 1, &value, NULL));
}

static MlirOperation buildMerged(Sibling *const *members, int n, bool glu, int activation, MlirOperation before) {
  MlirContext ctx = mlirOperationGetContext(before);
  const Sibling *lead = members[0];
  bool anyBias = false;
  for (int i = 0; i < n; ++i)
    anyBias |= has(members[i], kBias);
  const int numZeroPoints = has(lead, kZeroPoints) ? n : 0, numBiases = anyBias ? n : 0;
  MlirValue operands[1 + 4 * W4A16_MAX_MERGED];
  int count = 0;
  operands[count++] = earliest(members, n)->operand[kX]; /* all members' x hold the same data */
  const int groups[] = {kWeight, kScales, kZeroPoints, kBias}, sizes[] = {n, n, numZeroPoints, numBiases};
  for (int g = 0; g < 4; ++g)
    for (int i = 0; i < sizes[g]; ++i) /* a sibling without bias, among biased ones, adds zeros */
      operands[count++] = groups[g] == kBias && !has(members[i], kBias) ? zeroBias(members[i], before)
                                                                        : members[i]->operand[groups[g]];
  MlirType results[W4A16_MAX_MERGED];
  const int numResults = glu ? 1 : n;
  for (int i = 0; i < numResults; ++i)
    results[i] = mlirValueGetType(resultOf(members[i]));

  MlirNamedAttribute attrs[20];
  int numAttrs = 0;
  for (intptr_t i = 0, na = mlirOperationGetNumAttributes(lead->op); i < na && numAttrs < 12; ++i) {
    MlirNamedAttribute a = mlirOperationGetAttribute(lead->op, i);
    MlirStringRef name = mlirIdentifierStr(a.name);
    if (!mlirStringRefEqual(name, mlirStringRefCreateFromCString("operandSegmentSizes")) &&
        !mlirStringRefEqual(name, mlirStringRefCreateFromCString("activation")))
      attrs[numAttrs++] = a;
  }
  int32_t segments[17] = {1}; /* x, then weight_0..3, scales_0..3, zero_points_0..3, bias_0..3 */
  for (int i = 0; i < n; ++i)
    segments[1 + i] = segments[5 + i] = 1, segments[9 + i] = numZeroPoints != 0, segments[13 + i] = numBiases != 0;
  int32_t resultSegments[4] = {1, 0, 0, 0};
  for (int i = 1; i < numResults; ++i)
    resultSegments[i] = 1;
  attrs[numAttrs++] = namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 17, segments));
  attrs[numAttrs++] = namedAttr(ctx, "resultSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, resultSegments));
  attrs[numAttrs++] = namedAttr(ctx, "activation", mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(
                                                                         w4a16_activation_name(activation))));
  attrs[numAttrs++] =
      namedAttr(ctx, "combine", mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(glu ? "glu" : "outputs")));
  MlirOperation merged = buildOp(W4A16_MERGED_MATMUL_OP, mlirOperationGetLocation(lead->op), count, operands,
                                 numResults, results, numAttrs, attrs, NULL);
  insertBefore(before, merged);
  return merged;
}

/* --- one group of siblings (fused ops reading the same x) -------------------------------------------------- */

typedef struct Group {
  Sibling members[64];
  int count;
} Group;

static void remarkMembers(const W4a16FuseOptions *options, Sibling *const *members, int n, const char *what) {
  char list[1024] = "";
  for (int i = 0; i < n; ++i) {
    char where[256];
    locationText(mlirOperationGetLocation(members[i]->op), where, sizeof where);
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s (N = %lld)", i ? ", " : "", where,
             (long long)dimOf(resultOf(members[i]), 1));
  }
  explainRemark(options, "w4a16", members[0]->op, "merged %d sibling projections of one x into one launch (%s): %s", n,
                what, list);
}

/* gate * up -> one glu op. Returns whether it merged. The activation is the gate's (its fused op's, the other's
 * none), or, when neither applies one, what the product's path applies to the factor it makes the gate. */
static bool tryGlu(Sibling *first, Sibling *second, const W4a16FuseOptions *options) {
  if ((first->activation != W4A16_ACT_NONE && second->activation != W4A16_ACT_NONE) ||
      dimOf(resultOf(first), 1) != dimOf(resultOf(second), 1))
    return false;
  const bool fusedActivation = first->activation != W4A16_ACT_NONE || second->activation != W4A16_ACT_NONE;
  GluProduct product;
  if (findGluProduct(resultOf(first), resultOf(second), !fusedActivation, &product))
    return false;
  const bool secondIsGate = fusedActivation ? second->activation != W4A16_ACT_NONE : product.bIsGate;
  Sibling *gate = secondIsGate ? second : first, *up = secondIsGate ? first : second;
  const int activation = fusedActivation ? gate->activation : product.activation;
  Sibling *members[2] = {gate, up};
  MlirOperation at = insertionPoint(members, 2);
  if (mlirOperationIsNull(at))
    return false;
  char what[64];
  snprintf(what, sizeof what, "glu: %s(gate) * up", w4a16_activation_name(activation));
  remarkMembers(options, members, 2, what);
  MlirOperation merged = buildMerged(members, 2, true, activation, at);
  replaceGluConsumer(&product, resultOf(first), resultOf(second), mlirOperationGetResult(merged, 0));
  OpSet dead = {.count = 0};
  opSetAdd(&dead, product.consumer);
  eraseDeadOps(&dead); /* the product, and the views and activation ops only it used; gate and up, now unused,
                          go in mergeGroup */
  gate->merged = up->merged = true;
  return true;
}

/* Siblings left after the GLU pairs, with the same activation and form: one op, one result each. */
static void mergeOutputs(Group *g, const W4a16FuseOptions *options) {
  for (int i = 0; i < g->count; ++i) {
    Sibling *lead = &g->members[i];
    if (lead->merged || cannotMerge(lead))
      continue;
    Sibling *members[W4A16_MAX_MERGED] = {lead};
    int n = 1;
    for (int j = i + 1; j < g->count && n < W4A16_MAX_MERGED; ++j) {
      Sibling *s = &g->members[j];
      if (!s->merged && !cannotMerge(s) && !differentForm(lead, s) && s->activation == lead->activation)
        members[n++] = s;
    }
    MlirOperation at = n > 1 ? insertionPoint(members, n) : (MlirOperation){NULL};
    if (mlirOperationIsNull(at))
      continue;
    remarkMembers(options, members, n, "outputs");
    MlirOperation merged = buildMerged(members, n, false, lead->activation, at);
    for (int k = 0; k < n; ++k) {
      mlirValueReplaceAllUsesOfWith(resultOf(members[k]), mlirOperationGetResult(merged, k));
      members[k]->merged = true; /* destroyed by mergeGroup, after the remarks that may name it */
    }
  }
}

/* The sibling that s's remark is best told against: the first that could have joined it (it can be a member and has
 * s's form), so that the remark names the reason that mattered (say, a gate and up that are not a GLU) rather than
 * a form difference with an unrelated sibling; else the first other one. */
static const Sibling *closestSibling(const Group *g, const Sibling *s) {
  const Sibling *first = NULL;
  for (int i = 0; i < g->count; ++i) {
    const Sibling *o = &g->members[i];
    if (o == s)
      continue;
    if (!first)
      first = o;
    if (!cannotMerge(o) && !differentForm(s, o))
      return o;
  }
  return first;
}

/* Why s merged with none of its siblings, against the closest of them (explain mode). */
static void explainUnmerged(const Group *g, const Sibling *s, const W4a16FuseOptions *options) {
  const Sibling *other = closestSibling(g, s);
  const char *why = cannotMerge(s);
  if (!why)
    why = differentForm(s, other);
  if (!why && s->activation != other->activation)
    why = "activations differ and they are not a gate and up whose product is all that uses them";
  if (!why && other->merged)
    why = "its siblings merged without it: a merged op holds at most 4";
  if (!why)
    why = "no place in the block where all operands are defined and no result is used yet";
  char where[256];
  locationText(mlirOperationGetLocation(other->op), where, sizeof where);
  explainRemark(options, "w4a16", s->op, "not merged with the sibling at %s: %s", where, why);
}

static void mergeGroup(Group *g, const W4a16FuseOptions *options) {
  for (int i = 0; i < g->count; ++i)
    for (int j = i + 1; j < g->count && !g->members[i].merged; ++j)
      if (!g->members[j].merged && !cannotMerge(&g->members[i]) && !cannotMerge(&g->members[j]) &&
          !differentForm(&g->members[i], &g->members[j]))
        tryGlu(&g->members[i], &g->members[j], options);
  mergeOutputs(g, options);
  for (int i = 0; i < g->count; ++i)
    if (!g->members[i].merged)
      explainUnmerged(g, &g->members[i], options);
  OpSet *dead = calloc(1, sizeof *dead);
  for (int i = 0; i < g->count; ++i)
    if (g->members[i].merged)
      opSetAdd(dead, g->members[i].op);
  eraseDeadOps(dead); /* the members, and what only they used (each one's reshape of x, say) */
  free(dead);
}

/* --- the pass -------------------------------------------------------------------------------------------- */

static void mergeRun(MlirOperation root, const W4a16FuseOptions *options) {
  OpList all = collectOps(root, isFusedMatmulOp, NULL, MlirWalkPreOrder);
  bool *grouped = calloc((size_t)all.count + 1, sizeof *grouped);
  for (int i = 0; i < all.count; ++i) {
    if (grouped[i])
      continue;
    Group *g = calloc(1, sizeof *g);
    g->members[g->count++] = siblingOf(all.ops[i]);
    for (int j = i + 1; j < all.count && g->count < 64; ++j) {
      Sibling s = siblingOf(all.ops[j]);
      if (!grouped[j] && mlirBlockEqual(mlirOperationGetBlock(all.ops[i]), mlirOperationGetBlock(all.ops[j])) &&
          sameValue(castRoundTripSource(g->members[0].operand[kX]), castRoundTripSource(s.operand[kX]), 0)) {
        grouped[j] = true;
        g->members[g->count++] = s;
      }
    }
    if (g->count > 1)
      mergeGroup(g, options);
    free(g);
  }
  free(grouped);
  free(all.ops);
}

static _Alignas(8) char mergePassId;

static const OptionsPassSpec kMergeSiblingsPass = {
    &mergePassId, "W4a16MergeSiblings", "w4a16-merge-siblings",
    "Merge fused matmuls that read the same x into one w4a16.merged_matmul (QKV outputs; gate/up GLU)", NULL,
    mergeRun, NULL};

MlirPass w4a16CreateMergeSiblingsPass(W4a16FuseOptions options) { return createOptionsPass(&kMergeSiblingsPass, options); }

void w4a16AddMergeSiblingsPass(MlirOpPassManager pm, W4a16FuseOptions options) {
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateMergeSiblingsPass(options));
}
