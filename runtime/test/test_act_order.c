/* Act-order plans (GPTQ desc_act, w4a16_plan_create_act_order) on the CPU reference:
 *   - for G = 32, 64, 128, the symmetric, zero-point and offset forms, f16 and bf16 io (and f16 scales with bf16
 *     io), g_idx from a random permutation (each group's rows scattered over K): out within docs/contract.md §1's
 *     tolerance of the formula W[k, n] = (code(k, n) - z[g_idx[k], n]) s[g_idx[k], n] (+ m[g_idx[k], n]) computed
 *     in double row by row (w4t_oracle_acc_gidx: no permutation), with bias, residual and silu; repeat bitwise;
 *     x unchanged; bitwise equal to a plain plan of the weight whose rows this test sorted by g_idx itself run on
 *     x gathered the same way (the design: a stable sort, then an ordinary grouped plan); the plan describes
 *     itself as act-order and holds K int32 more than the plain plan;
 *   - g_idx = k / G: the plan of w4a16_plan_create_typed, bit for bit and byte for byte;
 *   - bad g_idx (a value out of range, a negative one, a group with G + 1 rows, misaligned): the status, a message
 *     naming the problem, and no plan; without a GPU the CUDA backend answers W4A16_ERR_NO_DEVICE. */
#include "support.h"
#include "w4a16/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static void check(int ok, const char *what) {
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  failures += !ok;
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) exit(2);
  return p;
}

static const char *form_name(const w4t_form *f) {
  static char buf[96];
  snprintf(buf, sizeof buf, "%s G=%lld io=%s scales=%s", w4t_zp_name(f->zp), (long long)f->group,
           f->io == W4A16_ELEM_BF16 ? "bf16" : "f16", f->scales == W4A16_ELEM_BF16 ? "bf16" : "f16");
  return buf;
}

/* One act-order case; see the header. */
static void run_case(int64_t K, int64_t N, int64_t M, const w4t_form *f, uint64_t seed) {
  const int64_t G = f->group;
  char what[256];
  w4t_weights w;
  w4t_make_weights_form(&w, K, N, W4T_RANDOM, f, seed);
  int32_t *g_idx = xmalloc((size_t)K * 4);
  w4t_make_g_idx(g_idx, K, G, seed + 1);
  uint16_t *x = xmalloc((size_t)(M * K) * 2), *bias = xmalloc((size_t)N * 2), *res = xmalloc((size_t)(M * N) * 2);
  uint16_t *out = xmalloc((size_t)(M * N) * 2), *out2 = xmalloc((size_t)(M * N) * 2);
  w4t_make_x_typed(x, M, K, W4T_RANDOM, f->io, seed + 2);
  w4t_make_vec_typed(bias, N, -1, 1, f->io, seed + 3);
  w4t_make_vec_typed(res, M * N, -1, 1, f->io, seed + 4);
  const uint64_t hx = w4t_hash(x, (size_t)(M * K) * 2);

  w4a16_plan *p = NULL, *plain = NULL;
  w4a16_status st = w4a16_plan_create_act_order(W4A16_BACKEND_CPU, w.qweight, w.scales, w.zero_points, w.offsets,
                                                g_idx, K, N, G, f->io, f->scales, &p);
  snprintf(what, sizeof what, "K=%lld N=%lld M=%lld %s: plan_create_act_order (%s)", (long long)K, (long long)N,
           (long long)M, form_name(f), w4a16_last_error());
  check(st == W4A16_OK && p, what);
  if (!p) goto done;

  /* against the formula with g_idx, in double */
  double *acc = xmalloc((size_t)(M * N) * sizeof(double)), *abs_acc = xmalloc((size_t)(M * N) * sizeof(double));
  double *ref = xmalloc((size_t)(M * N) * sizeof(double));
  w4t_oracle_acc_gidx(&w, g_idx, x, f->io, M, acc, abs_acc);
  w4t_oracle_out_typed(acc, M, N, bias, res, W4A16_ACT_SILU, f->io, ref);
  memset(out, 0xff, (size_t)(M * N) * 2);
  st = w4a16_plan_run(p, x, M, bias, res, W4A16_ACT_SILU, out, NULL);
  const w4t_cmp c = w4t_compare_typed(out, ref, M * N, f->io, abs_acc, res);
  snprintf(what, sizeof what, "K=%lld N=%lld M=%lld %s: against the formula with g_idx (rel L2 %.2e, worst element "
           "%.3f of its bound)", (long long)K, (long long)N, (long long)M, form_name(f), c.rel_norm, c.max_elem_ratio);
  check(st == W4A16_OK && c.pass, what);
  memset(out2, 0xff, (size_t)(M * N) * 2);
  st = w4a16_plan_run(p, x, M, bias, res, W4A16_ACT_SILU, out2, NULL);
  check(st == W4A16_OK && memcmp(out, out2, (size_t)(M * N) * 2) == 0 && w4t_hash(x, (size_t)(M * K) * 2) == hx,
        "  repeat bitwise, x unchanged");
  free(acc), free(abs_acc), free(ref);

  /* the design: rows sorted by g_idx (stably: ascending k within a group), an ordinary grouped plan */
  int32_t *sorted = xmalloc((size_t)(K / 8 * N) * 4), *perm = xmalloc((size_t)K * 4);
  uint16_t *xg = xmalloc((size_t)(M * K) * 2);
  w4t_sort_by_g_idx(w.qweight, g_idx, K, N, G, perm, sorted);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t i = 0; i < K; ++i) xg[m * K + i] = x[m * K + perm[i]];
  st = w4a16_plan_create_typed(W4A16_BACKEND_CPU, sorted, w.scales, w.zero_points, w.offsets, K, N, G, f->io,
                               f->scales, &plain);
  if (st == W4A16_OK) st = w4a16_plan_run(plain, xg, M, bias, res, W4A16_ACT_SILU, out2, NULL);
  check(st == W4A16_OK && memcmp(out, out2, (size_t)(M * N) * 2) == 0,
        "  bitwise equal to a plain plan of the rows sorted by g_idx, on x gathered alike");
  char desc[200];
  w4a16_plan_describe(p, M, desc, sizeof desc);
  check(strstr(desc, " act-order") != NULL && plain &&
            w4a16_plan_resident_bytes(p) == w4a16_plan_resident_bytes(plain) + (uint64_t)K * 4,
        "  describes itself as act-order, holds the permutation (K int32) besides the plain plan");
  w4a16_plan_destroy(plain);
  free(sorted), free(perm), free(xg);
