/* Shared IR queries; see ir_query.h. */
#include "ir_query.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- ops and values --------------------------------------------------------------------------- */

bool opIs(MlirOperation op, const char *name) {
  if (mlirOperationIsNull(op))
    return false;
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length == strlen(name) && memcmp(s.data, name, s.length) == 0;
}

typedef struct OpCollector {
  OpList list;
  bool (*keep)(MlirOperation, void *);
  void *data;
} OpCollector;

static MlirWalkResult collectOne(MlirOperation op, void *userData) {
  OpCollector *c = userData;
  if (!c->keep(op, c->data))
    return MlirWalkResultAdvance;
  if (c->list.count == c->list.capacity) {
    c->list.capacity = c->list.capacity ? 2 * c->list.capacity : 16;
    c->list.ops = realloc(c->list.ops, sizeof *c->list.ops * (size_t)c->list.capacity);
  }
  c->list.ops[c->list.count++] = op;
  return MlirWalkResultAdvance;
}

OpList collectOps(MlirOperation root, bool (*keep)(MlirOperation op, void *data), void *data, MlirWalkOrder order) {
  OpCollector c = {{NULL, 0, 0}, keep, data};
  mlirOperationWalk(root, collectOne, &c, order);
  return c.list;
}

bool opInDialect(MlirOperation op, const char *dialect) {
  if (mlirOperationIsNull(op))
    return false;
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  size_t n = strlen(dialect);
  return s.length > n && memcmp(s.data, dialect, n) == 0 && s.data[n] == '.';
}

MlirOperation producer(MlirValue v) {
  if (mlirValueIsNull(v) || !mlirValueIsAOpResult(v))
    return (MlirOperation){NULL};
  return mlirOpResultGetOwner(v);
}

MlirOperation ancestorIn(MlirOperation op, MlirBlock block) {
  while (!mlirOperationIsNull(op) && !mlirBlockEqual(mlirOperationGetBlock(op), block))
    op = mlirOperationGetParentOperation(op);
  return op;
}

intptr_t userCount(MlirValue v) {
  intptr_t n = 0;
  for (MlirOpOperand use = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
    ++n;
  return n;
}

intptr_t dataUserCount(MlirValue v) {
  intptr_t n = 0;
  for (MlirOpOperand use = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
    n += !opIs(mlirOpOperandGetOwner(use), "tensor.dim");
  return n;
}

MlirOperation onlyDataUser(MlirValue v) {
  MlirOperation user = {NULL};
  for (MlirOpOperand use = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    if (opIs(mlirOpOperandGetOwner(use), "tensor.dim"))
      continue;
    if (!mlirOperationIsNull(user))
      return (MlirOperation){NULL};
    user = mlirOpOperandGetOwner(use);
  }
  return user;
}

intptr_t resultIndex(MlirValue v) { return mlirValueIsAOpResult(v) ? mlirOpResultGetResultNumber(v) : 0; }
bool valueEq(MlirValue a, MlirValue b) { return mlirValueEqual(a, b); }
bool opEq(MlirOperation a, MlirOperation b) { return mlirOperationEqual(a, b); }

MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

const char *opName(MlirOperation op, char *buf, size_t size) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buf, size, "%.*s", (int)s.length, s.data);
  return buf;
}

/* --- the same value, spelled twice ------------------------------------------------------------------ */

bool sameAttributes(MlirOperation a, MlirOperation b) {
  intptr_t n = mlirOperationGetNumAttributes(a);
  if (n != mlirOperationGetNumAttributes(b))
    return false;
  for (intptr_t i = 0; i < n; ++i) {
    MlirNamedAttribute na = mlirOperationGetAttribute(a, i);
    MlirAttribute other = mlirOperationGetAttributeByName(b, mlirIdentifierStr(na.name));
    if (mlirAttributeIsNull(other) || !mlirAttributeEqual(na.attribute, other))
      return false;
  }
  return true;
}

/* a and b hold the same data: one value, or results of two region-free, side-effect-free ops of the same
 * kind on the same values (each sibling's fusion collapses a rank-3 x on its own, say). */
