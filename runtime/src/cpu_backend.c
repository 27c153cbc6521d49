/* CPU reference backend: the same arithmetic, with the same rounding points, as the CUDA kernel
 * (runtime/README.md, "Numerics"):
 *   p_g   = sum over k in group g, in k order, of f32(x[m,k]) * (code[k,n] - z[g,n]) (f32; z = 8 unless the
 *           plan has zero points; each product exact for integer z)
 *           (group g: k in [g*G, (g+1)*G), G = the plan's group size)
 *   acc   = fmaf(p_g, f32(scale[g,n]), acc) over g = 0, 1, ...                     (f32)
 *   v     = acc + f32(bias[n]);  a = act(v) in f32;  y = a + f32(residual[m,n])   (f32)
 *   out   = f16(y) (or bf16(y) for a bf16 plan), round to nearest even              (the only rounding to 16 bits)
 * stored at column n of the (M, N) output, or of the output that holds column n (w4a16_plan_run_outputs); a GLU
 * plan (the same call) instead stores round(act(v[gate]) * v[up]) for each of its gate / up column pairs.
 * For the symmetric and integer zero-point forms at G = 128 the GPU differs only in the order of the
 * additions (tensor-core partial sums, split-K partials added in split order), never in where values are
 * rounded; for the others it rounds each weight once to the io type (its affine form, docs/kernel.md). */
#include "half.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct w4a16_cpu_plan {
  int64_t K, N, group_size;
  int32_t *qweight;  /* private copy: the caller may free its buffers after plan_create */
  float *scales;      /* (K/G, N), converted from f16 or bf16 once */
  w4a16_element_type io_type; /* of x, bias, residual and out */
  float *zero_points; /* (K/G, N), NULL: every zero point is 8 */
  float *offsets;     /* (K/G, N) added per group (the offset form), NULL: none */
};

w4a16_status w4a16_cpu_plan_create(const int32_t *qweight, const uint16_t *scales, const uint16_t *zero_points,
                                   const uint16_t *offsets, int64_t K, int64_t N, int64_t group_size,
                                   w4a16_element_type io_type, w4a16_element_type scales_type,
                                   w4a16_cpu_plan **out) {
  w4a16_cpu_plan *p = (w4a16_cpu_plan *)calloc(1, sizeof *p);
  size_t qbytes = (size_t)(K / 8) * (size_t)N * 4, sbytes = (size_t)(K / group_size) * (size_t)N * 2;
  const size_t groupsN = (size_t)(K / group_size) * (size_t)N;
  if (p) {
    p->qweight = (int32_t *)malloc(qbytes);
    p->scales = (float *)malloc(sbytes * 2);
    if (zero_points) p->zero_points = (float *)malloc(groupsN * sizeof(float));
    if (offsets) p->offsets = (float *)malloc(groupsN * sizeof(float));
  }
  if (!p || !p->qweight || !p->scales || (zero_points && !p->zero_points) || (offsets && !p->offsets)) {
    w4a16_cpu_plan_destroy(p);
    return w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_create(cpu): cannot allocate %zu bytes", qbytes + sbytes);
  }
  memcpy(p->qweight, qweight, qbytes);
  for (size_t i = 0; i < groupsN; ++i)
    p->scales[i] = scales_type == W4A16_ELEM_BF16 ? w4a16_bf2f(scales[i]) : w4a16_h2f(scales[i]);
  p->io_type = io_type;
  for (size_t i = 0; zero_points && i < groupsN; ++i) p->zero_points[i] = w4a16_h2f(zero_points[i]);
  for (size_t i = 0; offsets && i < groupsN; ++i) p->offsets[i] = w4a16_h2f(offsets[i]);
  p->K = K;
  p->N = N;
  p->group_size = group_size;
  *out = p;
  return W4A16_OK;
}

void w4a16_cpu_plan_destroy(w4a16_cpu_plan *p) {
  if (!p) return;
  free(p->qweight);
  free(p->scales);
  free(p->zero_points);
  free(p->offsets);
  free(p);
}

uint64_t w4a16_cpu_plan_bytes(const w4a16_cpu_plan *p) {
  const uint64_t groupsN = (uint64_t)(p->K / p->group_size) * (uint64_t)p->N;
  return (uint64_t)(p->K / 8) * (uint64_t)p->N * 4 + groupsN * 4 + (p->zero_points ? groupsN * 4 : 0) +
         (p->offsets ? groupsN * 4 : 0);
}

/* x, bias, residual in, out out: f16 or bf16, as the plan says. */
static float load16(w4a16_element_type t, uint16_t v) { return t == W4A16_ELEM_BF16 ? w4a16_bf2f(v) : w4a16_h2f(v); }
static uint16_t store16(w4a16_element_type t, float v) { return t == W4A16_ELEM_BF16 ? w4a16_f2bf(v) : w4a16_f2h(v); }

