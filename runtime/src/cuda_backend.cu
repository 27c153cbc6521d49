// CUDA backend: plan creation (one repack of the weight, one padded copy of the scales, kernel
// configuration), launch, and destruction. Any number of threads may run one plan concurrently on
// their own streams: the configuration is fixed at creation, and the only state runs share -- the
// split-K workspace of kernel v3, used when clusters do not fit -- is taken under the plan's lock and
// ordered across streams with an event (run_v3).
//
// Two kernels share one weight layout: v3 (gemm_v3.cuh: wgmma, per-warp weight streams; sm_90 only,
// the default there) and v1 (gemm_v1.cuh: mma.sync + cp.async; sm_80 and later).
// Tests force other configurations through the environment overrides listed in
// runtime/testing/w4a16_testing.h.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_host.cuh"
#include "cuda_plan.cuh"
#include "internal.h"
#include "kernels.h"
#include "timeline.cuh"

using w4a16::GemmArgs;
using w4a16::add_pdl;
using w4a16::cuda_fail;
using w4a16::env_int;
using w4a16::pdl_enabled;
using namespace w4a16::config;  // the plan's configuration choice (cuda_config.cu)

namespace {

using w4a16::KernelEntry;

const KernelEntry &kernel_for(const w4a16_cuda_plan *p, int64_t M) {
  return w4a16::v1_kernel(p->bf16, p->form, p->warps == 8 ? 1 : 0, token_tiles(M));
}

// Word w of the repacked weight, w = (((g * NB + cb) * 4 + tt) * 2 + kc) * 128 + lane * 4 + ks (NB =
// Npad/64 column blocks; group-major: all CTAs walk K at the same pace, so at any moment they read one
// contiguous region -- block-major storage made their streams camp on a few DRAM channels,
// bench/RESULTS.md), holds
// the 8 codes lane (gr = lane/4, t = lane%4) needs for mma k-step kc*4 + ks of group g of 16-column
// tile cb*4 + tt: A-fragment rows (output columns) n0+gr and n0+gr+8, k offsets 2t, 2t+1, 2t+8, 2t+9,
// ordered so that dequant8's four registers come out right (nibble j -> register j%4, half j/4).
// So one 64-column block of one 128-k group is 4 KB contiguous (adjacent blocks of a group follow
// each other), and inside it a warp's 16-column tile reads 512 contiguous bytes per 64 k (one 16-byte
// vector per lane).
__global__ void repack_kernel(const int32_t *__restrict__ qw, uint32_t *__restrict__ out, int K, int N, int Npad) {
  const int G = K / w4a16::kGroupK;
  const size_t total = (size_t)(Npad / 64) * (size_t)G * 1024;
  for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w < total; w += (size_t)gridDim.x * blockDim.x) {
    const int ks = (int)(w & 3), lane = (int)((w >> 2) & 31), kc = (int)((w >> 7) & 1), tt = (int)((w >> 8) & 3);
    const size_t rest = w >> 10;
    const int cb = (int)(rest % (size_t)(Npad / 64));
    const int g = (int)(rest / (size_t)(Npad / 64));
    const int tile = cb * 4 + tt, chunk = g * 2 + kc;
    const int gr = lane >> 2, t = lane & 3;
    const int k0 = (chunk * 4 + ks) * 16 + 2 * t, n0 = tile * 16 + gr;
    auto code = [&](int k, int n) -> uint32_t {
      if (n >= N) return (uint32_t)W4A16_ZERO_POINT;  // padding column: weight 0
      return ((uint32_t)qw[(size_t)(k >> 3) * N + n] >> ((k & 7) * 4)) & 15u;
    };
    out[w] = code(k0, n0) | code(k0, n0 + 8) << 4 | code(k0 + 8, n0) << 8 | code(k0 + 8, n0 + 8) << 12 |
             code(k0 + 1, n0) << 16 | code(k0 + 1, n0 + 8) << 20 | code(k0 + 9, n0) << 24 |
             code(k0 + 9, n0 + 8) << 28;
  }
}

// The symmetric form's records: the scales (f16 or bf16 bits, copied), padding columns 0.
__global__ void scales_kernel(const uint16_t *__restrict__ in, uint16_t *__restrict__ out, int G, int N, int Npad) {
  const size_t total = (size_t)G * Npad;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const int n = (int)(i % Npad);
    const size_t g = i / Npad;
    out[i] = n < N ? in[g * N + n] : (uint16_t)0;
  }
}

// The zero-point form's TileMeta records ([G][Npad/16] x 48 bytes, common.cuh) from the caller's scales
// (f16 or bf16 bits, copied) and f16 zero points ([G][N], integers 0..15): per column its scale at 2c of
// the record and its zero point 32 bytes on (store_zero_point). Padding columns get scale 0 and zero
// point 8.
// *bad |= 1 when a zero point is not an integer in 0..15, 2 when one is not 8.
// Column c's (0..15 of a tile) zero point z (0..15) into a record's 16 zero-point bytes, in the pair order
// ZeroPoints<T>::from_pair reads: byte 2 (c % 8) + c / 8, columns 8-15 times 16 for the f16 kernels.
__device__ __forceinline__ void store_zero_point(unsigned char *zero_bytes, int c, unsigned z, bool io_bf16) {
  zero_bytes[2 * (c % 8) + c / 8] = (unsigned char)(c < 8 || io_bf16 ? z : z << 4);
}

