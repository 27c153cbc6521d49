/* The zero point of the chain's dequantisation, W = (code - z(g, n)) * scale(g, n) (+- m(g, n)): with two float
 * tensors read, which one is the scale and whether the other is a zero point subtracted from the codes or an offset
 * added or subtracted after scaling; then how the zero-point tensor keeps z(g, n) (contract.h's layouts, plus GPTQ
 * v1's + 1) -- both read off the samples match_dequant.c evaluated. */
#include "match_dequant.h"

#include <math.h>

/* What the zero-point tensor's element must be at sample s: the zero point code - value / scale, or in the
 * offset form the offset +-(value - (code - zeroPoint) * scale). */
static double zeroAt(const DequantMatch *dq, const Sample *s) {
  if (dq->offsets)
    return (dq->offsetsSubtracted ? -1 : 1) * (s->value - ((double)s->code - dq->zeroPoint) * s->scale);
  return (double)s->code - s->value / s->scale;
}

/* The two float tensors trade roles: the scale becomes the zero-point (or offset) tensor and back. */
static void swapFloatRoles(DequantMatch *dq, Sample *samples, int count) {
  for (int i = 0; i < count; ++i) {
    Sample *s = &samples[i];
    const LeafRead t = s->reads[1];
    const double scale = s->zpRaw.f;
    s->reads[1] = s->reads[2], s->reads[2] = t;
    s->zpRaw = floatScalar(s->scale), s->scale = scale;
  }
  const MlirValue t = dq->scales;
  dq->scales = dq->zeroPoints, dq->zeroPoints = t;
}

/* With two float tensors read, which is the scale: with the right choice, code - value / scale equals the
 * other tensor's element (the zero point) at every sample. */
bool resolveFloatRoles(const MatmulMatch *mm, DequantMatch *dq, Sample *samples, int count, Reason *why) {
  if (mlirValueIsNull(dq->zeroPoints) || intWidth(elementTypeOf(dq->zeroPoints)) > 0)
    return true;
  for (int swap = 0; swap < 2; ++swap) {
    bool ok = true;
    for (int i = 0; i < count && ok; ++i) {
      const Sample *s = &samples[i];
      const double scale = swap ? s->zpRaw.f : s->scale, zp = swap ? s->scale : s->zpRaw.f;
      const double z = (double)s->code - s->value / scale;
      ok = fabs(z - zp) <= 1e-6 * (1 + fabs(z));
    }
    if (!ok)
      continue;
    if (swap) {
      swapFloatRoles(dq, samples, count);
    }
    return true;
  }
  /* The offset form: value = (code - z) * scale +- m, z = 0 (GGUF Q4_1's d * q + m; optimum-quanto's scale * q -
   * shift) or 8 (torchao). */
  for (int sign = 1; sign >= -1; sign -= 2)
    for (int swap = 0; swap < 2; ++swap)
      for (int z = 0; z <= 8; z += 8) {
        bool ok = true;
        for (int i = 0; i < count && ok; ++i) {
          const Sample *s = &samples[i];
          const double scale = swap ? s->zpRaw.f : s->scale, m = swap ? s->scale : s->zpRaw.f;
          const double want = ((double)s->code - z) * scale + sign * m;
          ok = fabs(s->value - want) <= 1e-9 * (1 + fabs(want));
        }
        if (!ok)
          continue;
        if (swap) {
          swapFloatRoles(dq, samples, count);
        }
        dq->offsets = true, dq->offsetsSubtracted = sign < 0, dq->zeroPoint = z;
        return true;
      }
  setReason(why, mm->view.op,
            "reads two float tensors, neither of them a zero point subtracted from the codes or an offset added or "
            "subtracted");
  return false;
}

/* Whether a zero-point tensor of element width `width` can be in `layout` (packed layouts need their word or byte). */
static bool fitsLayout(int layout, int width, int64_t N) {
  const int packedIn = w4a16_zp_container_bits(layout);
  return !packedIn || (width == packedIn && (packedIn != 32 || N % 8 == 0));
}

