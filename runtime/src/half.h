/* IEEE binary16 <-> binary32 conversions in portable C (no compiler f16 support needed).
 * f32 -> f16 rounds to nearest, ties to even, exactly like CUDA's __float2half_rn, including
 * subnormals and overflow to infinity, so the CPU backend rounds where and as the GPU does. */
#ifndef W4A16_HALF_H
#define W4A16_HALF_H

#include <stdint.h>
#include <string.h>

static inline float w4a16_h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
  if (e == 0) {
    /* zero or subnormal: m * 2^-24 is exact in f32 */
    float f = (float)m * 5.9604644775390625e-8f;
    memcpy(&bits, &f, 4);
    bits |= sign;
  } else if (e == 31) {
    bits = sign | 0x7f800000u | (m << 13);
  } else {
    bits = sign | ((e + 112u) << 23) | (m << 13);
  }
  float out;
  memcpy(&out, &bits, 4);
  return out;
}

static inline uint16_t w4a16_f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) /* Inf stays Inf, NaN becomes a quiet NaN */
    return (uint16_t)(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (ax >= 0x477ff000u) /* >= 65520 = 65504 + half an ulp: rounds to infinity */
    return (uint16_t)(sign | 0x7c00u);
  if (ax < 0x38800000u) { /* below 2^-14: f16 subnormal or zero */
    if (ax <= 0x33000000u) /* <= 2^-25: exact tie at 2^-25 goes to even (zero) */
      return sign;
    uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - (ax >> 23); /* value * 2^24 = mant >> shift, shift in [14, 24] */
    uint32_t r = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t r = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13);
  uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) r++; /* a carry into the exponent is right */
  return (uint16_t)(sign | r);
}

/* bfloat16: the top half of an f32. bf16 -> f32 is exact; f32 -> bf16 rounds to nearest, ties to even
 * (NaN stays a quiet NaN), as CUDA's __float2bfloat16_rn. */
static inline float w4a16_bf2f(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float out;
  memcpy(&out, &bits, 4);
  return out;
}
static inline uint16_t w4a16_f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

#endif
