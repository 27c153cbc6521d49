/* The f16 conversions the CPU reference rounds with: every f16 survives f16 -> f32 -> f16, and
 * f32 -> f16 matches the compiler's own _Float16 conversion (round to nearest even) where it exists,
 * or an f64 computation of the nearest f16 otherwise. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "half.h"
#include "support.h"

static uint16_t nearest_f16_slow(float f) {
  /* Brute force over all finite f16 of the same sign: nearest, ties to even mantissa. */
  if (isnan(f)) return 0x7e00;
  uint16_t sign = signbit(f) ? 0x8000 : 0;
  double a = fabs((double)f);
  if (a >= 65520.0) return sign | 0x7c00;
  uint16_t best = 0;
  double bd = INFINITY;
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    double d = fabs((double)w4a16_h2f((uint16_t)h) - a);
    if (d < bd || (d == bd && (h & 1) == 0)) bd = d, best = (uint16_t)h;
  }
  return sign | best;
}

int main(void) {
  int fails = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = w4a16_h2f((uint16_t)h);
    const int is_nan = ((h >> 10) & 31) == 31 && (h & 0x3ff);
    if (is_nan) {
      if (!isnan(f)) fails++, printf("f16 %04x should be NaN\n", h);
      continue;
    }
    if (w4a16_f2h(f) != h) {
      if (fails++ < 10) printf("roundtrip %04x -> %g -> %04x\n", h, (double)f, w4a16_f2h(f));
    }
  }
  uint64_t s = 12345;
  for (int i = 0; i < 2000000; ++i) {
    uint32_t bits = (uint32_t)w4t_rand(&s);
    /* bias towards the f16 range, including subnormals, ties and overflow */
    if (i % 2) bits = (bits & 0x80ffffffu) | ((uint32_t)(100 + w4t_rand(&s) % 50) << 23);
    if (i % 7 == 0) bits &= 0xffffe000u | (1u << 12); /* exact ties */
    float f;
    memcpy(&f, &bits, 4);
    uint16_t want;
#ifdef __FLT16_MAX__
    _Float16 hf = (_Float16)f;
    memcpy(&want, &hf, 2);
    if (isnan(f)) want = 0x7e00 | (want & 0x8000);
#else
    if (i > 20000) break; /* the slow reference is slow */
    want = nearest_f16_slow(f);
#endif
    uint16_t got = w4a16_f2h(f);
    if (isnan(f)) got = (uint16_t)((got & 0x8000) | 0x7e00);
    if (got != want && fails++ < 10) printf("f2h(%a) = %04x, want %04x\n", (double)f, got, want);
  }
  if (nearest_f16_slow(1.0009765625f * 3.0f) != w4a16_f2h(1.0009765625f * 3.0f)) fails++;
  printf("%s: half conversions, %d failures\n", fails ? "FAIL" : "PASS", fails);
  return fails != 0;
}
