/* w4a16-split-chunked-glu: a gate_up projection stored as one weight of 2I columns -- Phi-3's gate_up_proj,
 * ChatGLM's dense_h_to_4h with swiglu -- whose result is chunked into gate = columns [0, I) and up = [I, 2I)
 * that feed act(gate) * up, becomes two fused ops on column windows of its weight, scales and zero points
 * (tensor.extract_slice, which the lowering passes on as strided memrefs), each feeding its half directly. Run
 * after w4a16-fuse and before w4a16-merge-siblings, which then merges the two into one glu launch.
 *
 *   y = fused(x, W[K, 2I]) ; gate = y[:, :I] ; up = y[:, I:] ; out = up * silu(gate)
 *   -> gate = fused(x, W[:, :I]) ; up = fused(x, W[:, I:]) ; out = up * silu(gate)
 *
 * Only where the halves are all that reads the result (through identical reshapes that keep the columns as the
 * last dim, and tensor.dim of a row dim) and feed a product that merge-siblings' glu check (glu_product.c)
 * accepts; the fused op applies no activation, residual or act-order g_idx to all 2I columns (a bias is fine: each
 * half reads its window of it, Megatron-Core's linear_fc1); a half must be a window of every stored operand in its
 * layout. Otherwise the op stays, and in
 * explain mode a chunked one that looks like a gate_up projection (looksLikeGlu) gets a remark naming the rule. */
#include "glu_product.h"
#include "match.h"
#include "ir_build.h"
#include "rewrite.h"
#include "w4a16/contract.h"
#include "w4a16/dialect.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kX, kWeight, kScales, kBias, kResidual, kZeroPoints, kGroupIndex, kNumFusedOperands };
enum { kMaxViews = 8, kMaxDimUsers = 16, kMaxSlices = 8 };

/* --- how the result is used ------------------------------------------------------------------------ */

/* A tensor.extract_slice of the result, read through reshapes (from the result to the slice's source). */
typedef struct Half {
  MlirOperation slice, views[kMaxViews];
  int numViews;
  int columnDims; /* how many trailing dims of the slice's source hold the columns (1 for a half) */
} Half;

typedef struct Uses {
  Half half[2];       /* by offset: columns [0, I), then [I, 2I) (filled in order found until checked) */
  int numSlices;
  MlirOperation slices[kMaxSlices]; /* the first kMaxSlices of them, for looksLikeGlu */
  MlirOperation dims[kMaxDimUsers]; /* tensor.dim of a row dim of the result or of one of its reshapes */
  int numDims;
  MlirOperation views[2 * kMaxViews]; /* every reshape met on the way */
  int numViews;
  MlirOperation other; /* the first user that is none of these */
} Uses;

/* The columns of a view of the (M, N) result are its trailing dims (N itself, or N split as [N/8, 8] by a reshape
 * that the next one merges back). Through reshape op, the number of trailing dims holding the columns when `columns`
 * of its source's do; -1 when it mixes row and column dims in one group. */
static int columnDimsThrough(MlirOperation op, int columns) {
  const bool expand = opIs(op, "tensor.expand_shape");
  if (!expand && !opIs(op, "tensor.collapse_shape"))
    return -1;
  MlirAttribute groups = attr(op, "reassociation");
  if (mlirAttributeIsNull(groups) || !mlirAttributeIsAArray(groups))
    return -1;
  const intptr_t numGroups = mlirArrayAttrGetNumElements(groups);
  const int firstColumn = rankOf(mlirOperationGetOperand(op, 0)) - columns; /* of the source */
  int out = 0;
  for (intptr_t g = 0; g < numGroups; ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    const intptr_t size = mlirArrayAttrGetNumElements(group);
    if (size == 0)
      return -1;
    if (expand) { /* group g: the result dims of source dim g */
      out += g >= firstColumn ? (int)size : 0;
      continue;
    }
    /* group g: the source dims of result dim g */
    const int first = (int)mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(group, 0));
    if (first < firstColumn && first + size > firstColumn)
      return -1;
    out += first >= firstColumn;
  }
  return out;
}

