/* The dequantisation of the chain: Wd[k, n] = (code(k, n) - z(g, n)) * scale(g, n), g = k / G, with z the
 * constant 8, another constant, or read from a zero-point tensor (unpacked, or packed like GPTQ's qzeros);
 * or g = g_idx[k], a runtime tensor of one group number per row (act-order GPTQ, desc_act).
 *
 * The matmul's weight operand is evaluated at sample (k, n) through every elementwise op and view,
 * down to the stored codes (an integer tensor) and scales (a float tensor), filled with synthetic
 * data. The element positions read and the value computed then tell the layouts, the group size, the
 * zero point and whether codes are unsigned -- whatever IR spelled them. */
#include "match.h"
#include "match_dequant.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool dequantSeeThrough(Evaluator *ev, MlirOperation op) {
  (void)ev;
  /* the weight side only: there a view of a bigger tensor (a slice) leaves the codes' layout to the layout
   * rules, where a sliced bias or residual would be taken whole */
  return isViewProducer(op) || isElementwiseProducer(op) || opIs(op, "tensor.cast") ||
         opIs(op, "tensor.extract_slice") || opIs(op, "tensor.insert_slice") || opIs(op, "tensor.concat");
}

bool constantsSeeThrough(Evaluator *ev, MlirOperation op) {
  return !opIs(op, "arith.constant") && dequantSeeThrough(ev, op);
}

typedef struct Synthetic {
  MlirValue slots[kMaxLeafReads];
  int numSlots;
  /* Probe of the codes' width (codesWiderThan4Bits): this tensor's elements keep their low nibble and get
   * other high bits. */
  MlirValue reroll;
  /* Codes packed two per byte: this tensor's elements are random bytes, so that both nibbles vary. */
  MlirValue bytePairs;
  /* Act-order's g_idx (null: none): its element k holds actOrderGroup(k, groups). */
  MlirValue groupIndex;
  int64_t groups;
  bool constants; /* a tensor constant was evaluated by value (dequantSeeThroughNoting) */
  bool windows;   /* a window of a larger tensor (isWindowSlice) was read through */
  bool windowsAsLeaves; /* windows are leaves: the stored tensors the runtime reads through their strides */
} Synthetic;

/* dequantSeeThrough for an evaluation whose user data is a Synthetic: notes tensor constants taken by value. */
static bool dequantSeeThroughNoting(Evaluator *ev, MlirOperation op) {
  Synthetic *data = ev->user;
  if (opIs(op, "arith.constant"))
    data->constants = true;
  if (isWindowSlice(op)) {
    data->windows = true;
    if (data->windowsAsLeaves)
      return false;
  }
  return dequantSeeThrough(ev, op);
}

/* The group number a synthetic g_idx gives row k: scattered over the groups, unlike k / G, so that a chain
 * reading group k / G, or any other, does not pass for one reading g_idx[k]. */
static int64_t actOrderGroup(int64_t k, int64_t groups) {
  return (int64_t)(mix64(0xac7000u + (uint64_t)k) % (uint64_t)groups);
}

/* Integers in containers of up to 8 bits are 0..15, so that every reading of a 4-bit value -- masked or
 * not, signed or unsigned extension of an i8 zero point -- gives the same number; whether the chain reads
 * only the low nibble of a code element is checked apart (codesWiderThan4Bits: the same low nibble under
 * other high bits). Wider integers (packed words) are random bits. Floats are +-(1 + j/1024) * 2^e,
 * e in [-8, 8]: exact in f16 (so products stay exact in double), of both signs and over a range wide
 * enough that clamps of scales or weights (max(s, 0), min(s, 100), |W| > 1000 ? 0 : W) change some
 * samples instead of passing for the formula. */
static Scalar syntheticLeaf(Evaluator *ev, MlirValue tensor, const int64_t *idx) {
  Synthetic *data = ev->user;
  int slot = 0;
  while (slot < data->numSlots && !valueEq(data->slots[slot], tensor))
    ++slot;
  if (slot == data->numSlots && data->numSlots < kMaxLeafReads)
    data->slots[data->numSlots++] = tensor;
  int width = intWidth(elementTypeOf(tensor));
  if (!mlirValueIsNull(data->groupIndex) && valueEq(tensor, data->groupIndex))
    return intScalar((uint64_t)actOrderGroup(linearIndex(tensor, idx), data->groups), width);
  uint64_t h = mix64(0x5eed0000u + (uint64_t)slot);
  for (int i = 0, r = rankOf(tensor); i < r; ++i)
    h = mix64(h ^ (uint64_t)idx[i]);
  if (width > 8)
    return intScalar(h, width);
  if (width > 0) {
    const bool reroll = !mlirValueIsNull(data->reroll) && valueEq(tensor, data->reroll);
    const bool pairs = !mlirValueIsNull(data->bytePairs) && valueEq(tensor, data->bytePairs);
    const uint64_t bits = pairs ? h & 255 : (h & 15) | (reroll ? mix64(h + 1) & ~(uint64_t)15 : 0);
    return intScalar(bits, width); /* masked to the width */
  }
  const double magnitude = ldexp(1.0 + (double)(h % 1024) / 1024.0, (int)((h >> 10) % 17) - 8);
  return floatScalar((h >> 15) & 1 ? -magnitude : magnitude);
}