done:
  w4a16_plan_destroy(p);
  w4t_free_weights(&w);
  free(g_idx), free(x), free(bias), free(res), free(out), free(out2);
}

/* g_idx = k / G is no act-order: the plan of w4a16_plan_create_typed. */
static void run_identity(int64_t G) {
  const int64_t K = 512, N = 32, M = 4;
  const w4t_form f = {W4T_ZP_RANDOM, G, W4A16_ELEM_BF16, W4A16_ELEM_F16};
  w4t_weights w;
  w4t_make_weights_form(&w, K, N, W4T_RANDOM, &f, 31 + (uint64_t)G);
  int32_t *g_idx = xmalloc((size_t)K * 4);
  for (int64_t k = 0; k < K; ++k) g_idx[k] = (int32_t)(k / G);
  uint16_t *x = xmalloc((size_t)(M * K) * 2), *a = xmalloc((size_t)(M * N) * 2), *b = xmalloc((size_t)(M * N) * 2);
  w4t_make_x_typed(x, M, K, W4T_RANDOM, f.io, 32);
  w4a16_plan *p = NULL, *q = NULL;
  int ok = w4a16_plan_create_act_order(W4A16_BACKEND_CPU, w.qweight, w.scales, w.zero_points, NULL, g_idx, K, N, G,
                                       f.io, f.scales, &p) == W4A16_OK &&
           w4a16_plan_create_typed(W4A16_BACKEND_CPU, w.qweight, w.scales, w.zero_points, NULL, K, N, G, f.io, f.scales,
                                   &q) == W4A16_OK;
  ok = ok && w4a16_plan_run(p, x, M, NULL, NULL, W4A16_ACT_GELU_TANH, a, NULL) == W4A16_OK &&
       w4a16_plan_run(q, x, M, NULL, NULL, W4A16_ACT_GELU_TANH, b, NULL) == W4A16_OK;
  char desc[200] = "";
  if (p) w4a16_plan_describe(p, M, desc, sizeof desc);
  char what[96];
  snprintf(what, sizeof what, "g_idx = k / G (G = %lld): the plain plan's bits and bytes, not act-order", (long long)G);
  check(ok && memcmp(a, b, (size_t)(M * N) * 2) == 0 &&
            w4a16_plan_resident_bytes(p) == w4a16_plan_resident_bytes(q) && !strstr(desc, "act-order"),
        what);
  w4a16_plan_destroy(p), w4a16_plan_destroy(q);
  w4t_free_weights(&w);
  free(g_idx), free(x), free(a), free(b);
}

