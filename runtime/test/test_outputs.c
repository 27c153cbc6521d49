/* Several outputs from one plan (w4a16_plan_run_outputs, issue #21) on the CPU reference:
 *   - split: for plans of every kind (symmetric, zero points, offsets, bf16 io and scales, act-order), M = 1, 5, 16,
 *     33, every activation, with and without bias, outputs of 1 to 4 column ranges: each output bitwise equal to
 *     its columns of w4a16_plan_run's (M, N) output; the outputs' padding past their rows untouched; x unchanged;
 *   - glu: a gate and an up weight (same form), the plan of their interleaved columns (w4t_glu_interleave: groups
 *     of 8 plan columns, 4 of the gate's then the same 4 of up's); out bitwise equal to round(act(g + bg) * (u + bu))
 *     computed here in f32 with cpu_backend.c's expressions (ref_acc below; checked first against the gate and up
 *     plans' own w4a16_plan_run); act-order too;
 *   - bad arguments: the status and a message, nothing written. */
#include "half.h"
#include "support.h"
#include "w4a16/runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;
static void check(int ok, const char *what) {
  ++checks;
  if (!ok || getenv("W4A16_TEST_VERBOSE")) printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  failures += !ok;
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) exit(2);
  return p;
}

static const char *form_name(const w4t_form *f, int act_order) {
  static char buf[128];
  snprintf(buf, sizeof buf, "%s G=%lld io=%s scales=%s%s", w4t_zp_name(f->zp), (long long)f->group,
           f->io == W4A16_ELEM_BF16 ? "bf16" : "f16", f->scales == W4A16_ELEM_BF16 ? "bf16" : "f16",
           act_order ? " act-order" : "");
  return buf;
}

static w4a16_plan *make_plan(const w4t_weights *w, const w4t_form *f, const int32_t *g_idx) {
  w4a16_plan *p = NULL;
  const w4a16_status st = w4a16_plan_create_act_order(W4A16_BACKEND_CPU, w->qweight, w->scales, w->zero_points,
                                                      w->offsets, g_idx, w->K, w->N, w->group, f->io, f->scales, &p);
  if (st != W4A16_OK) {
    printf("FAIL: plan_create: %s\n", w4a16_last_error());
    ++failures;
    return NULL;
  }
  return p;
}

/* Output i of the split: M rows of cols[i], then 8 guard values that must stay 0xffff. */
enum { kGuard = 8 };

/* Split cases: one plan, its (M, N) output from w4a16_plan_run, then every split of `splits` (each a list of column
 * counts ending in 0). */
