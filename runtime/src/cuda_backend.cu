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
#include "internal.h"
#include "kernels.h"
#include "timeline.cuh"

using w4a16::GemmArgs;
using w4a16::add_pdl;
using w4a16::cuda_fail;
using w4a16::env_int;
using w4a16::pdl_enabled;

// Kernel v3 configuration for one M: W warpgroups per CTA, S CTAs per tile along K, reduced on chip
// by clusters of S CTAs or (global) through the plan's workspace.
struct V3Choice {
  int W, S;
  bool global;
};

struct w4a16_cuda_plan {
  int device;
  int K, N, Npad;       // Npad = N rounded up to 64 (the v3 column block; v1 tiles divide it)
  int version;          // 3 = kernel v3 (sm_90), 1 = kernel v1
  V3Choice v3[65];      // v3: the choice for M = 1..64 (index M; larger M is chosen per call)
  bool gathers[9];      // v3: at M = 1..8 an act-order call's kernel gathers x itself (w4a16_cuda_plan_gathers)
  bool act_order;       // the plan's calls gather x's columns first (act_order_cuda.cu): choose_v3 leaves room
  int force_w, force_s;  // test overrides (W4A16_FORCE_WG / _SPLITS), 0 = none
  int force_global;      // W4A16_FORCE_GLOBAL: 1 = split-K through the workspace, 0 = clusters, -1 = none
  bool pdl;             // v3: programmatic dependent launch (W4A16_NO_PDL=1 turns it off)
  int warps;            // v1: 4 or 8 warps per CTA: 128 or 256 output columns
  int splits;           // v1: CTAs per cluster along K (1 = no split-K)
  int sms, cc_major;
  uint4 *wq;            // repacked weight, Npad*K/2 bytes
  void *scales;         // [K/128][Npad/16] TileMeta records of the form
  int form;             // kernel tables' first index (w4a16::Form)
  bool bf16;            // x, bias, residual and out are bf16 (the bf16 kernels), else f16
  bool scales_bf16;     // the scales are bf16, else f16 (independent of the io type)
  uint64_t bytes;       // wq + scales
  // Workspace split-K state (see run_v3), guarded by `mu`. The partial sums are sized by
  // w4a16_plan_reserve (at creation for M <= W4A16_DEFAULT_MAX_M); the flags and arrival counters are
  // zero between calls (the kernel restores them), so no call passes host state to the kernel.
  mutable std::mutex mu;
  mutable float *partials = nullptr;
  mutable uint64_t partial_bytes = 0;  // reserved bytes of partial sums
  mutable int64_t reserved_m = 0;      // the largest M the reservation covers
  unsigned *flags = nullptr;           // kMaxGrid slot flags, then kMaxGrid tile arrival counters
  cudaEvent_t done = nullptr;          // recorded after each eager workspace run (cross-stream order)
  mutable cudaStream_t last_stream = nullptr;
  mutable bool ran = false;
};

namespace {

using w4a16::KernelEntry;

int token_tiles(int64_t M) { return M >= 64 ? 8 : (int)((M + 7) / 8); }

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
// 4 (c % 8) + 2 (c / 8), its o 32 bytes on (both rounded to the io type once), and zi 64 bytes on
// (store_zero_point). Padding columns get s = o = 0, zi = 8.
__global__ void affine_kernel(const uint16_t *__restrict__ scales, bool scales_bf16, const __half *__restrict__ zero_points,
                              const __half *__restrict__ offsets, unsigned char *__restrict__ out, int groups, int sub,
                              int N, int Npad, bool io_bf16) {
  constexpr int kSubBytes = w4a16::TileMeta<w4a16::kAffine32>::kSubBytes;
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
    *reinterpret_cast<uint16_t *>(record + 32 + 4 * (c % 8) + 2 * (c / 8)) = round(o);
    store_zero_point(record + 64, c, (unsigned)zi, io_bf16);
  }
}

// cudaMalloc for plan creation (cuda_host.cuh's device_alloc).
w4a16_status device_alloc(void **ptr, size_t bytes, const char *what) {
  return w4a16::device_alloc(ptr, bytes, "plan_create(cuda)", what);
}

