/* GPU tests of several outputs from one plan (w4a16_plan_run_outputs, issue #21), part of w4a16_gpu_test (main in
 * gpu_test.c): split outputs bitwise as the plan's own columns and GLU pairs against the CPU backend, on every kernel
 * path, plain and act-order plans; the CUDA alignment checks of the out pointers. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu_test.h"
#include "support.h"

/* ---- several outputs from one plan (w4a16_plan_run_outputs, issue #21) ---- */
/* Kernel paths, forced at plan creation: v3 as chosen, both CTA widths, cluster split-K, split-K through the
 * workspace (two CTA widths), v1 without and with cluster split-K, v1's decode variant (M <= 8). */
typedef struct {
  const char *name, *kernel;
  int wg, splits, global;
} OutPath;
static const OutPath kOutPaths[] = {{"v3 default", NULL, 0, 0, 0},         {"v3 W=2 S=1", NULL, 2, 1, 0},
                                    {"v3 W=4 cluster 3", NULL, 4, 3, 0},   {"v3 W=4 workspace 2", NULL, 4, 2, 1},
                                    {"v3 W=2 workspace 5", NULL, 2, 5, 1}, {"v1", "v1", 0, 1, 0},
                                    {"v1 cluster 3", "v1", 0, 3, 0},       {"v1 sliced", "sliced", 0, 0, 0}};
enum { kNumOutPaths = sizeof kOutPaths / sizeof kOutPaths[0] };
static void force_out_path(const OutPath *c) {
  set_kernel(c ? c->kernel : NULL);
  set_wg(c ? c->wg : 0);
  set_splits(c ? c->splits : 0);
  set_global(c ? c->global : 0);
}

/* A CUDA plan of w (all of it uploaded, g_idx too when given) on path c; NULL after a printed failure. */
static w4a16_plan *cuda_plan_on_path(const w4t_weights *w, const w4t_form *f, const int32_t *g_idx, const OutPath *c) {
  const size_t qbytes = (size_t)(w->K / 8 * w->N) * 4, sbytes = (size_t)(w->K / w->group * w->N) * 2;
  void *dq = upload_or_null(w->qweight, qbytes), *ds = upload_or_null(w->scales, sbytes);
  void *dz = upload_or_null(w->zero_points, sbytes), *doff = upload_or_null(w->offsets, sbytes);
  void *dg = upload_or_null(g_idx, (size_t)w->K * 4);
  force_out_path(c);
  w4a16_plan *p = NULL;
  const w4a16_status st = w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, dq, ds, dz, doff, dg, w->K, w->N, w->group,
                                                      f->io, f->scales, &p);
  force_out_path(NULL);
  void *bufs[] = {dq, ds, dz, doff, dg};
  for (int i = 0; i < 5; ++i)
    if (bufs[i]) g_release(bufs[i]);
  if (st != W4A16_OK) {
    printf("FAIL outputs: plan_create on %s: %s\n", c->name, w4a16_last_error());
    total_fail++;
  }
  return p;
}

/* One form (and act-order or not) on every kernel path of kOutPaths at every M of Ms, every activation, with bias:
 *  - split (K, N): w4a16_plan_run_outputs into 1 to 4 outputs, each bitwise equal to its columns of the same CUDA
 *    plan's w4a16_plan_run output, and a second call bitwise equal;
 *  - glu (K, 2 Nh: gate and up of Nh columns interleaved by fours, w4t_glu_interleave): the CUDA plan's GLU output
 *    against the CPU backend's GLU output within the io type's tolerance (w4t_compare_typed; for bf16 the bound's
 *    sum S is |act(g)| S_up + |u| S_gate from the f64 oracle: an error of the gate's or up's sum carries into the
 *    product scaled by the other factor), and a second call bitwise equal.
 * GLU results go to st (runs, worst errors). */
