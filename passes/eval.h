/* A scalar interpreter for the bodies of linalg ops and the arith/math ops around them.
 *
 * The matchers recognise a chain by what it computes, not by how it is spelled: they evaluate one
 * element of a tensor (e.g. the dequantised weight at (k, n)) with synthetic values at the "leaf"
 * tensors, record which leaf elements were read, and compare the result with the formula of docs/contract.md §1.
 * Every frontend spelling of the same arithmetic therefore matches, and any other arithmetic does not. */
#ifndef W4A16_EVAL_H
#define W4A16_EVAL_H

#include "ir_query.h"

typedef struct Scalar {
  double f;      /* float value (floats are evaluated exactly, in double) */
  uint64_t bits; /* integer value, masked to width */
  int width;     /* integer width; 0 for floats */
} Scalar;

enum {
  kMaxLeafReads = 16,
  kMaxTouched = 64,
  /* Op evaluations one element may take where a matcher evaluates one per k (a check over all of K): a chain
   * that passed the sampling costs a few hundred per element; K of them must not draw on one shared budget. */
  kElementEvalBudget = 4096
};

typedef struct LeafRead {
  MlirValue tensor;
  int rank;
  int64_t idx[kMaxRank];
} LeafRead;

typedef struct Evaluator Evaluator;
struct Evaluator {
  /* Which producers to evaluate through; every other tensor is a leaf. */
  bool (*seeThrough)(Evaluator *ev, MlirOperation producer);
  /* Value of leaf `tensor` at idx (synthetic data chosen by the matcher). */
  Scalar (*leafValue)(Evaluator *ev, MlirValue tensor, const int64_t *idx);
  void *user;

  LeafRead reads[kMaxLeafReads];
  int numReads;
  MlirOperation touched[kMaxTouched]; /* producers evaluated through: erasure candidates */
  int numTouched;
  const char *error; /* first unsupported construct, NULL if none */
  long budget;       /* remaining op evaluations; guards against huge expressions */
  /* Off (evalInit's default): floats are evaluated exactly, in double. On: every float result is rounded
   * to its type (f32, f16, bf16; round to nearest even, overflow to infinity), as IEEE hardware does, so a
   * matcher can compare raw bits and tell apart spellings that round differently (multiplication order,
   * intermediate precision). Set it after evalInit. */
  bool ieeeRounding;
  /* Off (default): tensor.extract may take its index from any tensor (LLM.int8's column gather). On: an
   * index read from a non-constant tensor is an error -- for a dequantisation it is a runtime gather
   * (act-order g_idx), not an index the IR computes. Set it after evalInit. */
  bool indicesFromConstantsOnly;
  /* With indicesFromConstantsOnly: a runtime tensor from which indices may be read all the same -- act-order
   * GPTQ's g_idx, to which the matcher gives group numbers as synthetic data (null: none). A constant table
   * named here is a leaf too: its values are the matcher's, not evaluated. */
  MlirValue groupIndex;
  /* Set when indicesFromConstantsOnly rejected an index read from a runtime tensor: that tensor, and the size
   * of the dim of the tensor it indexed (a group index's number of groups). */
  MlirValue runtimeIndex, runtimeIndexed; /* ... and the tensor it indexed */
  int64_t runtimeIndexRange;
  /* Off (default): conditions are evaluated like any op. On: a condition inside a linalg body that decides a
   * value (a select's condition, an i1 cast to a number) and depends on the iteration point alone (no data)
   * must be the same at every point of each loop's range; otherwise evaluation fails. Sample points alone
   * cannot see IR that computes another formula at one row, column or k (`select(n == 77, ...)`); the
   * matchers of the chain set it. */
  bool positionInvariantConditions;
  MlirValue checkedConditions[16]; /* conditions already scanned */
  /* The first constant integer table of more than 16 elements whose elements were evaluated (a constant g_idx,
   * say; null: none): samples only saw some of its entries, so a matcher checks the rest (match_dequant.c). */
  MlirValue indexTable;
  int numCheckedConditions;
  int depth;         /* current recursion depth; bounded so deep IR cannot exhaust the stack */
};

/* The error of an evaluation that ran past the evaluator's depth or op budget: the IR was not analysed. */
extern const char kEvalTooLarge[];

void evalInit(Evaluator *ev, bool (*seeThrough)(Evaluator *, MlirOperation),
               Scalar (*leafValue)(Evaluator *, MlirValue, const int64_t *), void *user);
/* Clears the recorded reads and error before evaluating another element. */
void evalReset(Evaluator *ev);
/* Element idx of tensor, evaluated through producers the evaluator sees through. */
Scalar evalElement(Evaluator *ev, MlirValue tensor, const int64_t *idx);
/* Value v of view's body at iteration point iter, its block arguments read from the op's operands (the weight of
 * a contraction whose body computes it from several inputs). */
Scalar evalBodyValue(Evaluator *ev, const LinalgView *view, const int64_t *iter, MlirValue v);
/* Element idx of `tensor` if it is a dense integer constant (i8, i16, i32, i64 or index), else false. */
bool constantIntElement(MlirValue tensor, const int64_t *idx, Scalar *out);

Scalar floatScalar(double f);
/* x rounded to float type t (f32, f16, bf16: nearest even, overflow to infinity); other types unchanged. */
double roundToType(double x, MlirType t);
Scalar intScalar(uint64_t bits, int width);
int64_t scalarSigned(Scalar s);

/* tensor.expand_shape, tensor.collapse_shape, or a slice that only drops or adds unit dims (isUnitDimSlice). */
bool isReshape(MlirOperation op);
/* Producers every matcher may evaluate through: fills (also as generics), splat constants, reshapes, and linalg ops that
 * only broadcast, transpose, copy or cast one input. */
bool isViewProducer(MlirOperation op);
/* Whether every float cast of a view producer keeps the values: each cast between a linalg view's input and its
 * yield widens (bf16 -> f32 -> f16 -> f32 rounds to f16 on the way), or a cast on tensors is an extf. */
bool viewOnlyWidens(MlirOperation op);
/* Producers computing one element per element: elementwise linalg ops and arith/math ops on tensors. */
bool isElementwiseProducer(MlirOperation op);

#endif
