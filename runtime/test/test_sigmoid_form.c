/* The CUDA epilogue's one activation formula, v * sigmoid(z(v)) with sigmoid_form.h's coefficients, against the
 * activations as contract.h defines them (support.c's f64 oracle): silu's z is v exactly; gelu_tanh is within f32
 * rounding (of z, then e^z); gelu_erf within its fit's 3.1e-6 (plus f32 rounding); relu is exactly v or 0 outside
 * (-2^-120, 2^-120); a NaN stays NaN and huge values saturate for every activation. Here with expf and an IEEE
 * division; the kernels' __expf and __fdividef are held to the oracle by gpu_test. */
#include <math.h>
#include <stdio.h>

#include "sigmoid_form.h"
#include "support.h"

static int fails;

static void expect(int ok, const char *what, int act, float v, double got, double want) {
  if (!ok && fails++ < 20)
    printf("FAIL %s: %s(%.9g) = %.9g, want %.9g\n", what, w4a16_activation_name(act), (double)v, got, want);
}

static float form_value(int act, float v) {
  const w4a16_sigmoid_form f = w4a16_sigmoid_form_of(act);
  return v / (1.0f + expf(-w4a16_sigmoid_arg(&f, v)));
}

int main(void) {
  const w4a16_sigmoid_form silu = w4a16_sigmoid_form_of(W4A16_ACT_SILU);
  int samples = 0;
  /* v over [-20, 20] densely, then geometric steps out to 1e6 and down to 1e-40 on both sides. */
  for (int i = -400000; i <= 400000; ++i) {
    float vs[3] = {(float)i * 5e-5f, 0, 0};
    int n = 1;
    if (i >= 0 && i < 4600) {
      vs[1] = powf(10.0f, -40.0f + (float)i * 0.01f); /* 1e-40 .. 1e6 */
      vs[2] = -vs[1];
      n = 3;
    }
    for (int k = 0; k < n; ++k) {
      const float v = vs[k];
      ++samples;
      const float z = w4a16_sigmoid_arg(&silu, v);
      expect(z == v, "silu's z is v", W4A16_ACT_SILU, v, z, v);
      for (int act = W4A16_ACT_SILU; act < W4A16_ACT_COUNT; ++act) {
        const double got = form_value(act, v), want = w4t_oracle_act(v, (w4a16_activation)act), err = fabs(got - want);
        const double rounding = 4.0 * ldexp(fabs(want) + fabs(v) * 1e-3, -24);  /* a few f32 ulp */
        if (act == W4A16_ACT_GELU_ERF)
          expect(err <= 3.1e-6 + rounding, "gelu_erf within its fit", act, v, got, want);
        else if (act == W4A16_ACT_RELU && fabsf(v) >= 0x1p-120f)
          expect(got == want, "relu exact", act, v, got, want);
        else if (act != W4A16_ACT_RELU) /* z's own rounding is relative, e^z's error grows with |z| ~ v^2 */
          expect(err <= 8.0 * ldexp(fabs(want), -24) * (1 + (double)v * v) + 1e-20, "within f32 rounding", act, v,
                 got, want);
        else
          expect(err <= fabs((double)v), "relu near 0 is at most |v|", act, v, got, want);
      }
    }
  }
  /* NaN stays NaN; past any f16 or bf16 data (v^2 capped) every activation still saturates. */
  const float huge[] = {1e19f, 1e30f, 3e38f};
  for (int act = W4A16_ACT_SILU; act < W4A16_ACT_COUNT; ++act) {
    expect(isnan(form_value(act, NAN)), "NaN stays NaN", act, NAN, form_value(act, NAN), NAN);
    for (int i = 0; i < 3; ++i) {
      expect(form_value(act, huge[i]) == huge[i], "saturates at +huge", act, huge[i], form_value(act, huge[i]),
             huge[i]);
      const float neg = form_value(act, -huge[i]);
      expect(neg == 0.0f, "saturates to 0 at -huge", act, -huge[i], neg, 0);
    }
  }
  printf("%s: %d samples x %d activations, %d failures\n", fails ? "FAIL" : "PASS", samples, W4A16_ACT_COUNT - 1,
         fails);
  return fails != 0;
}