bool sameValue(MlirValue a, MlirValue b, int depth) {
  if (valueEq(a, b))
    return true;
  MlirOperation pa = producer(a), pb = producer(b);
  if (depth > 8 || mlirOperationIsNull(pa) || mlirOperationIsNull(pb) || resultIndex(a) != resultIndex(b) ||
      !mlirTypeEqual(mlirValueGetType(a), mlirValueGetType(b)) || mlirOperationGetNumRegions(pa) != 0 ||
      !(opInDialect(pa, "tensor") || opInDialect(pa, "arith")) || !opIs(pb, opName(pa, (char[64]){0}, 64)) ||
      mlirOperationGetNumOperands(pa) != mlirOperationGetNumOperands(pb) || !sameAttributes(pa, pb) ||
      opIs(pa, "tensor.empty"))
    return false;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(pa); i < n; ++i)
    if (!sameValue(mlirOperationGetOperand(pa, i), mlirOperationGetOperand(pb, i), depth + 1))
      return false;
  return true;
}

/* --- types ------------------------------------------------------------------------------------ */

bool isRankedTensor(MlirValue v) { return mlirTypeIsARankedTensor(mlirValueGetType(v)); }
int rankOf(MlirValue v) { return isRankedTensor(v) ? (int)mlirShapedTypeGetRank(mlirValueGetType(v)) : -1; }

int64_t dimOf(MlirValue v, int i) {
  if (!isRankedTensor(v) || i >= rankOf(v))
    return -1;
  int64_t d = mlirShapedTypeGetDimSize(mlirValueGetType(v), i);
  return mlirShapedTypeIsDynamicSize(d) ? -1 : d;
}

int dynamicDimsBefore(MlirValue v, int d) {
  int n = 0;
  for (int i = 0; i < d; ++i)
    n += dimOf(v, i) < 0;
  return n;
}

int64_t numElements(MlirValue v) {
  int64_t n = 1;
  for (int i = 0, r = rankOf(v); i < r; ++i) {
    if (dimOf(v, i) < 0)
      return -1;
    n *= dimOf(v, i);
  }
  return n;
}

MlirType elementTypeOf(MlirValue v) {
  MlirType t = mlirValueGetType(v);
  return mlirTypeIsAShaped(t) ? mlirShapedTypeGetElementType(t) : t;
}

bool isF16(MlirType t) { return mlirTypeIsAF16(t); }
bool isBF16(MlirType t) { return mlirTypeIsABF16(t); }
bool is16BitFloat(MlirType t) { return isF16(t) || isBF16(t); }
bool isF32(MlirType t) { return mlirTypeIsAF32(t); }
bool isFloat(MlirType t) { return mlirTypeIsAFloat(t); }
int intWidth(MlirType t) {
  if (mlirTypeIsAIndex(t))
    return 64;
  return mlirTypeIsAInteger(t) ? (int)mlirIntegerTypeGetWidth(t) : 0;
}

typedef struct Sink {
  char *buf;
  size_t size, used;
} Sink;

static void sinkWrite(MlirStringRef s, void *userData) {
  Sink *sink = userData;
  if (sink->used + 1 >= sink->size)
    return;
  size_t n = s.length < sink->size - 1 - sink->used ? s.length : sink->size - 1 - sink->used;
  memcpy(sink->buf + sink->used, s.data, n);
  sink->used += n;
  sink->buf[sink->used] = 0;
}

const char *typeName(MlirType t, char *buf, size_t size) {
  Sink sink = {buf, size, 0};
  buf[0] = 0;
  mlirTypePrint(t, sinkWrite, &sink);
  return buf;
}

const char *locationText(MlirLocation loc, char *buf, size_t size) {
  char printed[512];
  Sink sink = {printed, sizeof printed, 0};
  printed[0] = 0;
  mlirLocationPrint(loc, sinkWrite, &sink);
  const char *open = strchr(printed, '"');
  const char *close = open ? strchr(open + 1, '"') : NULL;
  if (!close) {
    snprintf(buf, size, "%s", printed);
    return buf;
  }
  size_t lineCol = strspn(close + 1, ":0123456789");
  snprintf(buf, size, "%.*s%.*s", (int)(close - open - 1), open + 1, (int)lineCol, close + 1);
  return buf;
}