// Launch attributes, appended to cfg (attrs: room for every attribute appended, outliving the
// launch). Clusters of S CTAs along grid.x:
void add_cluster(cudaLaunchConfig_t &cfg, cudaLaunchAttribute *attrs, int S) {
  cudaLaunchAttribute &a = attrs[cfg.numAttrs++];
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = (unsigned)S;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  cfg.attrs = attrs;
}
// (Programmatic dependent launch: cuda_host.cuh's add_pdl; kernel v3 prefetches its first weights, then waits
// for the previous kernel, sm90::grid_dependency_wait.)

// v1 split-K choice: time ~ waves * (groups per CTA + a fixed cost per wave), where a wave is the
// number of CTAs the GPU holds at once. The fixed cost (pipeline fill, cluster reduction, epilogue,
// CTA launch) was fitted on the H200 (bench/RESULTS.md, 2026-11-30). Smallest cost wins, fewer splits
// on ties. Clusters are portable up to 8 CTAs.
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

// ---- process-wide, per-device caches (plans are created thousands of times in the tests) ----
std::mutex g_mu;
int g_attr_done_dev = -1;                 // device whose kernels got their shared-memory attribute
int g_occ_dev = -1;
int g_occ[2][w4a16::kForms][2][8][9];     // v3: resident CTAs per GPU for (bf16, form, W, NT, S); -1 = not asked
PFN_cuTensorMapEncodeTiled_v12000 g_encode = nullptr;

w4a16_status prepare_device(int dev) {  // call with g_mu held
  cudaError_t e;
  if (g_attr_done_dev != dev) {
    int major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    for (int t = 0; t < 2; ++t)
      for (int f = 0; f < w4a16::kForms; ++f)
        for (int w = 0; w < 2; ++w)
          for (int nt = 0; nt < 8; ++nt) {
            const KernelEntry &k1 = w4a16::v1_kernel(t == 1, f, w, nt + 1);
            if ((e = cudaFuncSetAttribute(k1.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k1.smem)) != cudaSuccess)
              return cuda_fail(e, "plan_create(cuda): cudaFuncSetAttribute(v1)");
            const w4a16::V3Entry &k3 = w4a16::v3_kernel(t == 1, f, w, nt + 1);
            if (major == 9 &&
                (e = cudaFuncSetAttribute(k3.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k3.smem)) != cudaSuccess)
              return cuda_fail(e, "plan_create(cuda): cudaFuncSetAttribute(v3)");
          }
    // The act-order kernels take x's rows and a range of perm besides their rings (gather_smem_bytes): as much
    // as a CTA may have; plan creation checks that a call's copies leave the occupancy as it is.
    int optin = 0;
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    for (int t = 0; t < 2 && major == 9; ++t)
      for (int f = 0; f < 2; ++f)
        for (int w = 0; w < 2; ++w) {
          // The limit counts the kernel's static shared memory too.
          const void *fn = (const void *)w4a16::v3_gather_kernel(t == 1, f, w).fn;
          cudaFuncAttributes a;
          if ((e = cudaFuncGetAttributes(&a, fn)) != cudaSuccess ||
              (e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        optin - (int)a.sharedSizeBytes)) != cudaSuccess)
            return cuda_fail(e, "plan_create(cuda): cudaFuncSetAttribute(v3, act-order)");
        }
    g_attr_done_dev = dev;
  }
  if (g_occ_dev != dev) {
    memset(g_occ, 0xff, sizeof g_occ);
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

// CTAs of a kernel with cluster size S that the GPU holds at once.
int capacity(void (*fn)(CUtensorMap, w4a16::sm90::Args), int threads, int smem, int S, int sms) {
  int c = 0;
  if (S == 1) {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, smem) != cudaSuccess)
      per_sm = 0, cudaGetLastError();
    c = per_sm * sms;
  } else {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)S, 1, 1);
    cfg.blockDim = dim3((unsigned)threads);
    cfg.dynamicSmemBytes = (size_t)smem;
    cudaLaunchAttribute attrs[1];
    add_cluster(cfg, attrs, S);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, (const void *)fn, &cfg) != cudaSuccess)
      clusters = 0, cudaGetLastError();
    c = clusters * S;
  }
  return c;
}

