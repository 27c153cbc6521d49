/* Built without nvcc: the CUDA entry points report W4A16_ERR_NO_DEVICE (L = 0 is still a no-op). */
#include "internal.h"

w4a16_status w4a16_int8prep_cuda(const uint16_t *A, const int8_t *CB, const float *SCB, const int64_t *cols,
                                 int64_t M, int64_t N, int64_t K, int64_t L, uint16_t *subA, uint16_t *subB,
                                 void *stream) {
  (void)A, (void)CB, (void)SCB, (void)cols, (void)K, (void)subA, (void)subB, (void)stream;
  if (M < 0 || N < 0 || L < 0)
    return W4A16_ERR_BAD_SHAPE;
  return M * L + L * N == 0 ? W4A16_OK : W4A16_ERR_NO_DEVICE;
}

w4a16_status w4a16_int8prep_cuda_from_host(const Int8PrepView *v) {
  return v->M * v->L + v->L * v->N == 0 ? W4A16_OK : W4A16_ERR_NO_DEVICE;
}

int w4a16_int8prep_cuda_available(void) { return 0; }
int64_t w4a16_int8prep_launches(void) { return 0; }
