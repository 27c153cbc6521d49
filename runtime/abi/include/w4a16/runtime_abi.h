/* The entry points that code compiled by w4a16 calls (through MLIR's memref C interface), and the
 * functions a host program calls around compiled code (docs/contract.md §2, "Compiled code").
 *
 * Lowered code calls, for each w4a16.fused_matmul,
 *   int32_t _mlir_ciface_w4a16_rt_matmul_<w>(x, weight, scales, bias, residual, out,
 *                                             activation, weight_layout, scales_layout, has_bias, has_residual)
 * with <w> = i32 (packed (K/8, N) words), i8 or i4 (one code per byte, as LLVM stores i4).
 * Layout and activation codes are contract.h's enums (w4a16_weight_layout, w4a16_scales_layout,
 * w4a16_activation). Two more families, defined in w4a16_rt_abi.c and declared by the code that calls them:
 *   _mlir_ciface_w4a16_rt_matmul_zp_<w>_<z>(x, weight, scales, bias, residual, zero_points, g_idx, out,
 *       activation, weight_layout, scales_layout, has_bias, has_residual, has_zero_points, zero_point_layout,
 *       zero_point_offset, double zero_point, has_g_idx)
 * with zero points of element type <z> (i32, i8, i4, f16, bf16, f32) (zero_point_layout: a
 * w4a16_zero_point_layout, or-ed with W4A16_ZP_OFFSETS, W4A16_ZP_WRAPS, W4A16_ZP_SUBTRACTED and W4A16_ZP_SIGNED as
 * the op's attributes say) and
 * g_idx a 1-D i32 memref (act-order's group indices, issue #22; empty with has_g_idx 0), and
 *   _mlir_ciface_w4a16_rt_matmul_typed_<io>_<s>_<w>_<z>(the same arguments)
 * where x/bias/residual/out are <io> and the scales <s> (f16 or bf16, not both f16). bf16 memrefs have the
 * f16 descriptors' layout (16 raw bits per element). x, bias, residual and out are contiguous and row-major;
 * weight, scales and zero points may have any non-negative strides and offset (lowered code passes them as
 * strided memrefs: a column window of a larger buffer is read through its strides when it is prepared).
 *
 * Errors. Nothing here prints or aborts. A failing entry point records its status and message on the
 * calling thread's compiled-code status (the first failure since the status was cleared is kept: it is
 * the one that explains the rest), fills out with zeros and returns the status; the lowered code carries
 * on, and the outputs of that call of the compiled function are unspecified. For every public function f
 * of a compiled module, the compiled code also exports
 *   int32_t w4a16c_run_<f>(<the arguments of _mlir_ciface_<f>>)       clears the status, runs f, returns it
 *   int32_t w4a16c_prepare_<f>(<the arguments of _mlir_ciface_<f>>)   the same, creating the plans first
 * (declared in the header w4a16-compile --header writes; a T returned by value by _mlir_ciface_<f> is
 * written through a T * passed first instead). 0 is success; otherwise w4a16_rt_last_error() says why.
 * _mlir_ciface_<f> itself does not clear or report the status.
 *
 * Plans. A weight's plan (its repacked copy for the backend) is made only by a prepare entry point: each
 * fused call inside w4a16c_prepare_<f> (re)creates the plan of its weight from the weight's bytes at that
 * moment, then computes as usual; with M = 0 it only prepares. A plan is a snapshot: a later call uses it
 * whatever has happened to the weight buffer since, so after updating a weight in place, call prepare again
 * to get results for the new values. A call whose weight has no plan (keyed on the weight and scales
 * pointers and strides, K, N, the layouts, the code width and the backend) fails with W4A16_ERR_BAD_ARGUMENT ("weight
 * not prepared"); nothing is prepared behind the caller's back. Prepare and release must not run while
 * another thread runs compiled code that uses the same plans. */
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
W4A16_MEMREF(2, w4a16_memref2d_f32, float);
W4A16_MEMREF(1, w4a16_memref1d_i32, int32_t);


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

/* A w4a16.merged_matmul (sibling projections of one x, issue #21) is lowered to
 *   w4a16_rt_merged(count, glu), then its `count` members' calls to the entry points above, in order
 * (the same family for all, each with its own weight, scales, zero points, bias and out; a glu's gate and up pass
 * the same out). The members' calls only check and record their operands; the last one makes (in prepare) or
 * finds the plan of all the members' weights, their columns side by side (glu: interleaved, runtime.h), and runs
 * it once (w4a16_plan_run_outputs) with the members' biases joined (device memory: from the call's arena).
 * A failure of any member fails the merged call: every out is zero-filled and the last member reports it. */