// CTAs of v3 kernel (io type, form, W index wi, NT) with cluster size S that the GPU holds at once (call
// with g_mu held: the answers are cached per device).
int v3_capacity(bool bf16, int form, int wi, int nt, int S, int sms) {
  int &c = g_occ[bf16][form][wi][nt - 1][S];
  if (c < 0) {
    const w4a16::V3Entry &k = w4a16::v3_kernel(bf16, form, wi, nt);
    c = capacity(k.fn, k.threads, k.smem, S, sms);
  }
  return c;
}

// Workspace split-K flags and arrival counters per plan (one per partial-sum slot and per tile; the
// grid never exceeds this).
using w4a16::sm90::kMaxGrid;
constexpr size_t kFlagBytes = 2 * kMaxGrid * sizeof(unsigned);

// Bytes of split-K partial sums the memory contract (docs/contract.md §2) leaves for a call with M tokens: they
// are floating-point storage (at most 2MK + 4MN + 1 MiB besides the scales copy, whose padding
// columns count here) and workspace (at most max(8 MiB, 4MK + 8MN), less the weight padding).
uint64_t partials_allowance(const w4a16_cuda_plan *p, int64_t M) {
  const uint64_t K = (uint64_t)p->K, N = (uint64_t)p->N, pad = (uint64_t)(p->Npad - p->N), G = K / w4a16::kGroupK;
  const uint64_t fp = 2 * M * K + 4 * M * N + (1u << 20), fp_used = G * pad * 2;
  const uint64_t ws = std::max<uint64_t>(8u << 20, 4 * M * K + 8 * M * N);
  const uint64_t ws_used = pad * K / 2 + fp_used + kFlagBytes;
  const uint64_t a = fp > fp_used ? fp - fp_used : 0, b = ws > ws_used ? ws - ws_used : 0;
  return std::min(a, b);
}
// One partial-sum slot: up to 64 tokens x W*64 columns of f32.
uint64_t slot_bytes(int64_t M, int W) { return (uint64_t)std::min<int64_t>(M, 64) * W * 64 * 4; }
// Tiles of v3 with CTA width W: 64-token chunks x column tiles of W blocks.
long long v3_tiles(const w4a16_cuda_plan *p, int64_t M, int W) {
  return (long long)(p->Npad / 64 + W - 1) / W * ((M + 63) / 64);
}
// Workspace bytes of configuration c: S-1 slots per tile.
uint64_t split_bytes(const w4a16_cuda_plan *p, const V3Choice &c, int64_t M) {
  return c.global ? (uint64_t)v3_tiles(p, M, c.W) * (c.S - 1) * slot_bytes(M, c.W) : 0;
}

// From 32 tokens per CTA this kernel runs the H200 into its power cap (clocks drop from 1980 to
// ~1800 MHz and below), and more SMs stop paying off: 8192x28672 took the same time on 112, 128 and
// 132 CTAs, 28672x8192 gained 12 %, not 33 %, from 96 to 128 (bench/RESULTS.md, 2026-11-30 session
// 3). The model caps the SMs that count there. With up to 16 tokens every SM counts: 8192x8192 at
// M = 1 took 12.7 us on 128 SMs against 14.4 on 96 (session 6).
constexpr double kPowerCappedSms = 108;
double counted_sms(int sms, int T) {
  const double capped = std::min<double>(sms, kPowerCappedSms);
  return T <= 16 ? sms : T >= 32 ? capped : sms + (capped - sms) * (T - 16) / 16.0;
}

