/* test/e2e/Inputs/upstream_ops.mlir compiled by w4a16-compile and run against C references: linalg.softmax (f32, and
 * f16 on a dynamic row count, a -inf in a row as a causal mask leaves it), RoPE through complex.exp / mul / div /
 * abs, math.copysign + math.isnan, and an scf.for yielding a new tensor per step. Each used to stop the host
 * pipeline (w4a16-decompose-aggregates, convert-complex-to-standard, convert-math-to-llvm ahead of
 * convert-math-to-libm, allow-return-allocs-from-loops). */
#include "upstream_ops.h"

#include "../common/test_data.h"
#include "w4a16/runtime_abi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

static void expectClose(const char *what, int i, double got, double want, double tol) {
  const int ok = isfinite(got) && fabs(got - want) <= tol * fmax(1.0, fabs(want));
  if (!ok) {
    printf("FAIL %s[%d]: %.9g, expected %.9g\n", what, i, got, want);
    ++failures;
  }
}

static double softmaxRef(const double *row, int n, int i) {
  double mx = -INFINITY, sum = 0;
  for (int j = 0; j < n; ++j)
    mx = fmax(mx, row[j]);
  for (int j = 0; j < n; ++j)
    sum += exp(row[j] - mx);
  return exp(row[i] - mx) / sum;
}

static w4a16c_memref2d_f32 view2d(float *p, int64_t rows, int64_t cols) {
  return (w4a16c_memref2d_f32){p, p, 0, {rows, cols}, {cols, 1}};
}
static w4a16c_memref1d_f32 view1d(float *p, int64_t n) { return (w4a16c_memref1d_f32){p, p, 0, {n}, {1}}; }

int main(void) {
  float x[64], y[64];
  double xd[64];
  for (int i = 0; i < 64; ++i) {
    x[i] = (float)(((i * 37) % 29) - 14) * 0.37f; /* -5.2 .. 5.5 */
    y[i] = i % 3 ? 1.0f : -0.0f;
  }
  x[17] = -INFINITY; /* row 1: a masked position */
  for (int i = 0; i < 64; ++i)
    xd[i] = x[i];

  { /* softmax, f32 */
    w4a16c_memref2d_f32 in = view2d(x, 4, 16), out = {0};
    if (w4a16c_run_softmax(&out, &in) != 0)
      ++failures, printf("FAIL softmax: status %s\n", w4a16_rt_last_error());
    else
      for (int i = 0; i < 64; ++i)
        expectClose("softmax", i, out.aligned[out.offset + i], softmaxRef(xd + i / 16 * 16, 16, i % 16), 1e-6);
    free(out.allocated);
  }
  { /* softmax, f16, 3 rows */
    uint16_t h[48];
    double hd[48];
    for (int i = 0; i < 48; ++i)
      h[i] = double_to_f16(x[i]), hd[i] = f16_to_double(h[i]);
    w4a16c_memref2d_f16 in = {h, h, 0, {3, 16}, {16, 1}}, out = {0};
    if (w4a16c_run_softmax_f16(&out, &in) != 0 || out.sizes[0] != 3)
      ++failures, printf("FAIL softmax_f16: status or rows (%lld)\n", (long long)out.sizes[0]);
    else
      for (int i = 0; i < 48; ++i) /* f16 rounding of the exp, sum and quotient: a few ulp */
        expectClose("softmax_f16", i, f16_to_double(out.aligned[out.offset + i]), softmaxRef(hd + i / 16 * 16, 16, i % 16),
                    4e-3);
    free(out.allocated);
  }
  { /* RoPE through complex numbers */
    float a[8], b[8], t[8];
    for (int i = 0; i < 8; ++i)
      a[i] = 0.5f + 0.25f * (float)i, b[i] = 1.0f - 0.3f * (float)i, t[i] = 0.7f * (float)i - 2.0f;
    w4a16c_memref1d_f32 va = view1d(a, 8), vb = view1d(b, 8), vt = view1d(t, 8), re = {0}, ab = {0};
    if (w4a16c_run_rope_real(&re, &va, &vb, &vt) != 0 || w4a16c_run_rope_abs(&ab, &va, &vb, &vt) != 0)
      ++failures, printf("FAIL rope: status %s\n", w4a16_rt_last_error());
    else
      for (int i = 0; i < 8; ++i) {
        expectClose("rope_real", i, re.aligned[re.offset + i], a[i] * cos(t[i]) - b[i] * sin(t[i]), 1e-5);
        expectClose("rope_abs", i, ab.aligned[ab.offset + i], hypot(a[i], b[i]), 1e-5);
      }
    free(re.allocated), free(ab.allocated);
  }
  { /* copysign(x, y), 0 where x is NaN: exact */
    float xc[64];
    for (int i = 0; i < 64; ++i)
      xc[i] = i == 17 ? NAN : x[i];
    w4a16c_memref2d_f32 vx = view2d(xc, 4, 16), vy = view2d(y, 4, 16), out = {0};
    if (w4a16c_run_copysign_nan(&out, &vx, &vy) != 0)
      ++failures, printf("FAIL copysign_nan: status %s\n", w4a16_rt_last_error());
    else
      for (int i = 0; i < 64; ++i) {
        const float want = isnan(xc[i]) ? 0.0f : copysignf(xc[i], y[i]), got = out.aligned[out.offset + i];
        if (got != want || signbit(got) != signbit(want))
          printf("FAIL copysign_nan[%d]: %g, expected %g\n", i, got, want), ++failures;
      }
    free(out.allocated);
  }
  { /* x * (n + 1) by n loop steps; x itself unchanged */
    float xs[64];
    for (int i = 0; i < 64; ++i)
      xs[i] = (float)(i % 7) - 3.0f;
    w4a16c_memref2d_f32 vx = view2d(xs, 4, 16), out = {0};
    if (w4a16c_run_repeat_add(&out, &vx, 5) != 0)
      ++failures, printf("FAIL repeat_add: status %s\n", w4a16_rt_last_error());
    else
      for (int i = 0; i < 64; ++i) {
        expectClose("repeat_add", i, out.aligned[out.offset + i], 6.0 * ((i % 7) - 3), 0);
        expectClose("repeat_add input", i, xs[i], (i % 7) - 3, 0);
      }
    free(out.allocated);
  }
  printf("%s (%d failures)\n", failures ? "upstream_ops: FAIL" : "upstream_ops: PASS", failures);
  return failures != 0;
}