/* Whether every sample reads the element `layout` keeps z(group, n) in. */
static bool readsLayout(MlirValue zp, int layout, const Sample *samples, int count, int64_t G, int64_t groups,
                        int64_t N) {
  for (int i = 0; i < count; ++i) {
    int nibble;
    if (linearIndex(zp, samples[i].zpRead->idx) !=
        w4a16_zp_element(layout, groupOf(&samples[i], G), samples[i].n, groups, N, &nibble))
      return false;
  }
  return true;
}

static void takeLayout(DequantMatch *dq, int layout, int64_t offset, bool wraps, int64_t groups, int64_t N) {
  int64_t rows, cols;
  dq->zpLayout = (w4a16_zero_point_layout)layout, dq->zpOffset = offset, dq->zpWraps = wraps;
  w4a16_zp_shape(layout, groups, N, &rows, &cols);
  dq->zpSplit = splitFor(dq->zeroPoints, rows);
}

/* A 4-bit value read as two's complement. */
static int64_t signed4(int64_t v) { return (v & 15) >= 8 ? (v & 15) - 16 : v & 15; }

/* The zero point sample s read in `layout` (zero-point element width `width`, 0 for floats), plus `offset`, taken
 * mod 16 where it `wraps`. An unpacked i32 is signed, as the runtime reads it (torch-mlir's int32 zeros: sitofp). */
static double storedZero(const MatmulMatch *mm, int64_t G, int layout, int width, int64_t offset, bool wraps,
                         const Sample *s) {
  int nibble;
  w4a16_zp_element(layout, groupOf(s, G), s->n, mm->K / G, mm->N, &nibble);
  double z = !width        ? s->zpRaw.f
             : nibble >= 0 ? (double)((s->zpRaw.bits >> (4 * nibble)) & 15)
             : width == 32 ? (double)scalarSigned(s->zpRaw)
                           : (double)s->zpRaw.bits;
  return wraps ? fmod(z + (double)offset, 16.0) : z + (double)offset;
}

/* The two's-complement 4-bit zero point sample s read in `layout` (a nibble of a packed element, or an i4). */
static int64_t storedSignedZero(const MatmulMatch *mm, int64_t G, int layout, const Sample *s) {
  int nibble;
  w4a16_zp_element(layout, groupOf(s, G), s->n, mm->K / G, mm->N, &nibble);
  return signed4((int64_t)(nibble >= 0 ? s->zpRaw.bits >> (4 * nibble) : s->zpRaw.bits));
}

/* How the zero-point tensor holds z(g, n): the layout whose index rule every read follows and whose decoding,
 * plus an offset of 0 or 1 (GPTQ's v1 format stores z - 1), gives the zero point the arithmetic implies. */