static float act_f32(float v, w4a16_activation act) {
  if (act == W4A16_ACT_SILU) return v / (1.0f + expf(-v));
  if (act == W4A16_ACT_GELU_TANH) return 0.5f * v * (1.0f + tanhf(W4A16_GELU_C0 * (v + W4A16_GELU_C1 * v * v * v)));
  return v;
}

/* The fused epilogue of row m: acc[n] (the f32 sums of the plan's N columns) + bias, activation and residual in
 * f32, one rounding, stored through the outputs map (runtime.h, w4a16_outputs):
 *  - plain: column n goes to the output i holding it (columns [first_i, first_i + cols[i])), at its column
 *    n - first_i; w4a16_plan_run is the one output of N columns (with or without residual);
 *  - glu: the columns come in groups of 8, gate columns 8j..8j+3 then up's 8j+4..8j+7 (the CUDA kernels'
 *    8-column epilogue item, so that each item holds 4 whole pairs); out[m, 4j+e] = act(gate + b) * (up + b). */
static void store_row(const w4a16_cpu_plan *p, const float *acc, int64_t m, const uint16_t *bias,
                      const uint16_t *residual, w4a16_activation act, const w4a16_outputs *outs) {
  const int64_t N = p->N;
  const w4a16_element_type t = p->io_type;
  if (outs->glu) {
    uint16_t *out = outs->out[0] + m * (N / 2);
    for (int64_t n = 0; n < N; n += 8)
      for (int e = 0; e < 4; ++e) {
        float g = acc[n + e], u = acc[n + 4 + e];
        if (bias) g += load16(t, bias[n + e]), u += load16(t, bias[n + 4 + e]);
        out[n / 2 + e] = store16(t, act_f32(g, act) * u);
      }
    return;
  }
  int i = 0;
  int64_t first = 0; /* output i holds columns [first, first + cols[i]) */
  for (int64_t n = 0; n < N; ++n) {
    while (n >= first + outs->cols[i]) first += outs->cols[i++];
    float v = acc[n];
    if (bias) v += load16(t, bias[n]);
    float y = act_f32(v, act);
    if (residual) y += load16(t, residual[m * N + n]);
    outs->out[i][m * outs->cols[i] + (n - first)] = store16(t, y);
  }
}

w4a16_status w4a16_cpu_plan_run(const w4a16_cpu_plan *p, const uint16_t *x, int64_t M, const uint16_t *bias,
                                const uint16_t *residual, w4a16_activation act, const w4a16_outputs *outs) {
  const int64_t K = p->K, N = p->N, GS = p->group_size, G = K / GS;
  /* Per-call scratch, freed before returning: no state in the plan changes, so concurrent runs are safe. */
  float *part = (float *)malloc((size_t)N * sizeof(float));
  float *acc = (float *)malloc((size_t)N * sizeof(float));
  if (!part || !acc) {
    free(part);
    free(acc);
    return w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_run(cpu): cannot allocate %lld bytes of scratch",
                      (long long)(8 * N));
  }
  for (int64_t m = 0; m < M; ++m) {
    const uint16_t *xr = x + m * K;
    memset(acc, 0, (size_t)N * sizeof(float));
    for (int64_t g = 0; g < G; ++g) {
      memset(part, 0, (size_t)N * sizeof(float));
      const float *zg = p->zero_points ? p->zero_points + g * N : NULL;
      for (int64_t k = g * GS; k < (g + 1) * GS; ++k) {
        const float xv = load16(p->io_type, xr[k]);
        const int32_t *row = p->qweight + (k / 8) * N;
        const int shift = (int)(k % 8) * 4; /* least-significant nibble holds the lowest k */
        if (zg)
          for (int64_t n = 0; n < N; ++n) part[n] += xv * ((float)(((uint32_t)row[n] >> shift) & 15u) - zg[n]);
        else
          for (int64_t n = 0; n < N; ++n)
            part[n] += xv * (float)((int)(((uint32_t)row[n] >> shift) & 15u) - W4A16_ZERO_POINT);
      }
      const float *sr = p->scales + g * N;
      for (int64_t n = 0; n < N; ++n) acc[n] = fmaf(part[n], sr[n], acc[n]);
      if (p->offsets) { /* + offset * sum of the group's x */
        float xsum = 0;
        for (int64_t k = g * GS; k < (g + 1) * GS; ++k) xsum += load16(p->io_type, xr[k]);
        for (int64_t n = 0; n < N; ++n) acc[n] = fmaf(xsum, p->offsets[g * N + n], acc[n]);
      }
    }
    store_row(p, acc, m, bias, residual, act, outs);
  }
  free(part);
  free(acc);
  return W4A16_OK;
}