/* The dim of view v (its columns its trailing `columns` dims) that a half of the columns halves: the outermost column
 * dim that is not 1, when it is even; -1 otherwise (a half is then no box of v). */
static int halvedColumnDim(MlirValue v, int columns) {
  for (int d = rankOf(v) - columns; d < rankOf(v); ++d)
    if (dimOf(v, d) != 1)
      return dimOf(v, d) > 0 && dimOf(v, d) % 2 == 0 ? d : -1;
  return -1;
}

/* Records every user of v (reached through `views`, `depth` of them; its columns are its trailing `columns` dims). */
static void collectUses(MlirValue v, int columns, MlirOperation *views, int depth, Uses *u) {
  for (MlirOpOperand use = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    const bool first = mlirOpOperandGetOperandNumber(use) == 0;
    const int viewColumns = first ? columnDimsThrough(user, columns) : -1;
    int64_t dim;
    if (first && opIs(user, "tensor.extract_slice")) {
      if (u->numSlices < 2) {
        Half *h = &u->half[u->numSlices];
        *h = (Half){user, {{NULL}}, depth, columns};
        memcpy(h->views, views, sizeof *views * (size_t)depth);
      }
      if (u->numSlices < kMaxSlices)
        u->slices[u->numSlices] = user;
      ++u->numSlices;
    } else if (first && opIs(user, "tensor.dim") && constantIndex(mlirOperationGetOperand(user, 1), &dim) &&
               dim >= 0 && dim < rankOf(v) - columns && u->numDims < kMaxDimUsers) {
      u->dims[u->numDims++] = user;
    } else if (depth < kMaxViews && u->numViews < 2 * kMaxViews && viewColumns > 0) {
      views[depth] = u->views[u->numViews++] = user;
      collectUses(mlirOperationGetResult(user, 0), viewColumns, views, depth + 1, u);
    } else if (mlirOperationIsNull(u->other)) {
      u->other = user;
    }
  }
}

/* The value the result is seen as `depth` reshapes down half h's chain (0: the result itself). */
static MlirValue viewAt(MlirValue result, const Half *h, int depth) {
  return depth == 0 ? result : mlirOperationGetResult(h->views[depth - 1], 0);
}

/* Which half's chain holds v (the result, or a reshape of it), and at which depth; false when none does. */
static bool inChain(MlirValue v, MlirValue result, const Uses *u, int *half, int *depth) {
  for (int h = 0; h < 2; ++h)
    for (int d = 0; d <= u->half[h].numViews; ++d)
      if (valueEq(v, viewAt(result, &u->half[h], d))) {
        *half = h, *depth = d;
        return true;
      }
  return false;
}

/* The two chains apply the same reshapes (one op or identical ones). */
static bool sameChains(const Half *a, const Half *b) {
  if (a->numViews != b->numViews)
    return false;
  for (int i = 0; i < a->numViews; ++i) {
    MlirOperation x = a->views[i], y = b->views[i];
    if (opEq(x, y))
      continue;
    if (!opIs(y, opName(x, (char[64]){0}, 64)) || !sameAttributes(x, y) ||
        !mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(x, 0)), mlirValueGetType(mlirOperationGetResult(y, 0))) ||
        mlirOperationGetNumOperands(x) != mlirOperationGetNumOperands(y))
      return false;
    for (intptr_t j = 1, n = mlirOperationGetNumOperands(x); j < n; ++j)
      if (!sameValue(mlirOperationGetOperand(x, j), mlirOperationGetOperand(y, j), 0))
        return false;
  }
  return true;
}

/* v is dim `d` of the slice's source: a tensor.dim of it at d, or of the same view of the result in a chain; the
 * same computation as the size the views name for it (viewNamedSize: --canonicalize reads a row dim of the result back
 * from x's own dims, the fuse pass's expand_shape of the result names them too); or, for a slice of the (M, N)
 * result itself, dim 0 of the op's x, which has its M rows (CSE leaves one tensor.dim of x for every (M, .) tensor). */
