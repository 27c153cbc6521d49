#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"

const char *w4t_kind_name(w4t_kind k) {
  static const char *names[] = {"random", "codes0", "codes15_large_scales", "alternating", "opposite_residual"};
  return (unsigned)k < W4T_KIND_COUNT ? names[k] : "?";
}

const char *w4t_zp_name(w4t_zp z) {
  static const char *names[] = {"symmetric", "zero_points_random", "zero_points_0_15", "zero_points_fractional",
                                "zero_points_16", "offsets"};
  return (unsigned)z < W4T_FORM_COUNT ? names[z] : "?";
}

uint64_t w4t_rand(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double w4t_uniform(uint64_t *s, double lo, double hi) {
  return lo + (hi - lo) * (double)(w4t_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "out of host memory (%zu bytes)\n", n);
    exit(2);
  }
  return p;
}

uint16_t w4t_encode(double v, w4a16_element_type type) {
  return type == W4A16_ELEM_BF16 ? w4a16_f2bf((float)v) : w4a16_f2h((float)v);
}
double w4t_decode(uint16_t bits, w4a16_element_type type) {
  return type == W4A16_ELEM_BF16 ? (double)w4a16_bf2f(bits) : (double)w4a16_h2f(bits);
}

void w4t_make_weights(w4t_weights *w, int64_t K, int64_t N, w4t_kind kind, uint64_t seed) {
  w4t_make_weights_zp(w, K, N, kind, W4T_ZP_NONE, seed);
}

void w4t_make_weights_zp(w4t_weights *w, int64_t K, int64_t N, w4t_kind kind, w4t_zp zp, uint64_t seed) {
  const w4t_form form = {zp, 128, W4A16_ELEM_F16, W4A16_ELEM_F16};
  w4t_make_weights_form(w, K, N, kind, &form, seed);
}

void w4t_make_weights_form(w4t_weights *w, int64_t K, int64_t N, w4t_kind kind, const w4t_form *form,
                           uint64_t seed) {
  uint64_t s = seed * 7919u + 1;
  const w4t_zp zp = form->zp;
  const int64_t G = form->group, groups = K / G;
  w->K = K;
  w->N = N;
  w->group = G;
  w->zero_points = NULL;
  w->offsets = NULL;
  w->scales_type = form->scales;
  w->qweight = (int32_t *)xmalloc((size_t)(K / 8) * (size_t)N * 4);
  w->scales = (uint16_t *)xmalloc((size_t)groups * (size_t)N * 2);
  for (int64_t kw = 0; kw < K / 8; ++kw)
    for (int64_t n = 0; n < N; ++n) {
      uint32_t word = 0;
      for (int j = 0; j < 8; ++j) {
        const int64_t k = kw * 8 + j;
        uint32_t c;
        switch (kind) {
        case W4T_CODES0: c = 0; break;
        case W4T_CODES15_LARGE: c = 15; break;
        case W4T_ALTERNATING: c = ((k + n) & 1) ? 15 : 0; break;
        default: c = (uint32_t)(w4t_rand(&s) & 15u); break;
        }
        word |= c << (4 * j);
      }
      w->qweight[kw * N + n] = (int32_t)word;
    }
  for (int64_t i = 0; i < groups * N; ++i) {
    double sc;
    switch (kind) {
    /* |x| <= 8, |code-8| <= 8: bound |acc| by 8*8*K*s; keep it near 12000 so bias, activation and
     * residual stay far from the f16 limit of 65504 while the values are as large as is useful. */
    case W4T_CODES15_LARGE: sc = w4t_uniform(&s, 0.5, 1.0) * 30000.0 / (56.0 * (double)K); break;
    case W4T_ALTERNATING: sc = w4t_uniform(&s, 0.5, 1.0) * 12000.0 / (64.0 * (double)K); break;
    case W4T_CODES0: sc = w4t_uniform(&s, 0.001, 0.003); break;
    default: sc = w4t_uniform(&s, 0.001, 0.03); break;
    }
    w->scales[i] = w4t_encode(zp == W4T_ZP_NONE ? sc : sc / 2, form->scales);
  }
  if (zp == W4T_ZP_NONE) return;
  w->zero_points = (uint16_t *)xmalloc((size_t)groups * (size_t)N * 2);
  if (zp == W4T_OFFSETS) w->offsets = (uint16_t *)xmalloc((size_t)groups * (size_t)N * 2);
  for (int64_t i = 0; i < groups * N; ++i) {
    const int64_t g = i / N, n = i % N;
    double z;
    switch (zp) {
    case W4T_ZP_EXTREME: z = (g + n) & 1 ? 15 : 0; break;
    case W4T_ZP_FRACTIONAL: z = w4t_uniform(&s, 0.0, 15.0); break;
    case W4T_ZP_SIXTEEN: z = (g + n) & 1 ? 16 : (double)(w4t_rand(&s) & 15u); break;
    case W4T_OFFSETS: z = 0; break;
    default: z = (double)(w4t_rand(&s) & 15u); break;
    }
    w->zero_points[i] = w4a16_f2h((float)z);
    /* m near -7.5 s (so that |W| <= 8 s, as for the other forms), exactly representable in f16 */
    if (w->offsets)
      w->offsets[i] = w4a16_f2h((float)(-w4t_decode(w->scales[i], form->scales) * w4t_uniform(&s, 6.5, 8.5)));
  }
}

