/* test/e2e/Inputs/fp8.mlir compiled by w4a16-compile and checked against references written here independently of
 * the compiler's integer arithmetic: decoding by ldexp from the format's fields, encoding by searching every
 * finite code for the nearest (ties to the even code; past the largest finite value, e4m3 gives NaN and e5m2
 * infinity, as LLVM's APFloat does). Every byte is decoded in each format; every f16 and every bf16 bit pattern,
 * every f32 bit pattern with a 16-bit-stride walk, and the boundary values are encoded. */
#include "fp8.h"

#include "../common/test_data.h"
#include "w4a16/runtime_abi.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Format {
  const char *name;
  int mantissaBits, bias;
  bool hasInfinity; /* e5m2 (IEEE-like); e4m3fn has none, and only 0x7f / 0xff are NaN */
} Format;

static const Format kE4M3 = {"e4m3fn", 3, 7, false}, kE5M2 = {"e5m2", 2, 15, true};

static int failures;

static double decode(const Format *f, uint8_t b) {
  const int e = (b & 0x7f) >> f->mantissaBits, m = b & ((1 << f->mantissaBits) - 1);
  const int maxExponent = (1 << (7 - f->mantissaBits)) - 1;
  const double sign = b & 0x80 ? -1.0 : 1.0;
  if (f->hasInfinity && e == maxExponent)
    return m ? NAN : sign * INFINITY;
  if (!f->hasInfinity && (b & 0x7f) == 0x7f)
    return NAN;
  if (e == 0)
    return sign * ldexp(m, 1 - f->bias - f->mantissaBits);
  return sign * ldexp((1 << f->mantissaBits) + m, e - f->bias - f->mantissaBits);
}

/* The largest finite code's byte (sign clear). */
static uint8_t maxFinite(const Format *f) { return f->hasInfinity ? 0x7b : 0x7e; }

/* The byte x rounds to; -1 for a NaN x (any NaN byte is right). */
static int encode(const Format *f, double x) {
  if (isnan(x))
    return -1;
  const uint8_t sign = signbit(x) ? 0x80 : 0, overflow = f->hasInfinity ? 0x7c : 0x7f;
  const double a = fabs(x);
  const uint8_t top = maxFinite(f);
  /* the value one step past the largest finite one, a virtual code whose rounding means overflow */
  const double beyond = decode(f, top) + (decode(f, top) - decode(f, top - 1));
  if (a >= beyond)
    return sign | overflow;
  uint8_t best = 0;
  double bestDistance = INFINITY;
  for (int c = 0; c <= top + 1; ++c) {
    const double v = c == top + 1 ? beyond : decode(f, (uint8_t)c), d = fabs(v - a);
    if (d < bestDistance || (d == bestDistance && (c & 1) == 0))
      best = (uint8_t)c, bestDistance = d;
  }
  return sign | (best == top + 1 ? overflow : best);
}

static bool sameBits(double got, double want) {
  return (isnan(got) && isnan(want)) || (got == want && signbit(got) == signbit(want));
}

static void checkDecoded(const char *what, const Format *f, int byte, double got) {
  const double want = decode(f, (uint8_t)byte);
  if (!sameBits(got, want) && failures++ < 20)
    printf("FAIL %s: byte 0x%02x -> %.9g, expected %.9g\n", what, byte, got, want);
}

static void checkEncoded(const char *what, const Format *f, double x, uint8_t got) {
  const int want = encode(f, x);
  const bool ok = want < 0 ? isnan(decode(f, got)) : got == want;
  if (!ok && failures++ < 20)
    printf("FAIL %s: %.9g -> 0x%02x, expected 0x%02x\n", what, x, got, (unsigned)want);
}

