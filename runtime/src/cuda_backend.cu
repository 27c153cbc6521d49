// CUDA backend: plan creation (one repack of the weight, one padded copy of the scales, kernel
// configuration), launch, and destruction. The plan is immutable after creation and runs allocate
// nothing, so any number of threads may run one plan concurrently on their own streams.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#include "gemm_kernel.cuh"
#include "internal.h"

using w4a16::GemmArgs;

struct w4a16_cuda_plan {
  int device;
  int K, N, Npad;       // Npad = N rounded up to the 16-column mma tile
  int warps;            // 4 or 8 warps per CTA: 128 or 256 output columns
  int splits;           // CTAs per cluster along K (1 = no split-K)
  int sms, cc_major;
  uint4 *wq;            // repacked weight, Npad*K/2 bytes
  __half *scales;       // [K/128][Npad]
  uint64_t bytes;
};

namespace {

using KernelFn = void (*)(GemmArgs);
struct KernelEntry {
  KernelFn fn;
  int smem;
  int threads;
};

// Token tiles 1..8 (M rounded up to 8, at most 64 per CTA) x 4 or 8 warps. Deeper pipelines where
// the staged x slice is small; two CTAs of ~100 KB fit one SM in every configuration.
template <int NT, int WARPS> constexpr KernelEntry entry() {
  constexpr int S = NT <= 4 ? 4 : 3;
  return {w4a16::w4a16_gemm_kernel<NT, WARPS, S>, w4a16::Config<NT, WARPS, S>::kSmemBytes, WARPS * 32};
}
const KernelEntry kKernels[2][8] = {
    {entry<1, 4>(), entry<2, 4>(), entry<3, 4>(), entry<4, 4>(), entry<5, 4>(), entry<6, 4>(), entry<7, 4>(),
     entry<8, 4>()},
    {entry<1, 8>(), entry<2, 8>(), entry<3, 8>(), entry<4, 8>(), entry<5, 8>(), entry<6, 8>(), entry<7, 8>(),
     entry<8, 8>()},
};

const KernelEntry &kernel_for(int warps, int64_t M) {
  const int nt = M >= 64 ? 8 : (int)((M + 7) / 8);
  return kKernels[warps == 8 ? 1 : 0][nt - 1];
}

// Word w of the repacked weight = ((tile * K/64 + chunk) * 32 + lane) * 4 + kstep holds the 8 codes
// lane (g = lane/4, t = lane%4) needs for mma k-step `chunk*4 + kstep` of 16-column tile `tile`:
// A-fragment rows (output columns) n0+g and n0+g+8, k offsets 2t, 2t+1, 2t+8, 2t+9, ordered so that
// dequant8's four registers come out right (nibble j -> register j%4, half j/4).
__global__ void repack_kernel(const int32_t *__restrict__ qw, uint32_t *__restrict__ out, int K, int N, int Npad) {
  const size_t total = (size_t)(Npad / 16) * (size_t)(K / 64) * 128;
  for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w < total; w += (size_t)gridDim.x * blockDim.x) {
    const int ks = (int)(w & 3), lane = (int)((w >> 2) & 31);
    const size_t rest = w >> 7;
    const int chunk = (int)(rest % (size_t)(K / 64));
    const int tile = (int)(rest / (size_t)(K / 64));
    const int g = lane >> 2, t = lane & 3;
    const int k0 = (chunk * 4 + ks) * 16 + 2 * t, n0 = tile * 16 + g;
    auto code = [&](int k, int n) -> uint32_t {
      if (n >= N) return 8u;  // padding column: weight 0
      return ((uint32_t)qw[(size_t)(k >> 3) * N + n] >> ((k & 7) * 4)) & 15u;
    };
    out[w] = code(k0, n0) | code(k0, n0 + 8) << 4 | code(k0 + 8, n0) << 8 | code(k0 + 8, n0 + 8) << 12 |
             code(k0 + 1, n0) << 16 | code(k0 + 1, n0 + 8) << 20 | code(k0 + 9, n0) << 24 |
             code(k0 + 9, n0 + 8) << 28;
  }
}

__global__ void scales_kernel(const __half *__restrict__ in, __half *__restrict__ out, int G, int N, int Npad) {
  const size_t total = (size_t)G * Npad;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const int n = (int)(i % Npad);
    const size_t g = i / Npad;
    out[i] = n < N ? in[g * N + n] : __float2half(0.f);
  }
}