void w4t_free_weights(w4t_weights *w) {
  free(w->qweight);
  free(w->scales);
  free(w->zero_points);
  free(w->offsets);
  w->qweight = NULL;
  w->scales = NULL;
  w->zero_points = NULL;
  w->offsets = NULL;
}

/* Plan column n of the GLU interleave: the gate's column 4 (n / 8) + n % 8 when n % 8 < 4, else up's column
 * 4 (n / 8) + n % 8 - 4. */
static void glu_columns32(const int32_t *gate, const int32_t *up, int64_t rows, int64_t Nh, int32_t *out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t n = 0; n < 2 * Nh; ++n) {
      const int64_t c = 4 * (n / 8) + n % 4;
      out[r * 2 * Nh + n] = (n % 8 < 4 ? gate : up)[r * Nh + c];
    }
}
static void glu_columns16(const uint16_t *gate, const uint16_t *up, int64_t rows, int64_t Nh, uint16_t *out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t n = 0; n < 2 * Nh; ++n) {
      const int64_t c = 4 * (n / 8) + n % 4;
      out[r * 2 * Nh + n] = (n % 8 < 4 ? gate : up)[r * Nh + c];
    }
}

void w4t_glu_interleave_vec(const uint16_t *gate, const uint16_t *up, int64_t Nh, uint16_t *glu) {
  glu_columns16(gate, up, 1, Nh, glu);
}

void w4t_glu_interleave(const w4t_weights *gate, const w4t_weights *up, w4t_weights *glu) {
  const int64_t K = gate->K, Nh = gate->N, groups = K / gate->group;
  *glu = *gate;
  glu->N = 2 * Nh;
  glu->qweight = (int32_t *)xmalloc((size_t)(K / 8) * (size_t)(2 * Nh) * 4);
  glu->scales = (uint16_t *)xmalloc((size_t)groups * (size_t)(2 * Nh) * 2);
  glu_columns32(gate->qweight, up->qweight, K / 8, Nh, glu->qweight);
  glu_columns16(gate->scales, up->scales, groups, Nh, glu->scales);
  glu->zero_points = glu->offsets = NULL;
  if (gate->zero_points) {
    glu->zero_points = (uint16_t *)xmalloc((size_t)groups * (size_t)(2 * Nh) * 2);
    glu_columns16(gate->zero_points, up->zero_points, groups, Nh, glu->zero_points);
  }
  if (gate->offsets) {
    glu->offsets = (uint16_t *)xmalloc((size_t)groups * (size_t)(2 * Nh) * 2);
    glu_columns16(gate->offsets, up->offsets, groups, Nh, glu->offsets);
  }
}

void w4t_make_x(uint16_t *x, int64_t M, int64_t K, w4t_kind kind, uint64_t seed) {
  w4t_make_x_typed(x, M, K, kind, W4A16_ELEM_F16, seed);
}