static void outputs_form(int64_t K, int64_t N, int64_t Nh, const w4t_form *f, int act_order, const int64_t *Ms, int nM,
                         uint64_t seed, w4t_stats *st) {
  const int64_t N2 = 2 * Nh, q = N / 8;
  /* splits of N (multiples of 8 summing to N): one output; three; four with 8-column ends */
  const int64_t splits[3][W4A16_MAX_OUTPUTS] = {{N, 0, 0, 0}, {8 * (q / 4), 8 * (q / 2), N - 8 * (q / 4 + q / 2), 0},
                                                {8, 8 * (q / 3), N - 16 - 8 * (q / 3), 8}};
  w4t_weights w, gate, up, glu;
  w4t_make_weights_form(&w, K, N, W4T_RANDOM, f, seed);
  w4t_make_weights_form(&gate, K, Nh, W4T_RANDOM, f, seed + 1);
  w4t_make_weights_form(&up, K, Nh, W4T_RANDOM, f, seed + 2);
  w4t_glu_interleave(&gate, &up, &glu);
  int32_t *g_idx = NULL;
  if (act_order) {
    g_idx = malloc((size_t)K * 4);
    w4t_make_g_idx(g_idx, K, f->group, seed + 3);
  }
  w4a16_plan *split_plans[kNumOutPaths], *glu_plans[kNumOutPaths], *cpu_glu = NULL;
  for (int c = 0; c < kNumOutPaths; ++c) {
    split_plans[c] = cuda_plan_on_path(&w, f, g_idx, &kOutPaths[c]);
    glu_plans[c] = cuda_plan_on_path(&glu, f, g_idx, &kOutPaths[c]);
  }
  if (w4a16_plan_create_act_order(W4A16_BACKEND_CPU, glu.qweight, glu.scales, glu.zero_points, glu.offsets, g_idx, K,
                                  N2, f->group, f->io, f->scales, &cpu_glu) != W4A16_OK) {
    printf("FAIL outputs: CPU GLU plan: %s\n", w4a16_last_error());
    total_fail++;
  }
  int64_t Mmax = 0;
  for (int i = 0; i < nM; ++i) Mmax = Ms[i] > Mmax ? Ms[i] : Mmax;
  const int64_t Nmax = N > N2 ? N : N2;
  uint16_t *x = malloc((size_t)(Mmax * K) * 2), *bias = malloc((size_t)Nmax * 2);
  uint16_t *full = malloc((size_t)(Mmax * N) * 2), *got = malloc((size_t)(Mmax * N) * 2);
  uint16_t *got2 = malloc((size_t)(Mmax * Nmax) * 2), *cpu = malloc((size_t)(Mmax * Nh) * 2);
  double *acc = malloc((size_t)(Mmax * N2) * sizeof(double)), *abs_acc = malloc((size_t)(Mmax * N2) * sizeof(double));
  double *ref = malloc((size_t)(Mmax * Nh) * sizeof(double)), *sglu = malloc((size_t)(Mmax * Nh) * sizeof(double));
  uint16_t *dx = g_alloc((size_t)(Mmax * K) * 2), *db = g_alloc((size_t)Nmax * 2), *dfull = g_alloc((size_t)(Mmax * N) * 2);
  uint16_t *douts[W4A16_MAX_OUTPUTS];
  for (int i = 0; i < W4A16_MAX_OUTPUTS; ++i) douts[i] = g_alloc((size_t)(Mmax * Nmax) * 2);
  const char *io = f->io == W4A16_ELEM_BF16 ? "bf16" : "f16";
  for (int mi = 0; mi < nM; ++mi) {
    const int64_t M = Ms[mi];
    w4t_make_x_typed(x, M, K, W4T_RANDOM, f->io, seed + 10 + (uint64_t)M);
    g_put(dx, x, (size_t)(M * K) * 2);
    for (w4a16_activation a = W4A16_ACT_NONE; a < W4A16_ACT_COUNT; ++a) {
      /* split: the same plan's (M, N) output, then each split */
      w4t_make_vec_typed(bias, N, -1, 1, f->io, seed + 20 + (uint64_t)(M * 3 + a));
      g_put(db, bias, (size_t)N * 2);
      for (int c = 0; c < kNumOutPaths; ++c) {
        w4a16_plan *p = split_plans[c];
        if (!p) continue;
        g_poison(dfull, (size_t)(M * N) * 2);
        w4a16_status r = w4a16_plan_run(p, dx, M, db, NULL, a, dfull, NULL);
        CK(cudaDeviceSynchronize());
        g_get(full, dfull, (size_t)(M * N) * 2);
        for (int si = 0; si < 3 && r == W4A16_OK; ++si) {
          w4a16_outputs o;
          memset(&o, 0, sizeof o);
          for (int i = 0; i < W4A16_MAX_OUTPUTS && splits[si][i] > 0; ++i)
            o.count = i + 1, o.cols[i] = splits[si][i], o.out[i] = douts[i];
          int ok = 1;
          for (int rep = 0; rep < 2 && ok; ++rep) {
            for (int i = 0; i < o.count; ++i) g_poison(douts[i], (size_t)(M * o.cols[i]) * 2);
            r = w4a16_plan_run_outputs(p, dx, M, db, a, &o, NULL);
            CK(cudaDeviceSynchronize());
            ok = r == W4A16_OK;
            int64_t first = 0;
            for (int i = 0; i < o.count && ok; ++i) {
              g_get(rep ? got2 : got, douts[i], (size_t)(M * o.cols[i]) * 2);
              for (int64_t m = 0; ok && m < M; ++m)
                ok = memcmp((rep ? got2 : got) + m * o.cols[i], full + m * N + first, (size_t)o.cols[i] * 2) == 0;
              first += o.cols[i];
            }
          }
          if (!ok) {
            char desc[200];
            w4a16_plan_describe(p, M, desc, sizeof desc);
            printf("FAIL outputs split K=%lld N=%lld M=%lld %s %s%s act=%d cols %lld|%lld|%lld|%lld on %s: %s "
                   "(not the plan's own columns bit for bit) [%s]\n",
                   (long long)K, (long long)N, (long long)M, w4t_zp_name(f->zp), io, act_order ? " act-order" : "",
                   (int)a, (long long)o.cols[0], (long long)o.cols[1], (long long)o.cols[2],
                   (long long)o.cols[3], kOutPaths[c].name, w4a16_status_name(r), desc);
            total_fail++;
          }
        }
        if (r != W4A16_OK) {
          printf("FAIL outputs split on %s: %s\n", kOutPaths[c].name, w4a16_last_error());
          total_fail++;
        }
      }
      /* glu: the CPU backend's output is the reference; the f64 oracle sizes the bf16 bound */
      if (!cpu_glu) continue;
      w4t_make_vec_typed(bias, N2, -1, 1, f->io, seed + 30 + (uint64_t)(M * 3 + a));
      g_put(db, bias, (size_t)N2 * 2);
      w4a16_outputs o;
      memset(&o, 0, sizeof o);
      o.count = 1, o.glu = 1, o.cols[0] = Nh, o.out[0] = cpu;
      if (w4a16_plan_run_outputs(cpu_glu, x, M, bias, a, &o, NULL) != W4A16_OK) {
        printf("FAIL outputs: CPU GLU run: %s\n", w4a16_last_error());
        total_fail++;
        continue;
      }
      w4t_oracle_acc_gidx(&glu, g_idx, x, f->io, M, acc, abs_acc);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t c = 0; c < Nh; ++c) {
          const int64_t ng = 8 * (c / 4) + c % 4, nu = ng + 4;
          const double g = acc[m * N2 + ng] + w4t_decode(bias[ng], f->io);
          const double u = acc[m * N2 + nu] + w4t_decode(bias[nu], f->io);
          ref[m * Nh + c] = w4t_decode(cpu[m * Nh + c], f->io);
          sglu[m * Nh + c] = fabs(w4t_oracle_act(g, a)) * abs_acc[m * N2 + nu] + fabs(u) * abs_acc[m * N2 + ng];
        }
      for (int c = 0; c < kNumOutPaths; ++c) {
        w4a16_plan *p = glu_plans[c];
        if (!p) continue;
        o.out[0] = douts[0];
        int repeat = 1;
        w4t_cmp cmp = {0, 0, 0, 0, -1, 0};
        w4a16_status r = W4A16_OK;
        for (int rep = 0; rep < 2 && r == W4A16_OK; ++rep) {
          g_poison(douts[0], (size_t)(M * Nh) * 2);
          r = w4a16_plan_run_outputs(p, dx, M, db, a, &o, NULL);
          CK(cudaDeviceSynchronize());
          g_get(rep ? got2 : got, douts[0], (size_t)(M * Nh) * 2);
        }
        if (r == W4A16_OK) {
          cmp = w4t_compare_typed(got, ref, M * Nh, f->io, sglu, NULL);
          repeat = memcmp(got, got2, (size_t)(M * Nh) * 2) == 0;
        }
        st->runs++;
        if (cmp.rel_norm > st->worst_rel_norm) st->worst_rel_norm = cmp.rel_norm;
        if (cmp.max_elem_ratio > st->worst_elem_ratio) st->worst_elem_ratio = cmp.max_elem_ratio;
        if (r != W4A16_OK || !cmp.pass || !repeat) {
          char desc[200];
          w4a16_plan_describe(p, M, desc, sizeof desc);
          printf("FAIL outputs glu K=%lld Nh=%lld M=%lld %s %s%s act=%d on %s: run %s, rel=%.3g elem_ratio=%.3g "
                 "bad=%lld nonfinite=%lld first_bad=%lld, repeat bitwise %d [%s] %s\n",
                 (long long)K, (long long)Nh, (long long)M, w4t_zp_name(f->zp), io, act_order ? " act-order" : "",
                 (int)a, kOutPaths[c].name, w4a16_status_name(r), cmp.rel_norm, cmp.max_elem_ratio,
                 (long long)cmp.bad_elems, (long long)cmp.nonfinite, (long long)cmp.first_bad, repeat, desc,
                 r == W4A16_OK ? "" : w4a16_last_error());
          st->failures++;
        }
      }
    }
  }
  for (int c = 0; c < kNumOutPaths; ++c) w4a16_plan_destroy(split_plans[c]), w4a16_plan_destroy(glu_plans[c]);
  w4a16_plan_destroy(cpu_glu);
  g_release(dx), g_release(db), g_release(dfull);
  for (int i = 0; i < W4A16_MAX_OUTPUTS; ++i) g_release(douts[i]);
  free(x), free(bias), free(full), free(got), free(got2), free(cpu), free(acc), free(abs_acc), free(ref), free(sglu);
  free(g_idx);
  w4t_free_weights(&w), w4t_free_weights(&gate), w4t_free_weights(&up), w4t_free_weights(&glu);
}

