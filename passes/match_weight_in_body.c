/* Contractions whose body computes the weight itself (match_matmul.c's second form): the body yields
 * acc + x * w, x an input's argument or an expression of x's own, w computed from the other inputs -- the
 * dequantisation fused into the contraction by upstream's linalg-fuse-elementwise-ops or IREE. */
#include "match.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <string.h>

/* The argument number of body argument v (through widening float casts), or -1. With narrowTo, also through
 * one arith.truncf from f32 to a 16-bit float (default rounding), whose type it returns there (else a null type). */
static int bodyArgThroughCasts(MlirValue v, MlirBlock body, MlirType *narrowTo) {
  if (narrowTo)
    *narrowTo = (MlirType){NULL};
  for (MlirOperation p = producer(v); !mlirOperationIsNull(p); p = producer(v)) {
    if (opIs(p, "arith.truncf") && narrowTo && mlirTypeIsNull(*narrowTo) && is16BitFloat(mlirValueGetType(v)) &&
        isF32(mlirValueGetType(mlirOperationGetOperand(p, 0))) &&
        mlirAttributeIsNull(attr(p, "roundingmode"))) /* the op's truncf rounds to nearest even */
      *narrowTo = mlirValueGetType(v);
    else if (!opIs(p, "arith.extf"))
      break;
    v = mlirOperationGetOperand(p, 0);
  }
  return mlirValueIsABlockArgument(v) && mlirBlockEqual(mlirBlockArgumentGetOwner(v), body)
             ? (int)mlirBlockArgumentGetArgNumber(v)
             : -1;
}

/* Whether body value v is computed by arith and math ops alone (no regions, no tensor.extract, no linalg.index):
 * an elementwise function of the body's arguments. *budget bounds the walk. */
static bool elementwiseInBody(MlirValue v, MlirBlock body, int *budget) {
  if (mlirValueIsABlockArgument(v))
    return true;
  MlirOperation op = producer(v);
  if (!mlirBlockEqual(mlirOperationGetBlock(op), body))
    return true; /* captured from above */
  if (--*budget < 0 || !(opInDialect(op, "arith") || opInDialect(op, "math")) || mlirOperationGetNumRegions(op) > 0)
    return false;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (!elementwiseInBody(mlirOperationGetOperand(op, i), body, budget))
      return false;
  return true;
}

/* The position of loop dim d among map's results when all of them are plain dims, else -1. */
static int dimPosition(MlirAffineMap map, int d) {
  for (intptr_t r = 0, n = mlirAffineMapGetNumResults(map); r < n; ++r) {
    MlirAffineExpr e = mlirAffineMapGetResult(map, r);
    if (mlirAffineExprIsADim(e) && (int)mlirAffineDimExprGetPosition(e) == d)
      return (int)r;
  }
  return -1;
}

/* Whether every input i of `read` indexes its tensor by plain loop dims that input `ref` also reads (a bias along
 * K read beside x, say), at sizes that agree: each can then be read over ref's shape. */
static bool readableOver(const LinalgView *v, const bool *read, int ref) {
  MlirAffineMap refMap = v->maps[ref];
  if (!mlirAffineMapIsProjectedPermutation(refMap))
    return false;
  for (int i = 0; i < v->numInputs; ++i)
    for (intptr_t r = 0, n = read[i] ? mlirAffineMapGetNumResults(v->maps[i]) : 0; r < n; ++r) {
      MlirAffineExpr e = mlirAffineMapGetResult(v->maps[i], r);
      const int at = mlirAffineExprIsADim(e) ? dimPosition(refMap, (int)mlirAffineDimExprGetPosition(e)) : -1;
      const int64_t size = dimOf(linalgInput(v, i), (int)r), refSize = at < 0 ? -1 : dimOf(linalgInput(v, ref), at);
      if (at < 0 || (size >= 0 && refSize >= 0 && size != refSize))
        return false;
    }
  return true;
}

/* The input whose shape x's expression is computed over, when x side v is an expression of x's own
 * (MatmulMatch.xExpr): a 16-bit float computed elementwise from float inputs alone (not the accumulator), one of
 * which reads every loop dim the others read (x beside a bias broadcast over its rows). Else -1, with the rule it
 * breaks in why (empty when v reads no input at all, or the weight's: no x to speak of). */