void w4t_make_x_typed(uint16_t *x, int64_t M, int64_t K, w4t_kind kind, w4a16_element_type type, uint64_t seed) {
  uint64_t s = seed * 104729u + 3;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) {
      double v;
      switch (kind) {
      case W4T_CODES0: v = w4t_uniform(&s, -8.0, 8.0); break;
      case W4T_CODES15_LARGE: v = w4t_uniform(&s, 0.0, 8.0); break;
      case W4T_ALTERNATING: v = ((k & 1) ? -1.0 : 1.0) * w4t_uniform(&s, 4.0, 8.0); break;
      default: v = w4t_uniform(&s, -2.0, 2.0); break;
      }
      x[m * K + k] = w4t_encode(v, type);
    }
}

void w4t_make_vec(uint16_t *v, int64_t n, double lo, double hi, uint64_t seed) {
  w4t_make_vec_typed(v, n, lo, hi, W4A16_ELEM_F16, seed);
}

void w4t_make_vec_typed(uint16_t *v, int64_t n, double lo, double hi, w4a16_element_type type, uint64_t seed) {
  uint64_t s = seed * 15485863u + 5;
  for (int64_t i = 0; i < n; ++i) v[i] = w4t_encode(w4t_uniform(&s, lo, hi), type);
}

/* acc (and, if abs_acc is not NULL, sum_k |x W|) with x of type io. */
static void oracle_acc(const w4t_weights *w, const uint16_t *x, w4a16_element_type io, int64_t M, double *acc,
                       double *abs_acc) {
  const int64_t K = w->K, N = w->N, G = w->group;
  double *wg = (double *)xmalloc((size_t)G * (size_t)N * sizeof(double));
  double *xd = (double *)xmalloc((size_t)G * sizeof(double));
  memset(acc, 0, (size_t)M * (size_t)N * sizeof(double));
  if (abs_acc) memset(abs_acc, 0, (size_t)M * (size_t)N * sizeof(double));
  for (int64_t g = 0; g < K / G; ++g) {
    /* Dequantise one group in f64 straight from the formula of docs/contract.md §1: nibble k%8 of word [k/8, n]. */
    for (int64_t kk = 0; kk < G; ++kk) {
      const int64_t k = g * G + kk;
      for (int64_t n = 0; n < N; ++n) {
        const uint32_t word = (uint32_t)w->qweight[(k / 8) * N + n];
        const int code = (int)((word >> (4 * (k % 8))) & 15u);
        const double z = w->zero_points ? (double)w4a16_h2f(w->zero_points[g * N + n]) : 8.0;
        const double m = w->offsets ? (double)w4a16_h2f(w->offsets[g * N + n]) : 0.0;
        wg[kk * N + n] = ((double)code - z) * w4t_decode(w->scales[g * N + n], w->scales_type) + m;
      }
    }
    for (int64_t m = 0; m < M; ++m) {
      double *am = acc + m * N;
      for (int64_t kk = 0; kk < G; ++kk) xd[kk] = w4t_decode(x[m * K + g * G + kk], io);
      for (int64_t kk = 0; kk < G; ++kk) {
        const double xv = xd[kk];
        const double *wr = wg + kk * N;
        for (int64_t n = 0; n < N; ++n) am[n] += xv * wr[n];
        if (abs_acc)
          for (int64_t n = 0; n < N; ++n) abs_acc[m * N + n] += fabs(xv * wr[n]);
      }
    }
  }
  free(wg);
  free(xd);
}

void w4t_oracle_acc(const w4t_weights *w, const uint16_t *x, int64_t M, double *acc) {
  oracle_acc(w, x, W4A16_ELEM_F16, M, acc, NULL);
}

void w4t_make_g_idx(int32_t *g_idx, int64_t K, int64_t group, uint64_t seed) {
  uint64_t s = seed * 2654435761u + 11;
  for (int64_t k = 0; k < K; ++k) g_idx[k] = (int32_t)k;
  for (int64_t k = K - 1; k > 0; --k) { /* Fisher-Yates: g_idx holds pi */
    const int64_t j = (int64_t)(w4t_rand(&s) % (uint64_t)(k + 1));
    const int32_t t = g_idx[k];
    g_idx[k] = g_idx[j], g_idx[j] = t;
  }
  for (int64_t k = 0; k < K; ++k) g_idx[k] = (int32_t)(g_idx[k] / group);
}

