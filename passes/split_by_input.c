/* Splitting an expression of a linalg body into elementwise generics of its own, one per input it combines.
 *
 * Upstream's elementwise fusion moves the ops that consume a contraction's result into the op that consumes them:
 * the gate's bias, silu and truncf, the up projection's bias and truncf, and their product become one generic, or
 * part of the down projection's body, which then computes its x there. Each projection's chain then ends in an op
 * that also reads the other's result, and neither is an epilogue any more. Splitting the expression as it was
 * before that fusion gives each its own again:
 *
 *   out = silu(trunc(gate + bg)) * trunc(up + bu)             one generic reading gate, bg, up and bu
 *   -> g = silu(trunc(gate + bg)) ; u = trunc(up + bu) ; out = g * u                                 three
 *
 * A part is a largest subexpression that reads one full input -- one read at every element of the expression (gate
 * or up), not broadcast beside it (a bias) -- and any broadcast inputs; a part ends at its 16-bit value (a widening
 * cast belongs to the combination). Every generic holds a copy of the body's own ops: the values are those the
 * fused body computed. */
#include "split_by_input.h"

#include "ir_build.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

enum { kMaxLeaves = 16 };

/* The tensors standing for values of the body: leaf i is values[i], held by tensors[i], which has the shape of the
 * body's input inputs[i] (the input itself, or a part of the expression computed over it). */
typedef struct Leaves {
  MlirValue values[kMaxLeaves], tensors[kMaxLeaves];
  int inputs[kMaxLeaves];
  int count;
} Leaves;

/* Value v of the body in `copy`, a copy of that body: the same argument, or the same result of the
 * op at the same position. */
static MlirValue inCopy(MlirValue v, MlirBlock body, MlirBlock copy) {
  if (mlirValueIsABlockArgument(v))
    return mlirBlockGetArgument(copy, mlirBlockArgumentGetArgNumber(v));
  MlirOperation o = mlirBlockGetFirstOperation(body), c = mlirBlockGetFirstOperation(copy);
  for (MlirOperation def = producer(v); !opEq(o, def); o = mlirOperationGetNextInBlock(o))
    c = mlirOperationGetNextInBlock(c);
  return mlirOperationGetResult(c, resultIndex(v));
}

/* Erases the ops of body (but its terminator) whose results have no use. */
static void eraseDeadOps(MlirBlock body) {
  MlirOperation end = mlirBlockGetTerminator(body);
  for (bool erased = true; erased;) {
    erased = false;
    for (MlirOperation o = mlirBlockGetFirstOperation(body), next; !opEq(o, end); o = next) {
      next = mlirOperationGetNextInBlock(o);
      bool used = false;
      for (intptr_t r = 0; r < mlirOperationGetNumResults(o); ++r)
        used |= userCount(mlirOperationGetResult(o, r)) > 0;
      if (!used)
        mlirOperationDestroy(o), erased = true;
    }
  }
}

/* Input `input`'s indexing map over the shape of input `over` (whose map is a projected permutation of loop dims
 * that include every dim input reads, matchMatmul): result r is the position of input's r-th dim among over's. */
static MlirAffineMap mapOver(const LinalgView *v, int input, int over) {
  MlirAffineMap map = v->maps[input], overMap = v->maps[over];
  MlirContext ctx = mlirAffineMapGetContext(map);
  MlirAffineExpr results[kMaxRank];
  const intptr_t n = mlirAffineMapGetNumResults(map), rank = mlirAffineMapGetNumResults(overMap);
  for (intptr_t r = 0; r < n; ++r) {
    const unsigned d = mlirAffineDimExprGetPosition(mlirAffineMapGetResult(map, r));
    intptr_t at = 0;
    while (mlirAffineDimExprGetPosition(mlirAffineMapGetResult(overMap, at)) != d)
      ++at;
    results[r] = mlirAffineDimExprGet(ctx, at);
  }
  return mlirAffineMapGet(ctx, rank, 0, n, results);
}

/* `value` of the body computed over the shape of input `over` by an elementwise linalg.generic of its
 * own, before `before`: a copy of the body in which each leaf becomes an argument bound to its tensor (read over
 * that shape, mapOver), cut down to the ops between the leaves and `value`. */