/* CUDA-only argument checks of w4a16_plan_run_outputs: out pointers 16-byte aligned (8 with glu). */
static void test_outputs_alignment(void) {
  const int64_t K = 256, N = 64, M = 4;
  void *dq = g_alloc((size_t)(K / 8) * N * 4), *ds = g_alloc((size_t)(K / 128) * N * 2);
  CK(cudaMemset(dq, 0x77, (size_t)(K / 8) * N * 4));
  CK(cudaMemset(ds, 0x10, (size_t)(K / 128) * N * 2));
  uint16_t *dx = g_alloc((size_t)(M * K) * 2), *dout = g_alloc((size_t)(2 * M * N) * 2 + 64);
  CK(cudaMemset(dx, 0, (size_t)(M * K) * 2));
  w4a16_plan *plan = NULL;
  check(w4a16_plan_create(W4A16_BACKEND_CUDA, dq, ds, K, N, 128, &plan) == W4A16_OK, "outputs: cuda plan_create");
  w4a16_outputs o;
  memset(&o, 0, sizeof o);
  o.count = 2, o.cols[0] = 16, o.cols[1] = 48, o.out[0] = dout, o.out[1] = dout + M * N + 4; /* 8 bytes off */
  w4a16_status s = w4a16_plan_run_outputs(plan, dx, M, NULL, W4A16_ACT_NONE, &o, NULL);
  check(s == W4A16_ERR_MISALIGNED && strstr(w4a16_last_error(), "out[1]"), "outputs: cuda out[1] 8 bytes off rejected");
  o.out[1] = dout + M * N + 8;
  check(w4a16_plan_run_outputs(plan, dx, M, NULL, W4A16_ACT_NONE, &o, NULL) == W4A16_OK, "outputs: cuda split runs");
  memset(&o, 0, sizeof o);
  o.count = 1, o.glu = 1, o.cols[0] = N / 2, o.out[0] = dout + 4; /* 8-byte aligned: fine with glu */
  check(w4a16_plan_run_outputs(plan, dx, M, NULL, W4A16_ACT_SILU, &o, NULL) == W4A16_OK,
        "outputs: cuda glu into an 8-byte aligned out runs");
  o.out[0] = dout + 2;
  s = w4a16_plan_run_outputs(plan, dx, M, NULL, W4A16_ACT_SILU, &o, NULL);
  check(s == W4A16_ERR_MISALIGNED && strstr(w4a16_last_error(), "8-byte"), "outputs: cuda glu out 4 bytes off rejected");
  CK(cudaDeviceSynchronize());
  w4a16_plan_destroy(plan);
  g_release(dq), g_release(ds), g_release(dx), g_release(dout);
}