typedef struct DequantEval {
  const MatmulMatch *mm;
  Evaluator ev;
  Synthetic data;
  DequantMatch *dq;
  bool readNoCodesOrScales; /* a sample read no integer tensor or no float tensor */
  bool scalesLaidOut;       /* the samples' scales followed a layout (matchScalesLayout held) */
  bool irregularPositions;  /* a body computes positions in ways samples can miss (irregularPositions) */
} DequantEval;

static bool evalSample(DequantEval *p, int64_t k, int64_t n, Sample *s, Reason *why) {
  const MatmulMatch *mm = p->mm;
  evalReset(&p->ev);
  s->k = k, s->n = n;
  s->value = matmulWeightAt(mm, &p->ev, k, n).f;
  if (p->ev.error) {
    setReason(why, mm->view.op, "dequantisation: %s", p->ev.error);
    return false;
  }
  /* Distinct elements read: the codes and the scales, and at most one zero-point tensor (integer: the
   * smaller of two integer tensors; float: one of two float tensors, told apart by the arithmetic). */
  LeafRead ints[3], floats[3];
  int numInts = 0, numFloats = 0;
  for (int i = 0; i < p->ev.numReads; ++i) {
    LeafRead *r = &p->ev.reads[i];
    bool repeated = false; /* the same element read twice counts once */
    for (int j = 0; j < i; ++j)
      repeated |= valueEq(p->ev.reads[j].tensor, r->tensor) &&
                  memcmp(p->ev.reads[j].idx, r->idx, sizeof(int64_t) * (size_t)r->rank) == 0;
    if (repeated)
      continue;
    if (!mlirValueIsNull(p->data.groupIndex) && valueEq(r->tensor, p->data.groupIndex)) {
      /* a group index has one entry per row k: row k reads entry k, and nothing else */
      if (linearIndex(r->tensor, r->idx) != k) {
        setReason(why, mm->view.op,
                  "act-order: row k = %lld reads entry %lld of the runtime index tensor (a group index g_idx is read at k)",
                  (long long)k, (long long)linearIndex(r->tensor, r->idx));
        return false;
      }
      continue;
    }
    /* every distinct element read is counted (the remark below names the counts); the first three of each kind kept */
    if (intWidth(elementTypeOf(r->tensor)) > 0) {
      if (numInts < 3)
        ints[numInts] = *r;
      ++numInts;
    } else {
      if (numFloats < 3)
        floats[numFloats] = *r;
      ++numFloats;
    }
  }
  p->readNoCodesOrScales |= numInts == 0 || numFloats == 0;
  if (numInts < 1 || numInts > 2 || numFloats < 1 || numFloats > 2 || numInts + numFloats > 3) {
    setReason(why, mm->view.op,
              numFloats == 0 ? "no scale: weight element reads no float tensor"
                             : "weight element reads %d integer and %d float tensors (expected codes, scales and at "
                               "most one zero-point tensor)",
              numInts, numFloats);
    return false;
  }
  if (numInts == 2 && numElements(ints[1].tensor) > numElements(ints[0].tensor)) {
    LeafRead t = ints[0];
    ints[0] = ints[1], ints[1] = t;
  }
  /* Two float tensors in the roles the match gave them (resolveFloatRoles may have swapped the first read's) */
  if (numFloats == 2 && !mlirValueIsNull(p->dq->codes) && valueEq(floats[0].tensor, p->dq->zeroPoints)) {
    LeafRead t = floats[0];
    floats[0] = floats[1], floats[1] = t;
  }
  s->reads[0] = ints[0], s->reads[1] = floats[0];
  s->codeRead = &s->reads[0], s->scaleRead = &s->reads[1], s->zpRead = NULL;
  if (numInts == 2 || numFloats == 2) {
    s->reads[2] = numInts == 2 ? ints[1] : floats[1];
    s->zpRead = &s->reads[2];
  }
  if (mlirValueIsNull(p->dq->codes)) {
    p->dq->codes = s->codeRead->tensor, p->dq->scales = s->scaleRead->tensor;
    p->dq->zeroPoints = s->zpRead ? s->zpRead->tensor : (MlirValue){NULL};
  }
  if (!valueEq(p->dq->codes, s->codeRead->tensor) || !valueEq(p->dq->scales, s->scaleRead->tensor) ||
      (s->zpRead == NULL) != mlirValueIsNull(p->dq->zeroPoints) ||
      (s->zpRead && !valueEq(p->dq->zeroPoints, s->zpRead->tensor))) {
    setReason(why, mm->view.op, "weight elements read codes, scales or zero points from different tensors");
    return false;
  }
  s->group = mlirValueIsNull(p->data.groupIndex) ? -1 : actOrderGroup(k, p->data.groups);
  s->codeWord = syntheticLeaf(&p->ev, s->codeRead->tensor, s->codeRead->idx).bits;
  s->scale = syntheticLeaf(&p->ev, s->scaleRead->tensor, s->scaleRead->idx).f;
  if (s->zpRead)
    s->zpRaw = syntheticLeaf(&p->ev, s->zpRead->tensor, s->zpRead->idx);
  return true;
}

/* Number of leading dims of tensor (static, row-major) whose sizes multiply to `rows`, or 0 where none do (HQQ's
 * [N*K/64, 64] codes for an (N, K) layout): the rewrite then reshapes the tensor through one dim. */