w4a16_status cuda_fail(cudaError_t e, const char *what) {
  cudaGetLastError();  // clear a sticky launch error so later calls are judged on their own
  return w4a16_fail(W4A16_ERR_CUDA, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

// Split-K choice: time ~ waves * (groups per CTA + a fixed cost per wave), where a wave is the number
// of CTAs the GPU holds at once. The fixed cost (pipeline fill, cluster reduction, epilogue, CTA
// launch) was fitted on the H200 (bench/RESULTS.md, 2026-11-30): for 8192x28672 the model without it
// chose S=7 (3 waves), measured 102.5 us at M=32, against 77.0 us for S=2 (one wave); ~16 groups'
// worth of streaming per wave orders S=1,2,4,7 as measured at the top. Smallest cost wins, fewer
// splits on ties. Clusters are portable up to 8 CTAs.
constexpr int kWaveOverheadGroups = 16;
int choose_splits(int ctas_n, int G, int capacity) {
  int best = 1;
  long long best_cost = -1;
  for (int s = 1; s <= 8 && s <= G; ++s) {
    const long long waves = ((long long)ctas_n * s + capacity - 1) / capacity;
    const long long cost = waves * ((G + s - 1) / s + kWaveOverheadGroups);
    if (best_cost < 0 || cost < best_cost) best = s, best_cost = cost;
  }
  return best;
}

}  // namespace

extern "C" int w4a16_cuda_available_impl(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n > 0;
}

extern "C" w4a16_status w4a16_cuda_plan_create(const int32_t *qweight, const uint16_t *scales, int64_t K, int64_t N,
                                               w4a16_cuda_plan **out) {
  *out = nullptr;
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    cudaGetLastError();
    return w4a16_fail(W4A16_ERR_NO_DEVICE, "plan_create(cuda): no usable CUDA device (%s)",
                      e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
  }
  w4a16_cuda_plan *p = (w4a16_cuda_plan *)calloc(1, sizeof *p);
  if (!p) return w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_create(cuda): host allocation failed");
  p->K = (int)K;
  p->N = (int)N;
  p->Npad = (int)((N + 15) / 16 * 16);
  const int G = (int)(K / 128);
  cudaDeviceProp prop;
  w4a16_status st = W4A16_OK;
  if ((e = cudaGetDevice(&p->device)) != cudaSuccess || (e = cudaGetDeviceProperties(&prop, p->device)) != cudaSuccess) {
    st = cuda_fail(e, "plan_create(cuda): cudaGetDeviceProperties");
    goto fail;
  }
  p->sms = prop.multiProcessorCount;
  p->cc_major = prop.major;
  if (prop.major < 8) {
    st = w4a16_fail(W4A16_ERR_NO_DEVICE, "plan_create(cuda): device %d is sm_%d%d; the kernels need sm_80 or newer",
                    p->device, prop.major, prop.minor);
    goto fail;
  }
  {
    const size_t wbytes = (size_t)p->Npad * (size_t)K / 2, sbytes = (size_t)G * p->Npad * 2;
    if ((e = cudaMalloc((void **)&p->wq, wbytes)) != cudaSuccess ||
        (e = cudaMalloc((void **)&p->scales, sbytes)) != cudaSuccess) {
      st = e == cudaErrorMemoryAllocation
               ? w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_create(cuda): cannot allocate %zu bytes", wbytes + sbytes)
               : cuda_fail(e, "plan_create(cuda): cudaMalloc");
      cudaGetLastError();
      goto fail;
    }
    p->bytes = wbytes + sbytes;
    // Both prep kernels run on the legacy default stream, which orders them after work already queued
    // on blocking streams (e.g. the upload of qweight); the sync lets the caller free its buffers.
    repack_kernel<<<prop.multiProcessorCount * 8, 256>>>(qweight, (uint32_t *)p->wq, (int)K, (int)N, p->Npad);
    scales_kernel<<<prop.multiProcessorCount * 4, 256>>>((const __half *)scales, p->scales, G, (int)N, p->Npad);
    if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaStreamSynchronize(0)) != cudaSuccess) {
      st = cuda_fail(e, "plan_create(cuda): repack kernels (are qweight and scales device pointers?)");
      goto fail;
    }
  }
  for (int w = 0; w < 2; ++w)
    for (int nt = 0; nt < 8; ++nt)
      if ((e = cudaFuncSetAttribute(kKernels[w][nt].fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    kKernels[w][nt].smem)) != cudaSuccess) {
        st = cuda_fail(e, "plan_create(cuda): cudaFuncSetAttribute");
        goto fail;
      }
  {
    // 8 warps (256 columns) per CTA unless that leaves too few CTAs to spread over the SMs: narrow
    // matrices use 4 warps (128 columns). The choice targets M <= 32 (token tiles <= 4).
    p->warps = 8;
    if ((long long)((p->Npad / 16 + 15) / 16) * (G < 8 ? G : 8) < (long long)p->sms * 3 / 2) p->warps = 4;
    const KernelEntry &k = kernel_for(p->warps, 32);
    int per_sm = 1;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.fn, k.threads, k.smem)) != cudaSuccess) {
      st = cuda_fail(e, "plan_create(cuda): occupancy query");
      goto fail;
    }
    const int ctas_n = (p->Npad / 16 + p->warps * 2 - 1) / (p->warps * 2);
    p->splits = prop.major >= 9 ? choose_splits(ctas_n, G, (per_sm > 0 ? per_sm : 1) * p->sms) : 1;
    if (const char *force = getenv("W4A16_FORCE_SPLITS")) {  // tests: exercise every split count
      const int s = atoi(force);
      if (s >= 1 && s <= 8 && s <= G && prop.major >= 9) p->splits = s;
    }
  }
  *out = p;
  return W4A16_OK;
