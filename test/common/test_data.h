/* Helpers shared by the end-to-end, JIT and int8 test programs: exact f16 <-> double conversions (f16
 * values travel as raw bits) and a deterministic generator for test data. Header-only on purpose: each
 * test is one C file, built in the full build and (e2e driver) in the runtime-only GPU build. */
#ifndef W4A16_TEST_DATA_H
#define W4A16_TEST_DATA_H

#include <math.h>
#include <stdint.h>

static inline double f16_to_double(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
  double v = exp == 0 ? ldexp(man, -24) : exp == 31 ? (man ? NAN : INFINITY) : ldexp(man + 1024, exp - 25);
  return sign ? -v : v;
}

/* Round to nearest, ties to even; overflow to infinity. */
static inline uint16_t double_to_f16(double x) {
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  double a = fabs(x);
  if (isnan(x))
    return sign | 0x7e00;
  if (a >= 65520.0)
    return sign | 0x7c00;
  if (a < ldexp(1, -14)) /* subnormal: units of 2^-24 */
    return sign | (uint16_t)nearbyint(a * ldexp(1, 24));
  int e;
  frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  double q = nearbyint(ldexp(a, 11 - e)); /* 11 significant bits */
  if (q >= 2048) {
    q /= 2;
    ++e;
  }
  int exp = e - 1 + 15;
  if (exp >= 31)
    return sign | 0x7c00;
  return sign | (uint16_t)(exp << 10) | (uint16_t)((int)q - 1024);
}

/* bf16 is the top half of an f32: exact to double; from double, round to nearest even through f32 (the
 * double rounding is harmless for test data). */
static inline double bf16_to_double(uint16_t b) {
  union { uint32_t u; float f; } v = {(uint32_t)b << 16};
  return v.f;
}
static inline uint16_t double_to_bf16(double x) {
  union { float f; uint32_t u; } v = {(float)x};
  if (isnan(v.f))
    return (uint16_t)((v.u >> 16) | 0x40);
  return (uint16_t)((v.u + 0x7fff + ((v.u >> 16) & 1)) >> 16);
}

/* splitmix64: deterministic, well mixed, one 64-bit state. */
static inline uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static inline double uniform_in(uint64_t *state, double lo, double hi) {
  return lo + (hi - lo) * (double)(splitmix64(state) >> 11) * 0x1p-53;
}

#endif