/* --- affine maps ------------------------------------------------------------------------------ */

static int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int64_t evalAffineExprWith(MlirAffineExpr e, const int64_t *dims, const int64_t *symbols) {
  if (mlirAffineExprIsADim(e))
    return dims[mlirAffineDimExprGetPosition(e)];
  if (mlirAffineExprIsAConstant(e))
    return mlirAffineConstantExprGetValue(e);
  if (mlirAffineExprIsASymbol(e))
    return symbols ? symbols[mlirAffineSymbolExprGetPosition(e)] : 0;
  if (!mlirAffineExprIsABinary(e))
    return 0;
  int64_t l = evalAffineExprWith(mlirAffineBinaryOpExprGetLHS(e), dims, symbols);
  int64_t r = evalAffineExprWith(mlirAffineBinaryOpExprGetRHS(e), dims, symbols);
  if (mlirAffineExprIsAAdd(e))
    return l + r;
  if (mlirAffineExprIsAMul(e))
    return l * r;
  if (r == 0)
    return 0;
  if (mlirAffineExprIsAMod(e))
    return l - floorDiv(l, r) * r;
  if (mlirAffineExprIsAFloorDiv(e))
    return floorDiv(l, r);
  return -floorDiv(-l, r); /* ceildiv */
}

int64_t evalAffineExpr(MlirAffineExpr e, const int64_t *dims) { return evalAffineExprWith(e, dims, NULL); }

bool mapUsesDim(MlirAffineMap map, int dim) {
  for (intptr_t r = 0, n = mlirAffineMapGetNumResults(map); r < n; ++r)
    if (mlirAffineExprIsFunctionOfDim(mlirAffineMapGetResult(map, r), dim))
      return true;
  return false;
}

void evalAffineMap(MlirAffineMap map, const int64_t *dims, int64_t *out) {
  for (intptr_t i = 0, n = mlirAffineMapGetNumResults(map); i < n; ++i)
    out[i] = evalAffineExpr(mlirAffineMapGetResult(map, i), dims);
}

bool invertPermutation(MlirAffineMap map, const int64_t *results, int64_t *dims) {
  if (!mlirAffineMapIsPermutation(map))
    return false;
  for (intptr_t i = 0, n = mlirAffineMapGetNumResults(map); i < n; ++i)
    dims[mlirAffineDimExprGetPosition(mlirAffineMapGetResult(map, i))] = results[i];
  return true;
}

/* --- linalg structured ops -------------------------------------------------------------------- */

bool linalgView(MlirOperation op, LinalgView *view) {
  if (!opInDialect(op, "linalg"))
    return false;
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps))
    return false;
  intptr_t numMaps = mlirArrayAttrGetNumElements(maps);
  intptr_t numResults = mlirOperationGetNumResults(op);
  /* Tensor semantics only: one init per result, every operand has a map. */
  if (numMaps != mlirOperationGetNumOperands(op) || numMaps > kMaxLinalgOperands || numResults == 0 ||
      numResults > numMaps || mlirOperationGetNumRegions(op) != 1)
    return false;
  memset(view, 0, sizeof *view);
  view->op = op;
  view->numInits = (int)numResults;
  view->numInputs = (int)(numMaps - numResults);
  for (intptr_t i = 0; i < numMaps; ++i) {
    MlirAttribute m = mlirArrayAttrGetElement(maps, i);
    if (!mlirAttributeIsAAffineMap(m))
      return false;
    view->maps[i] = mlirAffineMapAttrGetValue(m);
    if (mlirAffineMapGetNumResults(view->maps[i]) > kMaxRank)
      return false;
    if (!isRankedTensor(mlirOperationGetOperand(op, i)) && mlirAffineMapGetNumResults(view->maps[i]) != 0)
      return false;
  }
  view->numLoops = (int)mlirAffineMapGetNumDims(view->maps[0]);
  if (view->numLoops > kMaxRank)
    return false;
  for (int d = 0; d < view->numLoops; ++d)
    view->loopRange[d] = -1;
  /* A loop's range is the size of any operand dim it indexes directly. */
  for (intptr_t i = 0; i < numMaps; ++i)
    for (intptr_t r = 0, n = mlirAffineMapGetNumResults(view->maps[i]); r < n; ++r) {
      MlirAffineExpr e = mlirAffineMapGetResult(view->maps[i], r);
      if (mlirAffineExprIsADim(e) && view->loopRange[mlirAffineDimExprGetPosition(e)] < 0)
        view->loopRange[mlirAffineDimExprGetPosition(e)] = dimOf(mlirOperationGetOperand(op, i), (int)r);
    }
  MlirRegion region = mlirOperationGetRegion(op, 0);
  view->body = mlirRegionGetFirstBlock(region);
  return !mlirBlockIsNull(view->body);
}

