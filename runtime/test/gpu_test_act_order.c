/* GPU tests of act-order plans (GPTQ desc_act, w4a16_plan_create_act_order), part of w4a16_gpu_test (main in
 * gpu_test.c): random g_idx against the f64 oracle with g_idx and bitwise as a plain plan of the sorted rows on gathered
 * x, where the gather runs (in the GEMM or its own launch), identity g_idx, a bad g_idx, residency and reservation. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu_test.h"
#include "support.h"

/* ---- act-order (GPTQ desc_act, w4a16_plan_create_act_order) ---- */
/* Device copy of a host buffer (NULL stays NULL). */
void *upload_or_null(const void *host, size_t bytes) {
  if (!host) return NULL;
  void *d = g_alloc(bytes);
  g_put(d, host, bytes);
  return d;
}

/* One weight with a random g_idx (every group's rows scattered over K), all of it in device memory, for every M in
 * Ms: the CUDA act-order plan against the formula with g_idx in f64 (w4t_oracle_acc_gidx, no permutation) within
 * the io type's tolerance, with bias, residual and silu; a second call bitwise equal; bitwise equal to a plain CUDA
 * plan of the rows the test sorted by g_idx itself run on x gathered alike (the act-order plan is that plan plus
 * the gather); x unchanged. Ms may exceed W4A16_DEFAULT_MAX_M (an eager call grows the gather buffer). */
