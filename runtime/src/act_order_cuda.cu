// Act-order (GPTQ desc_act) on the CUDA backend: the plan's permutation on the device and the gather that puts
// x's columns in the weight's order before each call's GEMM (w4a16_plan_create_act_order; the permutation and
// the permuted weight are made on the host, act_order.c). Also the synchronous copies plan creation needs to
// read g_idx and qweight from the device and to upload the permuted weight.
//
// The gather buffer is the one piece of state every call of an act-order plan shares (whatever its kernel
// configuration): a call gathers into it and the GEMM reads it. So, like run_v3's split-K workspace, a call
// holds the gather's lock while it launches both kernels, and an eager call on another stream than the previous
// eager call first waits for an event recorded after that call's GEMM. A call being captured into a CUDA graph
// neither waits on nor records that event (a capture cannot wait on work recorded outside it): the graph is
// ordered by the stream it is launched on, and the caller keeps a replay away from the plan's other calls
// (runtime.h, "CUDA graphs"). Nothing on the call path allocates or synchronises unless an eager call has more
// tokens than the buffer was reserved for. Calls of up to 8 tokens on kernel v3's exact forms, where x's rows fit
// in the GEMM's shared memory (w4a16_cuda_plan_gathers), use none of this: their GEMM gathers x's columns itself
// (gemm_v3.cuh, GATHER; W4A16_GATHER_LAUNCH=1 turns that off for same-binary A/Bs).
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <stdio.h>

#include "common.cuh"
#include "cuda_host.cuh"
#include "internal.h"

using w4a16::add_pdl;
using w4a16::cuda_fail;
using w4a16::device_alloc;

struct w4a16_cuda_gather {
  int device = 0, K = 0;
  bool pdl = false;         // programmatic dependent launch (cuda_host.cuh's pdl_enabled, as for v3)
  bool rows_in_smem = false;  // x's row fits in shared memory: gather_row_kernel
  bool launch_only = false;   // W4A16_GATHER_LAUNCH=1: never the GEMM's own gather (same-binary A/B)
  // gather_row_kernel's CTAs per row: -1 = kSlices' slices_per_row(M) up to kSlicesUpToM rows, then kRows' one
  // (default); P > 0: kSlices with P at every M; 0: kRows at every M (W4A16_GATHER_SLICES, for same-binary A/Bs)
  int slices = -1;
  // The first M whose gather stages x's row in shared memory (kRowsInSmemFromM; W4A16_GATHER_ROWS_FROM, for A/Bs)
  int rows_from = 0;
  int32_t *perm = nullptr;  // K values: gathered column i is x's column perm[i]
  // The gather buffer (reserved_m x K 16-bit values), guarded by mu; see the header.
  mutable std::mutex mu;
  mutable uint16_t *buf = nullptr;
  mutable int64_t reserved_m = 0;
  cudaEvent_t done = nullptr;  // recorded after each eager call's GEMM (cross-stream order)
  mutable cudaStream_t last_stream = nullptr;
  mutable bool ran = false;
};

namespace {

using w4a16::gather8;

// xg[m, i] = x[m, perm[i]] for vectors of 8 consecutive i (K % 8 == 0: a vector stays in one row), one vector per
// thread: perm is read and xg written 16 bytes per thread, consecutive threads on consecutive vectors
// (coalesced); x is read one 16-bit value at a time, scattered over one row (at most 2K bytes, which the caches
// hold). Only bits move, so one kernel serves f16 and bf16.
// Programmatic dependent launch (sm_90): the gather is launched while the previous kernel on the stream (the
// previous call's GEMM, which reads the buffer, or whatever wrote x) still runs. It lets the GEMM after it launch
// at once, so that the GEMM's CTAs prefetch their weights as early as a plain call's would, then reads perm (plan
// data, never written after creation) and only then waits for the previous kernel before it touches x or the
// buffer. The GEMM waits for the gather (griddepcontrol.wait: its completion and writes) before it reads x; the
// gather completes only after the previous kernel has.
__global__ void gather_kernel(const uint16_t *__restrict__ x, const int32_t *__restrict__ perm,
                              uint16_t *__restrict__ xg, int K, size_t vectors) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  const size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const size_t first = v * 8, m = first / (size_t)K;
  const int i = (int)(first % (size_t)K);
  int4 a = {}, b = {};
  if (v < vectors) a = *reinterpret_cast<const int4 *>(perm + i), b = *reinterpret_cast<const int4 *>(perm + i + 4);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  if (v >= vectors) return;
  *reinterpret_cast<uint4 *>(xg + first) = gather8(x + m * (size_t)K, a, b);
}