MlirValue linalgInput(const LinalgView *view, int i) { return mlirOperationGetOperand(view->op, i); }
MlirValue linalgInit(const LinalgView *view, int i) { return mlirOperationGetOperand(view->op, view->numInputs + i); }

bool linalgIsElementwise(const LinalgView *view) {
  for (int i = 0; i < view->numInits; ++i)
    if (!mlirAffineMapIsPermutation(view->maps[view->numInputs + i]))
      return false;
  return true;
}

static bool isCastOp(MlirOperation op) {
  return opIs(op, "arith.extf") || opIs(op, "arith.truncf");
}

bool linalgIsView(const LinalgView *view) {
  if (view->numInits != 1 || !linalgIsElementwise(view))
    return false;
  MlirOperation yield = mlirBlockGetTerminator(view->body);
  if (mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirValue v = mlirOperationGetOperand(yield, 0);
  while (isCastOp(producer(v)))
    v = mlirOperationGetOperand(producer(v), 0);
  return mlirValueIsABlockArgument(v) && mlirBlockArgumentGetArgNumber(v) < view->numInputs;
}

/* --- reshapes --------------------------------------------------------------------------------- */

/* Within one reassociation group, linearise an index over `from` dims and split it over `to` dims. */
bool reshapeResultToSource(MlirOperation reshape, const int64_t *resultIdx, int64_t *sourceIdx) {
  bool expand = opIs(reshape, "tensor.expand_shape");
  if (!expand && !opIs(reshape, "tensor.collapse_shape"))
    return false;
  MlirValue src = mlirOperationGetOperand(reshape, 0), res = mlirOperationGetResult(reshape, 0);
  MlirAttribute groups = attr(reshape, "reassociation");
  if (mlirAttributeIsNull(groups) || !mlirAttributeIsAArray(groups))
    return false;
  /* The grouped side is the larger-rank one: the result of expand, the source of collapse. */
  MlirValue grouped = expand ? res : src;
  const int64_t *groupedIdx = expand ? resultIdx : NULL;
  int64_t groupedOut[kMaxRank];
  for (intptr_t g = 0, ng = mlirArrayAttrGetNumElements(groups); g < ng; ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    intptr_t n = mlirArrayAttrGetNumElements(group);
    if (n == 0)
      return false;
    int first = (int)mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(group, 0));
    if (expand) { /* many result dims -> one source dim */
      int64_t linear = groupedIdx[first]; /* the group's outermost dim needs no size: it may be dynamic */
      for (intptr_t j = 1; j < n; ++j) {
        int d = first + (int)j;
        int64_t size = dimOf(grouped, d);
        size = size < 0 ? kDynamicGroupExtent : size;
        if (size > 0 && linear > (INT64_MAX - groupedIdx[d]) / size)
          return false; /* no sample lies that far: several dynamic dims in one group */
        linear = linear * size + groupedIdx[d];
      }
      sourceIdx[g] = linear;
    } else { /* one result dim -> many source dims */
      int64_t linear = resultIdx[g];
      for (intptr_t j = n - 1; j >= 0; --j) {
        int d = first + (int)j;
        if (j == 0) { /* the outermost dim takes the rest: its size may be dynamic */
          groupedOut[d] = linear;
          break;
        }
        int64_t size = dimOf(grouped, d);
        if (size == 0)
          return false;
        size = size < 0 ? kDynamicGroupExtent : size;
        groupedOut[d] = linear % size;
        linear /= size;
      }
    }
  }
  if (!expand)
    memcpy(sourceIdx, groupedOut, sizeof(int64_t) * (size_t)rankOf(src));
  return true;
}