int splitFor(MlirValue tensor, int64_t rows) {
  int64_t product = 1;
  for (int i = 1, r = rankOf(tensor); i <= r; ++i) { /* at least one dim: one row (K = G) is a (1, N) tensor */
    product *= dimOf(tensor, i - 1) < 0 ? -1 : dimOf(tensor, i - 1);
    if (product == rows)
      return i;
  }
  return 0;
}

/* code(k, n) of every sample under dq's weight layout. */
static void decodeCodes(const MatmulMatch *mm, const DequantMatch *dq, Sample *samples, int count) {
  for (int i = 0; i < count; ++i) {
    int nibble;
    w4a16_code_element(dq->weightLayout, samples[i].k, samples[i].n, mm->K, mm->N, &nibble);
    samples[i].code = (int64_t)((samples[i].codeWord >> (4 * nibble)) & 15);
  }
}

/* Layouts whose elements the samples read alike, told apart by the order of the nibbles inside a word or
 * byte: AWQ's order along N, the even k in the high nibble of a byte, the first half of N in the low one. The
 * arithmetic decides (matchDequant). */
static w4a16_weight_layout otherNibbleOrder(w4a16_weight_layout layout) {
  switch (layout) {
  case W4A16_WEIGHT_PACKED_K_N8: return W4A16_WEIGHT_PACKED_K_N8_AWQ;
  case W4A16_WEIGHT_PACKED_N_K2: return W4A16_WEIGHT_PACKED_N_K2_HI;
  case W4A16_WEIGHT_PACKED_K2_N: return W4A16_WEIGHT_PACKED_K2_N_HI;
  case W4A16_WEIGHT_HALVES_N_K: return W4A16_WEIGHT_HALVES_N_K_LO;
  default: return layout;
  }
}

/* Whether layout is another's second nibble order (tried by matchDequant after that one, never picked here). */
static bool isSecondNibbleOrder(w4a16_weight_layout layout) {
  for (int first = 0; first < W4A16_WEIGHT_LAYOUT_COUNT; ++first)
    if (first != (int)layout && otherNibbleOrder((w4a16_weight_layout)first) == layout)
      return true;
  return false;
}

/* Where code(k, n) is stored decides weight_layout (contract.h's table: the layout whose element index every
 * sample read; the nibble order, where two layouts share the positions, is told by the arithmetic later); the
 * packed form is docs/contract.md §1's (K/8, N) i32. */
static bool matchCodesLayout(const MatmulMatch *mm, DequantMatch *dq, const Sample *samples, int count, Reason *why) {
  MlirValue codes = dq->codes;
  const int width = intWidth(elementTypeOf(codes));
  if (numElements(codes) < 0) {
    setReason(why, mm->view.op, "quantised weight has a dynamic shape");
    return false;
  }
  /* The op stores codes as they are: i4 or i8 elements (one or two codes each) or i32 words. Narrower codes (i3,
   * i2: 3- and 2-bit quantisation) would fuse into an op the verifier rejects. */
  if (width != 4 && width != 8 && width != 32) {
    char name[32];
    setReason(why, mm->view.op, "%s codes: the fused op stores codes as i4 or i8 elements or i32 words (%s)",
              typeName(elementTypeOf(codes), name, sizeof name),
              width < 4 ? "codes narrower than 4 bits are not supported" : "widen or pack them first");
    return false;
  }
  for (int layout = 0; layout < W4A16_WEIGHT_LAYOUT_COUNT; ++layout) {
    const w4a16_code_container container = w4a16_weight_container(layout);
    const bool fits = container == W4A16_CODES_IN_WORDS        ? width == 32
                      : container == W4A16_CODES_IN_BYTE_PAIRS ? width == 8
                                                               : width <= 8;
    if (!fits || isSecondNibbleOrder((w4a16_weight_layout)layout) ||
        (layout == W4A16_WEIGHT_PACKED_K_N8 && mm->N % 8 != 0))
      continue;
    int64_t rows, cols;
    w4a16_weight_shape(layout, mm->K, mm->N, &rows, &cols);
    bool every = numElements(codes) == rows * cols;
    for (int i = 0; i < count && every; ++i) {
      int nibble;
      every = linearIndex(codes, samples[i].codeRead->idx) ==
              w4a16_code_element(layout, samples[i].k, samples[i].n, mm->K, mm->N, &nibble);
    }
    if (!every || (container == W4A16_CODES_IN_WORDS && (rankOf(codes) != 2 || dimOf(codes, 0) != rows)))
      continue;
    dq->weightLayout = (w4a16_weight_layout)layout;
    dq->codesSplit = container == W4A16_CODES_IN_WORDS ? 1 : splitFor(codes, rows);
    return true;
  }
  char name[32];
  setReason(why, mm->view.op,
            width == 32 ? "packed %s codes are not laid out as (K/8, N), (K, N/8) or (N, K/8) words"
                        : "%s codes are not laid out as (K, N) or (N, K), nor two per byte as (N, K/2), (K/2, N), "
                          "GGML Q4_0 blocks or (N, K)'s halves",
            typeName(elementTypeOf(codes), name, sizeof name));
  return false;
}

/* The K distance over which the scale index stays the same (0 if it never changes). */
static int64_t observedGroupSize(DequantEval *p, Reason *why) {
  Sample first, s;
  Reason ignore = {0};
  if (!evalSample(p, 0, 0, &first, &ignore))
    return -1;
  int64_t firstIdx = linearIndex(p->dq->scales, first.scaleRead->idx);
  (void)why;
  for (int64_t k = 1; k < p->mm->K && k <= 4096; ++k) {
    if (!evalSample(p, k, 0, &s, &ignore))
      return -1;
    if (linearIndex(p->dq->scales, s.scaleRead->idx) != firstIdx)
      return k;
  }
  return 0;
}

