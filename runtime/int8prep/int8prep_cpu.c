/* The CPU reference of the int8 correction-operand preparation (see w4a16/int8prep.h). Compiled with
 * -ffp-contract=off: each product below rounds to f32 where the source says so, as in PyTorch's eager chain. */
#include "internal.h"

#include <string.h>

uint16_t w4a16_int8prep_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) /* NaN: quiet, top payload bits kept */
    return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x477ff000u) /* >= 65504 + half an ulp (65520), infinity included */
    return (uint16_t)(sign | 0x7c00u);
  if (ax >= 0x38800000u) { /* f16 normal: drop 13 mantissa bits, nearest even */
    uint32_t h = (((ax >> 23) - 112u) << 10) | ((ax >> 13) & 0x3ffu);
    uint32_t rest = ax & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
      ++h; /* a carry into the exponent is the right result */
    return (uint16_t)(sign | h);
  }
  if (ax <= 0x33000000u) /* <= 2^-25: zero (2^-25 itself is a tie, to the even 0) */
    return sign;
  /* f16 subnormal: |f| = m * 2^(e - 150) with the implicit bit; the result counts units of 2^-24 */
  uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126u - e; /* in [14, 24] */
  uint32_t h = m >> shift, rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  if (rest > half || (rest == half && (h & 1u)))
    ++h;
  return (uint16_t)(sign | h);
}

int64_t w4a16_int8prep_bad_column(const Int8PrepView *v) {
  for (int64_t l = 0; l < v->L; ++l) {
    int64_t c = v->cols[l * v->sCols];
    if (c < 0 || c >= v->K)
      return l;
  }
  return -1;
}

void w4a16_int8prep_cpu_strided(const Int8PrepView *v) {
  float scale;
  uint32_t bits = W4A16_INT8PREP_SCALE_BITS;
  memcpy(&scale, &bits, sizeof scale);
  for (int64_t m = 0; m < v->M; ++m)
    for (int64_t l = 0; l < v->L; ++l)
      v->subA[m * v->sSubA[0] + l * v->sSubA[1]] = v->A[m * v->sA[0] + v->cols[l * v->sCols] * v->sA[1]];
  for (int64_t l = 0; l < v->L; ++l) {
    int64_t c = v->cols[l * v->sCols];
    for (int64_t n = 0; n < v->N; ++n) {
      float code = (float)v->CB[n * v->sCB[0] + c * v->sCB[1]];
      float product = code * v->SCB[n * v->sSCB]; /* rounded to f32 */
      float dequant = product * scale;            /* rounded to f32 */
      v->subB[l * v->sSubB[0] + n * v->sSubB[1]] = w4a16_int8prep_f32_to_f16(dequant);
    }
  }
}

w4a16_status w4a16_int8prep_cpu(const uint16_t *A, int64_t lda, const int8_t *CB, int64_t ldcb, const float *SCB,
                                const int64_t *cols, int64_t M, int64_t N, int64_t K, int64_t L, uint16_t *subA,
                                uint16_t *subB) {
  if (M < 0 || N < 0 || K < 0 || L < 0 || lda < K || ldcb < K)
    return W4A16_ERR_BAD_SHAPE;
  if (L == 0 || (M == 0 && N == 0))
    return W4A16_OK;
  if (!cols || (M && (!A || !subA)) || (N && (!CB || !SCB || !subB)))
    return W4A16_ERR_NULL_POINTER;
  Int8PrepView v = {A, CB, SCB, cols, subA, subB, M, N, K, L, {lda, 1}, {ldcb, 1}, 1, 1, {L, 1}, {N, 1}};
  if (w4a16_int8prep_bad_column(&v) >= 0)
    return W4A16_ERR_BAD_ARGUMENT;
  w4a16_int8prep_cpu_strided(&v);
  return W4A16_OK;
}