/* A NaN in x row 1 gives NaN outputs in row 1 only, for every activation, plain and GLU, on every kernel path of
 * kOutPaths (each epilogue: registers, shared-memory reduction, cluster and workspace split-K). M = 3, so the decode
 * variant runs too. */
static void test_nan_propagates(void) {
  const int64_t K = 2048, N = 520, M = 3;
  const w4t_form f = {W4T_ZP_NONE, 128, W4A16_ELEM_F16, W4A16_ELEM_F16};
  w4t_weights w;
  w4t_make_weights_form(&w, K, N, W4T_RANDOM, &f, 31);
  uint16_t *x = malloc((size_t)(M * K) * 2), *out = malloc((size_t)(M * N) * 2);
  w4t_make_x(x, M, K, W4T_RANDOM, 32);
  x[1 * K + 1000] = 0x7e00; /* a quiet NaN */
  uint16_t *dx = g_alloc((size_t)(M * K) * 2), *dout = g_alloc((size_t)(M * N) * 2);
  CK(cudaMemcpy(dx, x, (size_t)(M * K) * 2, cudaMemcpyHostToDevice));
  for (int c = 0; c < kNumOutPaths; ++c) {
    w4a16_plan *p = cuda_plan_on_path(&w, &f, NULL, &kOutPaths[c]);
    for (w4a16_activation a = W4A16_ACT_NONE; p && a < W4A16_ACT_COUNT; ++a)
      for (int glu = 0; glu < 2; ++glu) {
        w4a16_outputs o;
        memset(&o, 0, sizeof o);
        o.count = 1, o.glu = glu, o.out[0] = dout, o.cols[0] = glu ? N / 2 : N;
        const int64_t cols = o.cols[0];
        const int ran = w4a16_plan_run_outputs(p, dx, M, NULL, a, &o, NULL) == W4A16_OK;
        CK(cudaMemcpy(out, dout, (size_t)(M * cols) * 2, cudaMemcpyDeviceToHost));
        const int ok = ran && w4t_only_row_nan(out, M, cols, 1, f.io);
        char what[128];
        snprintf(what, sizeof what, "outputs: NaN in x row 1 stays in row 1 (%s, act %s%s)", kOutPaths[c].name,
                 w4a16_activation_name(a), glu ? ", glu" : "");
        check(ok, what);
      }
    if (p) w4a16_plan_destroy(p);
  }
  g_release(dx), g_release(dout);
  free(x), free(out);
  w4t_free_weights(&w);
}