static float f32FromBits(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

static void decodeAll(void) {
  uint8_t bytes[256];
  for (int i = 0; i < 256; ++i)
    bytes[i] = (uint8_t)i;
  w4a16c_memref1d_f8e4m3fn e4 = {bytes, bytes, 0, {256}, {1}};
  w4a16c_memref1d_f8e5m2 e5 = {bytes, bytes, 0, {256}, {1}};
  w4a16c_memref1d_f32 f = {0};
  if (w4a16c_run_e4m3_to_f32(&f, &e4) != 0)
    ++failures, printf("FAIL e4m3_to_f32: %s\n", w4a16_rt_last_error());
  for (int i = 0; f.allocated && i < 256; ++i)
    checkDecoded("e4m3 -> f32", &kE4M3, i, f.aligned[f.offset + i]);
  free(f.allocated), f = (w4a16c_memref1d_f32){0};
  if (w4a16c_run_e5m2_to_f32(&f, &e5) != 0)
    ++failures, printf("FAIL e5m2_to_f32: %s\n", w4a16_rt_last_error());
  for (int i = 0; f.allocated && i < 256; ++i)
    checkDecoded("e5m2 -> f32", &kE5M2, i, f.aligned[f.offset + i]);
  free(f.allocated);
  w4a16c_memref1d_bf16 b = {0};
  if (w4a16c_run_e4m3_to_bf16(&b, &e4) != 0)
    ++failures, printf("FAIL e4m3_to_bf16: %s\n", w4a16_rt_last_error());
  for (int i = 0; b.allocated && i < 256; ++i)
    checkDecoded("e4m3 -> bf16", &kE4M3, i, bf16_to_double(b.aligned[b.offset + i]));
  free(b.allocated), b = (w4a16c_memref1d_bf16){0};
  if (w4a16c_run_e5m2_to_bf16(&b, &e5) != 0)
    ++failures, printf("FAIL e5m2_to_bf16: %s\n", w4a16_rt_last_error());
  for (int i = 0; b.allocated && i < 256; ++i)
    checkDecoded("e5m2 -> bf16", &kE5M2, i, bf16_to_double(b.aligned[b.offset + i]));
  free(b.allocated);
  w4a16c_memref1d_f16 h = {0};
  if (w4a16c_run_e4m3_to_f16(&h, &e4) != 0)
    ++failures, printf("FAIL e4m3_to_f16: %s\n", w4a16_rt_last_error());
  for (int i = 0; h.allocated && i < 256; ++i)
    checkDecoded("e4m3 -> f16", &kE4M3, i, f16_to_double(h.aligned[h.offset + i]));
  free(h.allocated);
}

/* f32 inputs: every 65536th bit pattern (every exponent, both signs), every f16 value, and the boundaries. */
static void encodeF32(void) {
  enum { kWalk = 65536, kExtra = 16 };
  const int n = kWalk + 65536 + kExtra;
  float *x = malloc(sizeof(float) * (size_t)n);
  for (int i = 0; i < kWalk; ++i)
    x[i] = f32FromBits((uint32_t)i * 65536u + (uint32_t)i % 65521u);
  for (int i = 0; i < 65536; ++i)
    x[kWalk + i] = (float)f16_to_double((uint16_t)i);
  const float extra[kExtra] = {448.0f, 464.0f,  464.0001f, 480.0f,    -465.0f,   57344.0f, 61440.0f, 61439.99f,
                               0x1p-10f, 0x1p-9f, 0x3p-10f,  0x1p-17f,  0x3p-17f,  INFINITY, -INFINITY, 0x1p-130f};
  memcpy(x + kWalk + 65536, extra, sizeof extra);
  w4a16c_memref1d_f32 in = {x, x, 0, {n}, {1}};
  w4a16c_memref1d_f8e4m3fn e4 = {0};
  if (w4a16c_run_f32_to_e4m3(&e4, &in) != 0)
    ++failures, printf("FAIL f32_to_e4m3: %s\n", w4a16_rt_last_error());
  for (int i = 0; e4.allocated && i < n; ++i)
    checkEncoded("f32 -> e4m3", &kE4M3, x[i], e4.aligned[e4.offset + i]);
  free(e4.allocated);
  w4a16c_memref1d_f8e5m2 e5 = {0};
  if (w4a16c_run_f32_to_e5m2(&e5, &in) != 0)
    ++failures, printf("FAIL f32_to_e5m2: %s\n", w4a16_rt_last_error());
  for (int i = 0; e5.allocated && i < n; ++i)
    checkEncoded("f32 -> e5m2", &kE5M2, x[i], e5.aligned[e5.offset + i]);
  free(e5.allocated);
  free(x);
}

/* Every f16 bit pattern to e4m3, every bf16 bit pattern to e5m2. */
static void encodeHalves(void) {
  uint16_t *bits = malloc(sizeof(uint16_t) * 65536);
  for (int i = 0; i < 65536; ++i)
    bits[i] = (uint16_t)i;
  w4a16c_memref1d_f16 h = {bits, bits, 0, {65536}, {1}};
  w4a16c_memref1d_f8e4m3fn e4 = {0};
  if (w4a16c_run_f16_to_e4m3(&e4, &h) != 0)
    ++failures, printf("FAIL f16_to_e4m3: %s\n", w4a16_rt_last_error());
  for (int i = 0; e4.allocated && i < 65536; ++i)
    checkEncoded("f16 -> e4m3", &kE4M3, f16_to_double(bits[i]), e4.aligned[e4.offset + i]);
  free(e4.allocated);
  w4a16c_memref1d_bf16 b = {bits, bits, 0, {65536}, {1}};
  w4a16c_memref1d_f8e5m2 e5 = {0};
  if (w4a16c_run_bf16_to_e5m2(&e5, &b) != 0)
    ++failures, printf("FAIL bf16_to_e5m2: %s\n", w4a16_rt_last_error());
  for (int i = 0; e5.allocated && i < 65536; ++i)
    checkEncoded("bf16 -> e5m2", &kE5M2, bf16_to_double(bits[i]), e5.aligned[e5.offset + i]);
  free(e5.allocated);
  free(bits);
}

/* A decode step's q . k over an FP8 key row with a per-tensor scale. */
static void scaledDot(void) {
  uint16_t q[64];
  uint8_t k[64];
  double want = 0;
  const float scale = 0.03125f;
  for (int i = 0; i < 64; ++i) {
    q[i] = double_to_f16((float)((i * 7) % 13 - 6) * 0.25f);
    k[i] = (uint8_t)((i * 37 + 11) % 256);
    if ((k[i] & 0x7f) == 0x7f)
      k[i] = 0x3c; /* no NaN in the row */
    want += (double)f16_to_double(q[i]) * decode(&kE4M3, k[i]) * scale;
  }
  float s = scale;
  w4a16c_memref1d_f16 qv = {q, q, 0, {64}, {1}};
  w4a16c_memref1d_f8e4m3fn kv = {k, k, 0, {64}, {1}};
  w4a16c_memref0d_f32 sv = {&s, &s, 0}, out = {0};
  if (w4a16c_run_scaled_dot(&out, &qv, &kv, &sv) != 0) {
    ++failures, printf("FAIL scaled_dot: %s\n", w4a16_rt_last_error());
    return;
  }
  const double got = out.aligned[out.offset];
  if (fabs(got - want) > 1e-5 * fmax(1.0, fabs(want)))
    ++failures, printf("FAIL scaled_dot: %.9g, expected %.9g\n", got, want);
  free(out.allocated);
}

int main(void) {
  decodeAll();
  encodeF32();
  encodeHalves();
  scaledDot();
  printf("%s\n", failures ? "fp8: FAIL" : "fp8: PASS");
  return failures != 0;
}
