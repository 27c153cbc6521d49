/* The W4A16 chain, as three matchers that each describe one part of what it computes:
 *
 *   matmul:   y[m, n] = init[m, n] + sum_k x[m, k] * Wd[k, n], init zero or a tensor the epilogue takes as
 *             bias or residual, x any row-major view of an (M, K) f16
 *             tensor, y of shape (rows.., N) or (rows.., H, D) with N = H * D: unit dims, M split over several
 *             row dims in x's order, or no row at all (a matvec, M = 1) allowed; Wd an operand or computed in
 *             the contraction's body (match_matmul.c)
 *   dequant:  Wd[k, n] = (code(k, n) - z(g, n)) * scale(g, n) (+- m(g, n)), g = k / G or g_idx[k]
 *                                                     (match_dequant.c; zero points: match_zero_points.c)
 *   epilogue: out[m, n] = act(y[m, n] + bias[n]) + residual[m, n], act in {none, silu, gelu_tanh}
 *                                                                                        (match_epilogue.c)
 * Each matcher evaluates the IR at sample points (eval.h) and compares with its formula, so any
 * spelling of the same arithmetic matches. A failed match leaves a reason for --w4a16-explain. */
#ifndef W4A16_MATCH_H
#define W4A16_MATCH_H

#include "eval.h"
#include "w4a16/contract.h"
#include "w4a16/dialect.h" /* the element types the op takes */

enum { kZeroPoint = W4A16_ZERO_POINT, kMaxChainOps = 24 };

typedef struct Reason {
  char text[256];
  MlirOperation at; /* where the reason applies; null = the matmul */
} Reason;

void setReason(Reason *why, MlirOperation at, const char *fmt, ...);

/* A set of ops found while matching: the chain's ops and the producers it evaluated through. */
typedef struct OpSet {
  MlirOperation ops[128];
  int count;
} OpSet;
void opSetAdd(OpSet *set, MlirOperation op);
bool opSetHas(const OpSet *set, MlirOperation op);

typedef struct MatmulMatch {
  LinalgView view;
  /* The weight Wd: input weightInput of the contraction, or (weightInput < 0) weightInBody, a value of the
   * contraction's body computed from its inputs other than x (the dequantisation fused into the contraction,
   * as upstream's linalg-fuse-elementwise-ops and IREE's dequantisation fusion leave it). */
  int xInput, weightInput;
  MlirValue weightInBody;
  /* The row loops: y's loops other than N with a range other than 1, outermost first (M is the product of
   * their ranges; none in a matvec, M = 1), and their positions among y's dims. A sample row m (the
   * matchers evaluate at m = 0 .. numRows) has every row loop at 0, except loop m - 1 at 1 for m > 0. */
  int numRows, rowLoops[kMaxRank], rowPos[kMaxRank];
  int dimN;
  /* K's loops, outermost first: one, or K split into groups, or a super-block's (block, sub-block, element)
   * loops; k is their mixed-radix number (k = (k0 * r1 + k1) * r2 + k2 for ranges r0, r1, r2). */
  int numKLoops, kLoops[kMaxRank];
  int64_t K, N;
  /* N split over y's last two dims (a [.., H, D] view of the output folded into the contraction): dimNOuter >= 0,
   * column n at (n / nInner, n % nInner); else -1 and nInner = N. */
  int dimNOuter;
  int64_t nInner;
  MlirValue x;                          /* f16 tensor whose row-major elements are x[m, k]; its */
  int xRowDims;                         /*   leading xRowDims dims hold the rows (in y's order), the rest k */
  /* Set where x's dims are read in another order (a transpose folded into the contraction's map: attention's
   * [B, H, S, D] read as [B, S, H * D]): the fused op takes x transposed, its dim d being x's dim xPerm[d], and
   * xRowDims counts the transposed tensor's dims. */
  bool xTransposed;
  int xPerm[kMaxRank];
  /* Set where the contraction's body narrows an f32 x (arith.truncf to f16 or bf16): x is then that f32 tensor and
   * the fused op takes its truncf, which rounds each element as the body did. */
  MlirType xNarrowTo;
  /* Set where x is an expression the contraction's body computes from inputs of its own (silu(gate) * up, which
   * upstream's elementwise fusion moves into the down projection's body): arith and math ops on float inputs read
   * by plain loop dims, all of which input xInput reads too (a bias broadcast beside it, say). x is then xInput's
   * tensor (its shape and rows) and the fused op takes the expression computed over that shape by elementwise ops
   * of its own (split_by_input.c). */
  MlirValue xExpr;
  MlirValue result;
  /* Null where y accumulates into zero; else the init tensor (shaped like y), whose elements the epilogue reads as
   * part of y: bias[n] or residual[m, n]. */
  MlirValue init;
  OpSet producers; /* x-side casts/reshapes and the zero init, evaluated through */
} MatmulMatch;