static void split_case(int64_t K, int64_t N, const w4t_form *f, int act_order, uint64_t seed) {
  static const int64_t Ms[] = {1, 5, 16, 33};
  /* column counts (multiples of 8) of each split, as fractions of N in eighths where N = 8 * units */
  const int64_t u = N / 8;
  const int64_t splits[][W4A16_MAX_OUTPUTS] = {
      {N, 0, 0, 0}, {8, N - 8, 0, 0}, {N - 8, 8, 0, 0}, {8 * (u / 2), N - 8 * (u / 2), 0, 0},
      {8, 8 * (u - 2), 8, 0}, {8 * (u / 4), 8 * (u / 4), 8 * (u / 4), N - 24 * (u / 4)}};
  w4t_weights w;
  w4t_make_weights_form(&w, K, N, W4T_RANDOM, f, seed);
  int32_t *g_idx = NULL;
  if (act_order) {
    g_idx = xmalloc((size_t)K * 4);
    w4t_make_g_idx(g_idx, K, f->group, seed + 1);
  }
  w4a16_plan *p = make_plan(&w, f, g_idx);
  if (!p) goto done;
  for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; ++mi) {
    const int64_t M = Ms[mi];
    uint16_t *x = xmalloc((size_t)(M * K) * 2), *bias = xmalloc((size_t)N * 2), *full = xmalloc((size_t)(M * N) * 2);
    w4t_make_x_typed(x, M, K, W4T_RANDOM, f->io, seed + 2 + M);
    w4t_make_vec_typed(bias, N, -1, 1, f->io, seed + 3 + M);
    const uint64_t hx = w4t_hash(x, (size_t)(M * K) * 2);
    for (w4a16_activation a = W4A16_ACT_NONE; a < W4A16_ACT_COUNT; ++a)
      for (int with_bias = 0; with_bias < 2; ++with_bias) {
        const uint16_t *b = with_bias ? bias : NULL;
        memset(full, 0xff, (size_t)(M * N) * 2);
        w4a16_status st = w4a16_plan_run(p, x, M, b, NULL, a, full, NULL);
        if (st != W4A16_OK) {
          check(0, w4a16_last_error());
          continue;
        }
        for (size_t si = 0; si < sizeof splits / sizeof splits[0]; ++si) {
          w4a16_outputs o;
          memset(&o, 0, sizeof o);
          for (int i = 0; i < W4A16_MAX_OUTPUTS && splits[si][i] > 0; ++i) {
            o.cols[i] = splits[si][i];
            o.out[i] = xmalloc((size_t)(M * o.cols[i] + kGuard) * 2);
            memset(o.out[i], 0xff, (size_t)(M * o.cols[i] + kGuard) * 2);
            o.count = i + 1;
          }
          st = w4a16_plan_run_outputs(p, x, M, b, a, &o, NULL);
          int ok = st == W4A16_OK;
          int64_t first = 0;
          for (int i = 0; i < o.count; ++i) {
            for (int64_t m = 0; ok && m < M; ++m)
              ok = memcmp(o.out[i] + m * o.cols[i], full + m * N + first, (size_t)o.cols[i] * 2) == 0;
            for (int g = 0; ok && g < kGuard; ++g) ok = o.out[i][M * o.cols[i] + g] == 0xffff;
            first += o.cols[i];
          }
          ok = ok && w4t_hash(x, (size_t)(M * K) * 2) == hx;
          char what[320];
          snprintf(what, sizeof what,
                   "split K=%lld N=%lld M=%lld %s act=%d bias=%d cols=%lld,%lld,%lld,%lld: the plan's columns bit for "
                   "bit (%s)", (long long)K, (long long)N, (long long)M, form_name(f, act_order), (int)a,
                   with_bias, (long long)o.cols[0], (long long)o.cols[1], (long long)o.cols[2], (long long)o.cols[3],
                   st == W4A16_OK ? "ok" : w4a16_last_error());
          check(ok, what);
          for (int i = 0; i < o.count; ++i) free(o.out[i]);
        }
      }
    free(x), free(bias), free(full);
  }
done:
  w4a16_plan_destroy(p);
  free(g_idx);
  w4t_free_weights(&w);
}

/* cpu_backend.c's arithmetic, written out again: acc[m, n] in f32, the sums of each group in k order, then fmaf
 * with the group's scale (and the offset times the group's sum of x). x is the x the weight's rows meet (an
 * act-order plan's gathered x with its sorted weight). */
static float load16(w4a16_element_type t, uint16_t v) { return (float)w4t_decode(v, t); } /* exact */
static uint16_t store16(w4a16_element_type t, float v) { return w4t_encode(v, t); }  /* one rounding of v */
static float act_f32(float v, w4a16_activation act) {
  if (act == W4A16_ACT_SILU) return v / (1.0f + expf(-v));
  if (act == W4A16_ACT_GELU_TANH) return 0.5f * v * (1.0f + tanhf(W4A16_GELU_C0 * (v + W4A16_GELU_C1 * v * v * v)));
  return v;
}
static void ref_acc(const w4t_weights *w, const uint16_t *x, w4a16_element_type io, int64_t M, float *acc) {
  const int64_t K = w->K, N = w->N, GS = w->group, G = K / GS;
  float *part = xmalloc((size_t)N * sizeof(float));
  for (int64_t m = 0; m < M; ++m) {
    float *a = acc + m * N;
    memset(a, 0, (size_t)N * sizeof(float));
    for (int64_t g = 0; g < G; ++g) {
      memset(part, 0, (size_t)N * sizeof(float));
      for (int64_t k = g * GS; k < (g + 1) * GS; ++k) {
        const float xv = load16(io, x[m * K + k]);
        const int shift = (int)(k % 8) * 4;
        for (int64_t n = 0; n < N; ++n) {
          const uint32_t code = ((uint32_t)w->qweight[(k / 8) * N + n] >> shift) & 15u;
          if (w->zero_points) part[n] += xv * ((float)code - w4a16_h2f(w->zero_points[g * N + n]));
          else part[n] += xv * (float)((int)code - W4A16_ZERO_POINT);
        }
      }
      for (int64_t n = 0; n < N; ++n) {
        const uint16_t s = w->scales[g * N + n];
        a[n] = fmaf(part[n], w->scales_type == W4A16_ELEM_BF16 ? w4a16_bf2f(s) : w4a16_h2f(s), a[n]);
      }
      if (w->offsets) {
        float xsum = 0;
        for (int64_t k = g * GS; k < (g + 1) * GS; ++k) xsum += load16(io, x[m * K + k]);
        for (int64_t n = 0; n < N; ++n) a[n] = fmaf(xsum, w4a16_h2f(w->offsets[g * N + n]), a[n]);
      }
    }
  }
  free(part);
}