__global__ void meta_kernel(const uint16_t *__restrict__ scales, const __half *__restrict__ zero_points,
                            unsigned char *__restrict__ out, int G, int N, int Npad, bool io_bf16, unsigned *bad) {
  const size_t total = (size_t)G * Npad;
  unsigned flags = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const int n = (int)(i % Npad), c = n % 16;
    const size_t g = i / Npad;
    float z = 8.f;
    uint16_t s = 0;
    if (n < N) z = __half2float(zero_points[g * N + n]), s = scales[g * N + n];
    const bool integer = z >= 0.f && z <= 15.f && z == truncf(z);
    flags |= (integer ? 0u : 1u) | (z != 8.f ? 2u : 0u);
    using Meta = w4a16::TileMeta<w4a16::kZeroPoints>;
    unsigned char *record = out + (g * (Npad / 16) + n / 16) * Meta::kBytes;
    *reinterpret_cast<uint16_t *>(record + 2 * c) = s;
    store_zero_point(record + Meta::kZeroOffset, c, integer ? (unsigned)z : 8u, io_bf16);
  }
  if (flags) atomicOr(bad, flags);
}

// The affine forms' TileMeta records ([K/128][Npad/16] x 80 * sub bytes, common.cuh) from the caller's
// scales (f16 or bf16), zero points (f16, or null: 8) and offsets (f16, or null: 0), all [K/G][N] with G =
// 128 / sub. (code - z) * s + m is split into (code - zi) * s + o with zi = z rounded and clamped to 0..15
// and o = m - (z - zi) * s (in f32): per scale group j of a 128-k group, column c's s at byte 80 j +
// 4 (c % 8) + 2 (c / 8), its o kOffsetPairs bytes on (both rounded to the io type once), and zi kIntegerZeros
// bytes on (store_zero_point). Padding columns get s = o = 0, zi = 8.
__global__ void affine_kernel(const uint16_t *__restrict__ scales, bool scales_bf16, const __half *__restrict__ zero_points,
                              const __half *__restrict__ offsets, unsigned char *__restrict__ out, int groups, int sub,
                              int N, int Npad, bool io_bf16) {
  using Meta = w4a16::TileMeta<w4a16::kAffine32>;
  constexpr int kSubBytes = Meta::kSubBytes;
  const size_t total = (size_t)groups * Npad;
  auto round = [io_bf16](float v) {
    return io_bf16 ? w4a16::Io<__nv_bfloat16>::round(v) : w4a16::Io<__half>::round(v);
  };
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const int n = (int)(i % Npad), c = n % 16;
    const size_t gs = i / Npad, g = gs / sub;  // scale group, its 128-k group
    const int j = (int)(gs % sub);
    float sv = 0.f, o = 0.f, zi = (float)W4A16_ZERO_POINT;
    if (n < N) {
      sv = w4a16::scale_value(reinterpret_cast<const unsigned char *>(scales + gs * N + n), scales_bf16);
      const float z = zero_points ? __half2float(zero_points[gs * N + n]) : (float)W4A16_ZERO_POINT;
      zi = fminf(fmaxf(rintf(z), 0.f), 15.f);
      if (z != z) zi = (float)W4A16_ZERO_POINT;  // NaN: o carries it
      o = (offsets ? __half2float(offsets[gs * N + n]) : 0.f) - (z - zi) * sv;
    }
    unsigned char *record = out + (g * (Npad / 16) + n / 16) * (size_t)(kSubBytes * sub) + kSubBytes * j;
    *reinterpret_cast<uint16_t *>(record + 4 * (c % 8) + 2 * (c / 8)) = round(sv);
    *reinterpret_cast<uint16_t *>(record + Meta::kOffsetPairs + 4 * (c % 8) + 2 * (c / 8)) = round(o);
    store_zero_point(record + Meta::kIntegerZeros, c, (unsigned)zi, io_bf16);
  }
}

// cudaMalloc for plan creation (cuda_host.cuh's device_alloc).
w4a16_status device_alloc(void **ptr, size_t bytes, const char *what) {
  return w4a16::device_alloc(ptr, bytes, "plan_create(cuda)", what);
}

// (Programmatic dependent launch: cuda_host.cuh's add_pdl; kernel v3 prefetches its first weights, then waits
// for the previous kernel, sm90::grid_dependency_wait.)

// ---- process-wide, per-device caches (plans are created thousands of times in the tests) ----
std::mutex g_mu;
int g_attr_done_dev = -1;                 // device whose kernels got their shared-memory attribute
int g_occ_dev = -1;                      // device whose occupancy answers cuda_config.cu holds
PFN_cuTensorMapEncodeTiled_v12000 g_encode = nullptr;

