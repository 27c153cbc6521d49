/* Calls the functions of compile-header.mlir through the header w4a16-compile generated for it (HEADER). */
#include HEADER

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  float x[5] = {1, 2, 3, 4, 5}, y[5] = {1, 2, 3, 4, 5.5f};
  w4a16c_memref1d_f32 mx = {x, x, 0, {5}, {1}}, my = {y, y, 0, {5}, {1}};
  w4a16c_axpy_half_results r;
  _mlir_ciface_axpy_half(&r, 2.0f, &mx, &my);
  printf("axpy_half r0 =");
  for (int64_t i = 0; i < r.r0.sizes[0]; ++i)
    printf(" %g", r.r0.aligned[r.r0.offset + i * r.r0.strides[0]]);
  printf("\naxpy_half r1 =");
  for (int64_t i = 0; i < r.r1.sizes[0]; ++i)
    printf(" 0x%04x", r.r1.aligned[r.r1.offset + i * r.r1.strides[0]]);
  printf("\n");
  free(r.r0.allocated);
  free(r.r1.allocated);

  double m[6] = {0.5, 1.5, 2.5, 10.5, 11.5, 12.5};
  w4a16c_memref2d_f64 mm = {m, m, 0, {2, 3}, {3, 1}};
  printf("pick = %g\n", _mlir_ciface_pick(&mm, 1, 2));

  /* The status-returning entry points: a scalar result through the pointer passed first. */
  double picked = 0;
  int32_t status = w4a16c_run_pick(&picked, &mm, 1, 1);
  printf("w4a16c_run_pick = %d, ret %g\n", (int)status, picked);
  w4a16c_axpy_half_results again;
  status = w4a16c_prepare_axpy_half(&again, 2.0f, &mx, &my);
  printf("w4a16c_prepare_axpy_half = %d, r0[4] = %g\n", (int)status, again.r0.aligned[again.r0.offset + 4]);
  free(again.r0.allocated);
  free(again.r1.allocated);
  return 0;
}