static void act_order_case(int64_t K, int64_t N, const int64_t *Ms, int nM, const w4t_form *f, uint64_t seed,
                           w4t_stats *st) {
  int64_t Mmax = 0;
  for (int i = 0; i < nM; ++i) Mmax = Ms[i] > Mmax ? Ms[i] : Mmax;
  const int64_t G = f->group;
  const size_t qbytes = (size_t)(K / 8 * N) * 4, sbytes = (size_t)(K / G * N) * 2;
  w4t_weights w;
  w4t_make_weights_form(&w, K, N, W4T_RANDOM, f, seed);
  int32_t *g_idx = malloc((size_t)K * 4), *perm = malloc((size_t)K * 4), *sorted = malloc(qbytes);
  uint16_t *x = malloc((size_t)(Mmax * K) * 2), *xg = malloc((size_t)(Mmax * K) * 2), *bias = malloc((size_t)N * 2);
  uint16_t *res = malloc((size_t)(Mmax * N) * 2), *out = malloc((size_t)(Mmax * N) * 2);
  uint16_t *out2 = malloc((size_t)(Mmax * N) * 2);
  double *acc = malloc((size_t)(Mmax * N) * sizeof(double)), *abs_acc = malloc((size_t)(Mmax * N) * sizeof(double));
  double *ref = malloc((size_t)(Mmax * N) * sizeof(double));
  w4t_make_g_idx(g_idx, K, G, seed + 1);
  w4t_make_x_typed(x, Mmax, K, W4T_RANDOM, f->io, seed + 2);
  w4t_make_vec_typed(bias, N, -1, 1, f->io, seed + 3);
  w4t_make_vec_typed(res, Mmax * N, -1, 1, f->io, seed + 4);
  w4t_oracle_acc_gidx(&w, g_idx, x, f->io, Mmax, acc, abs_acc); /* row m of acc depends on row m of x only */
  w4t_sort_by_g_idx(w.qweight, g_idx, K, N, G, perm, sorted);
  for (int64_t m = 0; m < Mmax; ++m)
    for (int64_t i = 0; i < K; ++i) xg[m * K + i] = x[m * K + perm[i]];

  void *dq = upload_or_null(w.qweight, qbytes), *ds = upload_or_null(w.scales, sbytes);
  void *dz = upload_or_null(w.zero_points, sbytes), *doff = upload_or_null(w.offsets, sbytes);
  void *dg = upload_or_null(g_idx, (size_t)K * 4), *dsorted = upload_or_null(sorted, qbytes);
  uint16_t *dx = upload_or_null(x, (size_t)(Mmax * K) * 2), *dxg = upload_or_null(xg, (size_t)(Mmax * K) * 2);
  uint16_t *db = upload_or_null(bias, (size_t)N * 2), *dr = upload_or_null(res, (size_t)(Mmax * N) * 2);
  uint16_t *dout = g_alloc((size_t)(Mmax * N) * 2);
  w4a16_plan *p = NULL, *plain = NULL;
  w4a16_status s = w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, dq, ds, dz, doff, dg, K, N, G, f->io, f->scales,
                                               &p);
  if (s == W4A16_OK)
    s = w4a16_plan_create_typed(W4A16_BACKEND_CUDA, dsorted, ds, dz, doff, K, N, G, f->io, f->scales, &plain);
  g_release(dq), g_release(dsorted), g_release(dg); /* the plans hold their own copies */
  if (s != W4A16_OK) {
    printf("FAIL act-order plan_create K=%lld N=%lld %s: %s\n", (long long)K, (long long)N, w4t_zp_name(f->zp),
           w4a16_last_error());
    st->failures++;
  }
  for (int i = 0; i < nM && s == W4A16_OK; ++i) {
    const int64_t M = Ms[i];
    const size_t ob = (size_t)(M * N) * 2;
    w4t_oracle_out_typed(acc, M, N, bias, res, W4A16_ACT_SILU, f->io, ref);
    g_poison(dout, ob);
    w4a16_status r1 = w4a16_plan_run(p, dx, M, db, dr, W4A16_ACT_SILU, dout, NULL);
    CK(cudaDeviceSynchronize());
    g_get(out, dout, ob);
    const w4t_cmp c = w4t_compare_typed(out, ref, M * N, f->io, abs_acc, res);
    g_poison(dout, ob);
    const w4a16_status r2 = w4a16_plan_run(p, dx, M, db, dr, W4A16_ACT_SILU, dout, NULL);
    CK(cudaDeviceSynchronize());
    g_get(out2, dout, ob);
    const int repeat = r2 == W4A16_OK && memcmp(out, out2, ob) == 0;
    g_poison(dout, ob);
    const w4a16_status r3 = w4a16_plan_run(plain, dxg, M, db, dr, W4A16_ACT_SILU, dout, NULL);
    CK(cudaDeviceSynchronize());
    g_get(out2, dout, ob);
    /* Bitwise where both plans run the same configuration; an act-order plan may choose another at M >= 8 (it
     * leaves room for the gather's CTAs, cuda_config.cu's choose_v3): then the oracle's tolerance above only. */
    char dp[200], dl[200];
    w4a16_plan_describe(p, M, dp, sizeof dp), w4a16_plan_describe(plain, M, dl, sizeof dl);
    const int same_config = strncmp(dp, dl, strlen(dl)) == 0;
    const int as_plain = r3 == W4A16_OK && (!same_config || memcmp(out, out2, ob) == 0);
    st->runs++;
    if (c.rel_norm > st->worst_rel_norm) st->worst_rel_norm = c.rel_norm;
    if (c.max_elem_ratio > st->worst_elem_ratio) st->worst_elem_ratio = c.max_elem_ratio;
    if (r1 != W4A16_OK || !c.pass || !repeat || !as_plain) {
      char desc[200];
      w4a16_plan_describe(p, M, desc, sizeof desc);
      printf("FAIL act-order K=%lld N=%lld M=%lld G=%lld %s io=%s: run %s, rel=%.3g elem_ratio=%.3g bad=%lld "
             "nonfinite=%lld, repeat bitwise %d, bitwise as the plain plan of the sorted rows %d [%s] %s\n",
             (long long)K, (long long)N, (long long)M, (long long)G, w4t_zp_name(f->zp),
             f->io == W4A16_ELEM_BF16 ? "bf16" : "f16", w4a16_status_name(r1), c.rel_norm, c.max_elem_ratio,
             (long long)c.bad_elems, (long long)c.nonfinite, repeat, as_plain, desc, w4a16_last_error());
      st->failures++;
    }
  }
  g_get(xg, dx, (size_t)(Mmax * K) * 2);
  if (s == W4A16_OK && memcmp(xg, x, (size_t)(Mmax * K) * 2) != 0) {
    printf("FAIL act-order K=%lld N=%lld: x changed\n", (long long)K, (long long)N);
    st->failures++;
  }
  w4a16_plan_destroy(p), w4a16_plan_destroy(plain);
  g_release(ds), g_release(dx), g_release(dxg), g_release(db), g_release(dr), g_release(dout);
  if (dz) g_release(dz);
  if (doff) g_release(doff);
  w4t_free_weights(&w);
  free(g_idx), free(perm), free(sorted), free(x), free(xg), free(bias), free(res), free(out), free(out2);
  free(acc), free(abs_acc), free(ref);
}