w4a16_status prepare_device(int dev) {  // call with g_mu held
  cudaError_t e;
  if (g_attr_done_dev != dev) {
    int major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    for (int t = 0; t < 2; ++t)
      for (int f = 0; f < w4a16::kForms; ++f)
        for (int nt = 1; nt <= 8; ++nt) {
          for (int w = 0; w < 2; ++w) {
            const KernelEntry &k1 = w4a16::v1_kernel(t == 1, f, w, nt);
            if ((e = cudaFuncSetAttribute(k1.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k1.smem)) != cudaSuccess)
              return cuda_fail(e, "plan_create(cuda): cudaFuncSetAttribute(v1)");
          }
          for (int wi = 0; wi < w4a16::kV3Widths && major == 9; ++wi) {  // W = 3 only up to 32 tokens (v3_has)
            if (!w4a16::v3_has(f, wi, nt)) continue;
            const w4a16::V3Entry &k3 = w4a16::v3_kernel(t == 1, f, wi, nt);
            if ((e = cudaFuncSetAttribute(k3.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k3.smem)) != cudaSuccess)
              return cuda_fail(e, "plan_create(cuda): cudaFuncSetAttribute(v3)");
          }
        }
    // The act-order kernels take x's rows (v3: and a range of perm) besides their rings (gather_smem_bytes,
    // decode_gather_fits): as much as a CTA may have; plan creation checks that a call's copies fit (v3: and leave
    // the occupancy as it is).
    int optin = 0;
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    for (int t = 0; t < 2 && major == 9; ++t)  // v1's decode variant (chosen for v3 plans only)
      for (int f = 0; f < 2 * w4a16::kForms; ++f) {
        const KernelEntry &k = w4a16::v1_sliced_kernel(t == 1, f >> 1, f & 1);
        if ((e = cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (f & 1) ? optin : k.smem)) !=
            cudaSuccess)
          return cuda_fail(e, "plan_create(cuda): cudaFuncSetAttribute(v1, K sliced)");
      }
    for (int t = 0; t < 2 && major == 9; ++t)
      for (int f = 0; f < 2; ++f)
        for (int w = 0; w < 4; ++w) {
          // The limit counts the kernel's static shared memory too.
          const void *fn = (const void *)w4a16::v3_gather_kernel(t == 1, f, w & 1, w >= 2).fn;
          cudaFuncAttributes a;
          if ((e = cudaFuncGetAttributes(&a, fn)) != cudaSuccess ||
              (e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        optin - (int)a.sharedSizeBytes)) != cudaSuccess)
            return cuda_fail(e, "plan_create(cuda): cudaFuncSetAttribute(v3, act-order)");
        }
    g_attr_done_dev = dev;
  }
  if (g_occ_dev != dev) {
    w4a16::config::reset_capacity_cache();
    g_occ_dev = dev;
  }
  if (!g_encode) {
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q;
    if ((e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q)) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !fn)
      return e != cudaSuccess ? cuda_fail(e, "plan_create(cuda): cuTensorMapEncodeTiled entry point")
                              : w4a16_fail(W4A16_ERR_CUDA, "plan_create(cuda): cuTensorMapEncodeTiled not found");
    g_encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
  }
  return W4A16_OK;
}

}  // namespace

// The zero-point form's metadata (meta_kernel) from the caller's scales and f16 zero points (device
// memory, [G][N], G = 128) into p->scales, when some zero points are not 8; all 8 is the symmetric form,
// and p->scales stays null for plan_create's symmetric path; a zero point that is not an integer 0..15
// sets *affine (the caller builds the affine form instead). One small allocation for the verdict, and a
// synchronisation (plan creation, not the call path).
static w4a16_status prepare_zero_points(w4a16_cuda_plan *p, const uint16_t *scales, const __half *zero_points, int G,
                                        int sms, bool *affine) {
  const size_t bytes = (size_t)G * p->Npad * w4a16::TileMeta<w4a16::kZeroPoints>::kPerColumn;
  unsigned char *meta = nullptr;
  unsigned *bad = nullptr, verdict = 0;
  w4a16_status st = device_alloc((void **)&meta, bytes, "scales and zero points");
  if (st == W4A16_OK) st = device_alloc((void **)&bad, 4, "the zero points' verdict");
  cudaError_t e = cudaSuccess;
  if (st == W4A16_OK && (e = cudaMemset(bad, 0, 4)) != cudaSuccess) st = cuda_fail(e, "plan_create(cuda): cudaMemset");
  if (st != W4A16_OK) {
    cudaFree(meta), cudaFree(bad);
    return st;
  }
  meta_kernel<<<sms * 4, 256>>>(scales, zero_points, meta, G, p->N, p->Npad, p->bf16, bad);
  if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaMemcpy(&verdict, bad, 4, cudaMemcpyDeviceToHost)) != cudaSuccess) {
    cudaFree(meta), cudaFree(bad);
    return cuda_fail(e, "plan_create(cuda): zero-point kernel (are scales and zero points device pointers?)");
  }
  cudaFree(bad);
  *affine = verdict & 1u;
  if (verdict == 2u) {
    p->scales = meta;
    p->form = w4a16::kZeroPoints;
    p->bytes += bytes;
  } else {
    cudaFree(meta);
  }
  return W4A16_OK;
}

// The affine forms' records (affine_kernel) into p->scales: group size G = 128 / sub.
static w4a16_status prepare_affine(w4a16_cuda_plan *p, const uint16_t *scales, const __half *zero_points,
                                   const __half *offsets, int K, int group_size, int sms) {
  const int sub = w4a16::kGroupK / group_size;
  p->form = sub == 4 ? w4a16::kAffine32 : sub == 2 ? w4a16::kAffine64 : w4a16::kAffine128;
  const size_t bytes = (size_t)(K / w4a16::kGroupK) * p->Npad * 5 * sub;  // 80 * sub bytes per 16 columns
  w4a16_status st = device_alloc(&p->scales, bytes, "scales and offsets");
  if (st != W4A16_OK) return st;
  p->bytes += bytes;
  affine_kernel<<<sms * 4, 256>>>(scales, p->scales_bf16, zero_points, offsets, (unsigned char *)p->scales,
                                  K / group_size, sub, p->N, p->Npad, p->bf16);
  return W4A16_OK;
}

