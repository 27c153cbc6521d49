/* test/e2e/Inputs/sliced_weights.mlir compiled by w4a16-compile: fused projections whose weight, scales and zero
 * points are column (or, for n_k, row) windows of larger buffers -- strided memrefs after bufferization -- as
 * w4a16-split-chunked-glu leaves a Phi-3 gate_up projection. Each function computes silu(x W[:, :I]) and
 * x W[:, I:] as two calls; both results must match an f64 oracle of the formula (docs/contract.md §1's tolerance:
 * rel L2 <= 2e-3, |out - ref| <= 1e-2 (1 + |ref|)), and prepare must make one plan per half.
 *
 * Until the lowering passed such windows as strided memrefs, bufferization copied each into a fresh buffer per
 * call, freed after it: the second half's copy landed where the first's had been, its plan key (buffer address,
 * shapes, layouts) was the first's, and it ran with the first half's plan -- the wrong weights, silently. */
#include "sliced_weights.h"

#include "../common/test_data.h"
#include "w4a16/contract.h"
#include "w4a16/runtime_abi.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 3, K = 256, G = 128, GROUPS = K / G, N = 128, I = N / 2 };

static uint8_t codes[K][N], zeros[GROUPS][N];
static double scales[GROUPS][N];
static uint16_t x[M * K];

static double silu(double v) { return v / (1 + exp(-v)); }

/* Compares out (M, I) with act(x W[:, c0 : c0 + I]), W = (code - z) * scale (z = 8 without zero points). */
static int check(const char *what, const w4a16c_memref2d_f16 *out, int c0, bool act, bool zeroPoints) {
  double num = 0, den = 0, worst = 0;
  int bad = out->sizes[0] != M || out->sizes[1] != I;
  for (int m = 0; !bad && m < M; ++m)
    for (int n = 0; n < I; ++n) {
      double ref = 0;
      for (int k = 0; k < K; ++k) {
        const int c = c0 + n, g = k / G;
        ref += f16_to_double(x[m * K + k]) * (codes[k][c] - (zeroPoints ? zeros[g][c] : 8)) * scales[g][c];
      }
      ref = act ? silu(ref) : ref;
      const double got = f16_to_double(out->aligned[out->offset + m * out->strides[0] + n * out->strides[1]]);
      num += (got - ref) * (got - ref), den += ref * ref;
      worst = fmax(worst, fabs(got - ref) / (1e-2 * (1 + fabs(ref))));
    }
  bad |= !(den > 0 && sqrt(num / den) <= 2e-3 && worst <= 1);
  printf("%s: %s: rel L2 %.2e, worst element %.3f of its bound\n", bad ? "FAIL" : "ok", what,
         den > 0 ? sqrt(num / den) : 0.0, worst);
  return bad;
}

/* The plans prepare made since `before`: one per half. */
static int checkPlans(const char *what, int64_t before, int32_t status) {
  const int64_t made = w4a16_rt_plans_created() - before;
  if (status == 0 && made == 2)
    return 0;
  printf("FAIL: %s: prepare returned %d and made %lld plans, expected 2 (%s)\n", what, (int)status, (long long)made,
         w4a16_rt_last_error());
  return 1;
}

