/* Small IR queries shared by every matcher: op identity, tensor shapes, users, and a uniform view of
 * linalg structured ops (named or generic) as "inputs read through indexing maps + a scalar body". */
#ifndef W4A16_IR_QUERY_H
#define W4A16_IR_QUERY_H

#include "mlir-c/AffineMap.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

enum { kMaxRank = 8, kMaxLinalgOperands = 8 };

/* --- ops and values --------------------------------------------------------------------------- */
bool opIs(MlirOperation op, const char *name);
bool opInDialect(MlirOperation op, const char *dialect); /* "arith", "math", "linalg", "tensor" */
/* The op defining v, or a null op for block arguments. */
MlirOperation producer(MlirValue v);
/* The ancestor of op (or op itself) that lies in block, or a null op. */
MlirOperation ancestorIn(MlirOperation op, MlirBlock block);
intptr_t userCount(MlirValue v);
/* Users other than tensor.dim (a shape query reads no element). */
intptr_t dataUserCount(MlirValue v);
/* The user of v's one data use (not counting tensor.dim), or a null op when it has none or several. */
MlirOperation onlyDataUser(MlirValue v);
/* Index of v among its defining op's results (0 for block arguments). */
intptr_t resultIndex(MlirValue v);
bool valueEq(MlirValue a, MlirValue b);
/* v is an arith.constant integer (or index): its value in *out. */
bool constantIndex(MlirValue v, int64_t *out);
bool opEq(MlirOperation a, MlirOperation b);
MlirAttribute attr(MlirOperation op, const char *name);
/* Prints op or value into buf (truncated), for remarks. */
const char *opName(MlirOperation op, char *buf, size_t size);
/* `loc("f.mlir":3:7)` -> `f.mlir:3:7` (as mlir-opt prints diagnostics), into buf; for located remarks. */
const char *locationText(MlirLocation loc, char *buf, size_t size);
/* a and b carry the same attributes (names and values). */
bool sameAttributes(MlirOperation a, MlirOperation b);
/* a and b hold the same data: one value, or results of two region-free, side-effect-free tensor or arith ops of
 * the same kind and attributes on the same values (each sibling projection's fusion collapses a rank-3 x on its
 * own, say). */
bool sameValue(MlirValue a, MlirValue b, int depth);
/* The ops under root (root included) for which keep(op, data) holds, in walk order: what a pass collects
 * before it rewrites, so that its rewrites never disturb the walk. Free list.ops. */
typedef struct OpList {
  MlirOperation *ops;
  int count, capacity;
} OpList;
OpList collectOps(MlirOperation root, bool (*keep)(MlirOperation op, void *data), void *data, MlirWalkOrder order);

/* --- types ------------------------------------------------------------------------------------ */
bool isRankedTensor(MlirValue v);
int rankOf(MlirValue v);
/* Static size of dim i, or -1 when dynamic or not a ranked tensor. */
int64_t dimOf(MlirValue v, int i);
/* How many of v's dims before d are dynamic: where dim d's size sits among the size operands of the op that made v
 * (tensor.empty, expand_shape). */
int dynamicDimsBefore(MlirValue v, int d);
/* Product of static dims, or -1 if any is dynamic. */
int64_t numElements(MlirValue v);
MlirType elementTypeOf(MlirValue v); /* the value's own type when it is not shaped */
bool isF16(MlirType t);
bool isF32(MlirType t);
bool isBF16(MlirType t);
bool is16BitFloat(MlirType t); /* f16 or bf16: the op's element types */
bool isFloat(MlirType t);
int intWidth(MlirType t); /* integer or index (64) width, 0 for other types */
const char *typeName(MlirType t, char *buf, size_t size);

/* --- affine maps ------------------------------------------------------------------------------ */
int64_t evalAffineExpr(MlirAffineExpr e, const int64_t *dims); /* linalg maps: no symbols */
int64_t evalAffineExprWith(MlirAffineExpr e, const int64_t *dims, const int64_t *symbols);
void evalAffineMap(MlirAffineMap map, const int64_t *dims, int64_t *out);
/* For a permutation map, dims such that map(dims) == results. */
bool invertPermutation(MlirAffineMap map, const int64_t *results, int64_t *dims);
/* Whether a result of map is a function of loop dim `dim`. */
bool mapUsesDim(MlirAffineMap map, int dim);