static bool isSourceDim(MlirValue v, int d, MlirValue source, MlirValue result, const Uses *u, int depth) {
  const MlirValue named = viewNamedSize(source, d);
  if (!mlirValueIsNull(named) && sameValue(v, named, 0))
    return true;
  MlirOperation def = producer(v);
  int64_t index;
  if (!opIs(def, "tensor.dim") || !constantIndex(mlirOperationGetOperand(def, 1), &index) || index != d)
    return false;
  const MlirValue of = mlirOperationGetOperand(def, 0);
  if (depth == 0 && d == 0 && valueEq(of, mlirOperationGetOperand(producer(result), 0)))
    return true;
  return valueEq(of, viewAt(result, &u->half[0], depth)) || valueEq(of, viewAt(result, &u->half[1], depth));
}

/* The static offset of a slice's last dim (dynamic ones sort last). */
static int64_t lastOffset(MlirOperation slice) {
  MlirAttribute offsets = attr(slice, "static_offsets");
  const int rank = rankOf(mlirOperationGetOperand(slice, 0));
  return mlirAttributeIsNull(offsets) || rank < 1 ? INT64_MAX : mlirDenseI64ArrayGetElement(offsets, rank - 1);
}

/* The slice's column offset when it takes I whole columns of every row, with unit steps; -1 otherwise. Dynamic
 * entries of its static_* arrays are its operands after the source, offsets then sizes then strides. */
static int64_t columnOffset(const Half *h, MlirValue result, const Uses *u, int64_t I) {
  MlirOperation s = h->slice;
  const MlirValue source = mlirOperationGetOperand(s, 0), out = mlirOperationGetResult(s, 0);
  const int rank = rankOf(source);
  MlirAttribute offsets = attr(s, "static_offsets"), sizes = attr(s, "static_sizes"), strides = attr(s, "static_strides");
  if (rankOf(out) != rank || mlirAttributeIsNull(offsets) || mlirAttributeIsNull(sizes) || mlirAttributeIsNull(strides))
    return -1;
  for (int d = 0; d < rank; ++d) /* the half, reshaped like the source, has the slice's type */
    if (dimOf(out, d) != (d == rank - 1 ? I : dimOf(source, d)))
      return -1;
  intptr_t next = 1;
  for (int d = 0; d < rank; ++d)
    if (mlirShapedTypeIsDynamicSize(mlirDenseI64ArrayGetElement(offsets, d)))
      return -1; /* canonicalize folds torch-mlir's constant start arithmetic */
  for (int d = 0; d < rank; ++d) {
    const int64_t size = mlirDenseI64ArrayGetElement(sizes, d), stride = mlirDenseI64ArrayGetElement(strides, d);
    const int64_t offset = mlirDenseI64ArrayGetElement(offsets, d);
    const bool dynamic = mlirShapedTypeIsDynamicSize(size);
    if (stride != 1 || (d < rank - 1 && offset != 0))
      return -1;
    if (d == rank - 1 ? size != I
                      : dynamic ? !isSourceDim(mlirOperationGetOperand(s, next), d, source, result, u, h->numViews)
                                : dimOf(source, d) < 0 || size != dimOf(source, d))
      return -1;
    next += dynamic;
  }
  return mlirDenseI64ArrayGetElement(offsets, rank - 1);
}

/* --- windows of the stored operands ------------------------------------------------------------------------ */

/* Elements [offset, offset + size) along `axis` of a 2-D stored operand. */
typedef struct Window {
  int axis;
  int64_t offset, size;
} Window;