static void expect_bad(const int32_t *qw, const uint16_t *sc, const int32_t *g_idx, int64_t K, int64_t N, int64_t G,
                       w4a16_backend backend, w4a16_status want, const char *msg_part, const char *what) {
  w4a16_plan *p = (w4a16_plan *)0x1;
  const w4a16_status st = w4a16_plan_create_act_order(backend, qw, sc, NULL, NULL, g_idx, K, N, G, W4A16_ELEM_F16,
                                                      W4A16_ELEM_F16, &p);
  const char *msg = w4a16_last_error();
  char line[400];
  snprintf(line, sizeof line, "%s -> %s \"%s\"", what, w4a16_status_name(st), msg);
  check(st == want && p == NULL && strstr(msg, w4a16_status_name(want)) && strstr(msg, msg_part), line);
  w4a16_plan_destroy(p);
}

static void run_bad(void) {
  const int64_t K = 256, N = 16, G = 64, groups = K / G;
  const w4t_form f = {W4T_ZP_NONE, G, W4A16_ELEM_F16, W4A16_ELEM_F16};
  w4t_weights w;
  w4t_make_weights_form(&w, K, N, W4T_RANDOM, &f, 5);
  int32_t *g_idx = xmalloc((size_t)K * 4 + 8);
  w4t_make_g_idx(g_idx, K, G, 6);
  int32_t *bad = xmalloc((size_t)K * 4 + 8);

  memcpy(bad, g_idx, (size_t)K * 4);
  bad[5] = (int32_t)groups;
  expect_bad(w.qweight, w.scales, bad, K, N, G, W4A16_BACKEND_CPU, W4A16_ERR_BAD_ARGUMENT, "g_idx[5] = 4",
             "g_idx[5] = K/G (out of range)");
  bad[5] = -1;
  expect_bad(w.qweight, w.scales, bad, K, N, G, W4A16_BACKEND_CPU, W4A16_ERR_BAD_ARGUMENT, "g_idx[5] = -1",
             "g_idx[5] = -1");
  /* move one row from group b into group a: a holds G + 1 rows, b G - 1; the message names the lower of the two */
  memcpy(bad, g_idx, (size_t)K * 4);
  int64_t kb = 0;
  while (bad[kb] == bad[0]) ++kb;
  const int32_t ga = bad[0], gb = bad[kb];
  bad[kb] = ga;
  char part[64];
  snprintf(part, sizeof part, "%lld rows in group %d", (long long)(ga < gb ? G + 1 : G - 1), ga < gb ? ga : gb);
  expect_bad(w.qweight, w.scales, bad, K, N, G, W4A16_BACKEND_CPU, W4A16_ERR_BAD_ARGUMENT, part,
             "a group of G + 1 rows (and one of G - 1)");
  for (int64_t k = 0; k < K; ++k) bad[k] = (int32_t)(k / G + (k == K - 1)) % (int32_t)groups; /* last row to group 0 */
  expect_bad(w.qweight, w.scales, bad, K, N, G, W4A16_BACKEND_CPU, W4A16_ERR_BAD_ARGUMENT, "65 rows in group 0",
             "the last row in group 0 (G + 1 rows there)");
  memcpy((char *)bad + 2, g_idx, (size_t)K * 4);
  expect_bad(w.qweight, w.scales, (const int32_t *)((char *)bad + 2), K, N, G, W4A16_BACKEND_CPU,
             W4A16_ERR_MISALIGNED, "4-byte aligned", "g_idx 2-byte aligned");
  if (!w4a16_cuda_available())
    expect_bad(w.qweight, w.scales, g_idx, K, N, G, W4A16_BACKEND_CUDA, W4A16_ERR_NO_DEVICE, "CUDA",
               "CUDA backend without a GPU");
  w4t_free_weights(&w);
  free(g_idx), free(bad);
}

int main(void) {
  const w4a16_element_type f16 = W4A16_ELEM_F16, bf16 = W4A16_ELEM_BF16;
  static const int64_t shapes[][3] = {{256, 24, 3}, {512, 40, 5}, {1024, 16, 1}, {384, 136, 17}, {2048, 64, 33}};
  static const int64_t groups[] = {32, 64, 128};
  static const w4t_zp forms[] = {W4T_ZP_NONE, W4T_ZP_RANDOM, W4T_OFFSETS};
  uint64_t seed = 100;
  for (int s = 0; s < 5; ++s)
    for (int g = 0; g < 3; ++g) {
      if (shapes[s][0] % groups[g]) continue; /* 384 = 3 x 128 = 6 x 64 = 12 x 32: every G fits */
      for (int z = 0; z < 3; ++z)
        for (int io = 0; io < 2; ++io) {
          const w4t_form f = {forms[z], groups[g], io ? bf16 : f16, io && z == 1 ? f16 : io ? bf16 : f16};
          run_case(shapes[s][0], shapes[s][1], shapes[s][2], &f, seed += 10);
        }
    }
  for (int g = 0; g < 3; ++g) run_identity(groups[g]);
  run_bad();
  printf("%d failed\n", failures);
  return failures != 0;
}