// v3 configuration for M tokens (T = 8*nt per CTA, 64-token chunks beyond): W = 4 warpgroups per CTA
// (one CTA per SM) or W = 2 (two per SM), S CTAs per tile along K, reduced by S-CTA clusters or,
// when those would not all fit at once (4-CTA clusters of one CTA per SM fill only 120 of the H200's
// 132 SMs), through the plan's workspace if the memory contract leaves room for it. Estimated time,
// in block-groups (64 columns x 128 k): those the busiest SM streams, scaled up when the SM holds
// fewer warps than its loop needs to hide its latencies (16, or 8 from 48 tokens, where each wgmma
// is larger), or all of them over the SMs that count (counted_sms) if that is more; scaled by the x
// tile each CTA re-reads from L2 (a quarter of an HBM byte per byte); plus a fixed cost per wave of
// CTAs (fill, epilogue) and per split (the reduction). With W = 4 a cluster's reduction costs more
// than the workspace's at small T (its CTAs wait for each other twice, with nothing else on their
// SMs; the workspace's lower splits publish and leave) and less at large T, where the workspace's
// partial sums (T x 64W floats per split) grow; with W = 2 clusters are cheap. Fitted to session 6's configuration sweeps
// (bench/results/2026-11-30-s6-timeline: 8192x8192, W = 4, 3 splits, workspace vs cluster: -1.5 us
// at M = 1, -1.2 at M = 32, +0.7 at M = 64; 14336x4096 at M = 16-32: W = 2 with 7-CTA clusters
// 0.7-1.6 us faster than any W = 4 configuration). A second wave (a tail that the first wave's SMs wait for) is
// taken only when nothing fits in one. Ties go to W = 4 and fewer splits. Clusters only where the workspace
// cannot take a split, and for act-order calls that gather x first (below).
V3Choice choose_v3(const w4a16_cuda_plan *p, int64_t M) {
  const int nt = token_tiles(M), T = nt * 8, G = p->K / w4a16::kGroupK, sms = p->sms;
  V3Choice best = {4, 1, false};
  double best_cost = -1;
  // An act-order call of 8 to 64 tokens first gathers x in M CTAs of 1024 threads (act_order_cuda.cu,
  // gather_rows_kernel), launched early (PDL): they hold M SMs while this call's CTAs arrive, one CTA of this
  // kernel fewer on each. A cluster needs all its CTAs placed at once, so its capacity drops by M; with that,
  // clusters beat the workspace there (H200 sweep of every configuration, bench/RESULTS.md session 18: the
  // best act-order configuration was a cluster on 10 of 12 rows at M = 16 and 32; 7-CTA clusters that fill
  // the GPU without the gather ran 35-60 % slower than 6-CTA ones at M = 32 on N = 4096).
  const bool gathered_before = p->act_order && M >= 8 && M <= 64;
  for (int wi = 1; wi >= 0; --wi) {
    const w4a16::V3Entry &k = w4a16::v3_kernel(p->bf16, p->form, wi, nt);
    if (p->force_w && p->force_w != k.W) continue;
    const long long tiles = v3_tiles(p, M, k.W);
    for (int S = 1; S <= 8 && S <= G; ++S) {
      if (p->force_s && p->force_s != S) continue;
      // Clusters only where the workspace cannot take the split: in a model, where each call follows other
      // kernels, an S-CTA cluster starts only once S SMs of one GPC are free at once, and its CTAs started up
      // to 8-11 us after the call's first ones (timeline of the LLaMA-7B layer, bench/RESULTS.md session 15:
      // the layer 72.3 -> 67.1 us at M = 16 with this rule). Forbidding clusters altogether was faster still in
      // the layer (60.8 us) but 5-23 % slower in back-to-back calls of N = 4096 shapes at M = 16-32.
      const bool workspace_fits = S > 1 && tiles * S <= kMaxGrid &&
                                  split_bytes(p, V3Choice{k.W, S, true}, M) <= partials_allowance(p, M);
      for (int global = 0; global <= (S > 1); ++global) {
        if (S > 1 && p->force_global >= 0 && p->force_global != global) continue;
        if (S > 1 && p->force_global < 0 && !global && workspace_fits && !gathered_before) continue;
        const V3Choice c = {k.W, S, global != 0};
        if (global && !workspace_fits) continue;
        int cap = v3_capacity(p->bf16, p->form, wi, nt, global ? 1 : S, sms);
        if (gathered_before && S > 1 && !global) cap -= (int)M;
        if (cap <= 0) continue;
        const long long ctas = tiles * S, waves = (ctas + cap - 1) / cap;
        const long long resident = (cap + sms - 1) / sms;  // CTAs one SM holds at once
        const long long per_sm = ctas <= cap ? (ctas + sms - 1) / sms : waves * resident;  // the busiest SM's
        const double warps = (double)(per_sm < resident ? per_sm : resident) * 4 * k.W;   // ... at once
        const double needed = T >= 48 ? 8 : 16;
        const double eff = warps >= needed ? 1.0 : warps / needed;
        const double work = std::max((double)per_sm * k.W * ((G + S - 1) / S) / eff,
                                     (double)tiles * k.W * G / counted_sms(sms, T));
        const double per_split = global ? 0.5 + 0.02 * T * k.W : k.W == 4 ? 5.0 : 0.5;  // workspace: by slot size
        const double cost = work * (1.0 + 0.25 * T / (16.0 * k.W)) + 8.0 * (double)waves + per_split * S +
                            (waves > 1 ? 1e6 : 0.0);  // one wave if at all possible
        if (best_cost < 0 || cost < best_cost - 1e-9) best = c, best_cost = cost;
      }
    }
  }
  return best;
}

