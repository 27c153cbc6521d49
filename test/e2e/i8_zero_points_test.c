/* test/e2e/Inputs/i8_zero_points.mlir compiled by w4a16-compile: packed codes with an int8 zero-point tensor that
 * the IR reads signed (arith.sitofp). The matcher learns the zero points' layout from samples of 0..15, where a
 * signed and an unsigned reading of an int8 agree; from 128 up they differ (0xF0 is -16 signed, 240 unsigned).
 *   1. zero points 0..15 and 100: the fused result matches an f64 oracle of the IR's formula (signed reading)
 *      within docs/contract.md §1's tolerance;
 *   2. one zero point 0xF0: prepare returns W4A16_ERR_BAD_ARGUMENT naming the element, never a result computed
 *      with 240 (found by test/robustness/differential.py: rel L2 2.5 against the upstream build).
 * CPU backend. */
#include "i8_zero_points.h"

#include "../common/test_data.h"
#include "w4a16/runtime_abi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 3, K = 512, N = 128, G = K / 128 };

static int run_case(const int8_t *z, int expect_refusal) {
  uint64_t rng = 11;
  static int32_t qw[K / 8 * N];
  static uint16_t sc[G * N], x[M * K];
  for (int i = 0; i < K / 8 * N; ++i)
    qw[i] = (int32_t)(uint32_t)(splitmix64(&rng) >> 32);
  for (int i = 0; i < G * N; ++i)
    sc[i] = double_to_f16(uniform_in(&rng, 0.5, 1.5) / 64);
  for (int i = 0; i < M * K; ++i)
    x[i] = double_to_f16(uniform_in(&rng, -2, 2));
  w4a16c_memref2d_f16 xm = {x, x, 0, {M, K}, {K, 1}}, sm = {sc, sc, 0, {G, N}, {N, 1}}, out = {0};
  w4a16c_memref2d_i32 qm = {qw, qw, 0, {K / 8, N}, {N, 1}};
  w4a16c_memref2d_i8 zm = {(int8_t *)z, (int8_t *)z, 0, {G, N}, {N, 1}};
  int32_t status = w4a16c_prepare_i8_zero_points(&out, &xm, &qm, &sm, &zm);
  free(out.allocated);
  if (expect_refusal) {
    const char *why = w4a16_rt_last_error();
    const int ok = status == W4A16_ERR_BAD_ARGUMENT && strstr(why, "int8") && strstr(why, "group 2, column 5");
    printf("%s: zero point 0xF0 refused: status %d, \"%s\"\n", ok ? "PASS" : "FAIL", (int)status, why);
    return !ok;
  }
  out = (w4a16c_memref2d_f16){0};
  status = status ? status : w4a16c_run_i8_zero_points(&out, &xm, &qm, &sm, &zm);
  if (status != 0 || out.sizes[0] != M || out.sizes[1] != N) {
    printf("FAIL: status %d (%s), result %lldx%lld\n", (int)status, w4a16_rt_last_error(), (long long)out.sizes[0],
           (long long)out.sizes[1]);
    return 1;
  }
  double num = 0, den = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = 0;
      for (int k = 0; k < K; ++k) {
        const int code = (int)(((uint32_t)qw[(k / 8) * N + n] >> (4 * (k % 8))) & 15);
        ref += f16_to_double(x[m * K + k]) * (code - (double)z[(k / 128) * N + n]) * f16_to_double(sc[(k / 128) * N + n]);
      }
      const double got = f16_to_double(out.aligned[out.offset + m * out.strides[0] + n * out.strides[1]]);
      num += (got - ref) * (got - ref), den += ref * ref;
    }
  free(out.allocated);
  const double rel = sqrt(num / den);
  printf("%s: zero points 0..15 and 100 read as the IR reads them: rel L2 %.3e (limit 2e-3)\n",
         rel <= 2e-3 ? "PASS" : "FAIL", rel);
  return rel > 2e-3;
}

int main(void) {
  w4a16_rt_set_backend(W4A16_BACKEND_CPU);
  static int8_t z[G * N];
  for (int i = 0; i < G * N; ++i)
    z[i] = (int8_t)(i % 16);
  z[7] = 100;
  int failures = run_case(z, 0);
  z[2 * N + 5] = (int8_t)0xF0;
  failures += run_case(z, 1);
  return failures != 0;
}
