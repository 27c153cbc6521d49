/* w4a16 runtime: out = act(x @ W + bias) + residual, W dequantised on the fly from int4 codes.
 *
 * Weight format (docs/contract.md §1): qweight is (K/8, N) int32, word [k/8, n] holds codes k = 8*(k/8) .. +7,
 * least-significant nibble first; W[k, n] = (code - 8) * scales[k / 128, n]. f16 values are passed
 * as raw IEEE binary16 bits (uint16_t) so that this header needs no compiler f16 support.
 *
 * Usage: prepare a weight once into a plan (repack + kernel choice happen here), run it many times,
 * destroy it. A plan may be run concurrently from several threads on different streams, and its calls
 * may be captured into CUDA graphs (see w4a16_plan_reserve below). */
#ifndef W4A16_RUNTIME_H
#define W4A16_RUNTIME_H

#include "w4a16/contract.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum w4a16_status {
  W4A16_OK = 0,
  W4A16_ERR_NULL_POINTER,      /* a required pointer is NULL */
  W4A16_ERR_BAD_SHAPE,         /* M, K or N out of range (M = 0, K % 128 != 0, N % 8 != 0, ...) */
  W4A16_ERR_MISALIGNED,        /* a pointer lacks the alignment the backend needs */
  W4A16_ERR_BAD_ARGUMENT,      /* unknown activation, backend or group size */
  W4A16_ERR_OUT_OF_MEMORY,
  W4A16_ERR_NO_DEVICE,         /* CUDA backend asked for but not built in, or no GPU */
  W4A16_ERR_CUDA               /* a CUDA call failed; the message names it */
} w4a16_status;

typedef enum w4a16_backend {
  W4A16_BACKEND_CPU = 0,  /* all pointers are host pointers */
  W4A16_BACKEND_CUDA = 1  /* all pointers are device pointers; runs on the given cudaStream_t */
} w4a16_backend;

typedef struct w4a16_plan w4a16_plan;

/* Prepare a weight: validates the shape, repacks qweight/scales into the backend's layout (one copy
 * each at most) and picks a kernel configuration. K, N and group_size must pass w4a16_check_shape
 * (contract.h: group_size 32, 64 or 128, K % group_size == 0, N % 8 == 0); the CUDA kernels also need
 * K % 128 == 0 (W4A16_ERR_BAD_ARGUMENT otherwise). The caller's buffers are only read, and may be freed
 * after this returns. CUDA: the plan reads them on the legacy default stream, which waits for blocking streams
 * only, so data written on a non-blocking stream must be synchronised first; when this returns, the plan's
 * device data is complete, and its first call may run on any stream. */
w4a16_status w4a16_plan_create(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales,
                               int64_t K, int64_t N, int64_t group_size, w4a16_plan **plan);

/* out[M, N] = act(x[M, K] @ W + bias[N]) + residual[M, N]. bias and residual may be NULL.
 * stream is a cudaStream_t for the CUDA backend (NULL = default stream) and ignored on the CPU.
 * Never mutates its inputs; the result is bitwise reproducible. */
w4a16_status w4a16_plan_run(const w4a16_plan *plan, const uint16_t *x, int64_t M, const uint16_t *bias,
                            const uint16_t *residual, w4a16_activation activation, uint16_t *out,
                            void *stream);

void w4a16_plan_destroy(w4a16_plan *plan);

/* w4a16_plan_create with per-group zero points: W[k, n] = (code - zero_points[k / group_size, n]) * scale,
 * zero_points (K/group_size, N) f16 (integer zero points 0..15 are exact in f16; NULL: the constant 8 of
 * w4a16_plan_create). Both backends take any zero points. With group_size 128 and integer zero points
 * 0..15 (AWQ, GPTQ with sym=False) a CUDA plan keeps one byte per group and column besides the repacked
 * weight and scales (none when every zero point is 8: that is the symmetric plan, bit for bit) and
 * computes exactly; any other zero points (fractional, 16, ...) or group size make it affine: per group
 * and column zi (z rounded into 0..15), s and o = -(z - zi) * s in the io type, W = (code - zi) * s + o
 * rounded once per weight in the kernel. */
w4a16_status w4a16_plan_create_zp(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales,
                                  const uint16_t *zero_points, int64_t K, int64_t N, int64_t group_size,
                                  w4a16_plan **plan);