// Shared memory a gathering kernel (gemm_v3.cuh, GATHER) takes beyond its rings at M tokens: the largest range of
// perm a split reads (whole groups of 128 int32) and x's M rows.
size_t gather_smem_bytes(const w4a16_cuda_plan *p, V3Choice c, int64_t M) {
  const int G = p->K / w4a16::kGroupK;
  return (size_t)((G + c.S - 1) / c.S) * w4a16::kGroupK * 4 + (size_t)M * p->K * 2;
}

// Whether an act-order call at M <= 8 tokens (one token tile) runs the gathering kernel: the exact forms, and
// only where its copies leave as many CTAs per SM as the plain kernel of the same configuration gets (x's rows
// take 2K bytes per token: at M = 1 that is K <= ~24000 for W = 2, ~33000 for W = 4 on the H200).
bool gather_fits(const w4a16_cuda_plan *p, int64_t M) {
  if (p->version != 3 || w4a16::is_affine(p->form) || M < 1 || M > 8) return false;
  const V3Choice c = p->v3[M];
  const int wi = c.W == 4 ? 1 : 0;
  const w4a16::V3Entry &plain = w4a16::v3_kernel(p->bf16, p->form, wi, 1), &g = w4a16::v3_gather_kernel(p->bf16, p->form, wi);
  int plain_per_sm = 0, gather_per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plain_per_sm, plain.fn, plain.threads, plain.smem) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&gather_per_sm, g.fn, g.threads,
                                                    g.smem + (int)gather_smem_bytes(p, c, M)) != cudaSuccess) {
    cudaGetLastError();  // too large for a CTA: the gather launch instead
    return false;
  }
  return gather_per_sm >= 1 && gather_per_sm >= plain_per_sm;
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
    // shapes (bench/RESULTS.md, 2026-11-30). W4A16_FORCE_KERNEL=v1 runs v1 there too; the tests also
    // force the split count (W4A16_FORCE_SPLITS) and the v3 CTA width (W4A16_FORCE_WG).
    const char *fk = getenv("W4A16_FORCE_KERNEL");
    p->version = prop.major != 9 || (fk && !strcmp(fk, "v1")) ? 1 : 3;
    const int force_s = env_int("W4A16_FORCE_SPLITS", 0), force_w = env_int("W4A16_FORCE_WG", 0);
    const int force_global = env_int("W4A16_FORCE_GLOBAL", -1);
    if (force_s >= 1 && force_s <= 8 && force_s <= G && prop.major >= 9) p->splits = force_s;  // tests
    if (p->version == 3) {
      // v3 can also be forced to reduce splits through the workspace (W4A16_FORCE_GLOBAL=1).
      p->force_w = force_w == 2 || force_w == 4 ? force_w : 0;
      p->force_s = force_s >= 1 && force_s <= 8 && force_s <= G ? force_s : 0;
      p->force_global = force_global == 0 || force_global == 1 ? force_global : -1;
      p->pdl = pdl_enabled(prop.major);
      for (int M = 1; M <= 64; ++M) p->v3[M] = choose_v3(p, M);
      for (int M = 1; M <= 8; ++M) p->gathers[M] = gather_fits(p, M);
      // Split-K flags and arrival counters start at zero; the kernel leaves them so.
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

// Sizes the partial sums for every M up to max_m (call with p->mu held; no call of the plan may be in
// flight). Within one count of 64-token chunks the largest M needs the most (its allowance admits the
// most configurations), so M = 1..64 and then each chunk count's largest M cover every M; beyond
// kMaxGrid tiles no configuration goes through the workspace.
w4a16_status reserve_locked(const w4a16_cuda_plan *p, int64_t max_m) {
  uint64_t need = 0;
  for (int64_t M = 1; M <= max_m; M = M < 64 ? M + 1 : std::min<int64_t>((M / 64 + 1) * 64, max_m)) {
    need = std::max(need, split_bytes(p, v3_choice(p, M), M));
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
  return p && p->version == 3 && M >= 1 ? split_bytes(p, v3_choice(p, M), M) : 0;
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
// The device buffer v3 calls stamp their phases into (runtime/src/timeline.cuh); null: none. Instrumented builds
// only: the layer benchmark's --timeline sets it around one graph replay.
// Each launch gets the next of timeline::kLaunches regions of timeline::kCtas records.
static unsigned long long *g_timeline;
static unsigned g_timeline_launch;
extern "C" void w4a16_debug_set_timeline(unsigned long long *device_buffer) {
  g_timeline = device_buffer;
  g_timeline_launch = 0;
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
// where w4a16_cuda_plan_gathers says so) the kernel gathers x's columns perm[i] itself; the configuration is
// the plain one's.
w4a16_status run_v3(const w4a16_cuda_plan *p, const uint16_t *x, const int32_t *perm, int64_t M,
                    const uint16_t *bias, const uint16_t *residual, w4a16_activation act, const w4a16_outputs *outs,
                    cudaStream_t stream) {
  const int nt = token_tiles(M);
  const V3Choice c = v3_choice(p, M);
  const int wi = c.W == 4 ? 1 : 0;
  const w4a16::V3Entry &k = perm ? w4a16::v3_gather_kernel(p->bf16, p->form, wi) : w4a16::v3_kernel(p->bf16, p->form, wi, nt);
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
    cfg.dynamicSmemBytes += gather_smem_bytes(p, c, M);
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
#ifdef W4A16_TIMELINE
  if (g_timeline)
    a.timeline = g_timeline + (size_t)(g_timeline_launch++ % w4a16::timeline::kLaunches) * w4a16::timeline::kCtas *
                                  w4a16::timeline::kWords;
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
  return M >= 1 && M <= 8 && p->gathers[M];
}

extern "C" w4a16_status w4a16_cuda_plan_launch_gathering(const w4a16_cuda_plan *p, const uint16_t *x,
                                                         const int32_t *perm, int64_t M, const uint16_t *bias,
                                                         const uint16_t *residual, w4a16_activation act,
                                                         const w4a16_outputs *outs, void *stream) {
  if (!w4a16_cuda_plan_gathers(p, M))
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run(cuda): no gathering kernel for this plan at M = %lld", (long long)M);
  return run_v3(p, x, perm, M, bias, residual, act, outs, (cudaStream_t)stream);
}

extern "C" w4a16_status w4a16_cuda_plan_launch(const w4a16_cuda_plan *p, const uint16_t *x, int64_t M,
                                               const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                                               const w4a16_outputs *outs, void *stream) {
  if (p->version == 3) return run_v3(p, x, nullptr, M, bias, residual, act, outs, (cudaStream_t)stream);
  const KernelEntry &k = kernel_for(p, M);
  GemmArgs a = {};
  set_call_args(a, p, bias, residual, act, outs, M);
  a.x = x;  // v3 reads x through its tensor map instead
  a.splits = p->splits;

  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)p->splits, (unsigned)((p->Npad / 16 + p->warps * 2 - 1) / (p->warps * 2)),
                     (unsigned)((M + 63) / 64));
  cfg.blockDim = dim3((unsigned)k.threads);
  cfg.dynamicSmemBytes = (size_t)k.smem;
  cfg.stream = (cudaStream_t)stream;
  cudaLaunchAttribute attrs[1];
  if (p->splits > 1) add_cluster(cfg, attrs, p->splits);
  cudaError_t e = cudaLaunchKernelEx(&cfg, k.fn, a);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) return cuda_fail(e, "plan_run(cuda): kernel launch");
  return W4A16_OK;
}