/* GLU case: gate and up (K, Nh) of one form, the interleaved plan, every activation, with and without bias. */
static void glu_case(int64_t K, int64_t Nh, const w4t_form *f, int act_order, uint64_t seed) {
  static const int64_t Ms[] = {1, 7, 16, 33};
  const int64_t N = 2 * Nh;
  w4t_weights gate, up, glu;
  w4t_make_weights_form(&gate, K, Nh, W4T_RANDOM, f, seed);
  w4t_make_weights_form(&up, K, Nh, W4T_RANDOM, f, seed + 100);
  w4t_glu_interleave(&gate, &up, &glu);
  int32_t *g_idx = NULL, *perm = NULL;
  w4t_weights sorted = glu; /* the weight the reference multiplies: glu, or its rows sorted by g_idx */
  if (act_order) {
    g_idx = xmalloc((size_t)K * 4);
    perm = xmalloc((size_t)K * 4);
    w4t_make_g_idx(g_idx, K, f->group, seed + 1);
    sorted.qweight = xmalloc((size_t)(K / 8 * N) * 4);
    w4t_sort_by_g_idx(glu.qweight, g_idx, K, N, f->group, perm, sorted.qweight);
  }
  /* the gate's and up's own plans, where Nh passes plan_create (N % 8 == 0) */
  const int halves = Nh % 8 == 0;
  w4a16_plan *p = make_plan(&glu, f, g_idx), *pg = halves ? make_plan(&gate, f, g_idx) : NULL;
  w4a16_plan *pu = halves ? make_plan(&up, f, g_idx) : NULL;
  if (!p || (halves && (!pg || !pu))) goto done;
  for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; ++mi) {
    const int64_t M = Ms[mi];
    uint16_t *x = xmalloc((size_t)(M * K) * 2), *xr = xmalloc((size_t)(M * K) * 2);
    uint16_t *bg = xmalloc((size_t)Nh * 2), *bu = xmalloc((size_t)Nh * 2), *bias = xmalloc((size_t)N * 2);
    uint16_t *out = xmalloc((size_t)(M * Nh + kGuard) * 2), *half_out = xmalloc((size_t)(M * Nh) * 2);
    uint16_t *want = xmalloc((size_t)(M * Nh) * 2);
    float *acc = xmalloc((size_t)(M * N) * sizeof(float));
    w4t_make_x_typed(x, M, K, W4T_RANDOM, f->io, seed + 2 + M);
    w4t_make_vec_typed(bg, Nh, -1, 1, f->io, seed + 3 + M);
    w4t_make_vec_typed(bu, Nh, -1, 1, f->io, seed + 4 + M);
    w4t_glu_interleave_vec(bg, bu, Nh, bias);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) xr[m * K + k] = x[m * K + (perm ? perm[k] : k)];
    ref_acc(&sorted, xr, f->io, M, acc);
    char what[320];
    /* the reference's sums are the CPU backend's: the gate's and up's own plans round them alike */
    int ok = 1;
    for (int half = 0; halves && half < 2; ++half) {
      ok = ok && w4a16_plan_run(half ? pu : pg, x, M, half ? bu : bg, NULL, W4A16_ACT_NONE, half_out, NULL) == W4A16_OK;
      for (int64_t m = 0; ok && m < M; ++m)
        for (int64_t c = 0; ok && c < Nh; ++c) {
          const int64_t n = 8 * (c / 4) + 4 * half + c % 4;
          ok = half_out[m * Nh + c] == store16(f->io, acc[m * N + n] + load16(f->io, (half ? bu : bg)[c]));
        }
    }
    snprintf(what, sizeof what, "glu K=%lld Nh=%lld M=%lld %s: the test's f32 sums are the CPU backend's",
             (long long)K, (long long)Nh, (long long)M, form_name(f, act_order));
    if (halves) check(ok, what);
    const uint64_t hx = w4t_hash(x, (size_t)(M * K) * 2);
    for (w4a16_activation a = W4A16_ACT_NONE; a < W4A16_ACT_COUNT; ++a)
      for (int with_bias = 0; with_bias < 2; ++with_bias) {
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; n += 8)
            for (int e = 0; e < 4; ++e) {
              float g = acc[m * N + n + e], v = acc[m * N + n + 4 + e];
              if (with_bias) g += load16(f->io, bias[n + e]), v += load16(f->io, bias[n + 4 + e]);
              want[m * Nh + n / 2 + e] = store16(f->io, act_f32(g, a) * v);
            }
        memset(out, 0xff, (size_t)(M * Nh + kGuard) * 2);
        w4a16_outputs o;
        memset(&o, 0, sizeof o);
        o.count = 1, o.glu = 1, o.out[0] = out, o.cols[0] = Nh;
        const w4a16_status st = w4a16_plan_run_outputs(p, x, M, with_bias ? bias : NULL, a, &o, NULL);
        ok = st == W4A16_OK && memcmp(out, want, (size_t)(M * Nh) * 2) == 0;
        for (int g = 0; ok && g < kGuard; ++g) ok = out[M * Nh + g] == 0xffff;
        ok = ok && w4t_hash(x, (size_t)(M * K) * 2) == hx;
        snprintf(what, sizeof what, "glu K=%lld Nh=%lld M=%lld %s act=%d bias=%d: round(act(g) * u) bit for bit (%s)",
                 (long long)K, (long long)Nh, (long long)M, form_name(f, act_order), (int)a, with_bias,
                 st == W4A16_OK ? "ok" : w4a16_last_error());
        check(ok, what);
      }
    free(x), free(xr), free(bg), free(bu), free(bias), free(out), free(half_out), free(want), free(acc);
  }
