/* Built instead of cuda_backend.cu when CMake found no nvcc: the CUDA backend reports itself absent. */
#include <stddef.h>

#include "internal.h"

w4a16_status w4a16_cuda_plan_create(const int32_t *qweight, const uint16_t *scales, const uint16_t *zero_points,
                                    const uint16_t *offsets, int64_t K, int64_t N, int64_t group_size,
                                    w4a16_element_type io_type, w4a16_element_type scales_type, int act_order,
                                    w4a16_cuda_plan **out) {
  (void)qweight, (void)scales, (void)zero_points, (void)offsets, (void)K, (void)N, (void)group_size, (void)io_type,
      (void)scales_type, (void)act_order;
  *out = NULL;
  return w4a16_fail(W4A16_ERR_NO_DEVICE, "this build of the w4a16 runtime has no CUDA backend (nvcc was not "
                                         "found at configure time); use W4A16_BACKEND_CPU");
}

w4a16_status w4a16_cuda_plan_run(const w4a16_cuda_plan *p, const uint16_t *x, int64_t M, const uint16_t *bias,
                                 const uint16_t *residual, w4a16_activation act, const w4a16_outputs *outs,
                                 void *stream) {
  (void)p, (void)x, (void)M, (void)bias, (void)residual, (void)act, (void)outs, (void)stream;
  return w4a16_fail(W4A16_ERR_NO_DEVICE, "this build of the w4a16 runtime has no CUDA backend");
}

void w4a16_cuda_plan_destroy(w4a16_cuda_plan *p) { (void)p; }
w4a16_status w4a16_cuda_plan_reserve(const w4a16_cuda_plan *p, int64_t max_m) {
  (void)p, (void)max_m;
  return W4A16_OK;
}
uint64_t w4a16_cuda_plan_bytes(const w4a16_cuda_plan *p) { (void)p; return 0; }
uint64_t w4a16_cuda_plan_workspace_bytes(const w4a16_cuda_plan *p, int64_t M) {
  (void)p;
  (void)M;
  return 0;
}
void w4a16_cuda_plan_describe(const w4a16_cuda_plan *p, int64_t M, char *buf, int len) {
  (void)p, (void)M;
  if (len > 0) buf[0] = '\0';
}
int w4a16_cuda_available_impl(void) { return 0; }

/* Act-order (act_order_cuda.cu): plan creation stops at its first device copy. */
w4a16_status w4a16_cuda_check_call(const w4a16_cuda_plan *p, const uint16_t *x, const uint16_t *bias,
                                   const uint16_t *residual, const w4a16_outputs *outs) {
  (void)p, (void)x, (void)bias, (void)residual, (void)outs;
  return w4a16_fail(W4A16_ERR_NO_DEVICE, "this build of the w4a16 runtime has no CUDA backend");
}
w4a16_status w4a16_cuda_to_host(void *host, const void *device, size_t bytes, const char *what) {
  (void)host, (void)device, (void)bytes, (void)what;
  return w4a16_fail(W4A16_ERR_NO_DEVICE, "this build of the w4a16 runtime has no CUDA backend (nvcc was not "
                                         "found at configure time); use W4A16_BACKEND_CPU");
}
w4a16_status w4a16_cuda_to_device(void **device, const void *host, size_t bytes, const char *what) {
  (void)host, (void)bytes, (void)what;
  *device = NULL;
  return w4a16_fail(W4A16_ERR_NO_DEVICE, "this build of the w4a16 runtime has no CUDA backend");
}
void w4a16_cuda_free(void *device) { (void)device; }
w4a16_status w4a16_cuda_gather_create(const int32_t *perm, int64_t K, w4a16_cuda_gather **out) {
  (void)perm, (void)K;
  *out = NULL;
  return w4a16_fail(W4A16_ERR_NO_DEVICE, "this build of the w4a16 runtime has no CUDA backend");
}
w4a16_status w4a16_cuda_gather_run(const w4a16_cuda_gather *g, const w4a16_cuda_plan *p, const uint16_t *x,
                                   int64_t M, const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                                   const w4a16_outputs *outs, void *stream) {
  (void)g, (void)p, (void)x, (void)M, (void)bias, (void)residual, (void)act, (void)outs, (void)stream;
  return w4a16_fail(W4A16_ERR_NO_DEVICE, "this build of the w4a16 runtime has no CUDA backend");
}
w4a16_status w4a16_cuda_gather_reserve(const w4a16_cuda_gather *g, int64_t max_m) {
  (void)g, (void)max_m;
  return W4A16_OK;
}
uint64_t w4a16_cuda_gather_bytes(const w4a16_cuda_gather *g) { (void)g; return 0; }
int w4a16_cuda_gather_in_gemm(const w4a16_cuda_gather *g, const w4a16_cuda_plan *p, int64_t M) {
  (void)g, (void)p, (void)M;
  return 0;
}
void w4a16_cuda_gather_destroy(w4a16_cuda_gather *g) { (void)g; }
