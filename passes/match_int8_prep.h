/* The LLM.int8 outlier-correction preparation (issue #6), recognised by what it computes:
 *
 *   subA[m, l] = A[m, cols[l]]                                                A (M, K) f16, cols (L) int
 *   subB[l, n] = f16(f32(f32(f32(CB[n, cols[l]]) * SCB[n]) * 0x3C010204))     CB (N, K) i8, SCB (N) f32
 *
 * where subA and subB are the two operands of a contraction out[m, n] (+)= sum_l subA[m, l] subB[l, n]
 * (the correction matmul, which stays). Like the W4A16 matchers, the operands are evaluated through the IR
 * (eval.h) with synthetic data at the leaves; the rounding of subB is checked bit for bit with the
 * interpreter's IEEE rounding on, over inputs chosen next to f16 rounding ties, so a different
 * multiplication order, constant or intermediate precision is a reason not to fuse. */
#ifndef W4A16_MATCH_INT8_PREP_H
#define W4A16_MATCH_INT8_PREP_H

#include "match.h"

/* 1/127 rounded to f32: the dequantisation constant of bitsandbytes (7.874015718698502e-3). */
#define W4A16_INT8_PREP_SCALE_BITS 0x3C010204u

enum { kMaxAccumulateOps = 32 };

typedef struct Int8PrepMatch {
  MlirOperation matmul;
  LinalgView view;
  int aInput, bInput;      /* operand numbers of the (M, L) and (L, N) operands of the matmul */
  bool bTransposed;        /* the matmul reads its B operand as (N, L) through a permuted map */
  MlirValue subA, subB;    /* the tensors the preparation produces (subB is (N, L) when bTransposed) */
  MlirValue a, cb, scb, cols;
  OpSet producers;         /* ops evaluated through: erasure candidates once subA/subB are replaced */
  /* Upstream's elementwise fusion leaves both gathers and subB's dequantisation inside the contraction's body:
   * then subA and subB are null and the operands are the body's values bodyA (over loops loopM, loopL) and bodyB
   * (loopL, loopN), multiplied and accumulated into the init by the body's remaining ops: `accumulate`, in order,
   * those that read bodyA, bodyB or the accumulator (directly or through each other), up to the yield. */
  MlirValue bodyA, bodyB;
  int loopM, loopN, loopL;
  MlirOperation accumulate[kMaxAccumulateOps];
  int numAccumulate;
} Int8PrepMatch;

/* Whether the match's operands are values of the contraction's body rather than tensors. */
static inline bool int8PrepInBody(const Int8PrepMatch *pm) { return !mlirValueIsNull(pm->bodyA); }

/* False with an empty reason when op is not a contraction fed by a gather through a column list
 * (nothing to report); false with a reason when it is but the preparation cannot be fused. */
bool matchInt8Prep(MlirOperation op, Int8PrepMatch *pm, Reason *why);

#endif
