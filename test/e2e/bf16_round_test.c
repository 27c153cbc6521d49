/* test/e2e/Inputs/bf16_round.mlir compiled by w4a16-compile for generic x86-64: its f32 -> bf16 truncation is a
 * call of __truncsfbf2, which this program gets from w4a16_rt_abi (Debian 12's libgcc lacks it: before, the
 * compiled bf16 examples did not load on CPUs without AVX512-BF16). The bits must be round-to-nearest-even,
 * NaN quiet with its sign, infinities and overflow to infinity. The same from f64 (__truncdfbf2), rounded once. */
#include "bf16_round.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float fromBits(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

int main(void) {
  float x[8] = {1.0f,
                fromBits(0x3f808000u), /* halfway between 0x3f80 and 0x3f81: even is 0x3f80 */
                fromBits(0x3f818000u), /* halfway between 0x3f81 and 0x3f82: even is 0x3f82 */
                fromBits(0x3f808001u), /* just above halfway: 0x3f81 */
                -INFINITY,
                fromBits(0x7f7fffffu), /* FLT_MAX rounds up to +inf */
                fromBits(0xff800001u), /* a signalling NaN with the sign set: stays NaN, quiet, negative */
                -0.0f};
  const uint16_t expect[8] = {0x3f80, 0x3f80, 0x3f82, 0x3f81, 0xff80, 0x7f80, 0xffc0, 0x8000};
  w4a16c_memref1d_f32 in = {x, x, 0, {8}, {1}};
  w4a16c_memref1d_bf16 out = {0};
  int failures = w4a16c_run_to_bf16(&out, &in) != 0;
  for (int i = 0; !failures && i < 8; ++i) {
    const uint16_t got = out.aligned[out.offset + i];
    const int ok = i == 6 ? (got & 0xffc0) == 0xffc0 : got == expect[i];
    printf("%s: %08x -> %04x (expected %04x)\n", ok ? "ok" : "FAIL", (unsigned)((uint32_t *)x)[i], got, expect[i]);
    failures += !ok;
  }
  free(out.allocated);
  /* f64 -> bf16 (__truncdfbf2): one rounding, where f64 -> f32 -> bf16 to nearest twice would land on the tie */
  double d[8] = {1.0 + 0x1p-8 + 0x1p-30, /* just above halfway between 0x3f80 and 0x3f81: 0x3f81 (twice: 0x3f80) */
                 1.0 + 0x1p-8,           /* halfway: even is 0x3f80 */
                 1.0 + 0x1p-8 - 0x1p-30, /* just below halfway: 0x3f80 */
                 -(1.0 + 0x1p-8 + 0x1p-30),
                 1e300,                  /* overflow: +inf */
                 -1e-300,                /* underflow: -0 */
                 NAN,
                 3.0};
  const uint16_t expect64[8] = {0x3f81, 0x3f80, 0x3f80, 0xbf81, 0x7f80, 0x8000, 0x7fc0, 0x4040};
  w4a16c_memref1d_f64 in64 = {d, d, 0, {8}, {1}};
  out = (w4a16c_memref1d_bf16){0};
  failures += w4a16c_run_f64_to_bf16(&out, &in64) != 0;
  for (int i = 0; !failures && i < 8; ++i) {
    const uint16_t got = out.aligned[out.offset + i];
    const int ok = i == 6 ? (got & 0x7fc0) == 0x7fc0 : got == expect64[i];
    printf("%s: f64 %a -> %04x (expected %04x)\n", ok ? "ok" : "FAIL", d[i], got, expect64[i]);
    failures += !ok;
  }
  free(out.allocated);
  printf("%s\n", failures ? "bf16_round: FAIL" : "bf16_round: PASS");
  return failures != 0;
}