extern "C" int w4a16_cuda_available_impl(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n > 0;
}

extern "C" w4a16_status w4a16_cuda_plan_create(const int32_t *qweight, const uint16_t *scales,
                                               const uint16_t *zero_points, const uint16_t *offsets, int64_t K,
                                               int64_t N, int64_t group_size, w4a16_element_type io_type,
                                               w4a16_element_type scales_type, int act_order, w4a16_cuda_plan **out) {
  *out = nullptr;
  // The kernels walk K in steps of 128 (two 64-k boxes, whatever the group size).
  if (K % w4a16::kGroupK != 0)
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_create(cuda): K = %lld: the kernels take K a multiple of %d",
                      (long long)K, w4a16::kGroupK);
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    cudaGetLastError();
    return w4a16_fail(W4A16_ERR_NO_DEVICE, "plan_create(cuda): no usable CUDA device (%s)",
                      e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
  }
  w4a16_cuda_plan *p = new (std::nothrow) w4a16_cuda_plan();
  if (!p) return w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_create(cuda): host allocation failed");
  p->K = (int)K;
  p->N = (int)N;
  p->Npad = (int)((N + 63) / 64 * 64);
  p->bf16 = io_type == W4A16_ELEM_BF16;
  p->act_order = act_order != 0;
  p->scales_bf16 = scales_type == W4A16_ELEM_BF16;
  const int G = (int)(K / w4a16::kGroupK);  // 128-k groups (the kernels' steps)
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
    if ((st = device_alloc((void **)&p->wq, wbytes, "repacked weight")) != W4A16_OK) goto fail;
    p->bytes = wbytes;
    // The prep kernels run on the legacy default stream, which orders them after work already queued on
    // blocking streams (e.g. the upload of qweight); the sync lets the caller free its buffers.
    // The form: offsets, groups of 64 or 32, and zero points that are not integers 0..15 are affine.
    bool affine = offsets || group_size != w4a16::kGroupK;
    if (!affine && zero_points &&
        (st = prepare_zero_points(p, scales, (const __half *)zero_points, G, prop.multiProcessorCount, &affine)) !=
            W4A16_OK)
      goto fail;
    if (affine && (st = prepare_affine(p, scales, (const __half *)zero_points, (const __half *)offsets, (int)K,
                                       (int)group_size, prop.multiProcessorCount)) != W4A16_OK)
      goto fail;
    if (!p->scales) {  // the symmetric form: the scales alone, [G][Npad]
      if ((st = device_alloc((void **)&p->scales, sbytes, "scales")) != W4A16_OK) goto fail;
      p->bytes += sbytes;
      scales_kernel<<<prop.multiProcessorCount * 4, 256>>>(scales, (uint16_t *)p->scales, G, (int)N, p->Npad);
    }
    repack_kernel<<<prop.multiProcessorCount * 8, 256>>>(qweight, (uint32_t *)p->wq, (int)K, (int)N, p->Npad);
    if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaStreamSynchronize(0)) != cudaSuccess) {
      st = cuda_fail(e, "plan_create(cuda): repack kernels (are qweight and scales device pointers?)");
      goto fail;
    }
  }
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if ((st = prepare_device(p->device)) != W4A16_OK) goto fail;

    // v1 configuration (sm_80, or forced): 8 warps (256 columns) per CTA unless that leaves too few
    // CTAs to spread over the SMs: narrow matrices use 4 warps (128 columns).
    p->warps = 8;
    if ((long long)((p->Npad / 16 + 15) / 16) * (G < 8 ? G : 8) < (long long)p->sms * 3 / 2) p->warps = 4;
    const KernelEntry &k = kernel_for(p, 32);
    int per_sm = 1;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.fn, k.threads, k.smem)) != cudaSuccess) {
      st = cuda_fail(e, "plan_create(cuda): occupancy query");
      goto fail;
    }
    const int ctas_n = (p->Npad / 16 + p->warps * 2 - 1) / (p->warps * 2);
    p->splits = prop.major >= 9 ? choose_splits(ctas_n, G, (per_sm > 0 ? per_sm : 1) * p->sms) : 1;

    // v3 on sm_90 (only the sm_90a cubin holds it): faster than v1 at every M on the four benchmark
    // shapes (bench/RESULTS.md, 2026-11-30), but for v1's decode variant where v3 would split K across CTAs
    // at M <= 8 (choose_slices). W4A16_FORCE_KERNEL=v1 runs v1 there too, =v3 never the decode variant,
    // =sliced the decode variant wherever its grid fits; the tests also force the split count
    // (W4A16_FORCE_SPLITS) and the v3 CTA width (W4A16_FORCE_WG).
    const char *fk = getenv("W4A16_FORCE_KERNEL");
    p->version = prop.major != 9 || (fk && !strcmp(fk, "v1")) ? 1 : 3;
    p->force_slices = fk && !strcmp(fk, "v3") ? 0 : fk && !strcmp(fk, "sliced") ? 1 : -1;
    const int force_s = env_int("W4A16_FORCE_SPLITS", 0), force_w = env_int("W4A16_FORCE_WG", 0);
    const int force_global = env_int("W4A16_FORCE_GLOBAL", -1);
    if (force_s >= 1 && force_s <= 8 && force_s <= G && prop.major >= 9) p->splits = force_s;  // tests
    if (p->version == 3) {
      // v3 can also be forced to reduce splits through the workspace (W4A16_FORCE_GLOBAL=1).
      p->force_w = force_w >= 2 && force_w <= 4 ? force_w : 0;
      p->force_s = force_s >= 1 && force_s <= 8 && force_s <= G ? force_s : 0;
      p->force_global = force_global == 0 || force_global == 1 ? force_global : -1;
      p->pdl = pdl_enabled(prop.major);
      for (int M = 1; M <= 64; ++M) p->v3[M] = choose_v3(p, M);
      for (int M = 1; M <= 8; ++M) p->slices[M] = (uint8_t)choose_slices(p, M);
      // Act-order calls gather x in the GEMM where x's rows fit (v3, or the decode variant where the plain call takes
      // it), else by the gather launch (all 0 for other plans).
      for (int M = 1; M <= 8 && p->act_order; ++M)
        p->gathers[M] = !p->slices[M]           ? gather_fits(p, M)
                        : decode_gather_fits(p, M) ? W4A16_GATHER_IN_DECODE_VARIANT
                                                   : W4A16_GATHER_BY_LAUNCH;
      // Split-K flags and the ticket counter start at zero; the kernel leaves them so.
      if ((e = cudaMalloc((void **)&p->flags, kFlagBytes)) != cudaSuccess ||
          (e = cudaMemset(p->flags, 0, kFlagBytes)) != cudaSuccess ||
          (e = cudaStreamSynchronize(0)) != cudaSuccess ||
          (e = cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming)) != cudaSuccess) {
        st = cuda_fail(e, "plan_create(cuda): split-K flags");
        goto fail;
      }
    }
  }
  if (p->version == 3 && (st = w4a16_cuda_plan_reserve(p, W4A16_DEFAULT_MAX_M)) != W4A16_OK) goto fail;
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
  if (p->partials) cudaFree(p->partials);
  if (p->flags) cudaFree(p->flags);
  if (p->done) cudaEventDestroy(p->done);
  delete p;
}