int main(void) {
  uint64_t rng = 11;
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n)
      codes[k][n] = (uint8_t)(splitmix64(&rng) >> 60);
  static uint16_t s16[GROUPS * N], sNG[N * GROUPS];
  for (int g = 0; g < GROUPS; ++g)
    for (int n = 0; n < N; ++n) {
      /* the halves differ in scale, so a half run with the other's plan is far off */
      s16[g * N + n] = double_to_f16(uniform_in(&rng, 0.5, 1.5) / (n < I ? 16 : 64));
      scales[g][n] = f16_to_double(s16[g * N + n]);
      sNG[n * GROUPS + g] = s16[g * N + n];
      zeros[g][n] = (uint8_t)(splitmix64(&rng) >> 60);
    }
  for (int i = 0; i < M * K; ++i)
    x[i] = double_to_f16(uniform_in(&rng, -2, 2));
  /* The stored forms: GPTQ (K/8, N) words, AWQ (K, N/8) words and (K/G, N/8) zero-point words, n_k bytes. */
  static int32_t gptq[K / 8 * N], awq[K * N / 8], awqZeros[GROUPS * N / 8];
  static int8_t nk[N * K];
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) {
      int nibble;
      int64_t e = w4a16_code_element(W4A16_WEIGHT_PACKED_K8_N, k, n, K, N, &nibble);
      gptq[e] = (int32_t)((uint32_t)gptq[e] | (uint32_t)codes[k][n] << (4 * nibble));
      e = w4a16_code_element(W4A16_WEIGHT_PACKED_K_N8_AWQ, k, n, K, N, &nibble);
      awq[e] = (int32_t)((uint32_t)awq[e] | (uint32_t)codes[k][n] << (4 * nibble));
      nk[w4a16_code_element(W4A16_WEIGHT_N_K, k, n, K, N, &nibble)] = (int8_t)codes[k][n];
    }
  for (int g = 0; g < GROUPS; ++g)
    for (int n = 0; n < N; ++n)
      awqZeros[g * N / 8 + n / 8] |=
          (int32_t)((uint32_t)zeros[g][n] << (4 * w4a16_zp_nibble(W4A16_ZP_PACKED_G_N8_AWQ, n % 8)));

  w4a16_rt_set_backend(W4A16_BACKEND_CPU);
  w4a16c_memref2d_f16 xm = {x, x, 0, {M, K}, {K, 1}}, sm = {s16, s16, 0, {GROUPS, N}, {N, 1}};
  w4a16c_memref2d_f16 snm = {sNG, sNG, 0, {N, GROUPS}, {GROUPS, 1}};
  w4a16c_memref2d_i32 gm = {gptq, gptq, 0, {K / 8, N}, {N, 1}}, am = {awq, awq, 0, {K, N / 8}, {N / 8, 1}};
  w4a16c_memref2d_i32 zm = {awqZeros, awqZeros, 0, {GROUPS, N / 8}, {N / 8, 1}};
  w4a16c_memref2d_i8 nm = {nk, nk, 0, {N, K}, {K, 1}};
  int failures = 0;

  int64_t before = w4a16_rt_plans_created();
  w4a16c_gptq_halves_results g = {0};
  int32_t status = w4a16c_prepare_gptq_halves(&g, &xm, &gm, &sm);
  failures += checkPlans("gptq_halves", before, status);
  free(g.r0.allocated), free(g.r1.allocated), g = (w4a16c_gptq_halves_results){0};
  if ((status = w4a16c_run_gptq_halves(&g, &xm, &gm, &sm)) != 0)
    printf("FAIL: gptq_halves: run returned %d: %s\n", (int)status, w4a16_rt_last_error()), ++failures;
  else
    failures += check("gptq_halves, silu(x W[:, :I])", &g.r0, 0, true, false) +
                check("gptq_halves, x W[:, I:]", &g.r1, I, false, false);
  free(g.r0.allocated), free(g.r1.allocated);

  before = w4a16_rt_plans_created();
  w4a16c_awq_halves_results a = {0};
  status = w4a16c_prepare_awq_halves(&a, &xm, &am, &zm, &sm);
  failures += checkPlans("awq_halves", before, status);
  free(a.r0.allocated), free(a.r1.allocated), a = (w4a16c_awq_halves_results){0};
  if ((status = w4a16c_run_awq_halves(&a, &xm, &am, &zm, &sm)) != 0)
    printf("FAIL: awq_halves: run returned %d: %s\n", (int)status, w4a16_rt_last_error()), ++failures;
  else
    failures += check("awq_halves, silu(x W[:, :I])", &a.r0, 0, true, true) +
                check("awq_halves, x W[:, I:]", &a.r1, I, false, true);
  free(a.r0.allocated), free(a.r1.allocated);

  before = w4a16_rt_plans_created();
  w4a16c_nk_halves_results r = {0};
  status = w4a16c_prepare_nk_halves(&r, &xm, &nm, &snm);
  failures += checkPlans("nk_halves", before, status);
  free(r.r0.allocated), free(r.r1.allocated), r = (w4a16c_nk_halves_results){0};
  if ((status = w4a16c_run_nk_halves(&r, &xm, &nm, &snm)) != 0)
    printf("FAIL: nk_halves: run returned %d: %s\n", (int)status, w4a16_rt_last_error()), ++failures;
  else
    failures += check("nk_halves, silu(x W[:I, :]^T)", &r.r0, 0, true, false) +
                check("nk_halves, x W[I:, :]^T", &r.r1, I, false, false);
  free(r.r0.allocated), free(r.r1.allocated);

  printf("%s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
  w4a16_rt_release_plans();
  return failures != 0;
}