/* --- linalg structured ops -------------------------------------------------------------------- */
typedef struct LinalgView {
  MlirOperation op;
  int numInputs, numInits, numLoops;
  MlirAffineMap maps[kMaxLinalgOperands]; /* inputs then inits */
  int64_t loopRange[kMaxRank];            /* static loop bounds, -1 when dynamic */
  MlirBlock body;
} LinalgView;

/* Fills view for a linalg structured op on tensors (generic, named, broadcast, transpose, fill ...). */
bool linalgView(MlirOperation op, LinalgView *view);
MlirValue linalgInput(const LinalgView *view, int i);
MlirValue linalgInit(const LinalgView *view, int i);
/* Every init map is a permutation: each loop writes a distinct element, so no loop reduces. */
bool linalgIsElementwise(const LinalgView *view);
/* The body yields (a float/int cast of) one input block argument: a broadcast, transpose or copy. */
bool linalgIsView(const LinalgView *view);

/* What a value of a linalg body depends on: block arguments and loops (read through linalg.index). */
typedef struct BodyDeps {
  bool arg[kMaxLinalgOperands], loop[kMaxRank];
  bool integerArgs, extractsIntegers; /* an integer argument; a tensor.extract from an integer tensor */
} BodyDeps;
/* What v depends on within body (a walk bounded at 4096 values: past that, on everything). */
BodyDeps bodyDepsOf(MlirValue v, MlirBlock body);
/* Whether body value v depends on loop d: through an input whose map uses d, or through linalg.index d. */
bool bodyValueUsesLoop(const LinalgView *view, MlirValue v, int d);
/* v seen through widening float casts in a body (arith.extf): the narrowest value they start from. */
MlirValue throughWidening(MlirValue v);

/* tensor.expand_shape / tensor.collapse_shape: maps an index of the result to one of the source. A dynamic dim
 * inside a group (a sequence length S in [B, S] <-> B * S) is taken to hold kDynamicGroupExtent elements: more than
 * any sample index, so that both directions, and every reshape of one chain, map a sample alike (row 1 of B * S is
 * [0, 1]), as they do at run time wherever those rows exist. */
enum { kDynamicGroupExtent = 1 << 20 };
bool reshapeResultToSource(MlirOperation reshape, const int64_t *resultIdx, int64_t *sourceIdx);
/* The value a chain of views names as dynamic dim d of t: an expand_shape's output size, through collapse_shapes
 * that keep d as a group of its own; a null value if none does. */
MlirValue viewNamedSize(MlirValue t, int d);

/* --- slices ----------------------------------------------------------------------------------- */
/* A tensor.extract_slice's result or a tensor.insert_slice's source may lack unit dims of the slice (rank-reducing
 * slices): dropped[d] for each dim d of the slice's sizes that the smaller side lacks (MLIR's greedy rule). Returns
 * the slice's rank, or -1 when the sizes are not readable or the ranks do not fit. */
int sliceRankMask(MlirOperation slice, bool *dropped);
/* A slice that is a reshape in all but name (linalg-fold-unit-extent-dims with use-rank-reducing-slices): offsets 0,
 * strides 1, covering the whole source (extract) or destination (insert), only unit dims dropped or added. */
bool isUnitDimSlice(MlirOperation slice);
/* A static, unit-stride tensor.extract_slice that is more than a view dropping unit dims: a window of a larger
 * tensor (a tensor-parallel shard of a checkpoint loaded whole, one half of a fused gate_up). */
bool isWindowSlice(MlirOperation slice);
/* Whether view's body computes, from loop positions alone, a value no layout computes: a product of two values that
 * both move with positions, or divisions of one loop's positions by two constants of which neither divides the
 * other (k / 128 + k / 600 - k / 700: a band of rows that reads another group). Sample points can miss what such
 * arithmetic does between them. */
bool bodyHasIrregularPositionArithmetic(const LinalgView *view);

#endif
