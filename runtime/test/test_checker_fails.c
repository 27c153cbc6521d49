/* Proves the checker can fail: the oracle is given a different activation (and, separately, a nibble
 * order reversed within each word) than the run used; w4t_compare must reject both, and must reject
 * an output containing NaN. The test passes only if every comparison fails. */
#include <stdio.h>
#include <stdlib.h>

#include "half.h"
#include "support.h"

int main(void) {
  const int64_t K = 256, N = 32, M = 5;
  w4t_weights w;
  w4t_make_weights(&w, K, N, W4T_RANDOM, 99);
  uint16_t *x = malloc((size_t)(M * K) * 2), *out = malloc((size_t)(M * N) * 2);
  double *acc = malloc((size_t)(M * N) * sizeof(double)), *ref = malloc((size_t)(M * N) * sizeof(double));
  w4t_make_x(x, M, K, W4T_RANDOM, 100);
  /* make the pre-activation values large enough that silu and gelu_tanh differ clearly */
  for (int64_t i = 0; i < M * K; ++i) x[i] = w4a16_f2h(4.0f * w4a16_h2f(x[i]));
  w4a16_plan *plan;
  int wrong_accepted = 0;
  if (w4a16_plan_create(W4A16_BACKEND_CPU, w.qweight, w.scales, K, N, 128, &plan) != W4A16_OK) return 2;
  if (w4a16_plan_run(plan, x, M, NULL, NULL, W4A16_ACT_GELU_TANH, out, NULL) != W4A16_OK) return 2;
  w4t_oracle_acc(&w, x, M, acc);

  w4t_oracle_out(acc, M, N, NULL, NULL, W4A16_ACT_GELU_TANH, ref);
  w4t_cmp right = w4t_compare(out, ref, M * N);
  printf("oracle with the same activation (gelu_tanh): pass=%d rel=%.2e\n", right.pass, right.rel_norm);

  w4t_oracle_out(acc, M, N, NULL, NULL, W4A16_ACT_SILU, ref);
  w4t_cmp c = w4t_compare(out, ref, M * N);
  printf("oracle fed silu instead: pass=%d rel=%.2e bad=%lld\n", c.pass, c.rel_norm, (long long)c.bad_elems);
  wrong_accepted += c.pass;

  /* reversed nibble order within each word (a classic bug): the oracle sees a different weight */
  for (int64_t i = 0; i < (K / 8) * N; ++i) {
    uint32_t v = (uint32_t)w.qweight[i], r = 0;
    for (int j = 0; j < 8; ++j) r |= ((v >> (4 * j)) & 15u) << (4 * (7 - j));
    w.qweight[i] = (int32_t)r;
  }
  w4t_oracle_acc(&w, x, M, acc);
  w4t_oracle_out(acc, M, N, NULL, NULL, W4A16_ACT_GELU_TANH, ref);
  c = w4t_compare(out, ref, M * N);
  printf("oracle fed reversed nibbles: pass=%d rel=%.2e\n", c.pass, c.rel_norm);
  wrong_accepted += c.pass;

  w4t_oracle_out(acc, M, N, NULL, NULL, W4A16_ACT_GELU_TANH, ref);
  for (int64_t i = 0; i < M * N; ++i) ref[i] = w4a16_h2f(out[i]);
  out[7] = 0x7e00; /* one NaN, everything else exact */
  c = w4t_compare(out, ref, M * N);
  printf("one NaN in out: pass=%d nonfinite=%lld\n", c.pass, (long long)c.nonfinite);
  wrong_accepted += c.pass;

  w4a16_plan_destroy(plan);
  const int ok = right.pass && wrong_accepted == 0;
  printf("%s: the checker rejects wrong results (and accepts the right one)\n", ok ? "PASS" : "FAIL");
  return !ok;
}
