/* Private declarations shared by the C front end, the CPU backend and the CUDA backend. */
#ifndef W4A16_INTERNAL_H
#define W4A16_INTERNAL_H

#include "w4a16/runtime.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records status + a printf-style message in the calling thread's error slot; returns status. */
w4a16_status w4a16_fail(w4a16_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void w4a16_clear_error(void);

/* Backends. plan_create gets a shape that passed w4a16_check_shape (contract.h). */

/* CPU backend (cpu_backend.c). */
typedef struct w4a16_cpu_plan w4a16_cpu_plan;
w4a16_status w4a16_cpu_plan_create(const int32_t *qweight, const uint16_t *scales, const uint16_t *zero_points,
                                   const uint16_t *offsets, int64_t K, int64_t N, int64_t group_size,
                                   w4a16_element_type io_type, w4a16_element_type scales_type,
                                   w4a16_cpu_plan **out);
w4a16_status w4a16_cpu_plan_run(const w4a16_cpu_plan *p, const uint16_t *x, int64_t M, const uint16_t *bias,
                                const uint16_t *residual, w4a16_activation act, uint16_t *out);
void w4a16_cpu_plan_destroy(w4a16_cpu_plan *p);
uint64_t w4a16_cpu_plan_bytes(const w4a16_cpu_plan *p);

/* CUDA backend (cuda_backend.cu, or cuda_stub.c when nvcc is absent). */
typedef struct w4a16_cuda_plan w4a16_cuda_plan;
w4a16_status w4a16_cuda_plan_create(const int32_t *qweight, const uint16_t *scales, const uint16_t *zero_points,
                                    const uint16_t *offsets, int64_t K, int64_t N, int64_t group_size,
                                    w4a16_element_type io_type, w4a16_element_type scales_type, w4a16_cuda_plan **out);
w4a16_status w4a16_cuda_plan_run(const w4a16_cuda_plan *p, const uint16_t *x, int64_t M, const uint16_t *bias,
                                 const uint16_t *residual, w4a16_activation act, uint16_t *out, void *stream);
void w4a16_cuda_plan_destroy(w4a16_cuda_plan *p);
uint64_t w4a16_cuda_plan_bytes(const w4a16_cuda_plan *p);
uint64_t w4a16_cuda_plan_workspace_bytes(const w4a16_cuda_plan *p, int64_t M);
w4a16_status w4a16_cuda_plan_reserve(const w4a16_cuda_plan *p, int64_t max_m);
void w4a16_cuda_plan_describe(const w4a16_cuda_plan *p, int64_t M, char *buf, int len);
int w4a16_cuda_available_impl(void);

#ifdef __cplusplus
}
#endif
#endif
