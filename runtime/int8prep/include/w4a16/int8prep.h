/* w4a16 int8prep: the LLM.int8 outlier-correction operands (issue #6), as one CUDA launch or the plain-C
 * reference, bit for bit the eager PyTorch chain of bitsandbytes' mixed decomposition:
 *
 *   subA = A[:, cols]                                                   A (M, K) f16 -> subA (M, L) f16
 *   subB = (CB[:, cols].float() * SCB[:, None] * 7.874015718698502e-3).half().t()
 *                                                                       CB (N, K) i8, SCB (N) f32 -> subB (L, N) f16
 *
 * i.e. subB[l, n] = f16_rn(f32(f32(f32(CB[n, cols[l]]) * SCB[n]) * 0x3C010204)): two f32 products rounded
 * separately (no fused multiply-add) and one round-to-nearest-even to f16. cols (L) holds int64 indices in
 * [0, K). f16 values are raw IEEE binary16 bits (uint16_t). L = 0 is a no-op: nothing is launched, read,
 * written or allocated.
 *
 * Code compiled by w4a16 (w4a16.int8_prep lowered by w4a16-lower-int8-prep) calls
 * _mlir_ciface_w4a16_rt_int8_prep with host memrefs. */
#ifndef W4A16_INT8PREP_H
#define W4A16_INT8PREP_H

#include "w4a16/runtime_abi.h" /* w4a16_status, w4a16_backend, W4A16_MEMREF and the f16/i8 memrefs (header only) */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define W4A16_INT8PREP_SCALE_BITS 0x3C010204u /* 1/127 in f32 */

/* CPU reference (plain C17, no contraction). Host pointers; lda and ldcb are the row strides of A and CB
 * in elements (K when contiguous); subA (M, L) and subB (L, N) are written contiguously. Returns
 * W4A16_ERR_BAD_ARGUMENT if a column index is outside [0, K) (nothing is written then). */
w4a16_status w4a16_int8prep_cpu(const uint16_t *A, int64_t lda, const int8_t *CB, int64_t ldcb, const float *SCB,
                                const int64_t *cols, int64_t M, int64_t N, int64_t K, int64_t L, uint16_t *subA,
                                uint16_t *subB);

/* CUDA: device pointers, all contiguous; one kernel launch on `stream` (a cudaStream_t, NULL = the default
 * stream), asynchronous. Column indices are not validated (they live in device memory): each must be in
 * [0, K). L = 0 (or M = N = 0) returns W4A16_OK without launching. W4A16_ERR_NO_DEVICE when built without
 * nvcc. Safe to capture in a CUDA graph after one call outside capture. */
w4a16_status w4a16_int8prep_cuda(const uint16_t *A, const int8_t *CB, const float *SCB, const int64_t *cols,
                                 int64_t M, int64_t N, int64_t K, int64_t L, uint16_t *subA, uint16_t *subB,
                                 void *stream);
int w4a16_int8prep_cuda_available(void);
/* Kernel launches made by this library so far (the L = 0 tests check that none was made). */
int64_t w4a16_int8prep_launches(void);

/* --- the entry point of compiled code (memref C interface) ---------------------------------------------- */

W4A16_MEMREF(1, w4a16_memref1d_f32, float);
W4A16_MEMREF(1, w4a16_memref1d_i64, int64_t);

/* subA and subB are buffers of the result shapes allocated by the caller (any strides). Returns 0, or a
 * w4a16_status after recording it and its message on the compiled-code status (w4a16_rt_status,
 * w4a16_rt_last_error in w4a16/runtime_abi.h) and filling subA and subB with zeros. Backend: w4a16_int8prep_set_backend, else
 * W4A16_BACKEND=cpu|cuda in the environment, else CUDA when available, else CPU. With CUDA the host buffers
 * are staged through device memory on every call (compiled code holds host memrefs). */
int32_t _mlir_ciface_w4a16_rt_int8_prep(w4a16_memref2d_f16 *A, w4a16_memref2d_i8 *CB, w4a16_memref1d_f32 *SCB,
                                        w4a16_memref1d_i64 *cols, w4a16_memref2d_f16 *subA,
                                        w4a16_memref2d_f16 *subB);
w4a16_backend w4a16_int8prep_set_backend(w4a16_backend backend); /* returns the previous one */
w4a16_backend w4a16_int8prep_backend(void);
/* Calls of the entry point that reached a backend (L > 0): the L = 0 tests check that none did. */
int64_t w4a16_int8prep_entry_calls(void);

#ifdef __cplusplus
}
#endif
#endif
