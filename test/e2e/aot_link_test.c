/* AOT link test: examples/iree_i4.mlir compiled by w4a16-compile to an object file, declared by the header
 * w4a16-compile generated, linked with w4a16_rt_abi into this program — no MLIR anywhere in the link. It is
 * called as the header documents: w4a16c_prepare_iree_i4 once, then w4a16c_run_iree_i4, both returning 0.
 * The result is checked against docs/contract.md §1's formula evaluated in f64 on the host.
 *
 * It also includes the generated headers of the other examples (they must coexist in one translation unit)
 * and type-checks calls through their declared function types. */
#include "gpt_mlp.h"
#include "iree_i4.h"
#include "llama_mlp.h"
#include "w4a16/runtime_abi.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "../common/test_data.h"

enum { M = 3, K = 4096, N = 11008, G = K / 128 };

static uint32_t g_state = 12345u;
static uint32_t next_u32(void) {
  g_state ^= g_state << 13;
  g_state ^= g_state >> 17;
  g_state ^= g_state << 5;
  return g_state;
}

/* Never called: checks at compile time that the other headers declare what the examples define. */
void type_check_other_headers(w4a16c_llama_mlp_fn *llama, w4a16c_llama_mlp_status_fn *llama_run,
                              w4a16c_gpt_mlp_fn *gpt, w4a16c_gpt_mlp_status_fn *gpt_run);
void type_check_other_headers(w4a16c_llama_mlp_fn *llama, w4a16c_llama_mlp_status_fn *llama_run,
                              w4a16c_gpt_mlp_fn *gpt, w4a16c_gpt_mlp_status_fn *gpt_run) {
  w4a16c_memref2d_f16 ret, x, s1, s2, s3;
  w4a16c_memref2d_i32 q1, q2, q3;
  llama(&ret, &x, &q1, &s1, &q2, &s2, &q3, &s3);
  int32_t status = llama_run(&ret, &x, &q1, &s1, &q2, &s2, &q3, &s3);
  w4a16c_memref3d_i8 w1, w2;
  w4a16c_memref1d_f16 b1, b2;
  gpt(&ret, &x, &w1, &s1, &b1, &w2, &s2, &b2);
  status |= gpt_run(&ret, &x, &w1, &s1, &b1, &w2, &s2, &b2);
  (void)status;
}

int main(void) {
  uint16_t *x = malloc(sizeof(uint16_t) * M * K);
  uint8_t *w = malloc((size_t)N * K);
  uint16_t *s = malloc(sizeof(uint16_t) * N * G);
  if (!x || !w || !s)
    return 2;
  for (int i = 0; i < M * K; ++i)
    x[i] = double_to_f16(((double)(next_u32() % 4001) - 2000.0) / 1000.0); /* [-2, 2] */
  for (size_t i = 0; i < (size_t)N * K; ++i)
    w[i] = (uint8_t)(next_u32() >> 28);
  double s0 = 1.0 / (1.155 * sqrt(21.5 * K));
  for (int i = 0; i < N * G; ++i)
    s[i] = double_to_f16((next_u32() & 1 ? -1 : 1) * s0 * (0.5 + (next_u32() % 1000) / 1000.0));

  w4a16c_memref2d_f16 xm = {x, x, 0, {M, K}, {K, 1}};
  w4a16c_memref3d_i4 wm = {w, w, 0, {N, G, 128}, {K, 128, 1}};
  w4a16c_memref2d_f16 sm = {s, s, 0, {N, G}, {G, 1}};
  /* The plans first (an empty batch computes nothing else), then the call. */
  w4a16c_memref2d_f16 no_rows = {x, x, 0, {0, K}, {K, 1}}, out = {0};
  int32_t status = w4a16c_prepare_iree_i4(&out, &no_rows, &wm, &sm);
  free(out.allocated);
  if (status == 0)
    status = w4a16c_run_iree_i4(&out, &xm, &wm, &sm);
  if (status != 0) {
    fprintf(stderr, "aot-link: status %d: %s\n", (int)status, w4a16_rt_last_error());
    return 1;
  }
  if (out.sizes[0] != M || out.sizes[1] != N) {
    fprintf(stderr, "aot-link: result is %lldx%lld, want %dx%d\n", (long long)out.sizes[0], (long long)out.sizes[1],
            M, N);
    return 1;
  }

  /* docs/contract.md §1 in f64: out[m, n] = sum_k x[m, k] * (code[n, k] - 8) * scales[n, k / 128]. */
  double num = 0, den = 0, max_rel = 0;
  int bad = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double acc = 0;
      for (int k = 0; k < K; ++k)
        acc += f16_to_double(x[m * K + k]) * ((double)w[(size_t)n * K + k] - 8.0) * f16_to_double(s[n * G + k / 128]);
      double o = f16_to_double(out.aligned[out.offset + m * N + n]);
      if (!isfinite(o)) {
        ++bad;
        continue;
      }
      double d = fabs(o - acc), rel = d / (1 + fabs(acc));
      num += d * d;
      den += acc * acc;
      if (rel > max_rel)
        max_rel = rel;
    }
  double rel_l2 = sqrt(num / den);
  int pass = !bad && rel_l2 <= 2e-3 && max_rel <= 1e-2;
  printf("aot-link iree_i4.o (M=%d, K=%d, N=%d) vs f64 oracle: max rel error %.3e, rel L2 %.3e, ref rms %.3f, "
         "plans %lld: %s\n",
         M, K, N, max_rel, rel_l2, sqrt(den / (M * N)), (long long)w4a16_rt_plans_created(), pass ? "PASS" : "FAIL");
  free(out.allocated);
  w4a16_rt_release_plans();
  free(x);
  free(w);
  free(s);
  return pass ? 0 : 1;
}