/* The window of a weight in `layout` that holds columns [c0, c0 + I) of N as a weight of I columns in the same
 * layout: one dim of the stored shape depends on N, and every code of the half sits in the same nibble of the
 * window's element as it would in a stored weight of I columns (checked for every column and enough k to cover
 * each layout's period: 8-code words, byte pairs, GGML's 32-code blocks). HQQ's halves_n_k pairs column n with
 * n + N/2 in one byte: a half of it is no window. */
static bool weightWindow(int layout, int64_t K, int64_t N, int64_t c0, int64_t I, Window *w) {
  int64_t fullRows, fullCols, rows, cols;
  w4a16_weight_shape(layout, K, N, &fullRows, &fullCols);
  w4a16_weight_shape(layout, K, I, &rows, &cols);
  if ((rows != fullRows) == (cols != fullCols))
    return false;
  w->axis = rows != fullRows ? 0 : 1;
  const int64_t full = w->axis ? fullCols : fullRows;
  w->size = w->axis ? cols : rows;
  if (full * c0 % N != 0 || full * c0 / N + w->size > full)
    return false;
  w->offset = full * c0 / N;
  for (int64_t i = 0; i < 128 && i < K; ++i) {
    const int64_t k = i < 64 ? i : K - 128 + i; /* the first and the last 64 */
    if (k < 0)
      continue;
    for (int64_t n = 0; n < I; ++n) {
      int fullNibble, nibble;
      const int64_t e = w4a16_code_element(layout, k, c0 + n, K, N, &fullNibble);
      const int64_t h = w4a16_code_element(layout, k, n, K, I, &nibble);
      const int64_t row = h / cols + (w->axis == 0 ? w->offset : 0), col = h % cols + (w->axis == 1 ? w->offset : 0);
      if (fullNibble != nibble || e / fullCols != row || e % fullCols != col)
        return false;
    }
  }
  return true;
}

/* Scales and zero points: (K/G, N) along dim 1, (N, K/G) along dim 0; zero points packed along N hold columns
 * [8j, 8j + 8) in word j (AWQ's nibble order is within the word), so whole words. */
static bool columnWindow(bool nMajor, bool packed, int64_t c0, int64_t I, Window *w) {
  if (packed && (c0 % 8 != 0 || I % 8 != 0))
    return false;
  *w = (Window){nMajor ? 0 : 1, packed ? c0 / 8 : c0, packed ? I / 8 : I};
  return true;
}

static MlirValue sliceOf(MlirValue v, const Window *w, MlirOperation before) {
  MlirContext ctx = mlirOperationGetContext(before);
  const int rank = rankOf(v);
  int64_t offsets[2] = {0, 0}, sizes[2] = {dimOf(v, 0), rank > 1 ? dimOf(v, 1) : 0}, strides[2] = {1, 1};
  offsets[w->axis] = w->offset, sizes[w->axis] = w->size;
  const int32_t segments[4] = {1, 0, 0, 0};
  MlirType type = mlirRankedTensorTypeGet(rank, sizes, elementTypeOf(v), mlirAttributeGetNull());
  MlirNamedAttribute attrs[] = {namedAttr(ctx, "static_offsets", mlirDenseI64ArrayGet(ctx, rank, offsets)),
                                namedAttr(ctx, "static_sizes", mlirDenseI64ArrayGet(ctx, rank, sizes)),
                                namedAttr(ctx, "static_strides", mlirDenseI64ArrayGet(ctx, rank, strides)),
                                namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, segments))};
  return insertBefore(before, buildOp("tensor.extract_slice", mlirOperationGetLocation(before), 1, &v, 1, &type, 4,
                                      attrs, NULL));
}

/* --- the fused op ----------------------------------------------------------------------------------------- */

typedef struct Chunked {
  MlirOperation op;
  int operandIndex[kNumFusedOperands]; /* -1 where absent */
  int64_t K, N, I;
  Uses uses;
  Window window[2][kNumFusedOperands]; /* per half: weight, scales, zero points, bias */
  GluProduct product;
} Chunked;