enum { kMaxSampleK = 32, kMaxSampleN = 16 }; /* the sample grid's rows and columns (matchSampleGrid) */

static bool matchScalesLayout(DequantEval *p, const Sample *samples, int count, Reason *why) {
  const MatmulMatch *mm = p->mm;
  DequantMatch *dq = p->dq;
  MlirValue scales = dq->scales;
  /* The largest supported G whose (K/G, N) or (N, K/G) indexing every sample reads (under act-order, the G
   * that g_idx's range implies). */
  static const int64_t kGroupSizes[] = {128, 64, 32};
  const int64_t actOrderG[] = {dq->groupSize};
  const int64_t *candidates = mlirValueIsNull(dq->groupIndex) ? kGroupSizes : actOrderG;
  const size_t numCandidates = mlirValueIsNull(dq->groupIndex) ? sizeof kGroupSizes / sizeof kGroupSizes[0] : 1;
  bool gn = false, ng = false, dependsOnK = false, dependsOnN = false;
  int64_t groups = 0, linear[kMaxSampleK * kMaxSampleN]; /* each sample's scale element, read once */
  for (int i = 0; i < count; ++i)
    linear[i] = linearIndex(scales, samples[i].scaleRead->idx);
  for (size_t c = 0; c < numCandidates && !gn && !ng; ++c) {
    const int64_t G = candidates[c];
    if (mm->K % G != 0)
      continue;
    gn = ng = true, groups = mm->K / G, dq->groupSize = G;
    for (int i = 0; i < count; ++i) {
      const int64_t g = groupOf(&samples[i], G);
      gn &= linear[i] == w4a16_scale_element(W4A16_SCALES_G_N, g, samples[i].n, groups, mm->N);
      ng &= linear[i] == w4a16_scale_element(W4A16_SCALES_N_G, g, samples[i].n, groups, mm->N);
    }
  }
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j) {
      dependsOnK |= samples[j].n == samples[i].n && samples[j].k != samples[i].k && linear[j] != linear[i];
      dependsOnN |= samples[j].k == samples[i].k && samples[j].n != samples[i].n && linear[j] != linear[i];
    }
  if (numElements(scales) >= 0 && (gn || ng)) {
    char name[32];
    if (!w4a16IsScalesType(elementTypeOf(scales))) {
      setReason(why, mm->view.op, "scales are %s, expected f16 or bf16", typeName(elementTypeOf(scales), name, sizeof name));
      return false;
    }
    dq->scalesLayout = gn ? W4A16_SCALES_G_N : W4A16_SCALES_N_G;
    dq->scalesSplit = splitFor(scales, gn ? groups : mm->N);
    return true;
  }
  if (!dependsOnK && !dependsOnN) {
    setReason(why, mm->view.op, "one scale for the whole weight (per-tensor quantisation, no K groups)");
    return false;
  }
  if (!dependsOnK) {
    setReason(why, mm->view.op, "scale per column (one scale per output column, no K groups)");
    return false;
  }
  if (!dependsOnN) {
    setReason(why, mm->view.op, "scale per row (scale does not depend on the output column)");
    return false;
  }
  int64_t group = observedGroupSize(p, why);
  if (group > 0 && !w4a16_group_size_supported(group))
    setReason(why, mm->view.op, "group size %lld, expected 32, 64 or 128", (long long)group);
  else if (group > 0 && mm->K % group != 0)
    setReason(why, mm->view.op, "group size %lld does not divide K = %lld", (long long)group, (long long)mm->K);
  else
    setReason(why, mm->view.op, "scales are not laid out as (K/G, N) or (N, K/G) with G = 32, 64 or 128");
  return false;
}

/* value == (code - z) * scale at every sample, z a zero-point tensor's element (matchZeroPoints checked it)
 * or one constant exact in f16 (8 normally); otherwise name the most likely mistake. */
static bool matchArithmetic(const MatmulMatch *mm, DequantMatch *dq, const Sample *samples, int count, Reason *why) {
  if (!mlirValueIsNull(dq->zeroPoints))
    return true;
  bool exact = true, sameZero = true, signedCodes = true, msbFirst = true;
  double zero = 0;
  for (int i = 0; i < count; ++i) {
    const Sample *s = &samples[i];
    int64_t code = s->code;
    double q = s->value / s->scale, tolerance = 1e-9 * (1 + fabs(s->value));
    exact &= fabs(s->value - (double)(code - kZeroPoint) * s->scale) <= tolerance;
    double z = (double)code - q;
    if (i == 0)
      zero = z;
    sameZero &= fabs(z - zero) <= 1e-6;
    signedCodes &= fabs(q - (double)(code >= 8 ? code - 16 : code)) <= 1e-6;
    int64_t msb = (int64_t)((s->codeWord >> (4 * (7 - s->k % 8))) & 15);
    msbFirst &= (dq->weightLayout == W4A16_WEIGHT_PACKED_K8_N || dq->weightLayout == W4A16_WEIGHT_PACKED_N_K8) &&
                fabs(q - (double)(msb - kZeroPoint)) <= 1e-6;
  }
  dq->zeroPoint = kZeroPoint;
  if (exact)
    return true;
  /* Any other constant zero point: the runtime takes it exactly where f16 holds it exactly. */
  if (sameZero && fabs(zero) <= 64 && zero * 8 == round(zero * 8)) {
    dq->zeroPoint = zero;
    return true;
  }
  /* Two's-complement i4 values s: s * scale is (code XOR 8 - 8) * scale, the symmetric form. */
  if (signedCodes) {
    dq->signedCodes = true;
    return true;
  }
  if (msbFirst)
    setReason(why, mm->view.op, "nibbles unpacked most-significant first; expected least-significant first");
  else if (sameZero)
    setReason(why, mm->view.op, "zero point %g: a constant zero point must be a multiple of 1/8 within [-64, 64]", zero);
  else
    setReason(why, mm->view.op, "dequantisation computes something other than (code - 8) * scale");
  return false;
}

