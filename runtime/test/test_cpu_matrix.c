/* CPU reference backend vs the f64 oracle over the issue #3 matrix: M in {1,2,17,31,32,64}, several
 * K/N including K = 8192, docs/contract.md §1's adversarial data, all three activations, bias and residual each
 * present and absent (w4t_run_case covers the 12 epilogue combinations, bitwise repeatability and
 * unchanged inputs); the zero-point forms (random 0..15, the extremes 0 and 15) with every kind; and bf16
 * x/bias/residual/out with f16 and bf16 scales, symmetric and with zero points, every kind, judged by the bf16
 * tolerance; and fractional zero points, zero point 16 and offsets with groups of 128, 64 and 32 (the forms
 * gpu_test runs on the CUDA kernels' affine form). */
#include <stdio.h>

#include "support.h"

int main(void) {
  static const int64_t shapes[][2] = {{128, 8}, {256, 24}, {384, 40}, {1024, 136}, {8192, 64}};
  static const int64_t Ms[] = {1, 2, 17, 31, 32, 64};
  w4t_stats st = {0, 0, 0, 0};
  uint64_t seed = 1;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (size_t i = 0; i < sizeof Ms / sizeof Ms[0]; ++i)
      for (int kind = 0; kind < W4T_KIND_COUNT; ++kind) {
        /* Every kind at every M on the small shapes; the adversarial kinds at M = 1, 17, 64 on K = 8192. */
        if (shapes[s][0] >= 8192 && kind != W4T_RANDOM && Ms[i] != 1 && Ms[i] != 17 && Ms[i] != 64) continue;
        w4t_run_case(&w4t_cpu_ops, shapes[s][0], shapes[s][1], Ms[i], (w4t_kind)kind, seed++, &st, 0);
      }
  for (int zp = W4T_ZP_RANDOM; zp < W4T_ZP_COUNT; ++zp)
    for (int kind = 0; kind < W4T_KIND_COUNT; ++kind) {
      w4t_run_case_zp(&w4t_cpu_ops, 1024, 136, 17, (w4t_kind)kind, (w4t_zp)zp, seed++, &st, 0);
      w4t_run_case_zp(&w4t_cpu_ops, 8192, 64, 1, (w4t_kind)kind, (w4t_zp)zp, seed++, &st, 0);
    }
  /* bf16 is reported apart: its tolerance is not f16's, so its worst ratios are not comparable. */
  w4t_stats bf = {0, 0, 0, 0};
  for (int scales = 0; scales < 2; ++scales)
    for (int zp = W4T_ZP_NONE; zp < W4T_ZP_COUNT; ++zp)
      for (int kind = 0; kind < W4T_KIND_COUNT; ++kind) {
        const w4t_form f = {(w4t_zp)zp, 128, W4A16_ELEM_BF16, scales ? W4A16_ELEM_BF16 : W4A16_ELEM_F16};
        w4t_run_case_form(&w4t_cpu_ops, 1024, 136, 17, (w4t_kind)kind, &f, seed++, &bf, 0);
      }
  /* the forms the CUDA kernels run as affine (fractional zero points, 16, offsets; G = 128, 64, 32) in f16 */
  for (int zp = W4T_ZP_FRACTIONAL; zp < W4T_FORM_COUNT; ++zp)
    for (int64_t G = 32; G <= 128; G *= 2)
      for (int kind = 0; kind < W4T_KIND_COUNT; ++kind) {
        const w4t_form f = {(w4t_zp)zp, G, W4A16_ELEM_F16, W4A16_ELEM_F16};
        w4t_run_case_form(&w4t_cpu_ops, 1024, 136, 17, (w4t_kind)kind, &f, seed++, &st, 0);
      }
  printf("%s: cpu bf16 matrix, %lld runs, %lld failures, worst rel-norm %.3e (limit 1.6e-2), worst element "
         "error %.3f of its bound\n",
         bf.failures ? "FAIL" : "PASS", (long long)bf.runs, (long long)bf.failures, bf.worst_rel_norm,
         bf.worst_elem_ratio);
  printf("%s: cpu matrix, %lld runs, %lld failures, worst rel-norm %.3e (limit 2e-3), worst element "
         "error %.3f of its bound\n",
         st.failures ? "FAIL" : "PASS", (long long)st.runs, (long long)st.failures, st.worst_rel_norm,
         st.worst_elem_ratio);
  return st.failures != 0 || st.runs == 0 || bf.failures != 0 || bf.runs == 0;
}
