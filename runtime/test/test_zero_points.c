/* Per-group zero points, offsets, group sizes and bf16 on the CPU reference (issues #17, #18): for G = 32,
 * 64, 128,
 *   - zero points all 8 give the bits of the symmetric plan (w4a16_plan_create);
 *   - zero points 0..15 (0 and 15 included) match the formula out = sum_k x (code - z[k/G, n]) s[k/G, n]
 *     computed in double, within docs/contract.md §1's tolerance (relative L2 2e-3, every element within
 *     1e-2 (1 + |ref|));
 * (gpu_test checks that a CUDA plan takes zero points all 8 and refuses others.) */
#include "half.h"
#include "support.h"
#include "w4a16/runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static void check(int ok, const char *what, int64_t G) {
  printf("%s: %s (G = %lld)\n", ok ? "ok" : "FAIL", what, (long long)G);
  failures += !ok;
}

static void run_group(int64_t G) {
  const int64_t K = 256, N = 24, M = 3, groups = K / G;
  uint64_t seed = 7 + (uint64_t)G;
  int32_t *qw = malloc((size_t)(K / 8 * N) * 4);
  uint16_t *sc = malloc((size_t)(groups * N) * 2), *z8 = malloc((size_t)(groups * N) * 2);
  uint16_t *zr = malloc((size_t)(groups * N) * 2), *x = malloc((size_t)(M * K) * 2);
  uint16_t *out = malloc((size_t)(M * N) * 2), *want = malloc((size_t)(M * N) * 2);
  for (int64_t i = 0; i < K / 8 * N; ++i) qw[i] = (int32_t)w4t_rand(&seed);
  for (int64_t i = 0; i < groups * N; ++i) {
    sc[i] = w4a16_f2h((float)w4t_uniform(&seed, -0.05, 0.05));
    z8[i] = w4a16_f2h(8.0f);
    zr[i] = w4a16_f2h((float)(i % 3 == 0 ? 0 : i % 3 == 1 ? 15 : (int)(w4t_rand(&seed) % 16)));
  }
  for (int64_t i = 0; i < M * K; ++i) x[i] = w4a16_f2h((float)w4t_uniform(&seed, -8, 8));

  w4a16_plan *sym = NULL, *p8 = NULL, *pz = NULL;
  check(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, K, N, G, &sym) == W4A16_OK &&
            w4a16_plan_create_zp(W4A16_BACKEND_CPU, qw, sc, z8, K, N, G, &p8) == W4A16_OK &&
            w4a16_plan_create_zp(W4A16_BACKEND_CPU, qw, sc, zr, K, N, G, &pz) == W4A16_OK,
        "plans with and without zero points", G);
  if (!sym || !p8 || !pz) return;
  w4a16_plan_run(sym, x, M, NULL, NULL, W4A16_ACT_NONE, want, NULL);
  w4a16_plan_run(p8, x, M, NULL, NULL, W4A16_ACT_NONE, out, NULL);
  check(memcmp(out, want, (size_t)(M * N) * 2) == 0, "zero points all 8: the symmetric plan's bits", G);

  w4a16_plan_run(pz, x, M, NULL, NULL, W4A16_ACT_NONE, out, NULL);
  double err2 = 0, ref2 = 0;
  int elementsOk = 1;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k) {
        const int code = (int)(((uint32_t)qw[(k / 8) * N + n] >> (4 * (k % 8))) & 15u);
        const double w = (code - (double)w4a16_h2f(zr[(k / G) * N + n])) * w4a16_h2f(sc[(k / G) * N + n]);
        ref += (double)w4a16_h2f(x[m * K + k]) * w;
      }
      const double got = w4a16_h2f(out[m * N + n]);
      err2 += (got - ref) * (got - ref), ref2 += ref * ref;
      elementsOk &= isfinite(got) && fabs(got - ref) <= 1e-2 * (1 + fabs(ref));
    }
  char what[96];
  snprintf(what, sizeof what, "zero points 0..15 against the formula in double (rel L2 %.2e)", sqrt(err2 / ref2));
  check(sqrt(err2 / ref2) <= 2e-3 && elementsOk, what, G);

  /* The offset form: W = code * scale + m (zero points 0, GGUF Q4_1's d * q + m). */
  uint16_t *z0 = malloc((size_t)(groups * N) * 2), *m = malloc((size_t)(groups * N) * 2);
  for (int64_t i = 0; i < groups * N; ++i) {
    z0[i] = w4a16_f2h(0.0f);
    m[i] = w4a16_f2h((float)w4t_uniform(&seed, -0.4, 0.4));
  }
  w4a16_plan *po = NULL;
  check(w4a16_plan_create_offsets(W4A16_BACKEND_CPU, qw, sc, z0, m, K, N, G, &po) == W4A16_OK, "plan with offsets", G);
  if (po) {
    w4a16_plan_run(po, x, M, NULL, NULL, W4A16_ACT_NONE, out, NULL);
    double oerr2 = 0, oref2 = 0;
    for (int64_t r = 0; r < M; ++r)
      for (int64_t n = 0; n < N; ++n) {
        double ref = 0;
        for (int64_t k = 0; k < K; ++k) {
          const int code = (int)(((uint32_t)qw[(k / 8) * N + n] >> (4 * (k % 8))) & 15u);
          const double w = code * (double)w4a16_h2f(sc[(k / G) * N + n]) + w4a16_h2f(m[(k / G) * N + n]);
          ref += (double)w4a16_h2f(x[r * K + k]) * w;
        }
        const double got = w4a16_h2f(out[r * N + n]);
        oerr2 += (got - ref) * (got - ref), oref2 += ref * ref;
      }
    snprintf(what, sizeof what, "offsets (code * s + m) against the formula in double (rel L2 %.2e)",
             sqrt(oerr2 / oref2));
    check(sqrt(oerr2 / oref2) <= 2e-3, what, G);
    w4a16_plan_destroy(po);
  }
  free(z0), free(m);
  w4a16_plan_destroy(sym), w4a16_plan_destroy(p8), w4a16_plan_destroy(pz);
  free(qw), free(sc), free(z8), free(zr), free(x), free(out), free(want);
}