/* --- slices ---------------------------------------------------------------------------------- */

static bool staticArray(MlirOperation op, const char *name, MlirAttribute *out) {
  *out = attr(op, name);
  return !mlirAttributeIsNull(*out) && mlirAttributeIsADenseI64Array(*out);
}

int sliceRankMask(MlirOperation slice, bool *dropped) {
  const bool extract = opIs(slice, "tensor.extract_slice");
  if (!extract && !opIs(slice, "tensor.insert_slice"))
    return -1;
  MlirAttribute sizes;
  if (!staticArray(slice, "static_sizes", &sizes))
    return -1;
  /* the side without the unit dims: extract's result, insert's source */
  MlirValue small = extract ? mlirOperationGetResult(slice, 0) : mlirOperationGetOperand(slice, 0);
  const int rank = (int)mlirDenseArrayGetNumElements(sizes), smallRank = rankOf(small);
  if (rank > kMaxRank || smallRank < 0 || smallRank > rank)
    return -1;
  /* greedy, as MLIR's computeRankReductionMask: a size that does not match the next small dim is a dropped 1 */
  int s = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = mlirDenseI64ArrayGetElement(sizes, d);
    const bool dynamic = mlirShapedTypeIsDynamicSize(size);
    const bool match = s < smallRank && (dynamic ? dimOf(small, s) < 0 : dimOf(small, s) == size);
    dropped[d] = !match;
    if (match)
      ++s;
    else if (size != 1)
      return -1;
  }
  return s == smallRank ? rank : -1;
}

/* The size operand or static size of dim d of a slice; sizeOperand: its dynamic size, if any. */
static int64_t sliceSize(MlirOperation slice, MlirAttribute sizes, int d, MlirValue *sizeOperand) {
  int dynamicBefore = 0;
  for (int i = 0; i < d; ++i)
    dynamicBefore += mlirShapedTypeIsDynamicSize(mlirDenseI64ArrayGetElement(sizes, i));
  const int64_t size = mlirDenseI64ArrayGetElement(sizes, d);
  /* operands: extract (source, offsets, sizes, strides), insert (source, dest, offsets, sizes, strides); the
   * offsets and strides are static here */
  const int first = opIs(slice, "tensor.extract_slice") ? 1 : 2;
  *sizeOperand = mlirShapedTypeIsDynamicSize(size) ? mlirOperationGetOperand(slice, first + dynamicBefore)
                                                    : (MlirValue){NULL};
  return size;
}

bool constantIndex(MlirValue v, int64_t *out) {
  MlirOperation def = producer(v);
  MlirAttribute value = mlirOperationIsNull(def) || !opIs(def, "arith.constant") ? (MlirAttribute){NULL}
                                                                                 : attr(def, "value");
  if (mlirAttributeIsNull(value) || !mlirAttributeIsAInteger(value))
    return false;
  *out = mlirIntegerAttrGetValueInt(value);
  return true;
}

/* The size dynamic dim d of t was given where t was made: a tensor.empty's size operand, or the size a view names
 * (viewNamedSize), through linalg ops (a result is shaped as its init); null when none is found. */