// The same gather with x's row staged in shared memory: the row is read once per CTA, coalesced (cp.async, every
// load in flight at once), and the scattered reads hit shared memory instead of one 32-byte L2 sector per value
// (gather_kernel's reads cost M * K sectors: +26..+50 % per call at M = 32 and K >= 11008 on the H200,
// bench/RESULTS.md). Grid M x P (M on x: y stops at 65535 rows): CTA (m, p) writes the p-th slice of row m's
// vectors. Each thread reads its first AHEAD vectors of perm (plan data) before the wait, so that the only round
// trip between the previous kernel's end and the stores is x's row: with a second vector of perm read after the
// wait, calls at K = 11008 and 14336 (two vectors per thread) lost 22-26 % to the plain call against 9-12 % at
// K <= 8192 (one CTA of 1024 threads per row).
// Two shapes of it (gather_run picks):
// * kSlices: kSliceCtas / M CTAs of 128 threads per row (62 registers), up to kSlicesUpToM rows. Small enough to sit
//   on an SM beside a running GEMM CTA, so they are resident, perm read, as soon as the previous GEMM lets them
//   launch, and keep none of the next GEMM's CTAs off their SMs. Against one CTA of 1024 threads per row (a whole
//   register file: those waited for SMs to empty), H200, graph, L2-cold (bench/RESULTS.md session 28): M = 16
//   -0.5..-8.7 points of act-order's overhead on 7 of 8 shapes (14336x4096: +16.7 -> +8.0 % over the plain call);
//   M = 32 within 2.3 points either way; M = 64 (2 per row) 6 points worse on 3 shapes.
// * kRows: one CTA of 1024 threads per row, above kSlicesUpToM rows.
template <int THREADS, int AHEAD, int MIN_CTAS>
__global__ void __launch_bounds__(THREADS, MIN_CTAS) gather_row_kernel(const uint16_t *__restrict__ x,
                                                                      const int32_t *__restrict__ perm,
                                                                      uint16_t *__restrict__ xg, int K) {
  extern __shared__ uint4 row_smem[];  // x's row: K 16-bit values
  const uint16_t *srow = reinterpret_cast<const uint16_t *>(row_smem);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  const int vectors = K / 8, tid = threadIdx.x;
  const int v0 = (int)((long long)blockIdx.y * vectors / gridDim.y);
  const int v1 = (int)((long long)(blockIdx.y + 1) * vectors / gridDim.y);
  const int4 *perm4 = reinterpret_cast<const int4 *>(perm);
  int4 a[AHEAD], b[AHEAD];
#pragma unroll
  for (int j = 0; j < AHEAD; ++j) {
    const int v = v0 + tid + j * THREADS;
    a[j] = b[j] = int4{};
    if (v < v1) a[j] = perm4[2 * v], b[j] = perm4[2 * v + 1];
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  const size_t m = blockIdx.x;
  const uint4 *src = reinterpret_cast<const uint4 *>(x + m * (size_t)K);
  const uint32_t row_base = (uint32_t)__cvta_generic_to_shared(row_smem);
  for (int v = tid; v < vectors; v += THREADS)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(row_base + 16u * (uint32_t)v), "l"(src + v)
                 : "memory");
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  uint4 *dst = reinterpret_cast<uint4 *>(xg + m * (size_t)K);
#pragma unroll
  for (int j = 0; j < AHEAD; ++j) {
    const int v = v0 + tid + j * THREADS;
    if (v < v1) dst[v] = gather8(srow, a[j], b[j]);
  }
  for (int v = v0 + tid + AHEAD * THREADS; v < v1; v += THREADS) dst[v] = gather8(srow, perm4[2 * v], perm4[2 * v + 1]);
}
// From 2 rows the gather stages x's row in shared memory: one vector per thread from global memory lost at 2 to 7
// rows (H100, graph, L2-cold, act-order over plain at M = 4: 4096x4096 +38 -> +20 %, 11008x4096 +30 -> +18 %,
// 14336x4096 +28 -> +18 %; M = 2 -2..-7 points; bench/RESULTS.md session 38). At 1 row it is a wash.
constexpr int64_t kRowsInSmemFromM = 2, kSliceCtas = 128, kSlicesUpToM = 32;
// kSlices CTAs per row: kSliceCtas / M, but 16 at 14 to 16 rows (224-256 CTAs). H200, graph, L2-cold, act-order over
// the plain call (bench/RESULTS.md session 29, runs 4-5): 16 per row took 8 shapes at M = 14 and 16 to +8.3 % at most,
// from up to +11.3 % (11008x4096), while 4096x4096 rose from +1.0 to +4.1 % at M = 16. At 12 and 13 rows 16 per row
// lost 4 points on 11008x4096 (+8.7 -> +12.9 %, +8.8 -> +12.5 %), so fewer rows keep kSliceCtas / M.
static int64_t slices_per_row(int64_t M) { return M >= 14 && M <= 16 ? 16 : (kSliceCtas + M - 1) / M; }
constexpr int kSliceThreads = 128, kRowThreads = 1024;
// AHEAD: 4 vectors of 128 threads cover 512 of a slice; at 1024 threads 2 (K <= 16384 read all of perm before the
// wait; 4 spilled at the 64-register bound).
const auto kSlices = gather_row_kernel<kSliceThreads, 4, 8>;
const auto kRows = gather_row_kernel<kRowThreads, 2, 1>;