/* The act-order matrix: K = N = 4096 at M in {1, 5, 8, 16, 32, 64} in f16 and bf16, symmetric and with zero points
 * (M <= 8: the GEMM gathers x itself -- kernel v1's decode variant, or v3 where x's rows fit beside its rings --,
 * else the gather launch, from global memory below 2 rows and from shared memory from 2; with
 * W4A16_GATHER_LAUNCH=1 the launch at M = 1, 5, 8);
 * G = 64 and 32 (affine), M = 65 and 130 (the gather buffer grown by an eager call), v1 and v3's split-K through
 * the workspace forced (the gather ahead of the workspace's own ordering), and K = 131072 (the gather without
 * shared memory). */
void run_act_order_matrix(int small, uint64_t seed, w4t_stats *st16, w4t_stats *stbf) {
  const w4a16_element_type bf = W4A16_ELEM_BF16, f16 = W4A16_ELEM_F16;
  if (small) {
    static const int64_t Ms[] = {1, 3, 17};
    const w4t_form a = {W4T_ZP_RANDOM, 128, f16, f16}, b = {W4T_ZP_NONE, 64, bf, bf};
    act_order_case(1024, 136, Ms, 3, &a, seed++, st16);
    act_order_case(1024, 136, Ms, 3, &b, seed++, stbf);
    set_global(1), set_splits(2);
    act_order_case(1152, 520, Ms, 3, &a, seed++, st16);
    /* one token whose x row fits beside W = 4's rings but perm's range (28 KB at 4 splits) does not: perm is read
     * from global memory (small, for memcheck: 4 CTAs) */
    static const int64_t one[] = {1};
    set_wg(4), set_splits(4);
    act_order_case(28672, 256, one, 1, &a, seed++, st16);
    set_wg(0), set_global(0), set_splits(0);
    /* kernel v1's decode variant gathering x itself (forced): a partial CTA, a last stage of 5 of 16 groups */
    static const int64_t sliced_ms[] = {1, 8};
    set_kernel("sliced");
    act_order_case(2688, 200, sliced_ms, 2, &a, seed++, st16);
    set_kernel(NULL);
    return;
  }
  static const int64_t Ms[] = {1, 5, 8, 16, 32, 64};
  const w4t_form big[] = {{W4T_ZP_NONE, 128, f16, f16}, {W4T_ZP_RANDOM, 128, f16, f16},
                          {W4T_ZP_NONE, 128, bf, bf},   {W4T_ZP_RANDOM, 128, bf, f16}};
  for (int i = 0; i < 4; ++i) act_order_case(4096, 4096, Ms, 6, &big[i], seed++, big[i].io == bf ? stbf : st16);
  static const int64_t more[] = {1, 17, 65, 130};
  const w4t_form affine[] = {{W4T_OFFSETS, 32, f16, f16}, {W4T_ZP_RANDOM, 64, bf, bf}, {W4T_ZP_SIXTEEN, 128, f16, f16}};
  for (int i = 0; i < 3; ++i) act_order_case(2048, 520, more, 4, &affine[i], seed++, affine[i].io == bf ? stbf : st16);
  static const int64_t pathMs[] = {1, 7, 24, 64};
  set_kernel("v1");
  act_order_case(2048, 520, pathMs, 4, &big[1], seed++, st16);
  act_order_case(2048, 520, pathMs, 4, &big[2], seed++, stbf);
  set_kernel(NULL);
  set_global(1), set_splits(3);
  act_order_case(2048, 520, pathMs, 4, &big[1], seed++, st16);
  act_order_case(8192, 1024, pathMs, 4, &big[3], seed++, stbf);
  set_global(0), set_splits(0);
  /* x's row (2K bytes) past the shared memory a CTA can take (227 KB on the H200): the gather reads x from
   * global memory instead (act_order_cuda.cu) */
  static const int64_t wideMs[] = {1, 17};
  act_order_case(131072, 64, wideMs, 2, &big[1], seed++, st16);
  /* x's row fits beside the rings at one token but perm's range does not: the kernel reads perm from global memory
   * (28672x8192, 4 splits; test_act_order_paths checks that this path is taken) */
  static const int64_t oneM[] = {1, 2};
  act_order_case(28672, 8192, oneM, 2, &big[1], seed++, st16);
  act_order_case(28672, 8192, oneM, 2, &big[2], seed++, stbf);
  /* the gather launch where the GEMM would gather itself (W4A16_GATHER_LAUNCH=1, read at plan creation) */
  setenv("W4A16_GATHER_LAUNCH", "1", 1);
  static const int64_t launchMs[] = {1, 5, 8};
  act_order_case(4096, 4096, launchMs, 3, &big[1], seed++, st16);
  act_order_case(4096, 4096, launchMs, 3, &big[2], seed++, stbf);
  unsetenv("W4A16_GATHER_LAUNCH");
  /* v3 gathering x itself with perm in shared memory, where by default kernel v1's decode variant runs behind the
   * gather launch (4096x4096 at up to 8 tokens) */
  set_kernel("v3");
  act_order_case(4096, 4096, launchMs, 3, &big[1], seed++, st16);
  act_order_case(4096, 4096, launchMs, 3, &big[2], seed++, stbf);
  set_kernel(NULL);
  /* the gather launch's row-staged kernel at one row too (W4A16_GATHER_ROWS_FROM=1: 128 / M CTAs per row; by
   * default it starts at 2) behind the decode variant (4096x4096 at 1, 5 and 8 tokens, 11008x4096 at one; the
   * launch forced: by default the decode variant gathers x itself) */
  setenv("W4A16_GATHER_LAUNCH", "1", 1);
  setenv("W4A16_GATHER_ROWS_FROM", "1", 1);
  act_order_case(4096, 4096, launchMs, 3, &big[1], seed++, st16);
  act_order_case(11008, 4096, launchMs, 2, &big[2], seed++, stbf);
  unsetenv("W4A16_GATHER_ROWS_FROM");
  unsetenv("W4A16_GATHER_LAUNCH");
  /* kernel v1's decode variant gathering x itself (gemm_v1.cuh, GATHER: x's rows copied into shared memory, each
     stage built from them through perm): the prologue's stage only (4096x4096 at 1, 5 and 8 tokens above, by
     default), the main loop's too (11008x4096 at 1 and 2 tokens: 6 stages of 16 groups), a last stage of 5 of 16
     groups and a partial CTA (2688x200 and x264, forced), a G = 128 affine plan (at 8 tokens its rows do not fit:
     the launch) */
  static const int64_t twoMs[] = {1, 2}, slicedMs[] = {1, 3, 8};
  act_order_case(11008, 4096, twoMs, 2, &big[1], seed++, st16);
  act_order_case(11008, 4096, twoMs, 2, &big[2], seed++, stbf);
  set_kernel("sliced");
  act_order_case(2688, 200, slicedMs, 3, &big[1], seed++, st16);
  act_order_case(2688, 200, slicedMs, 3, &big[2], seed++, stbf);
  act_order_case(11008, 264, slicedMs, 3, &affine[2], seed++, st16);
  set_kernel(NULL);
}