bool matchZeroPoints(const MatmulMatch *mm, DequantMatch *dq, const Sample *samples, int count, Reason *why) {
  if (mlirValueIsNull(dq->zeroPoints))
    return true;
  const MlirValue zp = dq->zeroPoints;
  const int64_t G = dq->groupSize, groups = mm->K / G, N = mm->N;
  const int width = intWidth(elementTypeOf(zp));
  if (numElements(zp) < 0) {
    setReason(why, mm->view.op, "zero points have a dynamic shape");
    return false;
  }
  const MlirType zpType = elementTypeOf(zp);
  if (!w4a16IsZeroPointType(zpType)) {
    char name[32];
    setReason(why, mm->view.op, "zero points are %s, expected i4, i8, i32, f16, bf16 or f32 (what the runtime reads)",
              typeName(zpType, name, sizeof name));
    return false;
  }
  bool anyIndexRule = false;
  for (int layout = 0; layout < W4A16_ZP_LAYOUT_COUNT; ++layout) {
    if (!fitsLayout(layout, width, N))
      continue;
    const bool indexed = readsLayout(zp, layout, samples, count, G, groups, N);
    anyIndexRule |= indexed;
    /* The stored value plus 0 or 1 (GPTQ v1 stores z - 1), that plus 1 taken mod 16 (AutoGPTQ's v1 torch
     * path masks it back to 4 bits) */
    for (int variant = 0; indexed && variant < (width ? 3 : 1); ++variant) {
      const int64_t offset = variant > 0;
      const bool wraps = variant == 2;
      bool decodes = true;
      for (int i = 0; i < count && decodes; ++i) {
        const double z = storedZero(mm, G, layout, width, offset, wraps, &samples[i]);
        decodes = fabs(zeroAt(dq, &samples[i]) - z) <= 1e-6 * (1 + fabs(z));
      }
      if (decodes) {
        takeLayout(dq, layout, offset, wraps, groups, N);
        return true;
      }
    }
  }
  /* Two's-complement codes minus two's-complement 4-bit zero points (IREE's signed i4 weights with signed i4 zero
   * points): (s - s_z) * scale = ((s XOR 8) - (s_z XOR 8)) * scale, the unsigned form with codes and zero points
   * flipped (signed_codes, zero_points_signed). Only where a zero point is a 4-bit element or nibble: the IR's own
   * sign extension then shows in the samples; a wider one, sampled in 0..15 only, would not. */
  for (int layout = 0; layout < W4A16_ZP_LAYOUT_COUNT; ++layout) {
    if (!fitsLayout(layout, width, N) || (!w4a16_zp_container_bits(layout) && width != 4) ||
        !readsLayout(zp, layout, samples, count, G, groups, N))
      continue;
    bool ok = true;
    for (int i = 0; i < count && ok; ++i) {
      const Sample *s = &samples[i];
      const int64_t signedZero = storedSignedZero(mm, G, layout, s);
      ok = fabs((double)(signed4(s->code) - signedZero) * s->scale - s->value) <= 1e-9 * (1 + fabs(s->value));
    }
    if (ok) {
      takeLayout(dq, layout, 0, false, groups, N);
      dq->zpSigned = dq->signedCodes = true;
      return true;
    }
  }
  bool signedMinusZero = anyIndexRule && width > 0;
  for (int i = 0; i < count && signedMinusZero; ++i) {
    const Sample *s = &samples[i];
    const int64_t z = scalarSigned(s->zpRaw);
    signedMinusZero = fabs((double)(signed4(s->code) - z) * s->scale - s->value) <= 1e-9 * (1 + fabs(s->value));
  }
  /* Whether the samples of one (group, column) all read one element: then no layout places it there. */
  bool perGroupColumn = true;
  for (int i = 0; i < count && perGroupColumn; ++i)
    for (int j = 0; j < i && perGroupColumn; ++j)
      perGroupColumn = groupOf(&samples[i], G) != groupOf(&samples[j], G) || samples[i].n != samples[j].n ||
                       linearIndex(zp, samples[i].zpRead->idx) == linearIndex(zp, samples[j].zpRead->idx);
  setReason(why, mm->view.op,
            signedMinusZero  ? "signed (two's-complement) codes with a zero point wider than 4 bits subtracted (signed "
                               "codes take 4-bit zero points, whose sign the IR shows)"
            : anyIndexRule   ? "zero points are read per (group, column) but their values follow no known packing"
            : perGroupColumn ? "zero points are read per (group, column) from elements no known layout keeps them in"
                             : "zero points are not read once per (group, column) (a zero point varying inside a group?)");
  return false;
}

/* The weight dq's matched form computes from sample s's stored elements (its code decoded under dq's layout):
 * W = (code - z) * scale, z the constant zero point or the tensor's z(g, n) as matchZeroPoints decoded it, plus
 * or minus an offset, or the two's-complement forms. */
double matchedWeight(const MatmulMatch *mm, const DequantMatch *dq, const Sample *s) {
  if (mlirValueIsNull(dq->zeroPoints))
    return dq->signedCodes ? (double)signed4(s->code) * s->scale : ((double)s->code - dq->zeroPoint) * s->scale;
  if (dq->offsets)
    return ((double)s->code - dq->zeroPoint) * s->scale + (dq->offsetsSubtracted ? -1 : 1) * s->zpRaw.f;
  if (dq->zpSigned)
    return (double)(signed4(s->code) - storedSignedZero(mm, dq->groupSize, dq->zpLayout, s)) * s->scale;
  const int width = intWidth(elementTypeOf(dq->zeroPoints));
  return ((double)s->code - storedZero(mm, dq->groupSize, dq->zpLayout, width, dq->zpOffset, dq->zpWraps, s)) * s->scale;
}