extern "C" uint64_t w4a16_cuda_plan_bytes(const w4a16_cuda_plan *p) {
  if (!p) return 0;
  std::lock_guard<std::mutex> lock(p->mu);
  return p->bytes + p->partial_bytes + (p->flags ? kFlagBytes : 0);
}

namespace {
V3Choice v3_choice(const w4a16_cuda_plan *p, int64_t M) {
  if (M <= 64) return p->v3[M];
  std::lock_guard<std::mutex> lock(g_mu);  // choose_v3 reads the occupancy cache
  return choose_v3(p, M);
}

// The split-K workspace a call of M tokens of a v3 plan needs: none where it runs kernel v1's decode variant (its
// v3 choice is never launched), else its v3 configuration's partial sums.
uint64_t workspace_at(const w4a16_cuda_plan *p, int64_t M) {
  return sliced_at(p, M) ? 0 : split_bytes(p, v3_choice(p, M), M);
}

// Sizes the partial sums for every M up to max_m (call with p->mu held; no call of the plan may be in
// flight). Within one count of 64-token chunks the largest M needs the most (its allowance admits the
// most configurations), so M = 1..64 and then each chunk count's largest M cover every M; beyond
// kMaxGrid tiles no configuration goes through the workspace.
w4a16_status reserve_locked(const w4a16_cuda_plan *p, int64_t max_m) {
  uint64_t need = 0;
  for (int64_t M = 1; M <= max_m; M = M < 64 ? M + 1 : std::min<int64_t>((M / 64 + 1) * 64, max_m)) {
    need = std::max(need, workspace_at(p, M));
    if (v3_tiles(p, M, 4) * 2 > kMaxGrid || M == max_m) break;
  }
  if (need != p->partial_bytes) {
    cudaError_t e;
    if (p->partials) {
      if ((e = cudaFree(p->partials)) != cudaSuccess) return cuda_fail(e, "plan_reserve(cuda): cudaFree");
      p->partials = nullptr, p->partial_bytes = 0;
    }
    if (need && (e = cudaMalloc((void **)&p->partials, need)) != cudaSuccess) {
      p->partials = nullptr;
      return e == cudaErrorMemoryAllocation
                 ? w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_reserve(cuda): cannot allocate %llu bytes of split-K "
                                                       "workspace", (unsigned long long)need)
                 : cuda_fail(e, "plan_reserve(cuda): cudaMalloc");
    }
    p->partial_bytes = need;
  }
  p->reserved_m = max_m;
  return W4A16_OK;
}
}  // namespace

extern "C" w4a16_status w4a16_cuda_plan_reserve(const w4a16_cuda_plan *p, int64_t max_m) {
  if (p->version != 3) return W4A16_OK;  // v1 reduces on chip only
  std::lock_guard<std::mutex> lock(p->mu);
  return reserve_locked(p, max_m);
}

extern "C" uint64_t w4a16_cuda_plan_workspace_bytes(const w4a16_cuda_plan *p, int64_t M) {
  return p && p->version == 3 && M >= 1 ? workspace_at(p, M) : 0;
}

// The weight's form, when not symmetric.
static const char *form_note(const w4a16_cuda_plan *p) {
  static const char *const notes[w4a16::kForms] = {"", " zero points", " affine G=128", " affine G=64", " affine G=32"};
  return notes[p->form];
}

