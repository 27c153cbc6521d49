/* test/e2e/Inputs/dynamic_expand.mlir compiled by w4a16-compile (it used to crash the compiler in upstream
 * expand-strided-metadata): out[b, s, k] must be x[b, s, k] + 1 with out shaped [B, S, 64], for B x S in
 * 2 x 3 and 3 x 2 (a wrong linearisation of (b, s) shows in one of them). */
#include "dynamic_expand.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const int64_t shapes[2][2] = {{2, 3}, {3, 2}};
  int failures = 0;
  for (int c = 0; c < 2; ++c) {
    const int64_t B = shapes[c][0], S = shapes[c][1], K = 64, n = B * S * K;
    float *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; ++i)
      x[i] = (float)i;
    w4a16c_memref3d_f32 in = {x, x, 0, {B, S, K}, {S * K, K, 1}}, out = {0};
    int32_t status = w4a16c_run_dynamic_expand(&out, &in);
    int bad = status != 0 || out.sizes[0] != B || out.sizes[1] != S || out.sizes[2] != K;
    for (int64_t b = 0; !bad && b < B; ++b)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t k = 0; k < K; ++k)
          bad |= out.aligned[out.offset + b * out.strides[0] + s * out.strides[1] + k * out.strides[2]] !=
                 x[(b * S + s) * K + k] + 1.0f;
    printf("%s: B = %lld, S = %lld: status %d, result %lldx%lldx%lld\n", bad ? "FAIL" : "ok", (long long)B,
           (long long)S, (int)status, (long long)out.sizes[0], (long long)out.sizes[1], (long long)out.sizes[2]);
    failures += bad;
    free(out.allocated);
    free(x);
  }
  printf("%d passed, %d failed\n", 2 - failures, failures);
  return failures != 0;
}