/* Whether `tensor` is stored data -- a function argument, a constant or a global's value (an op without
 * tensor operands) -- rather than computed in the function by an op the evaluator does not see through
 * (tensor.insert_slice concatenating unpacked halves, say). The runtime prepares a weight once from its
 * stored bytes; one recomputed on every call would be a new weight each time. */
static bool storedData(DequantEval *p, MlirValue tensor, const char *what, Reason *why) {
  MlirOperation op = producer(tensor);
  if (mlirOperationIsNull(op))
    return true;
  if (p->data.windowsAsLeaves && isWindowSlice(op)) /* a window of stored data is stored data */
    return storedData(p, mlirOperationGetOperand(op, 0), what, why);
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (mlirTypeIsATensor(mlirValueGetType(mlirOperationGetOperand(op, i)))) {
      char name[64];
      setReason(why, p->mm->view.op, "%s are computed by %s, which the matcher does not see through (they must be "
                                     "stored data: a function argument, a constant or a global)",
                what, opName(op, name, sizeof name));
      return false;
    }
  return true;
}

/* Whether the chain uses more of an unpacked code element than its low 4 bits (an i8 tensor of 8-bit
 * codes, say): the weight's value changes when only the elements' high bits do. Packed words are read
 * nibble by nibble (decodeCodes), i4 elements have nothing above their nibble. */
static bool codesWiderThan4Bits(DequantEval *p, const Sample *samples, int count, Reason *why) {
  const int width = intWidth(elementTypeOf(p->dq->codes));
  if (width <= 4 || w4a16_weight_container(p->dq->weightLayout) != W4A16_CODES_ONE_PER_ELEMENT)
    return false;
  p->data.reroll = p->dq->codes;
  bool wider = false;
  for (int i = 0; i < count && !wider; ++i) {
    Sample again;
    Reason ignore = {0};
    wider = !evalSample(p, samples[i].k, samples[i].n, &again, &ignore) || again.value != samples[i].value;
  }
  p->data.reroll = (MlirValue){NULL};
  if (wider) {
    char name[32];
    setReason(why, p->mm->view.op,
              "codes wider than 4 bits: the %s code element is used whole (a 4-bit code is its low nibble, masked, "
              "or an i4)",
              typeName(elementTypeOf(p->dq->codes), name, sizeof name));
  }
  return wider;
}

/* After a match that read a constant index table (a g_idx = k / G given as data, a table of nibble positions), a
 * runtime g_idx, or positions computed in ways the samples can miss (irregularPositions): every k and every column,
 * not only the sampled ones, must read the code, scale (and zero point) of its element and compute the matched form
 * from them -- a table with one wrong entry passed the samples and fused. K + N evaluations, only for such chains. */
static bool everyRowAndColumnReadsItsElements(DequantEval *p, Reason *why) {
  const MatmulMatch *mm = p->mm;
  const DequantMatch *dq = p->dq;
  const int64_t G = dq->groupSize, N = mm->N;
  const char *cause = p->irregularPositions ? "integer arithmetic on positions" : "a constant index table";
  /* Every k at column 0, then every column at k = 0: a table that differs from the plain index at one row or
   * column passes any sample of them. */
  for (int64_t i = 0; i < mm->K + N; ++i) {
    const int64_t k = i < mm->K ? i : 0, n = i < mm->K ? 0 : i - mm->K;
    Sample s;
    p->ev.budget = kElementEvalBudget;
    if (!evalSample(p, k, n, &s, why))
      return false;
    const int64_t g = groupOf(&s, G);
    int nibble;
    const bool codeOk = linearIndex(dq->codes, s.codeRead->idx) ==
                        w4a16_code_element(dq->weightLayout, k, n, mm->K, N, &nibble);
    const bool scaleOk =
        linearIndex(dq->scales, s.scaleRead->idx) == w4a16_scale_element(dq->scalesLayout, g, n, mm->K / G, N);
    const int64_t zpWant = w4a16_zp_element(dq->zpLayout, g, n, mm->K / G, N, &nibble);
    const bool zpOk = !s.zpRead || linearIndex(dq->zeroPoints, s.zpRead->idx) == zpWant;
    if (!codeOk) {
      setReason(why, mm->view.op, "%s reads the code of (k = %lld, n = %lld) from another element", cause,
                (long long)k, (long long)n);
      return false;
    }
    if (!scaleOk || !zpOk) {
      if (mlirValueIsNull(dq->groupIndex))
        setReason(why, mm->view.op,
                  "%s maps (k = %lld, n = %lld) to another group or column than (k / G = %lld, n) (%s)", cause,
                  (long long)k, (long long)n, (long long)g, scaleOk ? "zero points" : "scales");
      else
        setReason(why, mm->view.op, "act-order: row k = %lld reads the %s of another group than g_idx[k]", (long long)k,
                  scaleOk ? "zero points" : "scales");
      return false;
    }
    decodeCodes(mm, dq, &s, 1);
    const double want = matchedWeight(mm, dq, &s);
    if (fabs(s.value - want) > 1e-6 * (1 + fabs(want))) {
      setReason(why, mm->view.op,
                "%s changes what (k = %lld, n = %lld) computes: %g where the matched form gives %g "
                "(another nibble of the word, or another constant)",
                cause, (long long)k, (long long)n, s.value, want);
      return false;
    }
  }
  return true;
}