static MlirValue elementwiseOf(const LinalgView *v, MlirValue value, const Leaves *leaves, int over,
                               MlirOperation before, MlirLocation loc) {
  const MlirValue *tensors = leaves->tensors;
  const int n = leaves->count;
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirOperation owner = mlirOperationClone(v->op);
  MlirRegion region = mlirRegionCreate();
  mlirRegionTakeBody(region, mlirOperationGetRegion(owner, 0));
  mlirOperationDestroy(owner);
  MlirBlock body = mlirRegionGetFirstBlock(region);
  MlirOperation yield = mlirBlockGetTerminator(body);
  mlirOperationSetOperand(yield, 0, inCopy(value, v->body, body));
  for (int i = 0; i < n; ++i) {
    MlirValue leaf = inCopy(leaves->values[i], v->body, body);
    mlirValueReplaceAllUsesOfWith(leaf, mlirBlockAddArgument(body, mlirValueGetType(leaf), loc));
  }
  eraseDeadOps(body); /* the rest of the body (the weight, the product, the sum, the leaves' own ops) */
  for (int i = v->numInputs + v->numInits - 1; i >= 0; --i) /* the op's own arguments, all replaced by the leaves' */
    mlirBlockEraseArgument(body, (unsigned)i);
  MlirType element = mlirValueGetType(value);
  mlirBlockAddArgument(body, element, loc);

  /* dynamic sizes from the input itself (a shape query of a contraction result is no use of its elements, and the
   * rewrite points it at the init) */
  MlirValue like = linalgInput(v, over), sizes[kMaxRank], operands[kMaxLeaves + 1];
  const int rank = rankOf(like);
  int64_t shape[kMaxRank];
  int numDynamic = 0;
  for (int d = 0; d < rank; ++d) {
    shape[d] = dimOf(like, d) < 0 ? mlirShapedTypeGetDynamicSize() : dimOf(like, d);
    if (dimOf(like, d) < 0) { /* a size the views name: no shape query of a view (its only other user would be the
                                 chain the view is part of) */
      const MlirValue named = viewNamedSize(like, d);
      sizes[numDynamic++] = mlirValueIsNull(named) ? buildDim(like, d, before, loc) : named;
    }
  }
  MlirType type = mlirRankedTensorTypeGet(rank, shape, element, mlirAttributeGetNull());
  for (int i = 0; i < n; ++i)
    operands[i] = tensors[i];
  operands[n] = insertBefore(before, buildOp("tensor.empty", loc, numDynamic, sizes, 1, &type, 0, NULL, NULL));

  MlirAffineMap maps[kMaxLeaves + 1];
  MlirAttribute iterators[kMaxRank];
  for (int i = 0; i <= n; ++i)
    maps[i] = i < n && leaves->inputs[i] != over ? mapOver(v, leaves->inputs[i], over)
                                                 : mlirAffineMapMultiDimIdentityGet(ctx, rank);
  for (int d = 0; d < rank; ++d)
    iterators[d] = iteratorType(ctx, "parallel");
  return insertBefore(before, buildGeneric(loc, n, operands, type, maps, rank, iterators, region));
}

/* The inputs (argument numbers, as bits) that body value v reads. */
static unsigned inputsRead(MlirValue v, const LinalgView *view) {
  const BodyDeps deps = bodyDepsOf(v, view->body);
  unsigned read = 0;
  for (int i = 0; i < view->numInputs; ++i)
    read |= (unsigned)deps.arg[i] << i;
  return read;
}

/* The inputs (as bits) whose maps read every loop that input `over`'s map reads. */
static unsigned fullInputs(const LinalgView *view, int over) {
  const MlirAffineMap overMap = view->maps[over];
  unsigned full = 0;
  for (int i = 0; i < view->numInputs; ++i) {
    bool readsAll = true;
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(overMap); ++r)
      readsAll &= mapUsesDim(view->maps[i], (int)mlirAffineDimExprGetPosition(mlirAffineMapGetResult(overMap, r)));
    full |= (unsigned)readsAll << i;
  }
  return full;
}

static int lowestBit(unsigned bits) {
  int i = 0;
  while (!(bits >> i & 1))
    ++i;
  return i;
}

static bool oneBit(unsigned bits) { return bits && !(bits & (bits - 1)); }

typedef struct Split {
  const LinalgView *view;
  unsigned full; /* fullInputs */
  bool build;    /* build each part's generic, or only count the parts */
  MlirOperation before;
  MlirLocation loc;
  Leaves leaves;
} Split;

/* The largest parts of the expression below v, each computed by a generic of its own (an input read as it is needs
 * none) where s->build is set; false if there are more than kMaxLeaves. */