// Sizes the buffer for max_m tokens (call with g->mu held; no call of the plan may be in flight: cudaFree
// synchronises the device).
w4a16_status reserve_locked(const w4a16_cuda_gather *g, int64_t max_m) {
  if (max_m == g->reserved_m) return W4A16_OK;
  if (g->buf) {
    const cudaError_t e = cudaFree(g->buf);
    g->buf = nullptr, g->reserved_m = 0;
    if (e != cudaSuccess) return cuda_fail(e, "plan_reserve(cuda): cudaFree");
  }
  w4a16_status st = device_alloc((void **)&g->buf, (size_t)max_m * (size_t)g->K * 2, "plan_reserve(cuda)",
                                 "act-order gather buffer");
  if (st == W4A16_OK) g->reserved_m = max_m;
  return st;
}

}  // namespace

extern "C" w4a16_status w4a16_cuda_to_host(void *host, const void *device, size_t bytes, const char *what) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    return w4a16_fail(W4A16_ERR_NO_DEVICE, "plan_create(cuda): no usable CUDA device");
  }
  const cudaError_t e = cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) return W4A16_OK;
  cudaGetLastError();
  return w4a16_fail(W4A16_ERR_CUDA, "plan_create(cuda): reading %s (%zu bytes) from the device: %s (is it a device "
                                    "pointer?)", what, bytes, cudaGetErrorString(e));
}

extern "C" w4a16_status w4a16_cuda_to_device(void **device, const void *host, size_t bytes, const char *what) {
  w4a16_status st = device_alloc(device, bytes, "plan_create(cuda)", what);
  if (st != W4A16_OK) return st;
  // A cudaMemcpy from pageable memory may return before its last bytes reach the device, and a caller's stream
  // created with cudaStreamNonBlocking is not ordered after the legacy stream that carries the copy: without this
  // wait, a plan's first call on such a stream could read a half-written act-order permutation.
  cudaError_t e = cudaMemcpy(*device, host, bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamLegacy);
  if (e == cudaSuccess) return W4A16_OK;
  cudaFree(*device);
  *device = nullptr;
  return cuda_fail(e, "plan_create(cuda): uploading to the device");
}