/* The description (w4a16_plan_describe) of an act-order plan of random f16 weights and a random g_idx at M tokens;
 * the plan's status (desc is empty unless W4A16_OK). */
static w4a16_status describe_act_order(int64_t K, int64_t N, int64_t M, uint64_t seed, char *desc, size_t size) {
  int32_t *g_idx = malloc((size_t)K * 4);
  w4t_make_g_idx(g_idx, K, 128, seed);
  void *dq, *ds;
  upload_weights(K, N, seed + 1, &dq, &ds);
  void *dg = upload_or_null(g_idx, (size_t)K * 4);
  w4a16_plan *p = NULL;
  const w4a16_status s = w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, dq, ds, NULL, NULL, dg, K, N, 128,
                                                     W4A16_ELEM_F16, W4A16_ELEM_F16, &p);
  desc[0] = 0;
  if (s == W4A16_OK) w4a16_plan_describe(p, M, desc, size);
  w4a16_plan_destroy(p);
  g_release(dq), g_release(ds), g_release(dg);
  free(g_idx);
  return s;
}

/* Which act-order calls gather x inside the GEMM on sm_90 (plan_describe says "x gathered in the GEMM"), with v3
 * forced (W4A16_FORCE_KERNEL=v3, as where kernel v1's decode variant does not apply): at one token where x's row
 * fits beside the rings (K = 4096, and 14336: 28 KB), with perm read from global memory where only the row fits
 * (28672x8192: 57 KB of row, 28 KB of perm), not at 16 tokens (the gather launch), not where the row cannot fit
 * (K = 131072), not with W4A16_GATHER_LAUNCH=1. By default the N = 4096 shapes run the decode variant at one token,
 * as the plain plan does, gathering x itself (plan_describe: "k-slices") where x's rows fit behind its stages, else
 * (57344x4096: 112 KB of row) or with W4A16_GATHER_LAUNCH=1 behind the gather launch. in_gemm: 2 = perm from global
 * memory. */
