/* Every activation of contract.h as v * sigmoid(z(v)), z(v) = v * (c0 + c1 v^2 + c2 v^4 + c3 v^6 + c4 v^8): the CUDA
 * epilogue's one formula (common.cuh), here so that a CPU test can hold the coefficients to the exact activations.
 * One formula because every copy of the epilogue is inlined at every store site of every kernel and the kernels'
 * code size costs the PDL-chained layer (bench/RESULTS.md, sessions 48-51: relu and gelu_erf as their own
 * expressions, erff among them, cost the LLaMA-7B layer 0.3-3.4 us at M = 1); a row of coefficients costs nothing.
 *   silu       z = v.
 *   gelu_tanh  z = 2u with u = C0 (v + C1 v^3), since 0.5 (1 + tanh(u)) = sigmoid(2u).
 *   gelu_erf   z ~ logit(Phi(v)), the normal CDF's logit, fitted on [-4.5, 4.5] (runtime/src/gen/fit_gelu_erf.py):
 *              |v sigmoid(z) - gelu(v)| <= 3.1e-6 for every v, under half an f16 ulp of every output of magnitude
 *              2^-7 or more; the top coefficient is positive, so z keeps growing past the fit (z(6) = 29).
 *   relu       z = 2^127 v: the result is exactly v for v >= 2^-120 and -0 for v <= -2^-120 (e^-z overflows, and
 *              v * 0 = -0); between them it is v * sigmoid(z), under 2^-120 in magnitude (0 in f16; in bf16 off
 *              by less than 2^-120 from relu's 0 or v). A NaN stays NaN (fmaxf would drop it).
 * v^2 is capped at 2^64 so that no term is 0 * inf (silu's zero coefficients keep z = v exactly); only a v of 2^32 or
 * more, far past what an f16 or bf16 output holds, is capped, and every z there saturates the sigmoid as before. */
#ifndef W4A16_SIGMOID_FORM_H
#define W4A16_SIGMOID_FORM_H

#include <math.h>

#include "w4a16/contract.h"

#ifdef __CUDACC__
#define W4A16_SIGMOID_FN __host__ __device__ __forceinline__
#else
#define W4A16_SIGMOID_FN static inline
#endif

typedef struct w4a16_sigmoid_form {
  float c[5];
} w4a16_sigmoid_form;

/* The coefficients of act (W4A16_ACT_NONE has none: the epilogue skips it). */
W4A16_SIGMOID_FN w4a16_sigmoid_form w4a16_sigmoid_form_of(int act) {
  w4a16_sigmoid_form f = {{1.0f, 0.0f, 0.0f, 0.0f, 0.0f}}; /* silu */
  if (act == W4A16_ACT_GELU_TANH) {
    f.c[0] = 2.0f * W4A16_GELU_C0;
    f.c[1] = 2.0f * W4A16_GELU_C0 * W4A16_GELU_C1;
  } else if (act == W4A16_ACT_GELU_ERF) {
    f.c[0] = 1.5956562726031291f;
    f.c[1] = 0.07293757904392657f;
    f.c[2] = -0.00024972131050343595f;
    f.c[3] = -6.116241367344968e-05f;
    f.c[4] = 2.238188060069146e-06f;
  } else if (act == W4A16_ACT_RELU) {
    f.c[0] = 0x1p127f;
  }
  return f;
}

/* z(v), Horner's rule in v^2 with fused multiply-adds (the kernels are built with -fmad=false, so they are spelled
 * out: four FFMA instead of eight instructions in every copy of the epilogue). */
W4A16_SIGMOID_FN float w4a16_sigmoid_arg(const w4a16_sigmoid_form *f, float v) {
  const float v2 = fminf(v * v, 0x1p64f);
  return v * fmaf(fmaf(fmaf(fmaf(f->c[4], v2, f->c[3]), v2, f->c[2]), v2, f->c[1]), v2, f->c[0]);
}

#endif
