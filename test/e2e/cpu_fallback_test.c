/* test/e2e/Inputs/group32_k96.mlir compiled by w4a16-compile: a fused weight with K = 96, which the CUDA
 * kernels do not take (they walk K in steps of 128). Prepared on the CPU backend it is not a fallback;
 * with the CUDA backend selected, prepare and run still return 0 (with or without a GPU), the weight is
 * counted once by w4a16_rt_cpu_fallbacks with a reason naming K, and the result is the formula's:
 * out[m, n] = sum_k x[m, k] * (code - 8) * scales[k / 32, n] within docs/contract.md §1's tolerance. */
#include "group32_k96.h"

#include "../common/test_data.h"
#include "w4a16/runtime_abi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 3, K = 96, N = 64, G = 32 };

static int failures = 0;
static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  failures += !ok;
}

int main(void) {
  uint64_t rng = 11;
  static uint16_t x[M * K], s[K / G * N];
  static int32_t q[K / 8 * N];
  for (int i = 0; i < M * K; ++i)
    x[i] = double_to_f16(uniform_in(&rng, -2, 2));
  for (int i = 0; i < K / G * N; ++i)
    s[i] = double_to_f16(uniform_in(&rng, 0.01, 0.03));
  for (int i = 0; i < K / 8 * N; ++i)
    q[i] = (int32_t)splitmix64(&rng);
  w4a16c_memref2d_f16 xm = {x, x, 0, {M, K}, {K, 1}}, sm = {s, s, 0, {K / G, N}, {N, 1}}, out = {0};
  w4a16c_memref2d_i32 qm = {q, q, 0, {K / 8, N}, {N, 1}};

  w4a16_rt_set_backend(W4A16_BACKEND_CPU);
  const int64_t before = w4a16_rt_cpu_fallbacks();
  check(w4a16c_prepare_group32_k96(&out, &xm, &qm, &sm) == 0 && w4a16_rt_cpu_fallbacks() == before,
        "prepared on the CPU backend: not a fallback");
  free(out.allocated);
  w4a16_rt_release_plans();

  w4a16_rt_set_backend(W4A16_BACKEND_CUDA);
  const int32_t prepared = w4a16c_prepare_group32_k96(&out, &xm, &qm, &sm);
  free(out.allocated);
  memset(&out, 0, sizeof out);
  const int32_t ran = w4a16c_run_group32_k96(&out, &xm, &qm, &sm);
  check(prepared == 0 && ran == 0, "with the CUDA backend selected, prepare and run return 0");
  check(w4a16_rt_cpu_fallbacks() == before + 1, "w4a16_rt_cpu_fallbacks counts the weight once");
  check(strstr(w4a16_rt_cpu_fallback_reason(), "K = 96") != NULL, "the reason names K");
  printf("    (\"%s\")\n", w4a16_rt_cpu_fallback_reason());

  double err2 = 0, ref2 = 0;
  int elements = ran == 0 && out.sizes[0] == M && out.sizes[1] == N;
  for (int m = 0; elements && m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = 0;
      for (int k = 0; k < K; ++k) {
        const int code = (int)(((uint32_t)q[(k / 8) * N + n] >> (4 * (k % 8))) & 15u);
        ref += f16_to_double(x[m * K + k]) * (code - 8) * f16_to_double(s[(k / G) * N + n]);
      }
      const double got = f16_to_double(out.aligned[out.offset + m * N + n]);
      err2 += (got - ref) * (got - ref), ref2 += ref * ref;
      elements &= fabs(got - ref) <= 1e-2 * (1 + fabs(ref));
    }
  char what[96];
  snprintf(what, sizeof what, "the result is the formula's (rel L2 %.2e)", ref2 > 0 ? sqrt(err2 / ref2) : 0.0);
  check(elements && ref2 > 0 && sqrt(err2 / ref2) <= 2e-3, what);
  free(out.allocated);
  w4a16_rt_release_plans();
  return failures != 0;
}