static bool hasOperand(const Chunked *c, int operand) { return c->operandIndex[operand] >= 0; }
static MlirValue operandOf(const Chunked *c, int operand) {
  return mlirOperationGetOperand(c->op, c->operandIndex[operand]);
}

static int64_t groupSize(MlirOperation op) { /* 0 when the attribute is not an integer: the verifier reports it */
  MlirAttribute g = attr(op, "group_size");
  return mlirAttributeIsNull(g) || !mlirAttributeIsAInteger(g) ? 0 : mlirIntegerAttrGetValueInt(g);
}

static int enumAttr(MlirOperation op, const char *name, const char *(*names)(int)) {
  MlirAttribute a = attr(op, name);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return -1;
  return w4a16_value_of(names, mlirStringAttrGetValue(a).data, mlirStringAttrGetValue(a).length);
}

/* Why the op's own operands and attributes rule a split out (NULL: they do not). */
static const char *opRule(const Chunked *c, char *why, size_t size) {
  const int activation = enumAttr(c->op, "activation", w4a16_activation_name);
  if (activation != W4A16_ACT_NONE) {
    snprintf(why, size, "it applies %s to all %lld columns (a gate_up projection applies none; its gate half gets "
                        "the activation)", activation < 0 ? "an unknown activation" : w4a16_activation_name(activation),
             (long long)c->N);
    return why;
  }
  if (hasOperand(c, kResidual))
    return "it adds a residual to all its columns";
  if (hasOperand(c, kGroupIndex))
    return "it has an act-order g_idx";
  return NULL;
}

/* Why the result's uses are not the two halves of a glu (NULL: they are; the halves then in order). */
static const char *usesRule(Chunked *c, char *why, size_t size) {
  Uses *u = &c->uses;
  const MlirValue result = mlirOperationGetResult(c->op, 0);
  if (!mlirOperationIsNull(u->other)) {
    snprintf(why, size, "its result has a user other than the two halves: %s", opName(u->other, (char[64]){0}, 64));
    return why;
  }
  if (u->numSlices != 2) {
    snprintf(why, size, "its result is sliced %d times, not into two halves", u->numSlices);
    return why;
  }
  if (c->N % 2 != 0)
    return "N is odd: no halves";
  if (lastOffset(u->half[1].slice) < lastOffset(u->half[0].slice)) { /* in column order (uses come in no order) */
    Half t = u->half[0];
    u->half[0] = u->half[1], u->half[1] = t;
  }
  if (!sameChains(&u->half[0], &u->half[1]))
    return "the two slices see the result through different reshapes";
  int half, depth;
  for (int i = 0; i < u->numViews; ++i)
    if (!inChain(mlirOperationGetResult(u->views[i], 0), result, u, &half, &depth))
      return "its result is reshaped on a way that leads to no half";
  for (int i = 0; i < u->numDims; ++i)
    if (!inChain(mlirOperationGetOperand(u->dims[i], 0), result, u, &half, &depth))
      return "its result is reshaped on a way that leads to no half";
  for (int h = 0; h < 2; ++h)
    if (u->half[h].columnDims != 1)
      return "a slice is taken of a view whose columns span several dims";
  for (int v = 0, columns = 1; v < u->half[0].numViews; ++v) {
    columns = columnDimsThrough(u->half[0].views[v], columns);
    if (halvedColumnDim(mlirOperationGetResult(u->half[0].views[v], 0), columns) < 0)
      return "a reshape on the way splits the columns so that a half of them is no box of its result";
  }
  int64_t at[2];
  for (int h = 0; h < 2; ++h)
    if ((at[h] = columnOffset(&u->half[h], result, u, c->I)) < 0) {
      const MlirOperation s = u->half[h].slice;
      const int r = rankOf(mlirOperationGetResult(s, 0));
      snprintf(why, size, "a slice (%lld of %lld columns from %lld) is not a half [0, I) or [I, 2I) of N = %lld with "
                          "every row and unit steps",
               (long long)dimOf(mlirOperationGetResult(s, 0), r - 1), (long long)c->N,
               (long long)mlirDenseI64ArrayGetElement(attr(s, "static_offsets"), r - 1), (long long)c->N);
      return why;
    }
  if (at[0] != 0 || at[1] != c->I)
    return "the slices are not the two halves [0, I) and [I, 2I)";
  const char *glu = findGluProduct(mlirOperationGetResult(u->half[0].slice, 0),
                                   mlirOperationGetResult(u->half[1].slice, 0), true, &c->product);
  if (glu) {
    snprintf(why, size, "the halves feed no glu product: %s", glu);
    return why;
  }
  return NULL;
}