/* The offset form (GGUF Q4_1, torchao's float zero point): W[k, n] = (code - zero_points[g, n]) * scale +
 * offsets[g, n], offsets (K/group_size, N) f16 (zero_points may be NULL: 8; pass zeros for d * q + m).
 * CUDA plans with offsets are affine (o = m - (z - zi) * s, see w4a16_plan_create_zp). */
w4a16_status w4a16_plan_create_offsets(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales,
                                       const uint16_t *zero_points, const uint16_t *offsets, int64_t K, int64_t N,
                                       int64_t group_size, w4a16_plan **plan);

/* Every form, with element types (issue #18): io_type is that of x, bias, residual and out in every
 * w4a16_plan_run of the plan, scales_type that of scales (f16 or bf16 independently: GPTQ keeps f16 scales
 * for bf16 models); zero points and offsets stay f16. Both backends take every combination (the CUDA
 * kernels multiply in the io type and accumulate in f32). */
w4a16_status w4a16_plan_create_typed(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales,
                                     const uint16_t *zero_points, const uint16_t *offsets, int64_t K, int64_t N,
                                     int64_t group_size, w4a16_element_type io_type,
                                     w4a16_element_type scales_type, w4a16_plan **plan);

/* Act-order GPTQ (desc_act): row k of the weight belongs to group g_idx[k] (K int32 values; NULL: k / group_size,
 * the plan of w4a16_plan_create_typed), W[k, n] = (code(k, n) - z[g_idx[k], n]) * scales[g_idx[k], n] (+ offsets).
 * Every group 0 .. K/group_size - 1 must hold exactly group_size rows, else W4A16_ERR_BAD_ARGUMENT naming the first
 * group that does not (g_idx is only known at run time: never an abort). The plan sorts K by g_idx (stable),
 * repacks the weight rows in that order and keeps the permutation (K int32); each run gathers x's columns
 * into that order first (CUDA: one small gather launch into a plan workspace of max_m * K 16-bit values, sized
 * like the split-K workspace by w4a16_plan_reserve; at M <= 8, where x's rows fit in the GEMM's shared memory,
 * the GEMM gathers them itself). g_idx is a host pointer on the CPU backend, a device
 * pointer on CUDA, like the other buffers. */
w4a16_status w4a16_plan_create_act_order(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales,
                                         const uint16_t *zero_points, const uint16_t *offsets, const int32_t *g_idx,
                                         int64_t K, int64_t N, int64_t group_size, w4a16_element_type io_type,
                                         w4a16_element_type scales_type, w4a16_plan **plan);

/* Human-readable message for the last failure on the calling thread ("" if none). */
const char *w4a16_last_error(void);
const char *w4a16_status_name(w4a16_status status);

/* 1 if this build has the CUDA backend and a usable GPU is present. */
int w4a16_cuda_available(void);

/* --- Additions (issue #3); the functions above are the fixed interface. --- */

/* Bytes of memory the plan holds on its backend (repacked weight + scales copy + any padding, and
 * the CUDA backend's stream-K workspace as grown by the runs so far; an act-order plan's permutation and,
 * on CUDA, its gather buffer). Returns 0 for a NULL plan. */
uint64_t w4a16_plan_resident_bytes(const w4a16_plan *plan);

/* Device workspace (split-K partial sums) a w4a16_plan_run call with this M uses, within docs/contract.md
 * §2's allowance for that M; the plan holds the largest such need up to its reserved M (w4a16_plan_reserve).
 * 0 when the configuration for M reduces on chip (see docs/kernel.md) and on the CPU backend. */
uint64_t w4a16_plan_workspace_bytes(const w4a16_plan *plan, int64_t M);

