/* test/e2e/Inputs/read_only_args.mlir compiled by w4a16-compile: accumulate(a, acc) returns a + acc and
 * leaves acc as it was (the generated header promises that inputs are never written), over two calls. */
#include "read_only_args.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  enum { M = 3, N = 8 };
  float a[M * N], acc[M * N];
  for (int i = 0; i < M * N; ++i)
    a[i] = (float)i, acc[i] = 100.0f + (float)i;
  w4a16c_memref2d_f32 am = {a, a, 0, {M, N}, {N, 1}}, accm = {acc, acc, 0, {M, N}, {N, 1}};
  int failures = 0;
  for (int call = 0; call < 2; ++call) {
    w4a16c_memref2d_f32 out = {0};
    const int32_t status = w4a16c_run_accumulate(&out, &am, &accm);
    int bad = status != 0 || out.sizes[0] != M || out.sizes[1] != N;
    for (int i = 0; !bad && i < M * N; ++i)
      bad |= out.aligned[out.offset + i] != 100.0f + 2.0f * (float)i || acc[i] != 100.0f + (float)i;
    printf("%s: call %d: status %d, result %s, acc %s\n", bad ? "FAIL" : "ok", call, (int)status,
           bad ? "?" : "a + acc", acc[1] == 101.0f ? "unchanged" : "WRITTEN");
    failures += bad;
    free(out.allocated);
  }
  return failures != 0;
}