/* Why a half is no window of the stored operands (NULL: the windows are in c->window). */
static const char *windowRule(Chunked *c, char *why, size_t size) {
  const w4a16_shape_rule rule = w4a16_check_shape(c->K, c->I, groupSize(c->op));
  if (rule != W4A16_SHAPE_OK) {
    snprintf(why, size, "a half of I = %lld columns: %s", (long long)c->I, w4a16_shape_rule_text(rule));
    return why;
  }
  const int layout = enumAttr(c->op, "weight_layout", w4a16_weight_layout_name);
  const int scales = enumAttr(c->op, "scales_layout", w4a16_scales_layout_name);
  const int zeroPoints = enumAttr(c->op, "zero_point_layout", w4a16_zero_point_layout_name);
  if (layout < 0 || scales < 0 || (hasOperand(c, kZeroPoints) && zeroPoints < 0))
    return "its layout attributes are not ones the op takes";
  int64_t rows, cols;
  const int64_t groups = c->K / groupSize(c->op); /* a group size the shape rule takes */
  w4a16_weight_shape(layout, c->K, c->N, &rows, &cols);
  const MlirValue weight = operandOf(c, kWeight), scaleTensor = operandOf(c, kScales);
  if (rankOf(weight) != 2 || dimOf(weight, 0) != rows || dimOf(weight, 1) != cols || rankOf(scaleTensor) != 2 ||
      dimOf(scaleTensor, scales == W4A16_SCALES_N_G ? 0 : 1) != c->N || dimOf(scaleTensor, scales == W4A16_SCALES_N_G ? 1 : 0) != groups)
    return "its weight or scales are not of the shapes their layouts name";
  if (hasOperand(c, kZeroPoints)) {
    const MlirValue z = operandOf(c, kZeroPoints);
    int64_t zr, zc;
    w4a16_zp_shape(zeroPoints, groups, c->N, &zr, &zc);
    if (rankOf(z) != 2 || dimOf(z, 0) != zr || dimOf(z, 1) != zc)
      return "its zero points are not of the shape their layout names";
  }
  for (int h = 0; h < 2; ++h) {
    Window *w = c->window[h];
    const int64_t c0 = h * c->I;
    if (!weightWindow(layout, c->K, c->N, c0, c->I, &w[kWeight])) {
      snprintf(why, size, "weight layout %s: a half of its columns is no window of the stored tensor",
               w4a16_weight_layout_name(layout));
      return why;
    }
    columnWindow(scales == W4A16_SCALES_N_G, false, c0, c->I, &w[kScales]);
    if (hasOperand(c, kBias))
      columnWindow(true, false, c0, c->I, &w[kBias]); /* (N): its only dim */
    if (hasOperand(c, kZeroPoints) &&
        !columnWindow(w4a16_zp_by_column(zeroPoints), w4a16_zp_container_bits(zeroPoints) == 32, c0, c->I,
                      &w[kZeroPoints]))
      return "zero points packed along N: a half is not whole words";
  }
  return NULL;
}

/* --- the rewrite ------------------------------------------------------------------------------------------------- */

/* op's clone reading `value` (a half of the columns) at operand 0, before op: its result's halvedColumnDim halved (the
 * last dim, N -> I, unless the reshape splits the columns), in its result type and an expand_shape's output shape. */