int32_t _mlir_ciface_w4a16_rt_merged(int32_t count, int32_t glu);

/* Every symbol above and below that compiled code calls (the matmul entry points of all three families,
 * w4a16_rt_enter, w4a16_rt_leave), with its address: a JIT embedder registers them all with
 *   for (int i = 0; i < n; ++i) mlirExecutionEngineRegisterSymbol(jit, name_i, address_i);
 * instead of naming each. (w4a16.int8_prep's entry point lives in w4a16_int8prep: int8prep.h.) */
typedef struct w4a16_rt_symbol {
  const char *name;
  void *address;
} w4a16_rt_symbol;
const w4a16_rt_symbol *w4a16_rt_symbols(int *count);

/* --- the compiled-code status (per thread) --------------------------------------------------------- */

/* 0, or the w4a16_status of the first failure on this thread since the status was last cleared. */
int32_t w4a16_rt_status(void);
/* Its message ("" when the status is 0), valid until the status is next cleared on this thread. It names
 * the compiled function when a w4a16c_run_ / w4a16c_prepare_ entry point ran it. */
const char *w4a16_rt_last_error(void);
/* Clears the status: for callers of _mlir_ciface_<f> (e.g. from a JIT) who read w4a16_rt_status() after. */
void w4a16_rt_clear_status(void);
/* What w4a16c_run_<f> (prepare = 0) and w4a16c_prepare_<f> (prepare = 1) call around f: enter clears the
 * status, names the function for messages and, with prepare, lets the calls until leave (re)create plans;
 * leave returns the status. A JIT embedder without the generated entry points can do the same. */
void w4a16_rt_enter(const char *function, int32_t prepare);
int32_t w4a16_rt_leave(void);

/* --- backend and plans -------------------------------------------------------------------------------- */

/* Backend for calls from compiled code: W4A16_BACKEND=cpu|cuda in the environment, else CUDA when
 * available, else CPU. With CUDA, memrefs are host memory: weights are copied to the device when
 * prepared, x/bias/residual/out on every call. A plan serves only the backend it was prepared for.
 * Returns the previous backend. */
w4a16_backend w4a16_rt_set_backend(w4a16_backend backend);
w4a16_backend w4a16_rt_backend(void);
/* Frees every plan (calls then fail as not prepared until the next prepare). Call it at exit too. */
void w4a16_rt_release_plans(void);
/* Number of plans created so far (by prepare calls). */
int64_t w4a16_rt_plans_created(void);
/* Plans that prepare made on the CPU reference although the CUDA backend is selected, because the CUDA kernels
 * do not take the weight's shape (K not a multiple of 128): how many so far, and why the latest was ("" if
 * none; e.g. "K = 96 (the CUDA kernels take K a multiple of 128)").
 * Such a weight runs correctly, at CPU speed; a serving stack can log this once after preparing. */
int64_t w4a16_rt_cpu_fallbacks(void);
const char *w4a16_rt_cpu_fallback_reason(void);

/* --- GPU target --------------------------------------------------------------------------------------
 * Compiled code whose kernels run on the GPU (MLIR's gpu lowering; gpu_target.c). Its entry points call
 * w4a16_rt_enter_device instead of w4a16_rt_enter; everything it does is enqueued on the caller's stream,
 * nothing in a call synchronises with the host, so a call can be captured into a CUDA graph.
 * Without a CUDA build or a GPU these functions record W4A16_ERR_NO_DEVICE and return NULL.
 *
 * Memory. Intermediate buffers (w4a16_rt_device_alloc) come from an arena per stream, reset at the start of
 * every device call on that stream: a buffer, and a result the compiled function returns in device memory,
 * is valid until the next call on the same stream (copy it out, or order the next call after its use).
 * From the second call of the same shapes on, a call allocates nothing and gets the same addresses, so a
 * graph captured then stays valid for replay. A stream's arena grows with cudaMalloc when a call needs more
 * (during capture too), and is merged into one block at the next call outside capture, except on a stream
 * once used in a capture (a graph may hold its addresses): arenas live until w4a16_rt_release_device.
 * After a failure inside a device call (w4a16_rt_status() != 0), mgpuLaunchKernel launches nothing: the
 * call's outputs are unspecified anyway, and no kernel is ever given a pointer that failed to allocate. */