void test_act_order_paths(int sm90, w4t_stats *st) {
  static const struct { int64_t K, N, M; int launch, v3, in_gemm, sliced; } cases[] = {
      {4096, 4096, 1, 0, 1, 1, 0},  {14336, 4096, 1, 0, 1, 1, 0},  {28672, 8192, 1, 0, 0, 2, 0},
      {4096, 4096, 16, 0, 0, 0, 0}, {131072, 64, 1, 0, 1, 0, 0},   {4096, 4096, 1, 1, 1, 0, 0},
      {4096, 4096, 1, 0, 0, 1, 1},  {14336, 4096, 1, 0, 0, 1, 1},  {4096, 4096, 1, 1, 0, 0, 1},
      {57344, 4096, 1, 0, 0, 0, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    if (cases[i].launch) setenv("W4A16_GATHER_LAUNCH", "1", 1);
    if (cases[i].v3) setenv("W4A16_FORCE_KERNEL", "v3", 1);
    char desc[200];
    const w4a16_status s = describe_act_order(cases[i].K, cases[i].N, cases[i].M, 77 + 2 * i, desc, sizeof desc);
    unsetenv("W4A16_GATHER_LAUNCH");
    unsetenv("W4A16_FORCE_KERNEL");
    const int in_gemm = strstr(desc, "x gathered in the GEMM, perm read from global memory") ? 2
                        : strstr(desc, "x gathered in the GEMM")                             ? 1
                                                                                              : 0;
    const int sliced = strstr(desc, "k-slices") != NULL;
    const int expected = sm90 ? cases[i].in_gemm : 0, expected_sliced = sm90 && cases[i].sliced;
    st->runs++;
    if (s != W4A16_OK || in_gemm != expected || sliced != expected_sliced) {
      printf("FAIL act-order path K=%lld N=%lld M=%lld%s%s: expected the gather %s%s, got [%s] %s\n",
             (long long)cases[i].K, (long long)cases[i].N, (long long)cases[i].M,
             cases[i].launch ? " W4A16_GATHER_LAUNCH=1" : "", cases[i].v3 ? " W4A16_FORCE_KERNEL=v3" : "",
             expected == 2 ? "in the GEMM, perm from global memory" : expected ? "in the GEMM" : "launch",
             expected_sliced ? " and kernel v1's decode variant" : "", desc, s == W4A16_OK ? "" : w4a16_last_error());
      st->failures++;
    }
  }
}

/* The configuration of act-order calls of 9 to 32 tokens on a 132-SM sm_90 GPU (H100 SXM, H200): a one-wave
 * cluster with as many splits replaces the cost model's workspace pick (cuda_config.cu's choose_v3; bench/RESULTS.md
 * sessions 28-29: 4096x12288 takes clusters at M = 12 to 32, 8192x8192 at M = 24 and 32), and 28672x8192 keeps the
 * workspace (its clusters have fewer splits), as 8192x8192 does at M = 16. Other GPUs: their SM count changes the
 * picks; not checked. */
void test_act_order_chooser(int sm90_132, w4t_stats *st) {
  if (!sm90_132) return;
  static const struct { int64_t K, N, M; int cluster; } cases[] = {
      {4096, 12288, 12, 1}, {4096, 12288, 16, 1}, {4096, 12288, 24, 1}, {4096, 12288, 32, 1},
      {8192, 8192, 16, 0},  {8192, 8192, 24, 1},  {8192, 8192, 32, 1},   {28672, 8192, 32, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char desc[200];
    const w4a16_status s = describe_act_order(cases[i].K, cases[i].N, cases[i].M, 91 + 2 * i, desc, sizeof desc);
    const int cluster = strstr(desc, "cluster") != NULL, workspace = strstr(desc, "workspace") != NULL;
    st->runs++;
    if (s != W4A16_OK || (cases[i].cluster ? !cluster : !workspace)) {
      printf("FAIL act-order chooser K=%lld N=%lld M=%lld: expected split-K through %s, got [%s] %s\n",
             (long long)cases[i].K, (long long)cases[i].N, (long long)cases[i].M,
             cases[i].cluster ? "a cluster" : "the workspace", desc, s == W4A16_OK ? "" : w4a16_last_error());
      st->failures++;
    }
  }
}

/* The split-K workspace w4a16_plan_reserve(max_m) holds: that of the largest call it covers. */
static uint64_t reserved_workspace(const w4a16_plan *p, int64_t max_m) {
  uint64_t most = 0;
  for (int64_t m = 1; m <= max_m; ++m) {
    const uint64_t b = w4a16_plan_workspace_bytes(p, m);
    most = b > most ? b : most;
  }
  return most;
}

/* Act-order plans on the CUDA backend besides their results: g_idx = k / G is the plain plan (bits, bytes, no
 * act-order in its description); a bad g_idx in device memory is refused with a status and no plan; the plan holds
 * perm (K int32) and a gather buffer of 64 x K values besides the plain plan, both grown alike by
 * w4a16_plan_reserve (the split-K workspaces aside: an act-order call of 8 to 64 tokens may take another
 * configuration than the plain one, cuda_config.cu's choose_v3); device memory is flat over 1000 calls (no
 * allocation on the call path). */
void test_act_order_plan(void) {
  const int64_t K = 2048, N = 1024, M = 64, G = 128;
  void *dq, *ds;
  upload_weights(K, N, 61, &dq, &ds);
  int32_t *g = malloc((size_t)K * 4);
  for (int64_t k = 0; k < K; ++k) g[k] = (int32_t)(k / G);
  int32_t *dg = upload_or_null(g, (size_t)K * 4);
  uint16_t *hx = malloc((size_t)(M * K) * 2), *a = malloc((size_t)(M * N) * 2), *b = malloc((size_t)(M * N) * 2);
  w4t_make_x(hx, M, K, W4T_RANDOM, 62);
  uint16_t *dx = upload_or_null(hx, (size_t)(M * K) * 2), *dout = g_alloc((size_t)(M * N) * 2);
  w4a16_plan *id = NULL, *plain = NULL, *p = NULL;
  const int made = w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, dq, ds, NULL, NULL, dg, K, N, G, W4A16_ELEM_F16,
                                               W4A16_ELEM_F16, &id) == W4A16_OK &&
                   w4a16_plan_create(W4A16_BACKEND_CUDA, dq, ds, K, N, G, &plain) == W4A16_OK;
  check(made, "act-order: CUDA plans with g_idx = k / G and without g_idx");
  if (made) {
    char desc[200];
    w4a16_plan_describe(id, M, desc, sizeof desc);
    w4a16_plan_run(id, dx, M, NULL, NULL, W4A16_ACT_SILU, dout, NULL);
    g_get(a, dout, (size_t)(M * N) * 2);
    w4a16_plan_run(plain, dx, M, NULL, NULL, W4A16_ACT_SILU, dout, NULL);
    g_get(b, dout, (size_t)(M * N) * 2);
    check(memcmp(a, b, (size_t)(M * N) * 2) == 0 && !strstr(desc, "act-order") &&
              w4a16_plan_resident_bytes(id) == w4a16_plan_resident_bytes(plain),
          "act-order: g_idx = k / G on CUDA is the plain plan (bits, bytes, description)");
  }
  /* a group of G + 1 rows, read from device memory */
  g[K - 1] = 0;
  g_put(dg, g, (size_t)K * 4);
  p = (w4a16_plan *)0x1;
  w4a16_status s = w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, dq, ds, NULL, NULL, dg, K, N, G, W4A16_ELEM_F16,
                                               W4A16_ELEM_F16, &p);
  printf("     g_idx with 129 rows in group 0 -> %s \"%s\"\n", w4a16_status_name(s), w4a16_last_error());
  check(s == W4A16_ERR_BAD_ARGUMENT && p == NULL && strstr(w4a16_last_error(), "129 rows in group 0"),
        "act-order: a bad g_idx in device memory is refused, no plan");
  /* residency and reservation */
  w4t_make_g_idx(g, K, G, 63);
  g_put(dg, g, (size_t)K * 4);
  s = w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, dq, ds, NULL, NULL, dg, K, N, G, W4A16_ELEM_F16, W4A16_ELEM_F16,
                                  &p);
  check(s == W4A16_OK, "act-order: CUDA plan with a random g_idx");
  if (s == W4A16_OK && made) {
    const int64_t dm = W4A16_DEFAULT_MAX_M;
    const uint64_t extra = (uint64_t)K * 4 + (uint64_t)dm * K * 2;
    printf("     act-order plan %llu bytes (workspace %llu), plain %llu (workspace %llu)\n",
           (unsigned long long)w4a16_plan_resident_bytes(p), (unsigned long long)reserved_workspace(p, dm),
           (unsigned long long)w4a16_plan_resident_bytes(plain), (unsigned long long)reserved_workspace(plain, dm));
    check(w4a16_plan_resident_bytes(p) - reserved_workspace(p, dm) ==
              w4a16_plan_resident_bytes(plain) - reserved_workspace(plain, dm) + extra,
          "act-order: the plan holds perm and a gather buffer of 64 x K values besides the plain plan");
    check(w4a16_plan_reserve(p, 200) == W4A16_OK && w4a16_plan_reserve(plain, 200) == W4A16_OK &&
              w4a16_plan_resident_bytes(p) - reserved_workspace(p, 200) ==
                  w4a16_plan_resident_bytes(plain) - reserved_workspace(plain, 200) + (uint64_t)K * 4 + 200ull * K * 2,
          "act-order: w4a16_plan_reserve(200) sizes the gather buffer for 200 tokens");
    check(w4a16_plan_reserve(p, M) == W4A16_OK, "act-order: w4a16_plan_reserve(64)");
    w4a16_plan_run(p, dx, M, NULL, NULL, W4A16_ACT_SILU, dout, NULL);
    const size_t f1 = free_mem();
    int errs = 0;
    for (int i = 0; i < 1000; ++i) errs += w4a16_plan_run(p, dx, M, NULL, NULL, W4A16_ACT_SILU, dout, NULL) != W4A16_OK;
    const size_t f2 = free_mem();
    check(errs == 0 && f1 == f2, "act-order: 1000 calls at M = 64, device memory flat");
  }
  w4a16_plan_destroy(id), w4a16_plan_destroy(plain), w4a16_plan_destroy(p);
  g_release(dq), g_release(ds), g_release(dg), g_release(dx), g_release(dout);
  free(g), free(hx), free(a), free(b);
}