static MlirValue cloneWithHalfColumns(MlirOperation op, MlirValue value, int columns) {
  MlirOperation copy = mlirOperationClone(op);
  mlirOperationSetOperand(copy, 0, value);
  const MlirValue out = mlirOperationGetResult(copy, 0);
  const int rank = rankOf(out), outer = halvedColumnDim(mlirOperationGetResult(op, 0), columns);
  int64_t shape[kMaxRank];
  for (int d = 0; d < rank; ++d)
    shape[d] = mlirShapedTypeGetDimSize(mlirValueGetType(out), d);
  shape[outer] /= 2;
  mlirValueSetType(out, mlirRankedTensorTypeGet(rank, shape, elementTypeOf(out), mlirAttributeGetNull()));
  MlirAttribute outputShape = attr(copy, "static_output_shape");
  if (!mlirAttributeIsNull(outputShape)) {
    int64_t sizes[kMaxRank];
    for (int d = 0; d < rank; ++d)
      sizes[d] = mlirDenseI64ArrayGetElement(outputShape, d);
    sizes[outer] /= 2;
    mlirOperationSetAttributeByName(copy, mlirStringRefCreateFromCString("static_output_shape"),
                                    mlirDenseI64ArrayGet(mlirOperationGetContext(op), rank, sizes));
  }
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, copy);
  return out;
}

static void split(Chunked *c) {
  const MlirValue result = mlirOperationGetResult(c->op, 0);
  MlirValue chain[2][kMaxViews + 1];
  for (int h = 0; h < 2; ++h) {
    MlirOperation half = mlirOperationClone(c->op);
    static const int kStored[] = {kWeight, kScales, kZeroPoints, kBias};
    for (int i = 0; i < 4; ++i)
      if (hasOperand(c, kStored[i]))
        mlirOperationSetOperand(half, c->operandIndex[kStored[i]], sliceOf(operandOf(c, kStored[i]), &c->window[h][kStored[i]], c->op));
    const int64_t shape[2] = {mlirShapedTypeGetDimSize(mlirValueGetType(result), 0), c->I};
    chain[h][0] = mlirOperationGetResult(half, 0);
    mlirValueSetType(chain[h][0], mlirRankedTensorTypeGet(2, shape, elementTypeOf(result), mlirAttributeGetNull()));
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(c->op), c->op, half);
    const Half *seen = &c->uses.half[h];
    for (int v = 0, columns = 1; v < seen->numViews; ++v) {
      columns = columnDimsThrough(seen->views[v], columns);
      chain[h][v + 1] = cloneWithHalfColumns(seen->views[v], chain[h][v], columns);
    }
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(seen->slice, 0), chain[h][seen->numViews]);
  }
  for (int i = 0; i < c->uses.numDims; ++i) { /* a row dim of the result: the half's, read where it was read */
    int half = 0, depth = 0;
    inChain(mlirOperationGetOperand(c->uses.dims[i], 0), result, &c->uses, &half, &depth);
    mlirOperationSetOperand(c->uses.dims[i], 0, chain[half][depth]);
  }
  OpSet dead = {.count = 0};
  opSetAdd(&dead, c->uses.half[0].slice);
  opSetAdd(&dead, c->uses.half[1].slice);
  opSetAdd(&dead, c->op);
  eraseDeadOps(&dead); /* the slices, the reshapes only they used, the op */
}

/* Whether the result is used as a glu's gate_up would be, whatever else rules the split out: two of its slices
 * whose paths meet in one elementwise op. A q/k/v projection sliced three ways, RoPE's rotate_half (the halves meet
 * in a concatenation) or slices returned apart are no glu, and get no remark about one. */