extern "C" void w4a16_cuda_free(void *device) {
  if (device) cudaFree(device);
}

extern "C" w4a16_status w4a16_cuda_gather_create(const int32_t *perm, int64_t K, w4a16_cuda_gather **out) {
  *out = nullptr;
  w4a16_cuda_gather *g = new (std::nothrow) w4a16_cuda_gather();
  if (!g) return w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_create(cuda): host allocation failed");
  g->K = (int)K;
  cudaError_t e;
  w4a16_status st = W4A16_OK;
  if ((e = cudaGetDevice(&g->device)) != cudaSuccess ||
      (e = cudaEventCreateWithFlags(&g->done, cudaEventDisableTiming)) != cudaSuccess)
    st = cuda_fail(e, "plan_create(cuda): act-order gather");
  int major = 0;
  if (st == W4A16_OK && (e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, g->device)) != cudaSuccess)
    st = cuda_fail(e, "plan_create(cuda): act-order gather");
  g->pdl = w4a16::pdl_enabled(major);
  g->launch_only = w4a16::env_int("W4A16_GATHER_LAUNCH", 0) == 1;
  g->slices = w4a16::env_int("W4A16_GATHER_SLICES", -1);
  g->rows_from = std::max(1, w4a16::env_int("W4A16_GATHER_ROWS_FROM", (int)kRowsInSmemFromM));
  int smem_optin = 0;
  if (st == W4A16_OK && cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, g->device) == cudaSuccess &&
      (size_t)K * 2 <= (size_t)smem_optin)
    g->rows_in_smem = cudaFuncSetAttribute(kRows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)K * 2) == cudaSuccess &&
                      cudaFuncSetAttribute(kSlices, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)K * 2) == cudaSuccess;
  cudaGetLastError();  // a refused attribute only means the other kernel
  if (st == W4A16_OK) st = w4a16_cuda_to_device((void **)&g->perm, perm, (size_t)K * 4, "the act-order permutation");
  if (st == W4A16_OK) {
    std::lock_guard<std::mutex> lock(g->mu);
    st = reserve_locked(g, W4A16_DEFAULT_MAX_M);
  }
  if (st != W4A16_OK) {
    w4a16_cuda_gather_destroy(g);
    return st;
  }
  *out = g;
  return W4A16_OK;
}

extern "C" void w4a16_cuda_gather_destroy(w4a16_cuda_gather *g) {
  if (!g) return;
  // cudaFree synchronises the device, so no run still using the buffer is cut short.
  if (g->buf) cudaFree(g->buf);
  if (g->perm) cudaFree(g->perm);
  if (g->done) cudaEventDestroy(g->done);
  delete g;
}

extern "C" w4a16_status w4a16_cuda_gather_reserve(const w4a16_cuda_gather *g, int64_t max_m) {
  std::lock_guard<std::mutex> lock(g->mu);
  return reserve_locked(g, max_m);
}

extern "C" uint64_t w4a16_cuda_gather_bytes(const w4a16_cuda_gather *g) {
  std::lock_guard<std::mutex> lock(g->mu);
  return (uint64_t)g->K * 4 + (uint64_t)g->reserved_m * (uint64_t)g->K * 2;
}

extern "C" int w4a16_cuda_gather_in_gemm(const w4a16_cuda_gather *g, const w4a16_cuda_plan *p, int64_t M) {
  return g->launch_only ? 0 : w4a16_cuda_plan_gathers(p, M);
}