/* bf16 x, bias, residual and out, with f16 and with bf16 scales (issue #18), against the formula in double
 * within the bf16 tolerance: relative L2 <= 1.6e-2, every element within 2^-8 (|ref| + S) + 1e-3 with
 * S = sum_k |x W| + |residual|. */
static void run_bf16(int scalesBf16) {
  const int64_t K = 512, N = 32, M = 3, G = 128, groups = K / G;
  uint64_t seed = 99 + (uint64_t)scalesBf16;
  int32_t *qw = malloc((size_t)(K / 8 * N) * 4);
  uint16_t *sc = malloc((size_t)(groups * N) * 2), *x = malloc((size_t)(M * K) * 2), *b = malloc((size_t)N * 2);
  uint16_t *r = malloc((size_t)(M * N) * 2), *out = malloc((size_t)(M * N) * 2);
  for (int64_t i = 0; i < K / 8 * N; ++i) qw[i] = (int32_t)w4t_rand(&seed);
  for (int64_t i = 0; i < groups * N; ++i) {
    const float v = (float)w4t_uniform(&seed, -0.05, 0.05);
    sc[i] = scalesBf16 ? w4a16_f2bf(v) : w4a16_f2h(v);
  }
  for (int64_t i = 0; i < M * K; ++i) x[i] = w4a16_f2bf((float)w4t_uniform(&seed, -8, 8));
  for (int64_t i = 0; i < N; ++i) b[i] = w4a16_f2bf((float)w4t_uniform(&seed, -1, 1));
  for (int64_t i = 0; i < M * N; ++i) r[i] = w4a16_f2bf((float)w4t_uniform(&seed, -2, 2));
  w4a16_plan *p = NULL;
  check(w4a16_plan_create_typed(W4A16_BACKEND_CPU, qw, sc, NULL, NULL, K, N, G, W4A16_ELEM_BF16,
                                scalesBf16 ? W4A16_ELEM_BF16 : W4A16_ELEM_F16, &p) == W4A16_OK,
        scalesBf16 ? "bf16 plan, bf16 scales" : "bf16 plan, f16 scales", G);
  if (!p) return;
  check(w4a16_plan_run(p, x, M, b, r, W4A16_ACT_SILU, out, NULL) == W4A16_OK, "bf16 run", G);
  double err2 = 0, ref2 = 0;
  int elementsOk = 1;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0, S = 0;
      for (int64_t k = 0; k < K; ++k) {
        const int code = (int)(((uint32_t)qw[(k / 8) * N + n] >> (4 * (k % 8))) & 15u);
        const uint16_t sv = sc[(k / G) * N + n];
        const double w = (code - 8) * (double)(scalesBf16 ? w4a16_bf2f(sv) : w4a16_h2f(sv));
        acc += (double)w4a16_bf2f(x[m * K + k]) * w;
        S += fabs((double)w4a16_bf2f(x[m * K + k]) * w);
      }
      const double v = acc + w4a16_bf2f(b[n]), res = w4a16_bf2f(r[m * N + n]);
      const double ref = v / (1 + exp(-v)) + res;
      const double got = w4a16_bf2f(out[m * N + n]);
      err2 += (got - ref) * (got - ref), ref2 += ref * ref;
      elementsOk &= isfinite(got) && fabs(got - ref) <= (fabs(ref) + S + fabs(res)) / 256 + 1e-3;
    }
  char what[96];
  snprintf(what, sizeof what, "bf16 (%s scales) against the formula in double (rel L2 %.2e)",
           scalesBf16 ? "bf16" : "f16", sqrt(err2 / ref2));
  check(sqrt(err2 / ref2) <= 1.6e-2 && elementsOk, what, G);
  w4a16_plan_destroy(p);
  free(qw), free(sc), free(x), free(b), free(r), free(out);
}

int main(void) {
  run_bf16(0);
  run_bf16(1);
  const int64_t groups[] = {32, 64, 128};
  for (int i = 0; i < 3; ++i) run_group(groups[i]);
  printf("%d failed\n", failures);
  return failures != 0;
}