static MlirValue givenSize(MlirValue t, int d) {
  MlirOperation owner = producer(t);
  LinalgView view;
  for (int depth = 0; depth < 8 && !mlirOperationIsNull(owner) && linalgView(owner, &view); ++depth)
    t = linalgInit(&view, (int)resultIndex(t)), owner = producer(t);
  if (!mlirOperationIsNull(owner) && opIs(owner, "tensor.empty") && d < rankOf(t) && dimOf(t, d) < 0)
    return mlirOperationGetOperand(owner, dynamicDimsBefore(t, d));
  return viewNamedSize(t, d);
}

/* A size value followed back to where it was first given: through tensor.dim of tensors whose dims were given a
 * size (CSE and fusion leave several names for one dynamic size). */
static MlirValue originalSize(MlirValue size) {
  for (int depth = 0; depth < 8; ++depth) {
    MlirOperation def = producer(size);
    int64_t d;
    if (mlirOperationIsNull(def) || !opIs(def, "tensor.dim") || !constantIndex(mlirOperationGetOperand(def, 1), &d))
      return size;
    const MlirValue given = givenSize(mlirOperationGetOperand(def, 0), (int)d);
    if (mlirValueIsNull(given))
      return size;
    size = given;
  }
  return size;
}

/* size is dim d of t: a tensor.dim of it, or the same size as the one t's dim was given. */
static bool isDimOf(MlirValue size, MlirValue t, int d) {
  MlirOperation def = producer(size);
  int64_t index;
  if (!mlirOperationIsNull(def) && opIs(def, "tensor.dim") && valueEq(mlirOperationGetOperand(def, 0), t) &&
      constantIndex(mlirOperationGetOperand(def, 1), &index))
    return index == d;
  const MlirValue given = givenSize(t, d);
  return !mlirValueIsNull(given) && valueEq(originalSize(given), originalSize(size));
}

/* Every stride static and 1. */
static bool unitStrides(MlirOperation slice) {
  MlirAttribute strides;
  if (!staticArray(slice, "static_strides", &strides))
    return false;
  for (intptr_t d = 0, n = mlirDenseArrayGetNumElements(strides); d < n; ++d)
    if (mlirDenseI64ArrayGetElement(strides, d) != 1)
      return false;
  return true;
}

bool isWindowSlice(MlirOperation slice) {
  /* one operand: offsets and sizes static */
  return opIs(slice, "tensor.extract_slice") && mlirOperationGetNumOperands(slice) == 1 && unitStrides(slice) &&
         !isUnitDimSlice(slice);
}

bool isUnitDimSlice(MlirOperation slice) {
  bool dropped[kMaxRank];
  const int rank = sliceRankMask(slice, dropped);
  MlirAttribute offsets, sizes;
  if (rank < 0 || !staticArray(slice, "static_offsets", &offsets) || !staticArray(slice, "static_sizes", &sizes) ||
      !unitStrides(slice))
    return false;
  /* the whole of the side with the unit dims: extract's source, insert's destination */
  MlirValue whole = mlirOperationGetOperand(slice, opIs(slice, "tensor.extract_slice") ? 0 : 1);
  if (rankOf(whole) != rank)
    return false;
  for (int d = 0; d < rank; ++d) {
    MlirValue sizeOperand;
    const int64_t size = sliceSize(slice, sizes, d, &sizeOperand);
    if (mlirDenseI64ArrayGetElement(offsets, d) != 0)
      return false;
    if (mlirValueIsNull(sizeOperand) ? size != dimOf(whole, d) : !isDimOf(sizeOperand, whole, d))
      return false;
  }
  return true;
}

/* --- linalg bodies and views ------------------------------------------------------------------- */