/* What a failed match saw that may be act-order's group index: a runtime tensor an index was read from, with the
 * size of the dim it indexed, or a constant integer table of more than 16 elements evaluated as indices; and whether
 * it took tensor constants by value (matchDequant's second try). */
typedef struct GroupIndexSeen {
  MlirValue runtime, indexed; /* the runtime tensor an index was read from, the tensor that index read */
  int64_t range;
  MlirValue constantTable;
  bool noCodesOrScales; /* no integer or no float tensor read: the codes or scales were a constant taken by value */
  bool constants;       /* a tensor constant was taken by value */
  bool scalesLaidOut;   /* the scales read followed a layout of (group, column) */
  bool windows;         /* a window of a larger tensor was read through (isWindowSlice) */
} GroupIndexSeen;

/* Whether a body the chain was evaluated through (a producer, or the contraction computing its weight) does integer
 * arithmetic on positions that the samples cannot vouch for (bodyHasIrregularPositionArithmetic). */
static bool irregularPositions(DequantEval *p) {
  LinalgView view;
  if (!mlirValueIsNull(p->mm->weightInBody) && bodyHasIrregularPositionArithmetic(&p->mm->view))
    return true;
  for (int i = 0; i < p->ev.numTouched; ++i)
    if (linalgView(p->ev.touched[i], &view) && bodyHasIrregularPositionArithmetic(&view))
      return true;
  return false;
}

/* The match of p's chain on the grid of samples (matchSamples). */
static bool matchSampleGrid(DequantEval *p, Sample *samples, Reason *why) {
  const MatmulMatch *mm = p->mm;
  DequantMatch *dq = p->dq;
  const MlirValue groupIndex = p->data.groupIndex;
  /* Edges of words and groups, every position in a word of 8 nibbles along both axes (a layout, zero-point
   * packing or unpack shift is checked at each of them: one nibble position sampled only by chance let a
   * mutated shift fuse as the plain unpack), plus scattered points. */
  int64_t ks[kMaxSampleK], ns[kMaxSampleN];
  int numK = 0, numN = 0;
  const int64_t kEdges[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 31, 32, 63, 64, 95, 96, 127, 128, 129, 255, 256, 383};
  for (size_t i = 0; i < sizeof kEdges / sizeof kEdges[0]; ++i)
    if (kEdges[i] < mm->K)
      ks[numK++] = kEdges[i];
  for (uint64_t i = 0; i < 5; ++i)
    ks[numK++] = (int64_t)(mix64(i) % (uint64_t)mm->K);
  ks[numK++] = mm->K - 1;
  const int64_t nEdges[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, mm->N - 1};
  for (size_t i = 0; i < sizeof nEdges / sizeof nEdges[0]; ++i)
    if (nEdges[i] < mm->N)
      ns[numN++] = nEdges[i];
  ns[numN++] = (int64_t)(mix64(99) % (uint64_t)mm->N);

  int count = 0;
  for (int i = 0; i < numK; ++i)
    for (int j = 0; j < numN; ++j) {
      if (!evalSample(p, ks[i], ns[j], &samples[count++], why))
        return false;
    }
  if (!storedData(p, dq->codes, "codes", why) || !storedData(p, dq->scales, "scales", why) ||
      (!mlirValueIsNull(dq->zeroPoints) && !storedData(p, dq->zeroPoints, "zero points", why)) ||
      (!mlirValueIsNull(groupIndex) && !storedData(p, groupIndex, "the group indices (g_idx)", why)) ||
      !matchCodesLayout(mm, dq, samples, count, why) || codesWiderThan4Bits(p, samples, count, why))
    return false;
  /* Two codes per byte: sampled again with random bytes, so that the arithmetic sees both nibbles vary (the
   * codes' elements were 0..15, which left every high nibble 0). */
  if (w4a16_weight_container(dq->weightLayout) == W4A16_CODES_IN_BYTE_PAIRS) {
    p->data.bytePairs = dq->codes;
    for (int i = 0; i < count; ++i)
      if (!evalSample(p, samples[i].k, samples[i].n, &samples[i], why))
        return false;
  }
  /* Words packed along N hold their columns in sequential or AWQ order, bytes their even k in the low or the
   * high nibble: the order whose codes make the arithmetic exact is the layout (each try on a fresh copy of
   * the samples: resolveFloatRoles edits them). */
  const w4a16_weight_layout orders[2] = {dq->weightLayout, otherNibbleOrder(dq->weightLayout)};
  Sample *attempt = malloc(sizeof(Sample) * (size_t)count);
  bool matched = false;
  if (!attempt) {
    setReason(why, mm->view.op, "out of memory");
    return false;
  }
  for (int order = 0; order < (orders[1] != orders[0] ? 2 : 1) && !matched; ++order) {
    Reason orderWhy = {0};
    memcpy(attempt, samples, sizeof(Sample) * (size_t)count);
    for (int i = 0; i < count; ++i) /* the copies' read pointers point into themselves */
      attempt[i].codeRead = &attempt[i].reads[0], attempt[i].scaleRead = &attempt[i].reads[1],
      attempt[i].zpRead = samples[i].zpRead ? &attempt[i].reads[2] : NULL;
    const DequantMatch before = *dq;
    dq->weightLayout = orders[order];
    decodeCodes(mm, dq, attempt, count);
    matched = resolveFloatRoles(mm, dq, attempt, count, order ? &orderWhy : why) &&
              (p->scalesLaidOut = matchScalesLayout(p, attempt, count, order ? &orderWhy : why)) &&
              matchZeroPoints(mm, dq, attempt, count, order ? &orderWhy : why) &&
              matchArithmetic(mm, dq, attempt, count, order ? &orderWhy : why);
    if (!matched) {
      OpSet producers = dq->producers;
      *dq = before, dq->producers = producers;
    }
  }
  free(attempt);
  if (!matched)
    return false;
  p->irregularPositions = mlirValueIsNull(p->ev.indexTable) && mlirValueIsNull(groupIndex) && irregularPositions(p);
  if ((!mlirValueIsNull(p->ev.indexTable) || !mlirValueIsNull(groupIndex) || p->irregularPositions) &&
      !everyRowAndColumnReadsItsElements(p, why))
    return false;

  /* Other users of the weight (none where it is computed in the contraction's body) keep the dequantisation: the
   * fused op reads the codes, and the producers are erased only once dead (eraseDeadOps, which also reroutes
   * shape queries of the weight). */
  dq->weightOtherUsers = mm->weightInput >= 0 ? dataUserCount(linalgInput(&mm->view, mm->weightInput)) - 1 : 0;
  for (int i = 0; i < p->ev.numTouched; ++i)
    opSetAdd(&dq->producers, p->ev.touched[i]);
  return true;
}