typedef struct DequantMatch {
  MlirValue codes, scales;
  w4a16_weight_layout weightLayout;
  w4a16_scales_layout scalesLayout;
  int64_t groupSize; /* G: K per scale group */
  /* z(g, n): zeroPoints (null: the constant zeroPoint) read per zpLayout, plus zpOffset */
  MlirValue zeroPoints;
  w4a16_zero_point_layout zpLayout;
  int64_t zpOffset;
  bool zpWraps;     /* z = (stored + zpOffset) mod 16 (AutoGPTQ's v1 torch path) */
  double zeroPoint;
  int zpSplit; /* leading dims of zeroPoints forming its dim 0 (0: none do, see codesSplit) */
  bool signedCodes; /* the stored values are two's-complement i4: W = s * scale, s = code XOR 8 minus 8 */
  bool zpSigned;    /* with signedCodes: the zero points are two's-complement 4-bit s_z, W = (s - s_z) * scale */
  bool offsets;     /* zeroPoints holds additive offsets m: W = (code - zeroPoint) * scale + m */
  bool offsetsSubtracted; /* ... or subtracted ones: W = (code - zeroPoint) * scale - m */
  /* Leading dims forming dim 0 when collapsing to 2-D; 0: no leading dims do (HQQ's [N*K/G, G] codes of an (N, K)
   * layout): the rewrite reshapes the tensor through one dim, its row-major order being the layout's. */
  int codesSplit, scalesSplit;
  /* Act-order GPTQ: row k's group is groupIndex[k], a runtime tensor of K integers, not k / G (null). */
  MlirValue groupIndex;
  /* Users of the dequantised weight besides this contraction (a weight shared by two matmuls, or also returned):
   * the chain fuses, and the dequantisation stays for them (erased with the last) */
  intptr_t weightOtherUsers;
  OpSet producers;
} DequantMatch;

typedef struct EpilogueMatch {
  MlirValue end;          /* the chain's last value (y itself for an empty epilogue) */
  w4a16_activation activation;
  MlirValue bias, residual;
  OpSet ops;              /* epilogue ops and side views evaluated through */
  bool hasBias, hasResidual;
  Reason stop;            /* why the chain did not extend further (text empty if nothing followed) */
} EpilogueMatch;

/* Returns false with an empty reason when op is not a contraction fed by integer codes (nothing to
 * report), false with a reason when it is but cannot be fused. */
bool matchMatmul(MlirOperation op, MatmulMatch *mm, Reason *why);
/* For a contraction that is no plain two-input matmul: whether its body yields acc + x * w with w computed from
 * inputs other than x's (match_weight_in_body.c); sets x's input, the body's weight value and x's expression. */
bool matchWeightInBody(MatmulMatch *mm, Reason *why);
/* The element type of x as the fused op reads it (f16 or bf16). */
MlirType matmulIoType(const MatmulMatch *mm);
/* y's trailing dims holding N: 1, or 2 when N is split. */
int matmulNDims(const MatmulMatch *mm);
/* x's dim that holds the fused op's x dim d (they differ where x is transposed). */
int matmulXDim(const MatmulMatch *mm, int d);
/* Whether v holds y's elements with y's row dims regrouped by a reshape (y's N dims kept; match_matmul.c). */
bool matmulRowsRegrouped(const MatmulMatch *mm, MlirValue v);
/* The trailing dims holding N of v, an epilogue value shaped like y, like y with N split into two dims, or like y
 * with its row dims regrouped. */
int matmulNDimsOf(const MatmulMatch *mm, MlirValue v);
/* Indices of y (and of every epilogue value, which has y's shape) holding element (sample row m, n). */
void matmulResultIndex(const MatmulMatch *mm, int64_t m, int64_t n, int64_t *idx);
/* Wd[k, n], evaluated with ev (from the weight operand, or in the contraction's body). */
Scalar matmulWeightAt(const MatmulMatch *mm, Evaluator *ev, int64_t k, int64_t n);
bool matchDequant(const MatmulMatch *mm, DequantMatch *dq, Reason *why);
bool matchEpilogue(const MatmulMatch *mm, EpilogueMatch *ep, Reason *why);

/* Evaluator policy of the dequantisation: evaluate through every elementwise op and view, so the leaves
 * are the stored codes and scales. */
bool dequantSeeThrough(Evaluator *ev, MlirOperation op);
/* The same, stopping at tensor constants (the only constants it meets): codes, scales or zero points folded to one
 * value (a splat) read as tensors. */
bool constantsSeeThrough(Evaluator *ev, MlirOperation op);

/* Deterministic pseudo-random numbers for synthetic leaf data and sample points. */
uint64_t mix64(uint64_t x);
/* act(v) for an activation of contract.h, in f64: the formula a chain's arithmetic is compared with. */
double activationValue(int act, double v);
/* Row-major linear index of idx in the (static) shape of tensor. */
int64_t linearIndex(MlirValue tensor, const int64_t *idx);

#endif