/* Adds to deps what v depends on within body; *budget bounds the walk (exhausted: everything). */
static void bodyDeps(MlirValue v, MlirBlock body, BodyDeps *deps, int *budget) {
  if (--*budget < 0) {
    memset(deps->arg, 1, sizeof deps->arg), memset(deps->loop, 1, sizeof deps->loop);
    return;
  }
  if (mlirValueIsABlockArgument(v)) {
    const intptr_t a = mlirBlockArgumentGetArgNumber(v);
    if (mlirBlockEqual(mlirBlockArgumentGetOwner(v), body) && a < kMaxLinalgOperands)
      deps->arg[a] = true, deps->integerArgs |= intWidth(mlirValueGetType(v)) > 0;
    return;
  }
  MlirOperation op = producer(v);
  if (!mlirBlockEqual(mlirOperationGetBlock(op), body))
    return;
  if (opIs(op, "tensor.extract"))
    deps->extractsIntegers |= intWidth(elementTypeOf(mlirOperationGetOperand(op, 0))) > 0;
  if (opIs(op, "linalg.index")) {
    const int64_t d = mlirIntegerAttrGetValueInt(attr(op, "dim"));
    if (d >= 0 && d < kMaxRank)
      deps->loop[d] = true;
    return;
  }
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    bodyDeps(mlirOperationGetOperand(op, i), body, deps, budget);
}

BodyDeps bodyDepsOf(MlirValue v, MlirBlock body) {
  BodyDeps deps = {{false}, {false}, false, false};
  int budget = 4096;
  bodyDeps(v, body, &deps, &budget);
  return deps;
}

MlirValue viewNamedSize(MlirValue t, int d) {
  for (int depth = 0; depth < 8; ++depth) {
    MlirOperation def = producer(t);
    if (mlirOperationIsNull(def) || d < 0 || d >= rankOf(t) || dimOf(t, d) >= 0)
      return (MlirValue){NULL};
    if (opIs(def, "tensor.expand_shape"))
      return mlirOperationGetOperand(def, 1 + dynamicDimsBefore(t, d));
    if (!opIs(def, "tensor.collapse_shape"))
      return (MlirValue){NULL};
    MlirAttribute group = mlirArrayAttrGetElement(attr(def, "reassociation"), d);
    if (mlirArrayAttrGetNumElements(group) != 1)
      return (MlirValue){NULL};
    t = mlirOperationGetOperand(def, 0), d = (int)mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(group, 0));
  }
  return (MlirValue){NULL};
}

bool bodyValueUsesLoop(const LinalgView *view, MlirValue v, int d) {
  const BodyDeps deps = bodyDepsOf(v, view->body);
  for (int i = 0; i < view->numInputs && i < kMaxLinalgOperands; ++i)
    if (deps.arg[i] && mapUsesDim(view->maps[i], d))
      return true;
  return deps.loop[d];
}

MlirValue throughWidening(MlirValue v) {
  while (!mlirOperationIsNull(producer(v)) && opIs(producer(v), "arith.extf"))
    v = mlirOperationGetOperand(producer(v), 0);
  return v;
}

/* --- integer arithmetic on positions -------------------------------------------------------------------------- */

/* What a value of a linalg body computes from the loop positions (linalg.index) alone. */
typedef struct PositionValue {
  bool positionsOnly;  /* integer arithmetic on positions, constants and sizes: no data */
  unsigned loops;      /* the loops it depends on (bit d: loop d) */
  bool irregular;      /* see bodyHasIrregularPositionArithmetic */
  int numSteps;
  struct { unsigned loops; int64_t divisor; } steps[8]; /* divisions (and remainders) of positions by constants */
} PositionValue;