/* A fresh act-order plan's first call on a non-blocking stream, while another stream keeps the copy engine busy with
 * host-to-device copies. Plan creation uploads the permutation from host memory, and a pageable cudaMemcpy may
 * return before its last bytes land (behind the other stream's copies); the caller's stream is not ordered after
 * that copy, so creation itself must wait for it. Each round takes a new g_idx (a stale permutation left in reused
 * device memory must not pass), and the first result must equal, bit for bit, the same plan's result after a device
 * sync. A guard, not a reproduction: on an H100, 1500 rounds against the runtime without that wait all passed
 * (plan creation's later steps seem to give the copy time to land; bench/RESULTS.md session 45). */
void test_first_call_after_create(int rounds) {
  const int64_t K = 65536, N = 256, M = 1, G = 128;
  const size_t kBusy = (size_t)64 << 20, out_bytes = (size_t)(M * N) * 2;
  void *dq, *ds;
  upload_weights(K, N, 71, &dq, &ds);
  int32_t *g = malloc((size_t)K * 4);
  int32_t *dg = g_alloc((size_t)K * 4);
  uint16_t *hx = malloc((size_t)(M * K) * 2), *first = malloc(out_bytes), *again = malloc(out_bytes);
  w4t_make_x(hx, M, K, W4T_RANDOM, 72);
  uint16_t *dx = upload_or_null(hx, (size_t)(M * K) * 2), *dout = g_alloc(out_bytes);
  void *busy_host, *busy_dev = g_alloc(kBusy);
  CK(cudaMallocHost(&busy_host, kBusy));
  memset(busy_host, 0x5a, kBusy);
  cudaStream_t s, busy;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking));
  long mismatches = 0, failed = 0;
  for (int r = 0; r < rounds; ++r) {
    w4t_make_g_idx(g, K, G, 1000 + (uint64_t)r);
    g_put(dg, g, (size_t)K * 4);
    for (int i = 0; i < 2; ++i) CK(cudaMemcpyAsync(busy_dev, busy_host, kBusy, cudaMemcpyHostToDevice, busy));
    w4a16_plan *p = NULL;
    if (w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, dq, ds, NULL, NULL, dg, K, N, G, W4A16_ELEM_F16,
                                    W4A16_ELEM_F16, &p) != W4A16_OK) {
      ++failed;
      CK(cudaDeviceSynchronize());
      continue;
    }
    CK(cudaMemsetAsync(dout, 0xff, out_bytes, s));
    failed += w4a16_plan_run(p, dx, M, NULL, NULL, W4A16_ACT_NONE, dout, s) != W4A16_OK;
    CK(cudaMemcpyAsync(first, dout, out_bytes, cudaMemcpyDeviceToHost, s));
    CK(cudaDeviceSynchronize());
    CK(cudaMemsetAsync(dout, 0xff, out_bytes, s));
    failed += w4a16_plan_run(p, dx, M, NULL, NULL, W4A16_ACT_NONE, dout, s) != W4A16_OK;
    CK(cudaMemcpyAsync(again, dout, out_bytes, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    mismatches += memcmp(first, again, out_bytes) != 0;
    w4a16_plan_destroy(p);
  }
  char msg[200];
  snprintf(msg, sizeof msg,
           "act-order: %d fresh plans' first call on a non-blocking stream beside busy copies: %ld mismatches, "
           "%ld failed calls", rounds, mismatches, failed);
  check(mismatches == 0 && failed == 0, msg);
  CK(cudaStreamDestroy(s));
  CK(cudaStreamDestroy(busy));
  CK(cudaFreeHost(busy_host));
  g_release(busy_dev), g_release(dq), g_release(ds), g_release(dg), g_release(dx), g_release(dout);
  free(g), free(hx), free(first), free(again);
}
