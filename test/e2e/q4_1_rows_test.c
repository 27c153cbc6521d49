/* test/e2e/Inputs/q4_1_rows.mlir compiled by w4a16-compile: a Q4_1 contraction over rank-3 activations
 * [B, S, K] with B and S dynamic, which the matcher fuses with M = B * S, once with K as (block, element) loops
 * (q4_1_rows) and once as (super-block, block, element) loops (q4_1_super_blocks: the same bytes seen as 4-D).
 * out[b, s, n] must be sum_k x[b, s, k] * (d[n, g] * q[n, k] + m[n, g]), g = k / 32, within docs/contract.md
 * §1's tolerance (rel L2 <= 2e-3, |out - ref| <= 1e-2 (1 + |ref|)), out shaped [B, S, 64], for B x S in 2 x 3,
 * 3 x 2 (a wrong linearisation of (b, s) shows in one of them) and 1 x 1. Runs on the CPU backend. */
#include "q4_1_rows.h"

#include "../common/test_data.h"
#include "w4a16/runtime_abi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { K = 256, N = 64, BLOCK = 32, BLOCKS = K / BLOCK };

int main(void) {
  uint64_t rng = 5;
  static uint16_t d[N * BLOCKS], m[N * BLOCKS];
  static uint8_t q[N * K];
  for (int i = 0; i < N * BLOCKS; ++i)
    d[i] = double_to_f16(uniform_in(&rng, 0.5, 1.5) / 64), m[i] = double_to_f16(uniform_in(&rng, -0.2, 0.0));
  for (int i = 0; i < N * K; ++i)
    q[i] = (uint8_t)(splitmix64(&rng) >> 60);
  w4a16c_memref3d_f16 dm = {d, d, 0, {N, BLOCKS, 1}, {BLOCKS, 1, 1}}, mm = {m, m, 0, {N, BLOCKS, 1}, {BLOCKS, 1, 1}};
  w4a16c_memref3d_i4 qm = {q, q, 0, {N, BLOCKS, BLOCK}, {K, BLOCK, 1}};
  enum { SUPER = 2, SUB = BLOCKS / SUPER }; /* q4_1_super_blocks: [N, 2, 4, 32] codes, [N, 2, 4, 1] d and m */
  w4a16c_memref4d_f16 d4 = {d, d, 0, {N, SUPER, SUB, 1}, {BLOCKS, SUB, 1, 1}};
  w4a16c_memref4d_f16 m4 = {m, m, 0, {N, SUPER, SUB, 1}, {BLOCKS, SUB, 1, 1}};
  w4a16c_memref4d_i4 q4 = {q, q, 0, {N, SUPER, SUB, BLOCK}, {K, SUB * BLOCK, BLOCK, 1}};
  w4a16_rt_set_backend(W4A16_BACKEND_CPU);

  const int64_t shapes[3][2] = {{2, 3}, {3, 2}, {1, 1}};
  static const char *const names[2] = {"q4_1_rows", "q4_1_super_blocks"};
  int failures = 0;
  for (int c = 0; c < 6; ++c) {
    const int super = c >= 3;
    const int64_t B = shapes[c % 3][0], S = shapes[c % 3][1], rows = B * S;
    uint16_t *x = malloc((size_t)(rows * K) * 2);
    for (int64_t i = 0; i < rows * K; ++i)
      x[i] = double_to_f16(uniform_in(&rng, -2, 2));
    w4a16c_memref3d_f16 xm = {x, x, 0, {B, S, K}, {S * K, K, 1}}, out = {0};
    const int64_t plans = w4a16_rt_plans_created();
    int32_t status = super ? w4a16c_prepare_q4_1_super_blocks(&out, &xm, &d4, &m4, &q4)
                           : w4a16c_prepare_q4_1_rows(&out, &xm, &dm, &qm, &mm);
    free(out.allocated);
    if (w4a16_rt_plans_created() != plans + 1) { /* the chain fused: its weight got a plan */
      printf("FAIL: %s: prepare made %lld weight plans, expected 1 (the chain did not fuse?)\n", names[super],
             (long long)(w4a16_rt_plans_created() - plans));
      ++failures;
    }
    out = (w4a16c_memref3d_f16){0};
    status = status          ? status
             : super         ? w4a16c_run_q4_1_super_blocks(&out, &xm, &d4, &m4, &q4)
                             : w4a16c_run_q4_1_rows(&out, &xm, &dm, &qm, &mm);
    int bad = status != 0 || out.sizes[0] != B || out.sizes[1] != S || out.sizes[2] != N;
    double num = 0, den = 0, worst = 0;
    for (int64_t b = 0; !bad && b < B; ++b)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t n = 0; n < N; ++n) {
          double ref = 0;
          for (int64_t k = 0; k < K; ++k) {
            const int64_t g = n * BLOCKS + k / BLOCK;
            ref += f16_to_double(x[(b * S + s) * K + k]) *
                   (f16_to_double(d[g]) * q[n * K + k] + f16_to_double(m[g]));
          }
          const double got =
              f16_to_double(out.aligned[out.offset + b * out.strides[0] + s * out.strides[1] + n * out.strides[2]]);
          num += (got - ref) * (got - ref), den += ref * ref;
          worst = fmax(worst, fabs(got - ref) / (1e-2 * (1 + fabs(ref))));
        }
    bad |= !(den > 0 && sqrt(num / den) <= 2e-3 && worst <= 1);
    printf("%s: %s, B = %lld, S = %lld: status %d, result %lldx%lldx%lld, rel L2 %.2e, worst element %.3f of its "
           "bound\n", bad ? "FAIL" : "ok", names[super], (long long)B, (long long)S, (int)status, (long long)out.sizes[0],
           (long long)out.sizes[1], (long long)out.sizes[2], den > 0 ? sqrt(num / den) : 0.0, worst);
    failures += bad;
    free(out.allocated);
    free(x);
  }
  printf("%d passed, %d failed\n", 6 - failures, failures);
  w4a16_rt_release_plans();
  return failures != 0;
}