done:
  w4a16_plan_destroy(p), w4a16_plan_destroy(pg), w4a16_plan_destroy(pu);
  if (act_order) free(sorted.qweight);
  free(g_idx), free(perm);
  w4t_free_weights(&gate), w4t_free_weights(&up), w4t_free_weights(&glu);
}

/* One bad call: the status, a message containing `needle`, and the outputs untouched. */
static void bad_call(const w4a16_plan *p, const uint16_t *x, int64_t M, const uint16_t *bias, w4a16_activation act,
                     const w4a16_outputs *o, w4a16_status want, const char *needle, const char *what) {
  const w4a16_status st = w4a16_plan_run_outputs(p, x, M, bias, act, o, NULL);
  char buf[512];
  snprintf(buf, sizeof buf, "bad arguments, %s: %s (%s)", what, w4a16_status_name(st), w4a16_last_error());
  check(st == want && strstr(w4a16_last_error(), needle) != NULL, buf);
}

static void bad_arguments(void) {
  const int64_t K = 128, N = 64, M = 4;
  const w4t_form f = {W4T_ZP_NONE, 128, W4A16_ELEM_F16, W4A16_ELEM_F16};
  w4t_weights w;
  w4t_make_weights_form(&w, K, N, W4T_RANDOM, &f, 7);
  w4a16_plan *p = make_plan(&w, &f, NULL);
  uint16_t *x = xmalloc((size_t)(M * K) * 2), *bias = xmalloc((size_t)N * 2), *buf = xmalloc((size_t)(4 * M * N) * 2);
  w4t_make_x(x, M, K, W4T_RANDOM, 8);
  w4t_make_vec(bias, N, -1, 1, 9);
  memset(buf, 0xff, (size_t)(4 * M * N) * 2);
  const uint64_t hbuf = w4t_hash(buf, (size_t)(4 * M * N) * 2);
  /* a good split to start from: 16 | 48 */
  w4a16_outputs good;
  memset(&good, 0, sizeof good);
  good.count = 2, good.out[0] = buf, good.out[1] = buf + M * 16, good.cols[0] = 16, good.cols[1] = 48;
  w4a16_outputs o = good;
  bad_call(NULL, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_NULL_POINTER, "plan", "NULL plan");
  bad_call(p, NULL, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_NULL_POINTER, "x", "NULL x");
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, NULL, W4A16_ERR_NULL_POINTER, "outputs", "NULL outputs");
  bad_call(p, x, 0, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_SHAPE, "M = 0", "M = 0");
  bad_call(p, x, W4A16_MAX_M + 1, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_SHAPE, "M =", "M too large");
  bad_call(p, x, M, NULL, (w4a16_activation)7, &o, W4A16_ERR_BAD_ARGUMENT, "activation", "unknown activation");
  o.count = 0;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_ARGUMENT, "count = 0", "count 0");
  o.count = 5;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_ARGUMENT, "count = 5", "count 5");
  o = good, o.out[1] = NULL;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_NULL_POINTER, "out[1] is NULL", "NULL out[1]");
  o = good, o.cols[1] = 40;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_SHAPE, "sum to 56", "cols summing to 56, not N");
  o = good, o.cols[1] = 56;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_SHAPE, "sum to 72", "cols summing to 72, not N");
  o = good, o.cols[0] = 12, o.cols[1] = 52;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_SHAPE, "cols[0] = 12", "cols not a multiple of 8");
  o = good, o.cols[0] = 0, o.cols[1] = 64;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_SHAPE, "cols[0] = 0", "cols 0");
  o = good, o.cols[0] = -16, o.cols[1] = 80;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_SHAPE, "cols[0] = -16", "negative cols");
  o = good, o.glu = 1;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_ARGUMENT, "count = 1", "glu with count 2");
  o = good, o.glu = 2;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_ARGUMENT, "glu = 2", "glu 2");
  o = good, o.count = 1, o.glu = 1, o.cols[0] = 64;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_SHAPE, "half", "glu with cols[0] = N");
  o = good, o.out[1] = buf + M * 16 - 1; /* the last value of out[0] */
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_ARGUMENT, "out[1] overlaps out[0]", "overlapping outputs");
  o = good, o.out[0] = buf + M * 16 + 8; /* inside out[1] */
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_ARGUMENT, "out[1] overlaps out[0]", "out[0] in out[1]");
  o = good, o.out[1] = x + 8;
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_ARGUMENT, "out[1] overlaps x", "output over x");
  o = good;
  bad_call(p, x, M, buf + 4, W4A16_ACT_NONE, &o, W4A16_ERR_BAD_ARGUMENT, "out[0] overlaps x or bias", "bias in out[0]");
  o = good, o.out[1] = (uint16_t *)((char *)(buf + 2 * M * N) + 1);
  bad_call(p, x, M, NULL, W4A16_ACT_NONE, &o, W4A16_ERR_MISALIGNED, "aligned", "odd out pointer");
  check(w4t_hash(buf, (size_t)(4 * M * N) * 2) == hbuf, "bad arguments: nothing written");
  /* and the good split runs */
  o = good;
  check(w4a16_plan_run_outputs(p, x, M, bias, W4A16_ACT_SILU, &o, NULL) == W4A16_OK && w4a16_last_error()[0] == 0,
        "the good split after the bad ones runs, no message left");
  /* a GLU pair of 4 columns each (N = 8): cols[0] = 4 is fine, not a multiple of 8 */
  {
    w4t_weights w8;
    w4t_make_weights_form(&w8, K, 8, W4T_RANDOM, &f, 11);
    w4a16_plan *p8 = make_plan(&w8, &f, NULL);
    memset(&o, 0, sizeof o);
    o.count = 1, o.glu = 1, o.out[0] = buf, o.cols[0] = 4;
    check(p8 && w4a16_plan_run_outputs(p8, x, M, NULL, W4A16_ACT_SILU, &o, NULL) == W4A16_OK,
          "glu with N = 8 (cols[0] = 4)");
    w4a16_plan_destroy(p8);
    w4t_free_weights(&w8);
  }
  /* without a GPU the CUDA backend has no plan to run */
  w4a16_plan_destroy(p);
  free(x), free(bias), free(buf);
  w4t_free_weights(&w);
}