void w4t_sort_by_g_idx(const int32_t *qweight, const int32_t *g_idx, int64_t K, int64_t N, int64_t group,
                       int32_t *perm, int32_t *sorted) {
  int64_t i = 0;
  for (int64_t g = 0; g < K / group; ++g)
    for (int64_t k = 0; k < K; ++k)
      if (g_idx[k] == g) perm[i++] = (int32_t)k;
  for (i = 0; i < K; ++i)
    for (int64_t n = 0; n < N; ++n) {
      const int64_t k = perm[i];
      const uint32_t code = ((uint32_t)qweight[(k / 8) * N + n] >> (4 * (k % 8))) & 15u;
      uint32_t *word = (uint32_t *)&sorted[(i / 8) * N + n];
      *word = (*word & ~(15u << (4 * (i % 8)))) | code << (4 * (i % 8));
    }
}

void w4t_oracle_acc_gidx(const w4t_weights *w, const int32_t *g_idx, const uint16_t *x, w4a16_element_type io,
                         int64_t M, double *acc, double *abs_acc) {
  const int64_t K = w->K, N = w->N;
  double *row = (double *)xmalloc((size_t)N * sizeof(double));
  memset(acc, 0, (size_t)M * (size_t)N * sizeof(double));
  if (abs_acc) memset(abs_acc, 0, (size_t)M * (size_t)N * sizeof(double));
  for (int64_t k = 0; k < K; ++k) {
    const int64_t g = g_idx ? g_idx[k] : k / w->group;
    for (int64_t n = 0; n < N; ++n) { /* W[k, n]: nibble k%8 of word [k/8, n] */
      const int code = (int)(((uint32_t)w->qweight[(k / 8) * N + n] >> (4 * (k % 8))) & 15u);
      const double z = w->zero_points ? (double)w4a16_h2f(w->zero_points[g * N + n]) : 8.0;
      const double m = w->offsets ? (double)w4a16_h2f(w->offsets[g * N + n]) : 0.0;
      row[n] = ((double)code - z) * w4t_decode(w->scales[g * N + n], w->scales_type) + m;
    }
    for (int64_t m = 0; m < M; ++m) {
      const double xv = w4t_decode(x[m * K + k], io);
      double *am = acc + m * N;
      for (int64_t n = 0; n < N; ++n) am[n] += xv * row[n];
      if (abs_acc)
        for (int64_t n = 0; n < N; ++n) abs_acc[m * N + n] += fabs(xv * row[n]);
    }
  }
  free(row);
}

int w4t_only_row_nan(const uint16_t *out, int64_t M, int64_t cols, int64_t nan_row, w4a16_element_type type) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < cols; ++n)
      if (isnan(w4t_decode(out[m * cols + n], type)) != (m == nan_row)) return 0;
  return 1;
}

double w4t_oracle_act(double v, w4a16_activation act) {
  if (act == W4A16_ACT_SILU) return v / (1.0 + exp(-v));
  if (act == W4A16_ACT_GELU_TANH) return 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  return v;
}

static void oracle_out(const double *acc, int64_t M, int64_t N, const uint16_t *bias, const uint16_t *residual,
                       w4a16_activation act, w4a16_element_type io, double *ref) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double v = acc[m * N + n] + (bias ? w4t_decode(bias[n], io) : 0.0);
      v = w4t_oracle_act(v, act);
      if (residual) v += w4t_decode(residual[m * N + n], io);
      ref[m * N + n] = v;
    }
}

void w4t_oracle_out(const double *acc, int64_t M, int64_t N, const uint16_t *bias, const uint16_t *residual,
                    w4a16_activation act, double *ref) {
  oracle_out(acc, M, N, bias, residual, act, W4A16_ELEM_F16, ref);
}

void w4t_oracle_out_typed(const double *acc, int64_t M, int64_t N, const uint16_t *bias, const uint16_t *residual,
                          w4a16_activation act, w4a16_element_type io, double *ref) {
  oracle_out(acc, M, N, bias, residual, act, io, ref);
}