/* The outputs matrix: symmetric, zero points, affine (offsets, G = 64) and bf16 forms on every kOutPaths path at M
 * 1, 16, 32, 64 and 100 (two 64-token chunks) on 2048 x 520 (the shape the split-K paths are forced on elsewhere),
 * 1152 x 520 for the workspace at M = 15 and 36, 8192 x 1024 at M = 32; act-order plans (f16 zero points, bf16). */
void run_outputs_matrix(int small, uint64_t seed, w4t_stats *st16, w4t_stats *stbf) {
  const w4a16_element_type bf = W4A16_ELEM_BF16, f16 = W4A16_ELEM_F16;
  const w4t_form forms[] = {{W4T_ZP_NONE, 128, f16, f16}, {W4T_ZP_RANDOM, 128, f16, f16}, {W4T_OFFSETS, 64, f16, f16},
                            {W4T_ZP_NONE, 128, bf, bf},   {W4T_ZP_RANDOM, 128, bf, f16}};
  if (small) {
    static const int64_t Ms[] = {1, 17};
    outputs_form(1024, 136, 68, &forms[1], 0, Ms, 2, seed++, st16);
    outputs_form(1024, 136, 68, &forms[3], 1, Ms, 2, seed++, stbf);
    test_nan_propagates();
    return;
  }
  static const int64_t Ms[] = {1, 16, 32, 64, 100}, wsMs[] = {15, 36}, bigMs[] = {32};
  for (int i = 0; i < 5; ++i) {
    w4t_stats *st = forms[i].io == bf ? stbf : st16;
    outputs_form(2048, 520, 260, &forms[i], 0, Ms, 5, seed++, st);
    outputs_form(1152, 520, 260, &forms[i], 0, wsMs, 2, seed++, st);
  }
  outputs_form(8192, 1024, 512, &forms[0], 0, bigMs, 1, seed++, st16);
  outputs_form(2048, 520, 260, &forms[1], 1, Ms, 5, seed++, st16);
  outputs_form(2048, 520, 260, &forms[4], 1, Ms, 5, seed++, stbf);
  test_outputs_alignment();
  test_nan_propagates();
}
