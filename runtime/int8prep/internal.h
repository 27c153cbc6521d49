/* Shared by the CPU reference, the CUDA launcher and the entry point of compiled code. */
#ifndef W4A16_INT8PREP_INTERNAL_H
#define W4A16_INT8PREP_INTERNAL_H

#include "w4a16/int8prep.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element strides of every operand (row, column for 2-D). */
typedef struct Int8PrepView {
  const uint16_t *A;
  const int8_t *CB;
  const float *SCB;
  const int64_t *cols;
  uint16_t *subA, *subB;
  int64_t M, N, K, L;
  int64_t sA[2], sCB[2], sSCB, sCols, sSubA[2], sSubB[2];
} Int8PrepView;

/* Index of the first column outside [0, K), or -1. */
int64_t w4a16_int8prep_bad_column(const Int8PrepView *v);
void w4a16_int8prep_cpu_strided(const Int8PrepView *v);
/* Stages host buffers through device memory and runs the kernel (W4A16_ERR_NO_DEVICE without CUDA). */
w4a16_status w4a16_int8prep_cuda_from_host(const Int8PrepView *v);
/* Round to nearest even f32 -> f16 bits (infinity on overflow, quiet NaN for NaN). */
uint16_t w4a16_int8prep_f32_to_f16(float f);

#ifdef __cplusplus
}
#endif
#endif