static int xExpressionInput(const LinalgView *v, MlirValue x, char *why, size_t size) {
  int budget = 64;
  const BodyDeps deps = bodyDepsOf(x, v->body);
  why[0] = 0;
  if (deps.integerArgs || deps.extractsIntegers)
    return -1; /* the weight's side */
  int ref = -1;
  for (int i = 0; i < v->numInputs; ++i)
    if (deps.arg[i] && (ref < 0 || mlirAffineMapGetNumResults(v->maps[i]) > mlirAffineMapGetNumResults(v->maps[ref])))
      ref = i;
  if (ref < 0)
    return -1;
  char type[32];
  if (!is16BitFloat(mlirValueGetType(x)))
    snprintf(why, size, "x computed in its body is %s, not rounded to f16 or bf16 before the product",
             typeName(mlirValueGetType(x), type, sizeof type));
  else if (deps.arg[v->numInputs])
    snprintf(why, size, "x computed in its body reads the accumulator");
  else if (!elementwiseInBody(x, v->body, &budget))
    snprintf(why, size, "x computed in its body reads a loop index, a tensor.extract or an op other than arith and "
                        "math");
  else if (!readableOver(v, deps.arg, ref))
    snprintf(why, size, "x computed in its body reads inputs at loops other than x's (no (M, K) tensor holds it)");
  else
    return ref;
  return -1;
}

/* The two factors of the product a body accumulates, or false: it yields acc + a * b as arith.addf of the
 * accumulator's argument and an arith.mulf (also one rounded to 16 bits and widened again: sharktank's templates
 * multiply in f16 and accumulate in f32), or as math.fma(a, b, acc). */
static bool accumulatedFactors(const LinalgView *v, MlirValue factors[2]) {
  MlirOperation yield = mlirBlockGetTerminator(v->body);
  if (mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirOperation sum = producer(mlirOperationGetOperand(yield, 0));
  if (mlirOperationIsNull(sum))
    return false;
  MlirOperation mul = {NULL};
  if (opIs(sum, "math.fma") && bodyArgThroughCasts(mlirOperationGetOperand(sum, 2), v->body, NULL) == v->numInputs)
    mul = sum;
  for (int accSide = 0; accSide < 2 && opIs(sum, "arith.addf") && mlirOperationIsNull(mul); ++accSide) {
    MlirOperation product = producer(throughWidening(mlirOperationGetOperand(sum, 1 - accSide)));
    if (bodyArgThroughCasts(mlirOperationGetOperand(sum, accSide), v->body, NULL) == v->numInputs &&
        !mlirOperationIsNull(product) && opIs(product, "arith.mulf"))
      mul = product;
  }
  if (mlirOperationIsNull(mul))
    return false;
  factors[0] = mlirOperationGetOperand(mul, 0), factors[1] = mlirOperationGetOperand(mul, 1);
  return true;
}

/* A contraction whose body yields acc + x * w (accumulatedFactors): x a float input's argument (through
 * widening casts) or an expression of x's own (xExpressionInput), w any value computed without x's inputs and acc
 * (from the other inputs, or from tensors the body reads with tensor.extract) -- the weight, evaluated where it is. */
bool matchWeightInBody(MatmulMatch *mm, Reason *why) {
  const LinalgView *v = &mm->view;
  char rule[160] = ""; /* the first rule an x computed in the body broke: the reason if nothing matches */
  const int acc = v->numInputs;
  MlirValue factors[2];
  if (!accumulatedFactors(v, factors))
    return false;
  for (int xSide = 0; xSide < 2; ++xSide) {
    MlirValue xValue = factors[xSide], w = factors[1 - xSide];
    MlirType narrowTo;
    int x = bodyArgThroughCasts(xValue, v->body, &narrowTo);
    if (x >= 0 && !mlirTypeIsNull(narrowTo) && !isF32(elementTypeOf(linalgInput(v, x))))
      x = -1; /* a 16-bit x converted to another type (bf16 to f16, say): an expression of x's own */
    /* an expression's 16-bit value, before the body widens it for the product */
    MlirValue narrow = throughWidening(xValue);
    char thisRule[sizeof rule] = "";
    const bool expression = x < 0 && (x = xExpressionInput(v, narrow, thisRule, sizeof thisRule)) >= 0;
    if (thisRule[0] && !rule[0])
      memcpy(rule, thisRule, sizeof rule);
    if (x < 0 || x >= v->numInputs || !isFloat(elementTypeOf(linalgInput(v, x))))
      continue;
    const BodyDeps xDeps = bodyDepsOf(xValue, v->body), wDeps = bodyDepsOf(w, v->body);
    bool shared = wDeps.arg[acc];
    for (int i = 0; i < v->numInputs; ++i)
      shared |= xDeps.arg[i] && wDeps.arg[i];
    if (shared)
      continue;
    mm->xInput = x, mm->weightInput = -1, mm->weightInBody = w, mm->xNarrowTo = narrowTo;
    mm->xExpr = expression ? narrow : (MlirValue){NULL};
    return true;
  }
  if (rule[0])
    setReason(why, v->op, "reads integer codes but is not a multiply-accumulate contraction: %s", rule);
  return false;
}