static bool isPositionArithmetic(MlirOperation op) {
  static const char *const names[] = {
      "arith.addi",   "arith.subi",      "arith.muli",       "arith.divui",      "arith.divsi",     "arith.floordivsi",
      "arith.ceildivsi", "arith.remui",  "arith.remsi",      "arith.shrui",      "arith.shrsi",     "arith.shli",
      "arith.andi",   "arith.ori",       "arith.xori",       "arith.index_cast", "arith.index_castui",
      "arith.extui",  "arith.extsi",     "arith.trunci",     "arith.minsi",      "arith.minui",     "arith.maxsi",
      "arith.maxui"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (opIs(op, names[i]))
      return true;
  return false;
}

/* The constant a division-like op divides its first operand by (a shift by c divides by 2^c, a mask 2^c - 1 takes
 * the remainder by 2^c), or 0. */
static int64_t stepDivisor(MlirOperation op) {
  int64_t c;
  if (mlirOperationGetNumOperands(op) != 2 || !constantIndex(mlirOperationGetOperand(op, 1), &c) || c <= 0)
    return 0;
  if (opIs(op, "arith.shrui") || opIs(op, "arith.shrsi"))
    return c < 62 ? (int64_t)1 << c : 0;
  if (opIs(op, "arith.andi"))
    return c < INT64_MAX && (c & (c + 1)) == 0 ? c + 1 : 0; /* c + 1 only where it cannot overflow */
  const bool division = opIs(op, "arith.divui") || opIs(op, "arith.divsi") || opIs(op, "arith.floordivsi") ||
                        opIs(op, "arith.ceildivsi") || opIs(op, "arith.remui") || opIs(op, "arith.remsi");
  return division ? c : 0;
}

/* Adds step (loops, divisor) to v; two divisors of one loop's positions of which neither divides the other make v
 * irregular. */
static void addStep(PositionValue *v, unsigned loops, int64_t divisor) {
  for (int i = 0; i < v->numSteps; ++i)
    if ((v->steps[i].loops & loops) && v->steps[i].divisor % divisor != 0 && divisor % v->steps[i].divisor != 0)
      v->irregular = true;
  if (v->numSteps < (int)(sizeof v->steps / sizeof v->steps[0]))
    v->steps[v->numSteps].loops = loops, v->steps[v->numSteps++].divisor = divisor;
  else
    v->irregular = true; /* more steps than any layout has: do not guess */
}

bool bodyHasIrregularPositionArithmetic(const LinalgView *view) {
  enum { kMaxOps = 256 };
  MlirOperation ops[kMaxOps];
  PositionValue values[kMaxOps];
  int numOps = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(view->body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (numOps == kMaxOps)
      return true; /* a body this large is not a dequantisation's index arithmetic: do not guess */
    PositionValue v = {0};
    if (opIs(op, "linalg.index")) {
      v.positionsOnly = true;
      v.loops = 1u << (mlirIntegerAttrGetValueInt(attr(op, "dim")) & 31);
    } else if (opIs(op, "arith.constant")) {
      v.positionsOnly = intWidth(mlirValueGetType(mlirOperationGetResult(op, 0))) > 0;
    } else if (isPositionArithmetic(op)) {
      v.positionsOnly = true;
      unsigned operandLoops[2] = {0, 0};
      for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n && v.positionsOnly; ++i) {
        MlirValue operand = mlirOperationGetOperand(op, i);
        if (mlirValueIsABlockArgument(operand)) {
          /* a block argument of this body is data; one of an enclosing region, a size */
          v.positionsOnly = !mlirBlockEqual(mlirBlockArgumentGetOwner(operand), view->body);
          continue;
        }
        const PositionValue *from = NULL;
        MlirOperation def = producer(operand);
        for (int j = 0; j < numOps && !from; ++j)
          if (opEq(ops[j], def))
            from = &values[j];
        if (!from) { /* defined outside the body: a constant or a size */
          if (!mlirBlockEqual(mlirOperationGetBlock(def), view->body))
            continue;
          v.positionsOnly = false;
          break;
        }
        v.positionsOnly = from->positionsOnly;
        v.loops |= from->loops;
        v.irregular |= from->irregular;
        if (i < 2)
          operandLoops[i] = from->loops;
        for (int s = 0; s < from->numSteps; ++s)
          addStep(&v, from->steps[s].loops, from->steps[s].divisor);
      }
      /* a product of two values that both move with positions is no layout's index
       * (a band: (n / 100) * (1 - n / 200)) */
      if (opIs(op, "arith.muli") && operandLoops[0] && operandLoops[1])
        v.irregular = true;
      const int64_t divisor = stepDivisor(op);
      if (divisor > 1 && operandLoops[0])
        addStep(&v, operandLoops[0], divisor);
    }
    if (v.positionsOnly && v.irregular)
      return true;
    ops[numOps] = op, values[numOps++] = v;
  }
  return false;
}