static bool looksLikeGlu(const Uses *u) {
  MlirOperation paths[kMaxSlices][kGluMaxPath];
  int lengths[kMaxSlices];
  const int n = u->numSlices < kMaxSlices ? u->numSlices : kMaxSlices;
  for (int s = 0; s < n; ++s)
    lengths[s] = gluForwardPath(mlirOperationGetResult(u->slices[s], 0), true, paths[s], kGluMaxPath);
  for (int s = 0; s < n; ++s)
    for (int t = s + 1; t < n; ++t)
      for (int i = 0; i < lengths[s]; ++i)
        for (int j = 0; j < lengths[t]; ++j)
          if (opEq(paths[s][i], paths[t][j]) && isElementwiseProducer(paths[s][i]))
            return true;
  return false;
}

static void splitAt(MlirOperation op, const W4a16FuseOptions *options) {
  Chunked *c = calloc(1, sizeof *c);
  c->op = op;
  MlirAttribute seg = attr(op, "operandSegmentSizes");
  for (int i = 0, next = 0; i < kNumFusedOperands; ++i)
    c->operandIndex[i] = i < kBias || mlirDenseI32ArrayGetElement(seg, i) ? next++ : -1;
  const MlirValue result = mlirOperationGetResult(op, 0);
  if (rankOf(operandOf(c, kX)) != 2 || rankOf(result) != 2 || dimOf(operandOf(c, kX), 1) <= 0 || dimOf(result, 1) <= 0) {
    free(c); /* the verifier reports it */
    return;
  }
  c->K = dimOf(operandOf(c, kX), 1), c->N = dimOf(result, 1), c->I = c->N / 2;
  MlirOperation views[kMaxViews];
  collectUses(result, 1, views, 0, &c->uses);
  if (c->uses.numSlices >= 2) { /* a chunked result: split, or say why not (one slice is no chunk) */
    char text[256];
    /* the uses first: they say whether this is a gate_up projection at all (a q/k/v projection sliced three ways,
     * or RoPE's rotate_half of a k projection, is none: no remark then, looksLikeGlu) */
    const char *why = usesRule(c, text, sizeof text);
    if (!why)
      why = opRule(c, text, sizeof text);
    if (!why)
      why = windowRule(c, text, sizeof text);
    if (why) {
      if (looksLikeGlu(&c->uses))
        explainRemark(options, "w4a16", op, "sliced result not split into a glu's gate and up halves: %s", why);
    } else {
      const bool secondIsGate = c->product.bIsGate;
      explainRemark(options, "w4a16", op,
                    "split the gate_up projection (N = %lld) into its halves for a glu: gate columns [%lld, %lld), up "
                    "[%lld, %lld), %s(gate) * up",
                    (long long)c->N, (long long)(secondIsGate ? c->I : 0), (long long)(secondIsGate ? c->N : c->I),
                    (long long)(secondIsGate ? 0 : c->I), (long long)(secondIsGate ? c->I : c->N),
                    w4a16_activation_name(c->product.activation));
      split(c);
    }
  }
  free(c);
}

/* --- the pass -------------------------------------------------------------------------------------------------- */

static void splitRun(MlirOperation root, const W4a16FuseOptions *options) {
  OpList all = collectOps(root, isFusedMatmulOp, NULL, MlirWalkPreOrder);
  for (int i = 0; i < all.count; ++i)
    splitAt(all.ops[i], options);
  free(all.ops);
}

static _Alignas(8) char splitPassId;

static const OptionsPassSpec kSplitChunkedGluPass = {
    &splitPassId, "W4a16SplitChunkedGlu", "w4a16-split-chunked-glu",
    "Split a fused gate_up projection whose result is chunked into the halves of act(gate) * up into two fused ops "
    "on column windows of its weight, for w4a16-merge-siblings to make one glu",
    NULL, splitRun, NULL};

MlirPass w4a16CreateSplitChunkedGluPass(W4a16FuseOptions options) {
  return createOptionsPass(&kSplitChunkedGluPass, options);
}

void w4a16AddSplitChunkedGluPass(MlirOpPassManager pm, W4a16FuseOptions options) {
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateSplitChunkedGluPass(options));
}