/* The match of p's chain, its evaluator set up (matchDequantAs). */
static bool matchSamples(DequantEval *p, Reason *why) {
  Sample *samples = malloc(sizeof(Sample) * kMaxSampleK * kMaxSampleN);
  if (!samples) {
    setReason(why, p->mm->view.op, "out of memory");
    return false;
  }
  const bool matched = matchSampleGrid(p, samples, why);
  free(samples);
  return matched;
}

/* The match with row k in group k / G (groupIndex null), or in group groupIndex[k] of `groups` (act-order);
 * constantLeaves: tensor constants are leaves, not values; windowLeaves: windows of larger tensors are leaves.
 * *seen says what it read that may be a group index. */
static bool matchDequantAs(const MatmulMatch *mm, DequantMatch *dq, MlirValue groupIndex, int64_t groups,
                           bool constantLeaves, bool windowLeaves, GroupIndexSeen *seen, Reason *why) {
  memset(dq, 0, sizeof *dq);
  DequantEval p = {.mm = mm, .dq = dq};
  p.data.windowsAsLeaves = windowLeaves;
  evalInit(&p.ev, constantLeaves ? constantsSeeThrough : dequantSeeThroughNoting, syntheticLeaf, &p.data);
  p.ev.indicesFromConstantsOnly = true;
  p.ev.positionInvariantConditions = true;
  p.ev.groupIndex = p.data.groupIndex = dq->groupIndex = groupIndex;
  p.data.groups = groups;
  dq->groupSize = groups > 0 ? mm->K / groups : 0;
  const bool matched = matchSamples(&p, why);
  *seen = (GroupIndexSeen){p.ev.runtimeIndex, p.ev.runtimeIndexed, p.ev.runtimeIndexRange, p.ev.indexTable,
                           p.readNoCodesOrScales, p.data.constants, p.scalesLaidOut, p.data.windows};
  return matched;
}

/* Whether the runtime tensor an index was read from can be act-order's group index: K integers selecting
 * among K / G groups (the `groups` rows of `indexed`, the tensor it was read to index), G one the runtime takes. */
static bool groupIndexCandidate(const MatmulMatch *mm, MlirValue tensor, MlirValue indexed, int64_t groups,
                                Reason *why) {
  char type[48];
  typeName(mlirValueGetType(tensor), type, sizeof type);
  if (numElements(tensor) != mm->K) {
    setReason(why, mm->view.op, "an index is read from a runtime tensor (%s) that is no group index: a group index "
                                "(act-order g_idx) has one entry per row, K = %lld", type, (long long)mm->K);
    return false;
  }
  if (groups <= 0 || mm->K % groups != 0 || !w4a16_group_size_supported(mm->K / groups)) {
    char target[48];
    if (mlirValueIsNull(indexed)) /* a constant table */
      setReason(why, mm->view.op, "act-order: a constant g_idx (%s) holds %lld groups: not groups of 32, 64 or 128 of "
                                  "K = %lld", type, (long long)groups, (long long)mm->K);
    else
      setReason(why, mm->view.op, "an index read from a runtime tensor (%s) picks among the %lld rows of a %s: as "
                                  "act-order's g_idx into the scales or zero points, not groups of 32, 64 or 128 of "
                                  "K = %lld", type, (long long)groups,
                typeName(mlirValueGetType(indexed), target, sizeof target), (long long)mm->K);
    return false;
  }
  if (intWidth(elementTypeOf(tensor)) != 32) {
    setReason(why, mm->view.op, "act-order: g_idx is %s; the runtime takes i32 group indices (GPTQ's g_idx)", type);
    return false;
  }
  return true;
}