static bool findParts(Split *s, MlirValue v) {
  const LinalgView *view = s->view;
  const unsigned read = inputsRead(v, view), full = read & s->full;
  if (read == 0)
    return true; /* a constant: stays in the combining generic */
  MlirOperation def = producer(v);
  if (!mlirOperationIsNull(def) && opIs(def, "arith.extf")) /* parts end at their 16-bit value; widening combines */
    return findParts(s, mlirOperationGetOperand(def, 0));
  if (!(full ? oneBit(full) : oneBit(read))) { /* two full inputs, or two broadcast ones and no full one */
    for (intptr_t i = 0, n = mlirOperationGetNumOperands(def); i < n; ++i)
      if (!findParts(s, mlirOperationGetOperand(def, i)))
        return false;
    return true;
  }
  Leaves *leaves = &s->leaves;
  for (int i = 0; i < leaves->count; ++i)
    if (valueEq(leaves->values[i], v))
      return true;
  if (leaves->count == kMaxLeaves)
    return false;
  const int input = lowestBit(full ? full : read);
  MlirValue tensor = linalgInput(view, input);
  if (s->build && !valueEq(v, mlirBlockGetArgument(view->body, input))) {
    Leaves part = {.count = 0}; /* the full input, and the broadcast ones beside it */
    for (int i = 0; i < view->numInputs; ++i)
      if (read >> i & 1) {
        part.values[part.count] = mlirBlockGetArgument(view->body, i);
        part.tensors[part.count] = linalgInput(view, i), part.inputs[part.count++] = i;
      }
    tensor = elementwiseOf(view, v, &part, input, s->before, s->loc);
  }
  leaves->values[leaves->count] = v, leaves->tensors[leaves->count] = tensor, leaves->inputs[leaves->count] = input;
  ++leaves->count;
  return true;
}

MlirValue splitByInput(const LinalgView *view, MlirValue v, int over, MlirOperation before, MlirLocation loc) {
  Split s = {view, fullInputs(view, over), false, before, loc, {.count = 0}};
  if (findParts(&s, v)) { /* counted first: nothing built in vain */
    s.leaves.count = 0, s.build = true;
    findParts(&s, v);
  } else { /* too many parts: one generic over the inputs */
    const unsigned read = inputsRead(v, view);
    s.leaves.count = 0;
    for (int i = 0; i < view->numInputs; ++i)
      if (read >> i & 1) {
        s.leaves.values[s.leaves.count] = mlirBlockGetArgument(view->body, i);
        s.leaves.tensors[s.leaves.count] = linalgInput(view, i), s.leaves.inputs[s.leaves.count++] = i;
      }
  }
  if (s.leaves.count == 1 && valueEq(s.leaves.values[0], v) && s.leaves.inputs[0] == over)
    return s.leaves.tensors[0];
  return elementwiseOf(view, v, &s.leaves, over, before, loc);
}

/* Whether body value v is computed from y's elements (input `over`) and inputs read within y's dims only: no init,
 * no linalg.index, no input that reads another loop (the other operand of a contraction). */
static bool onYSide(const LinalgView *view, MlirValue v, int over) {
  const BodyDeps deps = bodyDepsOf(v, view->body);
  if (!deps.arg[over] || deps.arg[view->numInputs])
    return false;
  for (int d = 0; d < view->numLoops; ++d)
    if (deps.loop[d])
      return false;
  for (int i = 0; i < view->numInputs; ++i)
    for (intptr_t r = 0; deps.arg[i] && r < mlirAffineMapGetNumResults(view->maps[i]); ++r)
      if (!mapUsesDim(view->maps[over],
                      (int)mlirAffineDimExprGetPosition(mlirAffineMapGetResult(view->maps[i], r))))
        return false;
  return true;
}

/* The value of the consumer's body that y's side ends in: the one value onYSide that an op not onYSide (or the
 * terminator) uses, at its 16-bit value (a widening cast stays with the consumer); null if there are several. */