/* A NaN in x makes every product of its row NaN, and every activation keeps it (docs/contract.md §1): the row's
 * outputs are NaN, the other rows numbers. Plain and GLU. */
static void nan_propagates(void) {
  const int64_t K = 256, N = 64, M = 3;
  const w4t_form f = {W4T_ZP_NONE, 128, W4A16_ELEM_F16, W4A16_ELEM_F16};
  w4t_weights w;
  w4t_make_weights_form(&w, K, N, W4T_RANDOM, &f, 21);
  w4a16_plan *p = make_plan(&w, &f, NULL);
  uint16_t *x = xmalloc((size_t)(M * K) * 2), *out = xmalloc((size_t)(M * N) * 2);
  w4t_make_x(x, M, K, W4T_RANDOM, 22);
  x[1 * K + 17] = 0x7e00; /* row 1: a quiet NaN */
  for (w4a16_activation a = W4A16_ACT_NONE; p && a < W4A16_ACT_COUNT; ++a)
    for (int glu = 0; glu < 2; ++glu) {
      w4a16_outputs o;
      memset(&o, 0, sizeof o);
      o.count = 1, o.glu = glu, o.out[0] = out, o.cols[0] = glu ? N / 2 : N;
      const int ok = w4a16_plan_run_outputs(p, x, M, NULL, a, &o, NULL) == W4A16_OK &&
                     w4t_only_row_nan(out, M, o.cols[0], 1, f.io);
      char what[96];
      snprintf(what, sizeof what, "NaN in x row 1 gives NaN outputs in row 1 only (act %s%s)",
               w4a16_activation_name(a), glu ? ", glu" : "");
      check(ok, what);
    }
  w4a16_plan_destroy(p);
  free(x), free(out);
  w4t_free_weights(&w);
}