/* Whether a constant table the chain read as indices is act-order's g_idx frozen into the IR (torch.export with
 * buffers folded): K entries, not k / G, every group 0 .. groups - 1 holding K / groups rows (*groups: their
 * number). A table of k / G is not (the chain failed for another reason); one with groups of unequal size gets a
 * reason, since the runtime would refuse it when preparing the weight. */
static bool constantGroupIndex(const MatmulMatch *mm, MlirValue table, int64_t *groups, Reason *why) {
  const int64_t K = mm->K;
  if (rankOf(table) != 1 || numElements(table) != K)
    return false;
  int64_t *group = malloc(sizeof(int64_t) * (size_t)K), *rows = calloc((size_t)K, sizeof(int64_t));
  bool valid = group && rows;
  *groups = 0;
  for (int64_t k = 0; k < K && valid; ++k) {
    Scalar v;
    valid = constantIntElement(table, &k, &v) && scalarSigned(v) >= 0 && scalarSigned(v) < K;
    group[k] = valid ? scalarSigned(v) : 0;
    ++rows[group[k]];
    *groups = group[k] >= *groups ? group[k] + 1 : *groups;
  }
  int64_t unequal = -1; /* the first group without K / groups rows */
  for (int64_t g = 0; g < *groups && valid && unequal < 0; ++g)
    unequal = K % *groups != 0 || rows[g] != K / *groups ? g : -1;
  bool identity = valid && unequal < 0;
  for (int64_t k = 0; k < K && identity; ++k)
    identity = group[k] == k / (K / *groups);
  if (valid && unequal >= 0) {
    *why = (Reason){{0}, {NULL}};
    setReason(why, mm->view.op, "act-order: a constant g_idx puts %lld rows in group %lld of %lld: every group must hold "
                                "as many (K / groups)", (long long)rows[unequal], (long long)unequal, (long long)*groups);
  }
  free(group);
  free(rows);
  return valid && unequal < 0 && !identity;
}

bool matchDequant(const MatmulMatch *mm, DequantMatch *dq, Reason *why) {
  GroupIndexSeen seen = {{NULL}, {NULL}, 0, {NULL}, false, false, false, false};
  if (matchDequantAs(mm, dq, (MlirValue){NULL}, 0, false, false, &seen, why))
    return true;
  /* Codes, scales or zero points read through a window of a larger tensor (a tensor-parallel shard, one half of a
   * fused projection) were laid out as the whole tensor's positions: evaluated again with the windows as the stored
   * tensors, which the op takes as they are (the runtime reads a window through its strides). Only then, so that
   * slices that make up one tensor (HQQ's halves) are still read through. The reason, if that fails too, is the
   * first try's. */
  if (seen.windows) {
    Reason again = {{0}, {NULL}};
    GroupIndexSeen seenAgain;
    if (matchDequantAs(mm, dq, (MlirValue){NULL}, 0, false, true, &seenAgain, &again))
      return true;
  }
  /* Codes or scales that are a constant of one value (a splat: a placeholder checkpoint, or a frontend's folding)
   * were taken by value, so they were not read as tensors (nothing was, or the zero points were taken for the
   * codes): evaluated again with tensor constants as tensors. Only then, so that a splat zero-point tensor stays
   * the constant zero point it is. The reason, if that fails too, is the second try's where the first read no
   * codes or no scales at all. */
  if (seen.constants) {
    Reason again = {{0}, {NULL}};
    GroupIndexSeen seenAgain;
    if (matchDequantAs(mm, dq, (MlirValue){NULL}, 0, true, false, &seenAgain, &again))
      return true;
    if (seen.noCodesOrScales) {
      *why = again;
      return false;
    }
  }
  /* An index read from a runtime tensor, or a constant table of indices other than k / G: evaluated again with
   * that tensor as act-order's g_idx, holding group numbers; the match holds if every row reads the scales and
   * zero points of group g_idx[k]. The reason, if not, is that of this second try. */
  MlirValue candidate = seen.runtime;
  int64_t groups = seen.range;
  if (mlirValueIsNull(candidate) && !mlirValueIsNull(seen.constantTable)) {
    if (!constantGroupIndex(mm, seen.constantTable, &groups, why))
      return false;
    candidate = seen.constantTable;
  }
  if (mlirValueIsNull(candidate))
    return false;
  const Reason plain = *why;
  const bool constantTable = valueEq(candidate, seen.constantTable);
  *why = (Reason){{0}, {NULL}};
  if (groupIndexCandidate(mm, candidate, seen.indexed, groups, why) &&
      matchDequantAs(mm, dq, candidate, groups, false, false, &seen, why))
    return true;
  /* A constant table whose entries do not pick the scales' groups (a table of nibble positions, of rows of the
   * codes) is no g_idx: the plain match's reason says what it changes. */
  if (constantTable && !seen.scalesLaidOut)
    *why = plain;
  return false;
}
