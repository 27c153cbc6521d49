/* What the dequantisation matcher's parts share (match_dequant.c: the samples and the codes, scales and arithmetic;
 * match_zero_points.c: which float tensor is the scale, and how a zero-point or offset tensor holds its values). */
#ifndef W4A16_MATCH_DEQUANT_H
#define W4A16_MATCH_DEQUANT_H

#include "match.h"

/* The weight element evaluated at (k, n) with synthetic data: what it read and computed. */
typedef struct Sample {
  int64_t k, n;
  double value, scale;
  uint64_t codeWord; /* the stored element: a code, or a packed word or byte */
  int64_t code;      /* code(k, n): the nibble of codeWord the weight layout names (decodeCodes) */
  const LeafRead *codeRead, *scaleRead, *zpRead; /* zpRead: null without a zero-point tensor */
  int64_t group; /* the group the sample's row belongs to: k / G, or g_idx[k] under act-order */
  Scalar zpRaw;      /* the zero-point tensor's element read */
  LeafRead reads[3];
} Sample;

/* The group of sample s's row under group size G. */
static inline int64_t groupOf(const Sample *s, int64_t G) { return s->group >= 0 ? s->group : s->k / G; }

/* Number of leading dims of tensor (static, row-major) whose sizes multiply to `rows`, or 0 where none do. */
int splitFor(MlirValue tensor, int64_t rows);

/* With two float tensors read, decides which is the scale and whether the other is a zero point or an offset
 * (added or subtracted); samples and dq are updated to the roles found. */
bool resolveFloatRoles(const MatmulMatch *mm, DequantMatch *dq, Sample *samples, int count, Reason *why);
/* How the zero-point tensor holds z(g, n) (layout, offset, wrap), checked against every sample. */
bool matchZeroPoints(const MatmulMatch *mm, DequantMatch *dq, const Sample *samples, int count, Reason *why);
/* The weight dq's matched form computes from sample s's stored elements (s->code decoded under dq's layout). */
double matchedWeight(const MatmulMatch *mm, const DequantMatch *dq, const Sample *s);

#endif