static MlirValue ySideEnd(const LinalgView *view, int over) {
  MlirValue end = {NULL};
  MlirOperation terminator = mlirBlockGetTerminator(view->body);
  for (MlirOperation o = mlirBlockGetFirstOperation(view->body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (!opEq(o, terminator) && mlirOperationGetNumResults(o) == 1 &&
        onYSide(view, mlirOperationGetResult(o, 0), over))
      continue;
    for (intptr_t i = 0, n = mlirOperationGetNumOperands(o); i < n; ++i) {
      MlirValue v = mlirOperationGetOperand(o, i);
      if (!onYSide(view, v, over))
        continue;
      for (MlirOperation def = producer(v); !mlirOperationIsNull(def) && opIs(def, "arith.extf") &&
                                            onYSide(view, mlirOperationGetOperand(def, 0), over);
           def = producer(v))
        v = mlirOperationGetOperand(def, 0);
      if (!mlirValueIsNull(end) && !valueEq(end, v))
        return (MlirValue){NULL};
      end = v;
    }
  }
  return end;
}

/* Replaces body value `end` of consumer by a new input, `tensor` read like input `over`, and drops the inputs no
 * longer read: in place (the op may be a candidate the pass has yet to visit). */
static void readInstead(MlirOperation consumer, const LinalgView *view, MlirValue end, MlirValue tensor, int over) {
  MlirLocation loc = mlirOperationGetLocation(consumer);
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirBlock body = view->body;
  mlirValueReplaceAllUsesOfWith(end, mlirBlockInsertArgument(body, (intptr_t)view->numInputs,
                                                             mlirValueGetType(end), loc));
  eraseDeadOps(body);
  MlirValue operands[kMaxLinalgOperands + 1];
  MlirAttribute maps[kMaxLinalgOperands + 1];
  int n = 0;
  for (int i = 0; i <= view->numInputs; ++i) {
    if (i < view->numInputs && userCount(mlirBlockGetArgument(body, (intptr_t)i)) == 0)
      continue;
    operands[n] = i < view->numInputs ? linalgInput(view, i) : tensor;
    maps[n++] = mlirAffineMapAttrGet(view->maps[i < view->numInputs ? i : over]);
  }
  operands[n] = linalgInit(view, 0), maps[n] = mlirAffineMapAttrGet(view->maps[view->numInputs]);
  for (int i = view->numInputs - 1; i >= 0; --i)
    if (userCount(mlirBlockGetArgument(body, (intptr_t)i)) == 0)
      mlirBlockEraseArgument(body, (unsigned)i);
  const int32_t segments[2] = {n, 1};
  mlirOperationSetOperands(consumer, n + 1, operands);
  mlirOperationSetAttributeByName(consumer, mlirStringRefCreateFromCString("indexing_maps"),
                                  mlirArrayAttrGet(ctx, n + 1, maps));
  mlirOperationSetAttributeByName(consumer, mlirStringRefCreateFromCString("operandSegmentSizes"),
                                  mlirDenseI32ArrayGet(ctx, 2, segments));
}

bool splitConsumerOf(MlirValue y) {
  MlirOperation user = onlyDataUser(y);
  LinalgView view;
  if (mlirOperationIsNull(user) || !opIs(user, "linalg.generic") || !linalgView(user, &view) || view.numInits != 1 ||
      mlirOperationGetNumResults(user) != 1)
    return false;
  int over = -1; /* y's one use: an input, or else the init */
  for (int i = 0; i < view.numInputs; ++i)
    if (valueEq(linalgInput(&view, i), y))
      over = i;
  if (over < 0)
    return false;
  for (int i = 0; i < view.numInputs; ++i) /* every input read by plain dims */
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(view.maps[i]); ++r)
      if (!mlirAffineExprIsADim(mlirAffineMapGetResult(view.maps[i], r)))
        return false;
  for (MlirOperation o = mlirBlockGetFirstOperation(view.body); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    if (mlirOperationGetNumRegions(o) > 0) /* values it captures are uses the parts would not see */
      return false;
  const MlirValue end = ySideEnd(&view, over), result = mlirOperationGetResult(user, 0);
  if (mlirValueIsNull(end))
    return false;
  /* An elementwise consumer that is all y's side is replaced by the combination of its parts: only where it
   * combines y with another full input (else it is y's epilogue as it stands), and has y's shape. */
  const bool whole = valueEq(end, mlirOperationGetOperand(mlirBlockGetTerminator(view.body), 0));
  Split s = {&view, fullInputs(&view, over), false, user, mlirOperationGetLocation(user), {.count = 0}};
  if (whole) {
    const unsigned fullRead = inputsRead(end, &view) & s.full;
    if (!linalgIsElementwise(&view) || !mlirAffineMapEqual(view.maps[over], view.maps[view.numInputs]) ||
        oneBit(fullRead))
      return false;
    for (int d = 0; d < rankOf(y); ++d)
      if (dimOf(y, d) != dimOf(result, d))
        return false;
  }
  if (!findParts(&s, end))
    return false;
  bool yPartIsAnOp = false;
  for (int i = 0; i < s.leaves.count; ++i)
    yPartIsAnOp |= s.leaves.inputs[i] == over && !valueEq(s.leaves.values[i], mlirBlockGetArgument(view.body, over));
  if (!yPartIsAnOp)
    return false;
  const MlirValue parts = splitByInput(&view, end, over, user, s.loc);
  if (!whole) {
    readInstead(user, &view, end, parts, over);
    return true;
  }
  mlirValueReplaceAllUsesOfWith(result, parts);
  mlirOperationDestroy(user); /* elementwise: no candidate of the pass */
  return true;
}