// The element types, when not the default f16.
static const char *type_note(const w4a16_cuda_plan *p) {
  return p->bf16 ? (p->scales_bf16 ? " bf16" : " bf16 (f16 scales)") : p->scales_bf16 ? " (bf16 scales)" : "";
}

extern "C" void w4a16_cuda_plan_describe(const w4a16_cuda_plan *p, int64_t M, char *buf, int len) {
  const int nt = token_tiles(M < 1 ? 1 : M);
  if (const int ks = sliced_at(p, M)) {
    const int cols = w4a16::kSlicedCols;
    snprintf(buf, (size_t)len, "tc-v1 K=%d N=%d M=%lld columns=%d k-slices=%d grid=%d (K sliced inside the CTA)%s%s",
             p->K, p->N, (long long)M, cols, ks, (p->Npad + cols - 1) / cols, form_note(p), type_note(p));
    return;
  }
  if (p->version == 3) {
    const V3Choice c = v3_choice(p, M < 1 ? 1 : M);
    const long long tiles_n = (p->Npad / 64 + c.W - 1) / c.W, chunks = (M + 63) / 64;
    snprintf(buf, (size_t)len, "tc-v3 K=%d N=%d M=%lld W=%d tokens=%d splits=%d grid=%dx%lldx%lld%s%s%s", p->K, p->N,
             (long long)M, c.W, nt * 8, c.S, c.S, tiles_n, chunks,
             c.S == 1 ? "" : c.global ? " (split-K through the workspace)" : " (cluster split-K)",
             form_note(p), type_note(p));
    return;
  }
  const int ctas_n = (p->Npad / 16 + p->warps * 2 - 1) / (p->warps * 2);
  snprintf(buf, (size_t)len, "tc-v1 K=%d N=%d M=%lld warps=%d token_tiles=%d splits=%d grid=%dx%dx%lld (%s)%s%s", p->K,
           p->N, (long long)M, p->warps, nt, p->splits, p->splits, ctas_n, (long long)((M + 63) / 64),
           p->splits > 1 ? "cluster split-K" : "no split", form_note(p), type_note(p));
}

#ifdef W4A16_TIMELINE
// The device buffer v3 and v1 calls stamp their phases into (runtime/src/timeline.cuh); null: none. Instrumented
// builds only: the layer benchmark's --timeline sets it around one graph replay.
// Each launch gets the next of timeline::kLaunches regions of timeline::kCtas records.
static unsigned long long *g_timeline;
static unsigned g_timeline_launch;
extern "C" void w4a16_debug_set_timeline(unsigned long long *device_buffer) {
  g_timeline = device_buffer;
  g_timeline_launch = 0;
}
// The next launch's region, or null without a buffer.
static unsigned long long *next_timeline_region() {
  if (!g_timeline) return nullptr;
  return g_timeline + (size_t)(g_timeline_launch++ % w4a16::timeline::kLaunches) * w4a16::timeline::kCtas *
                          w4a16::timeline::kWords;
}
#endif