/* --- CUDA graphs (issue #16) -------------------------------------------------------------------------
 * Every call can be captured into a CUDA graph (global, thread-local or relaxed capture mode) and the
 * graph replayed any number of times with results bitwise equal to eager calls: a call passes no host
 * state to the kernels, and the call path neither allocates, frees nor synchronises -- provided the
 * plan's workspace covers the call's M. plan_create reserves it for M <= W4A16_DEFAULT_MAX_M; call
 * w4a16_plan_reserve for larger batches before capturing. An eager call with a larger M grows the
 * workspace itself (one allocation); a captured call with a larger M returns W4A16_ERR_BAD_ARGUMENT.
 * Calls of one plan on several streams: eager calls are ordered on the device by the plan (an event);
 * a replayed graph is ordered only by the stream it runs on, so do not replay a graph that holds a
 * plan's calls while other calls of that plan run on another stream. An act-order plan's gather buffer
 * (w4a16_plan_create_act_order) follows the same rules -- reserved with the workspace, grown by an eager call,
 * a captured call beyond it refused -- and is shared by every call of the plan whatever its configuration,
 * so for such a plan the last rule holds at every M. */
#define W4A16_DEFAULT_MAX_M 64

/* Sizes the plan's workspace (and an act-order plan's gather buffer) for every call with M <= max_m
 * (1 <= max_m <= W4A16_MAX_M), growing or shrinking it; the docs/contract.md §2 allowance holds for max_m
 * (the gather buffer, max_m * K * 2 bytes, comes on top). Not while a call of the plan is in
 * flight or being captured. No-op on the CPU backend. */
w4a16_status w4a16_plan_reserve(w4a16_plan *plan, int64_t max_m);

/* One-line description of the kernel configuration chosen for M (for logs and benchmarks).
 * Writes at most len bytes including the terminating NUL; returns buf. */
const char *w4a16_plan_describe(const w4a16_plan *plan, int64_t M, char *buf, int len);

/* --- Several outputs from one plan (issue #21) ---------------------------------------------------------
 * A plan made from sibling weights that share x, their columns side by side (q | k | v), runs once and writes
 * each sibling's columns to its own tensor; or a GLU plan (gate and up interleaved, see below) writes
 * act(gate) * up.
 *
 * y[m, n] below is the f32 accumulator of x @ W for plan column n, as w4a16_plan_run computes it, and b[n] =
 * bias[n] (N values of the io type; NULL: 0).
 *  - Without glu: out_i[m, c] = round(act(y[m, n] + b[n])) with n = cols[0] + .. + cols[i-1] + c: bit for bit what
 *    w4a16_plan_run would write to column n of an (M, N) output (same kernels, same reduction order); only the
 *    store address differs.
 *  - With glu: the plan's columns come in groups of 8: columns 8j..8j+3 are the gate's columns 4j..4j+3, columns
 *    8j+4..8j+7 up's columns 4j..4j+3 (interleave the packed qweight's, scales' and zero points' columns so when
 *    making the plan). out[m, 4j+e] = round(act(y[m, 8j+e] + b[8j+e]) * (y[m, 8j+4+e] + b[8j+4+e])), e = 0..3,
 *    in f32 with one rounding to the io type; act is the gate's (silu, gelu_tanh, or none: a bilinear GLU).
 *    out[0] is (M, N/2).
 * No residual. Every plan kind (zero points, offsets, bf16, act-order) on both backends; the rules of
 * w4a16_plan_run (workspace reserve, CUDA graphs, concurrency) hold as they are. Outputs must not overlap x, bias
 * or each other; on CUDA every out pointer is 16-byte aligned (8-byte with glu). Bad arguments return an error
 * status (W4A16_ERR_NULL_POINTER, _BAD_SHAPE, _MISALIGNED, _BAD_ARGUMENT) with a message, never abort. */
#define W4A16_MAX_OUTPUTS 4
typedef struct w4a16_outputs {
  int32_t count;                       /* 1 .. W4A16_MAX_OUTPUTS */
  int32_t glu;                         /* 0, or 1: the plan's columns are GLU pairs (count must be 1) */
  uint16_t *out[W4A16_MAX_OUTPUTS];    /* output i: (M, cols[i]) row-major, io type */
  int64_t cols[W4A16_MAX_OUTPUTS];     /* without glu: output i holds plan columns [cols[0]+..+cols[i-1], +cols[i]),
                                          each a multiple of 8, summing to N; with glu: cols[0] = N / 2 */
} w4a16_outputs;
w4a16_status w4a16_plan_run_outputs(const w4a16_plan *plan, const uint16_t *x, int64_t M, const uint16_t *bias,
                                    w4a16_activation activation, const w4a16_outputs *outputs, void *stream);

#ifdef __cplusplus
}
#endif
#endif