/* What w4a16c_run_<f> / w4a16c_prepare_<f> of GPU-target code call first: w4a16_rt_enter, then starts a
 * device call on stream (a cudaStream_t; NULL is the legacy default stream) and resets its arena. */
void w4a16_rt_enter_device(const char *function, int32_t prepare, void *stream);
/* The stream of this thread's device call (NULL outside one). */
void *w4a16_rt_stream(void);
/* Nonzero between w4a16_rt_enter_device and w4a16_rt_leave on this thread. */
int32_t w4a16_rt_device_call(void);

/* The CUDA module functions MLIR's gpu-to-LLVM lowering calls. */
/* Called from a global constructor: keeps the PTX pointer (static data) and touches no GPU; the module is
 * JIT-compiled (at optLevel, 0..4) into the current context at the first mgpuModuleGetFunction. */
void *mgpuModuleLoadJIT(void *ptx, int32_t optLevel);
/* The same for a cubin or fatbin image of size bytes. */
void *mgpuModuleLoad(void *data, int64_t size);
/* Called from a global destructor: unloads the module if loaded (errors ignored; skipped at process exit,
 * when the CUDA runtime may be torn down already) and frees the handle. */
void mgpuModuleUnload(void *module);
/* The kernel name in module (a CUfunction), loading the module on first use; cached. NULL on failure,
 * recorded (W4A16_ERR_NO_DEVICE, or W4A16_ERR_CUDA with the JIT's log). */
void *mgpuModuleGetFunction(void *module, const char *name);
/* cuLaunchKernel on stream (NULL: the device call's stream). Does nothing for a NULL function or after a
 * failure in this device call; a launch error is recorded as W4A16_ERR_CUDA. paramsCount is unused. */
void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY, int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smemBytes, void *stream, void **params, void **extra,
                      int64_t paramsCount);
/* Compiled code never makes, waits on or destroys a stream of its own (all its work is ordered on the
 * caller's stream, and waiting inside a call would break graph capture): Create returns w4a16_rt_stream(),
 * Synchronize and Destroy do nothing. */
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);

/* Device memory for the compiled code's intermediate buffers, from the current stream's arena (outside a
 * device call: the legacy stream's, not reset). Aligned to at least 256 bytes (alignment: a larger power of
 * two). NULL on failure, recorded (W4A16_ERR_OUT_OF_MEMORY, W4A16_ERR_NO_DEVICE, W4A16_ERR_CUDA). */
void *w4a16_rt_device_alloc(int64_t bytes);
void *w4a16_rt_device_aligned_alloc(int64_t alignment, int64_t bytes);
/* Does nothing: arena memory is reused from the next call on the stream. */
void w4a16_rt_device_free(void *ptr);
/* cudaMalloc calls the arenas have made, ever: constant in steady state. */
int64_t w4a16_rt_device_allocations(void);
/* A device copy of bytes bytes of the compiled code's constant data at host, made on first use and kept for
 * the process (until w4a16_rt_release_device). The host data must not change. NULL on failure, recorded. */
void *w4a16_rt_device_constant(const void *host, int64_t bytes);
/* One scalar of device memory read by host code (w4a16-gpu-host-code: a KV-cache offset taken from a 0-d position
 * tensor): the `bytes` (1, 2, 4 or 8) at device address `address`, zero-extended, once the work queued before it
 * on the device call's stream has run (a copy to the host and a wait on that stream). 0 on failure, recorded:
 * after an earlier failure in the call; W4A16_ERR_BAD_ARGUMENT while the stream is being captured into a CUDA
 * graph, which would freeze the value read at capture (pass such a value as a scalar argument instead). */
int64_t w4a16_rt_device_read(intptr_t address, int64_t bytes);
/* Frees every arena and constant copy; no compiled code may run meanwhile, and pointers they gave (and
 * graphs captured with them) are dead. Safe to call twice. Modules stay loaded. */
void w4a16_rt_release_device(void);
/* Every function of this section with its address, for a JIT embedder (as w4a16_rt_symbols). */
const w4a16_rt_symbol *w4a16_rt_device_symbols(int *count);

#ifdef __cplusplus
}
#endif
#endif