fail:
  w4a16_cuda_plan_destroy(p);
  return st;
}

extern "C" void w4a16_cuda_plan_destroy(w4a16_cuda_plan *p) {
  if (!p) return;
  // cudaFree synchronises the device, so no run still using the plan's buffers is cut short.
  if (p->wq) cudaFree(p->wq);
  if (p->scales) cudaFree(p->scales);
  free(p);
}

extern "C" uint64_t w4a16_cuda_plan_bytes(const w4a16_cuda_plan *p) { return p ? p->bytes : 0; }

extern "C" void w4a16_cuda_plan_describe(const w4a16_cuda_plan *p, int64_t M, char *buf, int len) {
  const int nt = M >= 64 ? 8 : (int)((M + 7) / 8);
  const int ctas_n = (p->Npad / 16 + p->warps * 2 - 1) / (p->warps * 2);
  snprintf(buf, (size_t)len, "tc-v1 K=%d N=%d M=%lld warps=%d token_tiles=%d splits=%d grid=%dx%dx%lld (%s)", p->K,
           p->N, (long long)M, p->warps, nt < 1 ? 1 : nt, p->splits, p->splits, ctas_n, (long long)((M + 63) / 64),
           p->splits > 1 ? "cluster split-K" : "no split");
}

extern "C" w4a16_status w4a16_cuda_plan_run(const w4a16_cuda_plan *p, const uint16_t *x, int64_t M,
                                            const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                                            uint16_t *out, void *stream) {
  // 16-byte vectors: x is staged with cp.async, bias/residual/out move 8 halves per thread.
  if ((uintptr_t)x % 16 || (uintptr_t)out % 16 || (uintptr_t)bias % 16 || (uintptr_t)residual % 16)
    return w4a16_fail(W4A16_ERR_MISALIGNED,
                      "plan_run(cuda): x, out, bias and residual must be 16-byte aligned (cudaMalloc gives 256)");
  if ((M + 63) / 64 > 65535)
    return w4a16_fail(W4A16_ERR_BAD_SHAPE, "plan_run(cuda): M = %lld exceeds 64 * 65535", (long long)M);
  int dev = -1;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return cuda_fail(e, "plan_run(cuda): cudaGetDevice");
  if (dev != p->device)
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run(cuda): plan was created on device %d, current device is %d",
                      p->device, dev);
  const KernelEntry &k = kernel_for(p->warps, M);
  GemmArgs a;
  a.wq = p->wq;
  a.scales = p->scales;
  a.x = (const __half *)x;
  a.bias = (const __half *)bias;
  a.residual = (const __half *)residual;
  a.out = (__half *)out;
  a.M = (int)M;
  a.K = p->K;
  a.N = p->N;
  a.Npad = p->Npad;
  a.splits = p->splits;
  a.act = (int)act;

  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)p->splits, (unsigned)((p->Npad / 16 + p->warps * 2 - 1) / (p->warps * 2)),
                     (unsigned)((M + 63) / 64));
  cfg.blockDim = dim3((unsigned)k.threads);
  cfg.dynamicSmemBytes = (size_t)k.smem;
  cfg.stream = (cudaStream_t)stream;
  cudaLaunchAttribute attr[1];
  if (p->splits > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)p->splits;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  e = cudaLaunchKernelEx(&cfg, k.fn, a);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) return cuda_fail(e, "plan_run(cuda): kernel launch");
  return W4A16_OK;
}