namespace {
// The kernels' outputs map (common.cuh's Outputs) of a call's checked w4a16_outputs: where each output after the
// first starts among the plan's columns; INT_MAX past the last output, so that no column selects it.
w4a16::Outputs device_outputs(const w4a16_outputs *o) {
  w4a16::Outputs d = {};
  d.glu = o->glu;
  int first = 0;
  for (int i = 0; i < W4A16_MAX_OUTPUTS; ++i) {
    if (i < o->count) d.ptr[i] = o->out[i], first += (int)o->cols[i];
    if (i + 1 < W4A16_MAX_OUTPUTS) d.next[i] = i + 1 < o->count ? first : INT_MAX;
  }
  return d;
}

// The arguments both kernels' structs (w4a16::GemmArgs for v1, sm90::Args for v3) share: the plan's
// weight and scales, the call's tensors and shape.
template <class KernelArgs>
void set_call_args(KernelArgs &a, const w4a16_cuda_plan *p, const uint16_t *bias, const uint16_t *residual,
                   w4a16_activation act, const w4a16_outputs *outs, int64_t M) {
  a.wq = reinterpret_cast<decltype(a.wq)>(p->wq);
  a.scales = p->scales;
  a.scales_bf16 = p->scales_bf16;
  a.bias = bias;
  a.residual = residual;
  a.out = device_outputs(outs);
  a.M = (int)M;
  a.K = p->K;
  a.N = p->N;
  a.Npad = p->Npad;
  a.act = (int)act;
}

// Kernel v3: CTAs of W column blocks, S per tile along K: clusters of S CTAs (grid S x column tiles x
// 64-token chunks), or a 1-D grid of tickets reducing through the plan's workspace. With perm (act-order,
// where w4a16_cuda_plan_gathers says so) the kernel gathers x's columns perm[i] itself, in the configuration
// the plan chose for M like any other call.
w4a16_status run_v3(const w4a16_cuda_plan *p, const uint16_t *x, const int32_t *perm, int64_t M,
                    const uint16_t *bias, const uint16_t *residual, w4a16_activation act, const w4a16_outputs *outs,
                    cudaStream_t stream) {
  const int nt = token_tiles(M);
  const V3Choice c = v3_choice(p, M);
  const int wi = w4a16::v3_width_index(c.W);
  const bool streamed = perm && p->gathers[M] == W4A16_GATHER_PERM_STREAMED;
  const w4a16::V3Entry &k =
      perm ? w4a16::v3_gather_kernel(p->bf16, p->form, wi, streamed) : w4a16::v3_kernel(p->bf16, p->form, wi, nt);
  cudaLaunchConfig_t cfg = {};
  cfg.blockDim = dim3((unsigned)k.threads);
  cfg.dynamicSmemBytes = (size_t)k.smem;
  cfg.stream = stream;
  // x as a 2-D tensor [M][K] of f16 or bf16; boxes of 64 k x 8*nt tokens land with the 128-byte swizzle the
  // wgmma B descriptor reads. Rows past M are zero-filled. Encoded per call (x changes every call). A gathering
  // kernel gets x and perm in the map's place instead (sm90::GatherParams) and shared memory for their copies.
  CUtensorMap map;
  if (perm) {
    const w4a16::sm90::GatherParams gp = {x, perm};
    memset(&map, 0, sizeof map);
    memcpy(&map, &gp, sizeof gp);
    cfg.dynamicSmemBytes += gather_smem_bytes(p, c, M, !streamed);
  } else {
    cuuint64_t dims[2] = {(cuuint64_t)p->K, (cuuint64_t)M};
    cuuint64_t strides[1] = {(cuuint64_t)p->K * 2};
    cuuint32_t box[2] = {64, (cuuint32_t)(nt * 8)};
    cuuint32_t estr[2] = {1, 1};
    const CUtensorMapDataType type = p->bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    CUresult r = g_encode(&map, type, 2, (void *)x, dims, strides, box, estr,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) return w4a16_fail(W4A16_ERR_CUDA, "plan_run(cuda): cuTensorMapEncodeTiled failed (%d)", (int)r);
  }
  const long long tiles_n = (p->Npad / 64 + c.W - 1) / c.W, chunks = (M + 63) / 64;
  w4a16::sm90::Args a = {};
  set_call_args(a, p, bias, residual, act, outs, M);
  a.x = reinterpret_cast<const uint16_t *>(x);
#ifdef W4A16_TIMELINE
  a.timeline = next_timeline_region();
#endif
  cudaLaunchAttribute attrs[2];
  if (p->pdl) add_pdl(cfg, attrs);
  cudaError_t e;
  if (!c.global) {  // no shared state: launch without the plan's lock
    cfg.gridDim = dim3((unsigned)c.S, (unsigned)tiles_n, (unsigned)chunks);
    if (c.S > 1) add_cluster(cfg, attrs, c.S);
    e = cudaLaunchKernelEx(&cfg, k.fn, map, a);
    if (e == cudaSuccess) e = cudaGetLastError();
    return e == cudaSuccess ? W4A16_OK : cuda_fail(e, "plan_run(cuda): v3 kernel launch");
  }
  // Split-K through the plan's workspace: one call at a time. Calls on one stream are ordered anyway.
  // An eager call on another stream first waits for the previous eager call (the event recorded after
  // it). A call being captured into a CUDA graph neither waits on nor records that event (a capture
  // cannot wait on work recorded outside it): the graph is ordered by the stream it is launched on,
  // like any other work (docs/contract.md §2). Nothing here allocates unless an eager call needs more
  // workspace than w4a16_plan_reserve reserved.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if ((e = cudaStreamIsCapturing(stream, &capture)) != cudaSuccess)
    return cuda_fail(e, "plan_run(cuda): cudaStreamIsCapturing");
  const bool capturing = capture != cudaStreamCaptureStatusNone;
  std::lock_guard<std::mutex> lock(p->mu);
  const uint64_t need = split_bytes(p, c, M);
  if (need > p->partial_bytes) {
    if (capturing)
      return w4a16_fail(W4A16_ERR_BAD_ARGUMENT,
                        "plan_run(cuda): M = %lld needs %llu bytes of split-K workspace; the plan reserved %llu "
                        "(for M <= %lld): call w4a16_plan_reserve before capturing",
                        (long long)M, (unsigned long long)need, (unsigned long long)p->partial_bytes,
                        (long long)p->reserved_m);
    w4a16_status st = reserve_locked(p, M);
    if (st != W4A16_OK) return st;
  }
  if (!capturing && p->ran && stream != p->last_stream && (e = cudaStreamWaitEvent(stream, p->done, 0)) != cudaSuccess)
    return cuda_fail(e, "plan_run(cuda): ordering after the plan's previous call");
  a.partials = p->partials;
  a.flags = p->flags;
  const long long grid = tiles_n * chunks * c.S;
  cfg.gridDim = dim3((unsigned)grid, 1, 1);
  e = cudaLaunchKernelEx(&cfg, k.fn, map, a);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) return cuda_fail(e, "plan_run(cuda): v3 kernel launch");
  if (!capturing) {
    p->last_stream = stream;
    p->ran = true;
    if ((e = cudaEventRecord(p->done, stream)) != cudaSuccess) return cuda_fail(e, "plan_run(cuda): cudaEventRecord");
  }
  return W4A16_OK;
}

}  // namespace

static w4a16_status run_v1(const w4a16_cuda_plan *p, const uint16_t *x, const int32_t *perm, int64_t M,
                           const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                           const w4a16_outputs *outs, void *stream);