/* docs/contract.md §1's comparison for the io type. f16: rel-norm <= 2e-3, every element within
 * 1e-2 (1 + |ref|). bf16: rel-norm <= 1.6e-2, every element within 2^-8 (|ref| + S + |residual|) + 1e-3
 * (S = sum_k |x W|: abs_acc; residual may be NULL). No NaN/Inf. max_elem_ratio is |out - ref| over the bound. */
static w4t_cmp compare(const uint16_t *out, const double *ref, int64_t count, w4a16_element_type io,
                       const double *abs_acc, const uint16_t *residual) {
  const int bf16 = io == W4A16_ELEM_BF16;
  w4t_cmp c = {0, 0, 0, 0, -1, 0};
  double err2 = 0, ref2 = 0;
  for (int64_t i = 0; i < count; ++i) {
    const double o = w4t_decode(out[i], io), r = ref[i];
    if (!isfinite(o) || !isfinite(r)) {
      c.nonfinite++;
      if (c.first_bad < 0) c.first_bad = i;
      continue;
    }
    const double res = residual ? fabs(w4t_decode(residual[i], io)) : 0.0;
    const double bound = bf16 ? (fabs(r) + abs_acc[i] + res) / 256.0 + 1e-3 : 1e-2 * (1.0 + fabs(r));
    const double d = fabs(o - r), ratio = d / bound;
    err2 += d * d;
    ref2 += r * r;
    if (ratio > c.max_elem_ratio) c.max_elem_ratio = ratio;
    if (ratio > 1.0) {
      c.bad_elems++;
      if (c.first_bad < 0) c.first_bad = i;
    }
  }
  c.rel_norm = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
  c.pass = c.nonfinite == 0 && c.bad_elems == 0 && c.rel_norm <= (bf16 ? 1.6e-2 : 2e-3);
  return c;
}

w4t_cmp w4t_compare(const uint16_t *out, const double *ref, int64_t count) {
  return compare(out, ref, count, W4A16_ELEM_F16, NULL, NULL);
}

w4t_cmp w4t_compare_typed(const uint16_t *out, const double *ref, int64_t count, w4a16_element_type io,
                          const double *abs_acc, const uint16_t *residual) {
  return compare(out, ref, count, io, abs_acc, residual);
}