extern "C" w4a16_status w4a16_cuda_gather_run(const w4a16_cuda_gather *g, const w4a16_cuda_plan *p,
                                              const uint16_t *x, int64_t M, const uint16_t *bias,
                                              const uint16_t *residual, w4a16_activation act,
                                              const w4a16_outputs *outs, void *stream) {
  // Every check the GEMM makes, before the gather is launched: a call that fails leaves nothing running.
  w4a16_status st = w4a16_cuda_check_call(p, x, bias, residual, outs);
  if (st != W4A16_OK) return st;
  // A kernel that gathers x itself touches none of the state below (no buffer, no gather launch).
  if (w4a16_cuda_gather_in_gemm(g, p, M))
    return w4a16_cuda_plan_launch_gathering(p, x, g->perm, M, bias, residual, act, outs, stream);
  const cudaStream_t s = (cudaStream_t)stream;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(s, &capture);
  if (e != cudaSuccess) return cuda_fail(e, "plan_run(cuda): cudaStreamIsCapturing");
  const bool capturing = capture != cudaStreamCaptureStatusNone;
  std::lock_guard<std::mutex> lock(g->mu);
  if (M > g->reserved_m) {
    if (capturing)
      return w4a16_fail(W4A16_ERR_BAD_ARGUMENT,
                        "plan_run(cuda): M = %lld needs %llu bytes of act-order gather buffer; the plan reserved it "
                        "for M <= %lld: call w4a16_plan_reserve before capturing",
                        (long long)M, (unsigned long long)(M * (uint64_t)g->K * 2), (long long)g->reserved_m);
    if ((st = reserve_locked(g, M)) != W4A16_OK) return st;
  }
  if (!capturing && g->ran && s != g->last_stream && (e = cudaStreamWaitEvent(s, g->done, 0)) != cudaSuccess)
    return cuda_fail(e, "plan_run(cuda): ordering after the plan's previous call");
  const size_t vectors = (size_t)M * (size_t)g->K / 8;
  cudaLaunchConfig_t cfg = {};
  cfg.stream = s;
  cudaLaunchAttribute attrs[1];
  if (g->pdl) add_pdl(cfg, attrs);
  // One CTA per row pays for its row's load in series: at a few rows the one-vector-per-thread gather, spread over
  // K / 2048 CTAs, is ahead (H200, bench/RESULTS.md session 12: +16 % instead of +24 % at M = 1, K = 14336).
  if (g->rows_in_smem && M >= g->rows_from) {  // x's row in shared memory: sliced up to kSlicesUpToM rows
    const bool sliced = g->slices > 0 || (g->slices < 0 && M <= kSlicesUpToM);
    const int64_t per_row = g->slices > 0 ? std::min(g->slices, 64) : sliced ? slices_per_row(M) : 1;
    cfg.gridDim = dim3((unsigned)M, (unsigned)per_row), cfg.blockDim = dim3(sliced ? kSliceThreads : kRowThreads);
    cfg.dynamicSmemBytes = (size_t)g->K * 2;
    e = cudaLaunchKernelEx(&cfg, sliced ? kSlices : kRows, x, (const int32_t *)g->perm, g->buf, g->K);
  } else {  // one vector per thread: perm is read before the wait
    cfg.gridDim = dim3((unsigned)((vectors + 255) / 256)), cfg.blockDim = dim3(256);
    e = cudaLaunchKernelEx(&cfg, gather_kernel, x, (const int32_t *)g->perm, g->buf, g->K, vectors);
  }
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) return cuda_fail(e, "plan_run(cuda): act-order gather launch");
  st = w4a16_cuda_plan_launch(p, g->buf, M, bias, residual, act, outs, stream);  // checked above
  // Recorded even when the GEMM failed to launch: the gather was launched, and the next call must follow it.
  if (!capturing) {
    g->last_stream = s;
    g->ran = true;
    if ((e = cudaEventRecord(g->done, s)) != cudaSuccess && st == W4A16_OK)
      st = cuda_fail(e, "plan_run(cuda): cudaEventRecord");
  }
  return st;
}