extern "C" w4a16_status w4a16_cuda_check_call(const w4a16_cuda_plan *p, const uint16_t *x, const uint16_t *bias,
                                              const uint16_t *residual, const w4a16_outputs *outs) {
  // 16-byte vectors: x is staged with cp.async / TMA, bias/residual/out move 8 halves per thread (a GLU output 4:
  // one 8-byte store per 8-column item).
  if ((uintptr_t)x % 16 || (uintptr_t)bias % 16 || (uintptr_t)residual % 16)
    return w4a16_fail(W4A16_ERR_MISALIGNED,
                      "plan_run(cuda): x, out, bias and residual must be 16-byte aligned (cudaMalloc gives 256)");
  for (int i = 0; i < outs->count; ++i)
    if ((uintptr_t)outs->out[i] % (outs->glu ? 8 : 16))
      return outs->count == 1 && !outs->glu
                 ? w4a16_fail(W4A16_ERR_MISALIGNED, "plan_run(cuda): x, out, bias and residual must be 16-byte "
                                                    "aligned (cudaMalloc gives 256)")
                 : w4a16_fail(W4A16_ERR_MISALIGNED, "plan_run_outputs(cuda): out[%d] = %p must be %d-byte aligned%s",
                              i, (const void *)outs->out[i], outs->glu ? 8 : 16, outs->glu ? " (glu)" : "");
  int dev = -1;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return cuda_fail(e, "plan_run(cuda): cudaGetDevice");
  if (dev != p->device)
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run(cuda): plan was created on device %d, current device is %d",
                      p->device, dev);
  return W4A16_OK;
}

extern "C" w4a16_status w4a16_cuda_plan_run(const w4a16_cuda_plan *p, const uint16_t *x, int64_t M,
                                            const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                                            const w4a16_outputs *outs, void *stream) {
  const w4a16_status st = w4a16_cuda_check_call(p, x, bias, residual, outs);
  return st == W4A16_OK ? w4a16_cuda_plan_launch(p, x, M, bias, residual, act, outs, stream) : st;
}

extern "C" int w4a16_cuda_plan_gathers(const w4a16_cuda_plan *p, int64_t M) {
  return M >= 1 && M <= 8 ? p->gathers[M] : 0;
}

extern "C" w4a16_status w4a16_cuda_plan_launch_gathering(const w4a16_cuda_plan *p, const uint16_t *x,
                                                         const int32_t *perm, int64_t M, const uint16_t *bias,
                                                         const uint16_t *residual, w4a16_activation act,
                                                         const w4a16_outputs *outs, void *stream) {
  if (!w4a16_cuda_plan_gathers(p, M))
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run(cuda): no gathering kernel for this plan at M = %lld", (long long)M);
  if (p->gathers[M] == W4A16_GATHER_IN_DECODE_VARIANT) return run_v1(p, x, perm, M, bias, residual, act, outs, stream);
  return run_v3(p, x, perm, M, bias, residual, act, outs, (cudaStream_t)stream);
}

extern "C" w4a16_status w4a16_cuda_plan_launch(const w4a16_cuda_plan *p, const uint16_t *x, int64_t M,
                                               const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                                               const w4a16_outputs *outs, void *stream) {
  if (p->version == 3 && !sliced_at(p, M))  // only v3 plans choose the decode variant
    return run_v3(p, x, nullptr, M, bias, residual, act, outs, (cudaStream_t)stream);
  return run_v1(p, x, nullptr, M, bias, residual, act, outs, stream);
}

// Kernel v1: CTAs of 32 * warps columns, `splits` per column tile in a cluster; or, for a v3 plan at M <= 8, the
// decode variant (K sliced inside CTAs of 32 columns, no split, programmatic dependent launch as v3's), which with
// perm (act-order) reads x's columns through it.
static w4a16_status run_v1(const w4a16_cuda_plan *p, const uint16_t *x, const int32_t *perm, int64_t M,
                           const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                           const w4a16_outputs *outs, void *stream) {
  const int ks = sliced_at(p, M);
  const KernelEntry &k = ks ? w4a16::v1_sliced_kernel(p->bf16, p->form, perm != nullptr) : kernel_for(p, M);
  // The decode variant is never split: its kernel takes splits = 1 as a constant (gemm_v1.cuh).
  const int splits = ks ? 1 : p->splits, cols = ks ? w4a16::kSlicedCols : 32 * p->warps;
  GemmArgs a = {};
  set_call_args(a, p, bias, residual, act, outs, M);
  a.x = x;  // v3 reads x through its tensor map instead
  a.perm = perm;
  a.splits = splits;
#ifdef W4A16_TIMELINE
  a.timeline = next_timeline_region();
#endif

  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)splits, (unsigned)((p->Npad + cols - 1) / cols), (unsigned)((M + 63) / 64));
  cfg.blockDim = dim3((unsigned)k.threads);
  cfg.dynamicSmemBytes = (size_t)k.smem + (perm ? x_rows_bytes(p, M) : 0);  // GATHER: x's rows behind the stages
  cfg.stream = (cudaStream_t)stream;
  cudaLaunchAttribute attrs[1];
  if (splits > 1) add_cluster(cfg, attrs, splits);
  if (ks && p->pdl) add_pdl(cfg, attrs);
  cudaError_t e = cudaLaunchKernelEx(&cfg, k.fn, a);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) return cuda_fail(e, "plan_run(cuda): kernel launch");
  return W4A16_OK;
}