uint64_t w4t_hash(const void *data, size_t bytes) { /* FNV-1a, 64-bit */
  const unsigned char *p = (const unsigned char *)data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* ---- CPU ops ---- */
static void *cpu_alloc(size_t n) { return xmalloc(n); }
static void cpu_release(void *p) { free(p); }
static void cpu_put(void *d, const void *h, size_t n) { memcpy(d, h, n); }
static void cpu_get(void *h, const void *s, size_t n) { memcpy(h, s, n); }
static void cpu_poison(void *d, size_t n) { memset(d, 0xff, n); }
static void cpu_sync(void *stream) { (void)stream; }
const w4t_ops w4t_cpu_ops = {W4A16_BACKEND_CPU, cpu_alloc, cpu_release, cpu_put, cpu_get, cpu_poison, cpu_sync, NULL};

static void *upload(const w4t_ops *ops, const void *host, size_t bytes) {
  void *d = ops->alloc(bytes);
  ops->put(d, host, bytes);
  return d;
}

static uint64_t dev_hash(const w4t_ops *ops, const void *d, size_t bytes) {
  void *h = xmalloc(bytes);
  ops->get(h, d, bytes);
  uint64_t r = w4t_hash(h, bytes);
  free(h);
  return r;
}

static const char *types_name(w4a16_element_type io, w4a16_element_type scales) {
  if (io == W4A16_ELEM_F16) return scales == W4A16_ELEM_F16 ? "" : " (bf16 scales)";
  return scales == W4A16_ELEM_F16 ? " bf16 (f16 scales)" : " bf16";
}

static const char *act_name(w4a16_activation a) {
  return w4a16_activation_name(a);
}

int64_t w4t_run_case(const w4t_ops *ops, int64_t K, int64_t N, int64_t M, w4t_kind kind, uint64_t seed,
                     w4t_stats *stats, int verbose) {
  return w4t_run_case_zp(ops, K, N, M, kind, W4T_ZP_NONE, seed, stats, verbose);
}

int64_t w4t_run_case_zp(const w4t_ops *ops, int64_t K, int64_t N, int64_t M, w4t_kind kind, w4t_zp zp,
                        uint64_t seed, w4t_stats *stats, int verbose) {
  const w4t_form form = {zp, 128, W4A16_ELEM_F16, W4A16_ELEM_F16};
  return w4t_run_case_form(ops, K, N, M, kind, &form, seed, stats, verbose);
}

int64_t w4t_run_case_form(const w4t_ops *ops, int64_t K, int64_t N, int64_t M, w4t_kind kind, const w4t_form *form,
                          uint64_t seed, w4t_stats *stats, int verbose) {
  int64_t fails = 0;
  const w4t_zp zp = form->zp;
  const w4a16_element_type io = form->io, scales_type = form->scales;
  const int64_t G = form->group;
  const int bf16 = io == W4A16_ELEM_BF16;
  w4t_weights w;
  w4t_make_weights_form(&w, K, N, kind, form, seed);
  uint16_t *x = (uint16_t *)xmalloc((size_t)(M * K) * 2), *bias = (uint16_t *)xmalloc((size_t)N * 2);
  uint16_t *res = (uint16_t *)xmalloc((size_t)(M * N) * 2), *out = (uint16_t *)xmalloc((size_t)(M * N) * 2);
  uint16_t *out2 = (uint16_t *)xmalloc((size_t)(M * N) * 2);
  double *acc = (double *)xmalloc((size_t)(M * N) * sizeof(double));
  double *ref = (double *)xmalloc((size_t)(M * N) * sizeof(double));
  double *abs_acc = bf16 ? (double *)xmalloc((size_t)(M * N) * sizeof(double)) : NULL;
  w4t_make_x_typed(x, M, K, kind, io, seed + 1);
  w4t_make_vec_typed(bias, N, -1.0, 1.0, io, seed + 2);
  oracle_acc(&w, x, io, M, acc, abs_acc);

  /* The plan must not depend on the caller's buffers after creation: free them right away. */
  void *d_qw = upload(ops, w.qweight, (size_t)(K / 8) * (size_t)N * 4);
  void *d_sc = upload(ops, w.scales, (size_t)(K / G) * (size_t)N * 2);
  void *d_zp = w.zero_points ? upload(ops, w.zero_points, (size_t)(K / G) * (size_t)N * 2) : NULL;
  void *d_off = w.offsets ? upload(ops, w.offsets, (size_t)(K / G) * (size_t)N * 2) : NULL;
  w4a16_plan *plan = NULL;
  w4a16_status st = w4a16_plan_create_typed(ops->backend, (const int32_t *)d_qw, (const uint16_t *)d_sc,
                                            (const uint16_t *)d_zp, (const uint16_t *)d_off, K, N, G, io,
                                            scales_type, &plan);
  ops->release(d_qw);
  ops->release(d_sc);
  if (d_zp) ops->release(d_zp);
  if (d_off) ops->release(d_off);
  if (st != W4A16_OK) {
    printf("FAIL plan_create K=%lld N=%lld: %s\n", (long long)K, (long long)N, w4a16_last_error());
    fails = 1;
    goto done;
  }
  void *d_x = upload(ops, x, (size_t)(M * K) * 2), *d_b = upload(ops, bias, (size_t)N * 2);
  void *d_r = ops->alloc((size_t)(M * N) * 2), *d_o = ops->alloc((size_t)(M * N) * 2);
  const uint64_t hx = w4t_hash(x, (size_t)(M * K) * 2), hb = w4t_hash(bias, (size_t)N * 2);
  char desc[200];
  w4a16_plan_describe(plan, M, desc, sizeof desc);

  for (int a = 0; a < W4A16_ACT_COUNT; ++a)
    for (int use_b = 0; use_b < 2; ++use_b)
      for (int use_r = 0; use_r < 2; ++use_r) {
        const w4a16_activation act = (w4a16_activation)a;
        const uint16_t *hb_ptr = use_b ? bias : NULL;
        if (kind == W4T_OPPOSITE_RES) {
          /* residual cancels most of act(...): out is a small difference of large terms */
          oracle_out(acc, M, N, hb_ptr, NULL, act, io, ref);
          uint64_t s = seed * 31 + (uint64_t)(a * 4 + use_b * 2 + use_r);
          for (int64_t i = 0; i < M * N; ++i) res[i] = w4t_encode(-ref[i] * w4t_uniform(&s, 0.5, 1.5), io);
        } else {
          w4t_make_vec_typed(res, M * N, -1.0, 1.0, io, seed + 3 + (uint64_t)a);
        }
        ops->put(d_r, res, (size_t)(M * N) * 2);
        const uint64_t hr = w4t_hash(res, (size_t)(M * N) * 2);
        oracle_out(acc, M, N, hb_ptr, use_r ? res : NULL, act, io, ref);

        ops->poison(d_o, (size_t)(M * N) * 2);
        st = w4a16_plan_run(plan, (const uint16_t *)d_x, M, use_b ? (const uint16_t *)d_b : NULL,
                            use_r ? (const uint16_t *)d_r : NULL, act, (uint16_t *)d_o, ops->stream);
        ops->sync(ops->stream);
        stats->runs++;
        if (st != W4A16_OK) {
          printf("FAIL run K=%lld N=%lld M=%lld: %s\n", (long long)K, (long long)N, (long long)M, w4a16_last_error());
          fails++;
          continue;
        }
        ops->get(out, d_o, (size_t)(M * N) * 2);
        const w4t_cmp c = compare(out, ref, M * N, io, abs_acc, use_r ? res : NULL);
        if (c.rel_norm > stats->worst_rel_norm) stats->worst_rel_norm = c.rel_norm;
        if (c.max_elem_ratio > stats->worst_elem_ratio) stats->worst_elem_ratio = c.max_elem_ratio;

        /* Second call, poisoned again: must give the same bits. */
        ops->poison(d_o, (size_t)(M * N) * 2);
        st = w4a16_plan_run(plan, (const uint16_t *)d_x, M, use_b ? (const uint16_t *)d_b : NULL,
                            use_r ? (const uint16_t *)d_r : NULL, act, (uint16_t *)d_o, ops->stream);
        ops->sync(ops->stream);
        ops->get(out2, d_o, (size_t)(M * N) * 2);
        const int same = st == W4A16_OK && memcmp(out, out2, (size_t)(M * N) * 2) == 0;
        const int inputs_ok = dev_hash(ops, d_x, (size_t)(M * K) * 2) == hx &&
                              dev_hash(ops, d_b, (size_t)N * 2) == hb &&
                              dev_hash(ops, d_r, (size_t)(M * N) * 2) == hr;
        if (!c.pass || !same || !inputs_ok) {
          fails++;
          const int64_t i = c.first_bad;
          printf("FAIL K=%lld N=%lld M=%lld G=%lld kind=%s %s%s act=%s bias=%d res=%d: rel=%.3g elem_ratio=%.3g "
                 "bad=%lld nonfinite=%lld bitwise_same=%d inputs_unchanged=%d [%s]\n",
                 (long long)K, (long long)N, (long long)M, (long long)G, w4t_kind_name(kind), w4t_zp_name(zp),
                 types_name(io, scales_type), act_name(act), use_b, use_r,
                 c.rel_norm, c.max_elem_ratio, (long long)c.bad_elems, (long long)c.nonfinite, same, inputs_ok, desc);
          if (i >= 0)
            printf("     first bad element m=%lld n=%lld: out=%.6g ref=%.6g\n", (long long)(i / N), (long long)(i % N),
                   w4t_decode(out[i], io), ref[i]);
        } else if (verbose) {
          printf("ok   K=%lld N=%lld M=%lld kind=%s %s%s act=%s bias=%d res=%d rel=%.2e elem_ratio=%.3f\n", (long long)K,
                 (long long)N, (long long)M, w4t_kind_name(kind), w4t_zp_name(zp), types_name(io, scales_type), act_name(act), use_b, use_r, c.rel_norm,
                 c.max_elem_ratio);
        }
      }
  ops->release(d_x);
  ops->release(d_b);
  ops->release(d_r);
  ops->release(d_o);
  w4a16_plan_destroy(plan);
done:
  stats->failures += fails;
  w4t_free_weights(&w);
  free(x), free(bias), free(res), free(out), free(out2), free(acc), free(ref), free(abs_acc);
  return fails;
}
