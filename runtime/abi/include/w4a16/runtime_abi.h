/* The entry points that code compiled by w4a16 calls (through MLIR's memref C interface), and the
 * control functions a host program may call around them.
 *
 * Lowered code calls, for each w4a16.fused_matmul,
 *   int32_t _mlir_ciface_w4a16_rt_matmul_<w>(x, weight, scales, bias, residual, out,
 *                                             activation, weight_layout, scales_layout, has_bias, has_residual)
 * with <w> = i32 (packed (K/8, N) words), i8 or i4 (one code per byte, as LLVM stores i4).
 * Layout and activation codes are contract.h's enums (w4a16_weight_layout, w4a16_scales_layout,
 * w4a16_activation). It returns 0, or a w4a16_status after printing
 * the message to stderr; the lowered code then stops with an assertion.
 *
 * Weight preparation happens once per weight: plans are cached, keyed on (weight pointer, scales
 * pointer, K, N, layouts). A weight buffer must not change while its plan is cached; call
 * w4a16_rt_release_plans() after changing or freeing weights, and at exit to free the cache. */
#ifndef W4A16_RUNTIME_ABI_H
#define W4A16_RUNTIME_ABI_H

#include "w4a16/runtime.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define W4A16_MEMREF(rank, name, T)                                                                        \
  typedef struct name {                                                                                    \
    T *allocated;                                                                                          \
    T *aligned;                                                                                            \
    int64_t offset;                                                                                        \
    int64_t sizes[rank];                                                                                   \
    int64_t strides[rank];                                                                                 \
  } name

W4A16_MEMREF(1, w4a16_memref1d_f16, uint16_t);
W4A16_MEMREF(2, w4a16_memref2d_f16, uint16_t);
W4A16_MEMREF(2, w4a16_memref2d_i32, int32_t);
W4A16_MEMREF(2, w4a16_memref2d_i8, uint8_t);


int32_t _mlir_ciface_w4a16_rt_matmul_i32(w4a16_memref2d_f16 *x, w4a16_memref2d_i32 *weight,
                                         w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                                         w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *out,
                                         int32_t activation, int32_t weight_layout, int32_t scales_layout,
                                         int32_t has_bias, int32_t has_residual);
int32_t _mlir_ciface_w4a16_rt_matmul_i8(w4a16_memref2d_f16 *x, w4a16_memref2d_i8 *weight,
                                        w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                                        w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *out,
                                        int32_t activation, int32_t weight_layout, int32_t scales_layout,
                                        int32_t has_bias, int32_t has_residual);
int32_t _mlir_ciface_w4a16_rt_matmul_i4(w4a16_memref2d_f16 *x, w4a16_memref2d_i8 *weight,
                                        w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                                        w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *out,
                                        int32_t activation, int32_t weight_layout, int32_t scales_layout,
                                        int32_t has_bias, int32_t has_residual);

/* Backend for calls from compiled code: W4A16_BACKEND=cpu|cuda in the environment, else CUDA when
 * available, else CPU. With CUDA, memrefs are host memory: weights are copied to the device once per
 * plan, x/bias/residual/out per call. Returns the previous backend. */
w4a16_backend w4a16_rt_set_backend(w4a16_backend backend);
w4a16_backend w4a16_rt_backend(void);
void w4a16_rt_release_plans(void);
/* Number of plans created so far (each weight is prepared once). */
int64_t w4a16_rt_plans_created(void);

#ifdef __cplusplus
}
#endif
#endif