int main(void) {
  static const w4t_form forms[] = {
      {W4T_ZP_NONE, 128, W4A16_ELEM_F16, W4A16_ELEM_F16},     {W4T_ZP_RANDOM, 128, W4A16_ELEM_F16, W4A16_ELEM_F16},
      {W4T_OFFSETS, 64, W4A16_ELEM_F16, W4A16_ELEM_F16},      {W4T_ZP_FRACTIONAL, 32, W4A16_ELEM_BF16, W4A16_ELEM_F16},
      {W4T_ZP_NONE, 128, W4A16_ELEM_BF16, W4A16_ELEM_BF16},   {W4T_ZP_RANDOM, 128, W4A16_ELEM_BF16, W4A16_ELEM_BF16}};
  const int nforms = (int)(sizeof forms / sizeof forms[0]);
  for (int i = 0; i < nforms; ++i) {
    split_case(256, 96, &forms[i], 0, 100 + (uint64_t)i);
    glu_case(256, 56, &forms[i], 0, 200 + (uint64_t)i);
  }
  /* act-order plans: the gather in front of the same epilogue */
  split_case(256, 64, &forms[1], 1, 300);
  split_case(256, 96, &forms[4], 1, 301);
  glu_case(256, 48, &forms[0], 1, 400);
  glu_case(384, 24, &forms[5], 1, 401);
  glu_case(256, 20, &forms[3], 0, 402); /* Nh = 20: N / 2 not a multiple of 8 */
  glu_case(128, 4, &forms[1], 1, 403);  /* one group of 8 plan columns */
  bad_arguments();
  nan_propagates();
  printf("%s: %d of %d checks failed\n", failures ? "FAIL" : "PASS", failures, checks);
  return failures ? 1 : 0;
}
