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
/* Every run writes through an outputs map (runtime.h's w4a16_outputs, checked by runtime.c): w4a16_plan_run passes
 * one output of N columns (and may pass a residual), w4a16_plan_run_outputs the caller's (residual NULL). */
w4a16_status w4a16_cpu_plan_run(const w4a16_cpu_plan *p, const uint16_t *x, int64_t M, const uint16_t *bias,
                                const uint16_t *residual, w4a16_activation act, const w4a16_outputs *outs);
void w4a16_cpu_plan_destroy(w4a16_cpu_plan *p);
uint64_t w4a16_cpu_plan_bytes(const w4a16_cpu_plan *p);

/* CUDA backend (cuda_backend.cu, or cuda_stub.c when nvcc is absent). */
typedef struct w4a16_cuda_plan w4a16_cuda_plan;
w4a16_status w4a16_cuda_plan_create(const int32_t *qweight, const uint16_t *scales, const uint16_t *zero_points,
                                    const uint16_t *offsets, int64_t K, int64_t N, int64_t group_size,
                                    w4a16_element_type io_type, w4a16_element_type scales_type, int act_order,
                                    w4a16_cuda_plan **out);
w4a16_status w4a16_cuda_plan_run(const w4a16_cuda_plan *p, const uint16_t *x, int64_t M, const uint16_t *bias,
                                 const uint16_t *residual, w4a16_activation act, const w4a16_outputs *outs,
                                 void *stream);
void w4a16_cuda_plan_destroy(w4a16_cuda_plan *p);
uint64_t w4a16_cuda_plan_bytes(const w4a16_cuda_plan *p);
uint64_t w4a16_cuda_plan_workspace_bytes(const w4a16_cuda_plan *p, int64_t M);
w4a16_status w4a16_cuda_plan_reserve(const w4a16_cuda_plan *p, int64_t max_m);
void w4a16_cuda_plan_describe(const w4a16_cuda_plan *p, int64_t M, char *buf, int len);
int w4a16_cuda_available_impl(void);
/* w4a16_cuda_plan_run is w4a16_cuda_check_call (16-byte alignment, 8 for a GLU output; the plan's device) then
 * w4a16_cuda_plan_launch: a caller that launches work of its own before the plan's kernel checks first and
 * launches the kernel after its work (act_order_cuda.cu). */
w4a16_status w4a16_cuda_check_call(const w4a16_cuda_plan *p, const uint16_t *x, const uint16_t *bias,
                                   const uint16_t *residual, const w4a16_outputs *outs);
w4a16_status w4a16_cuda_plan_launch(const w4a16_cuda_plan *p, const uint16_t *x, int64_t M, const uint16_t *bias,
                                    const uint16_t *residual, w4a16_activation act, const w4a16_outputs *outs,
                                    void *stream);
/* How an act-order call of M tokens gathers x's columns (plan_gathers, gather_in_gemm): a gather launch before the
 * GEMM, or the GEMM itself: v3 with the CTA's range of perm copied into shared memory beside x's rows, or read from
 * global memory a step ahead where only the rows fit; or kernel v1's decode variant, which copies x's rows into
 * shared memory and builds each stage from them through perm. */
typedef enum {
  W4A16_GATHER_BY_LAUNCH = 0,
  W4A16_GATHER_PERM_IN_SMEM = 1,
  W4A16_GATHER_PERM_STREAMED = 2,
  W4A16_GATHER_IN_DECODE_VARIANT = 3,
} w4a16_gather_mode;
/* Act-order calls whose kernel gathers x's columns itself (v3, the exact forms, M <= 8 where x's rows fit in shared
 * memory; the decode variant where they fit behind its stages: plan_gathers says when, as a w4a16_gather_mode);
 * perm is the plan's permutation on the device. Checked and ordered like plan_launch; no gather buffer. */
int w4a16_cuda_plan_gathers(const w4a16_cuda_plan *p, int64_t M);
w4a16_status w4a16_cuda_plan_launch_gathering(const w4a16_cuda_plan *p, const uint16_t *x, const int32_t *perm,
                                              int64_t M, const uint16_t *bias, const uint16_t *residual,
                                              w4a16_activation act, const w4a16_outputs *outs, void *stream);

/* Act-order (GPTQ desc_act, w4a16_plan_create_act_order), host side (act_order.c). */
/* perm = the rows k sorted by g_idx[k], stably (counting sort); W4A16_ERR_BAD_ARGUMENT when a g_idx value is not a
 * group index or a group does not hold exactly group_size rows. *identity: g_idx[k] == k / group_size for every k
 * (perm is then 0 .. K-1). */
w4a16_status w4a16_act_order_sort(const int32_t *g_idx, int64_t K, int64_t group_size, int32_t *perm,
                                  int *identity);
/* out (K/8, N), the packed layout of qweight, with row i = qweight's row perm[i]. */
void w4a16_act_order_permute_rows(const int32_t *qweight, const int32_t *perm, int64_t K, int64_t N, int32_t *out);
/* xg[m, i] = x[m, perm[i]] (16-bit elements of either io type: only bits move). */
void w4a16_act_order_gather(const uint16_t *x, int64_t M, int64_t K, const int32_t *perm, uint16_t *xg);

/* Act-order, CUDA side (act_order_cuda.cu, or cuda_stub.c). Synchronous copies for plan creation, device memory
 * through cudaMalloc / cudaFree. */
w4a16_status w4a16_cuda_to_host(void *host, const void *device, size_t bytes, const char *what);
w4a16_status w4a16_cuda_to_device(void **device, const void *host, size_t bytes, const char *what);
void w4a16_cuda_free(void *device);
/* A plan's gather state: perm on the device and the gather buffer (max_m * K 16-bit values, reserved for
 * W4A16_DEFAULT_MAX_M at creation). run gathers x into the buffer and runs p on it, on `stream`. */
typedef struct w4a16_cuda_gather w4a16_cuda_gather;
w4a16_status w4a16_cuda_gather_create(const int32_t *perm, int64_t K, w4a16_cuda_gather **out);
w4a16_status w4a16_cuda_gather_run(const w4a16_cuda_gather *g, const w4a16_cuda_plan *p, const uint16_t *x,
                                   int64_t M, const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                                   const w4a16_outputs *outs, void *stream);
w4a16_status w4a16_cuda_gather_reserve(const w4a16_cuda_gather *g, int64_t max_m);
uint64_t w4a16_cuda_gather_bytes(const w4a16_cuda_gather *g);
/* Whether a call of M tokens gathers x inside p's GEMM (no gather launch, no buffer), as plan_gathers: for
 * plan_describe. */
int w4a16_cuda_gather_in_gemm(const w4a16_cuda_gather *g, const w4a16_cuda_plan *p, int64_t M);
void w4a16_cuda_gather_destroy(w4a16_cuda_gather *g);

#ifdef __cplusplus
}
#endif
#endif
