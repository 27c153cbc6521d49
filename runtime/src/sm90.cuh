// Hopper (sm_90a) building blocks of kernel v3, also built into the probes in bench/probes: the kernel
// arguments, mbarriers, TMA copies, wgmma fences and the shared-memory matrix descriptor of the
// 128-byte-swizzled x tile.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "common.cuh"  // Outputs

namespace w4a16 {
namespace sm90 {

constexpr int kBlockCols = 64;       // output columns per warpgroup (wgmma M)
constexpr int kBlockBytes = 4096;    // one 64-column block of one 128-k group: 64 * 128 / 2
// Split-K through the workspace: at most this many CTAs; Args::flags holds as many slot flags, then the call's
// ticket counter.
constexpr int kMaxGrid = 1024;

// What an act-order kernel (gemm_v3.cuh, GATHER) reads instead of x's tensor map, passed in the map's 128-byte
// parameter slot so that Args, which every kernel's launch copies, does not grow: x itself, [M][K] in the caller's
// column order, and the plan's permutation (gathered column i is x's column perm[i]).
struct GatherParams {
  const uint16_t *x;
  const int32_t *perm;
};

struct Args {
  const unsigned char *wq;  // repack: [K/128 groups][Npad/64 blocks][4 tiles][2 chunks][32 lanes] x 16 B
  const void *scales;       // [K/128][Npad/16] TileMeta records (scales, zero points); padded columns' scale 0
  const uint16_t *bias;     // [N] or null; bias, residual, out (and x) in the kernel's io type
  const uint16_t *residual; // [M][N] or null
  Outputs out;              // where the (M, N) result goes (common.cuh)
  int M, K, N, Npad, act;
  int scales_bf16;          // the records' scales are bf16 (else f16)
  const uint16_t *x;        // x itself, [M][K] (the affine form's sums of x; the mma reads x through the tensor map)
  // Split-K through the plan's workspace (gemm_v3.cuh finish_split; null partials: clusters). Zero
  // between calls: each call's last CTA of a tile resets what the tile used. The splits per tile come from
  // the grid, and everything else the exchange needs from M and the kernel's shape: what can be derived is not
  // a parameter (common.cuh, Outputs: why the block is kept small).
  float *partials;          // slot tile*(S-1) + s: partial sums of the tile's split s < S-1, min(M, 64)
                            // tokens x the CTA's columns each
  unsigned *flags;          // per slot: 0, or 1 + the split whose partial sums it holds; then, at
                            // flags + kMaxGrid, the call's ticket counter (CTAs that have started)
#ifdef W4A16_TIMELINE
  unsigned long long *timeline;  // instrumented builds only (timeline.cuh): where each CTA's time goes
#endif
};

__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}
// 1-D bulk copy global -> own shared memory, completing `bytes` on the mbarrier (v3 stages the
// epilogue's residual rows and bias with it).
__device__ __forceinline__ void bulk_g2s(uint32_t dst, const void *src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
__device__ __forceinline__ void tma_2d(uint32_t dst, const CUtensorMap *map, int c0, int c1, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
// Fetch a 2-D TMA box into L2 only (no shared memory, no barrier).
__device__ __forceinline__ void tma_prefetch_2d(const CUtensorMap *map, int c0, int c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];\n" ::"l"(reinterpret_cast<uint64_t>(map)),
               "r"(c0), "r"(c1)
               : "memory");
}
// Orders this thread's earlier generic-proxy writes to shared memory before later async-proxy reads of it
// (wgmma's operand loads, TMA): needed after st.shared and before the barrier that releases the data.
__device__ __forceinline__ void fence_proxy_async_smem() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving reads of wgmma-written registers above the wait (CUTLASS's
// warpgroup_fence_operand).
__device__ __forceinline__ void fence_operand(float &r) { asm volatile("" : "+f"(r)::"memory"); }

// Programmatic dependent launch (the runtime launches v3 with programmatic stream serialization):
// the next kernel in the stream may start once every CTA of this one has called launch_dependents;
// grid_dependency_wait blocks until the previous kernel has completed and its writes are visible.
__device__ __forceinline__ void launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}
__device__ __forceinline__ void grid_dependency_wait() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }

// Flag handoff between CTAs (gpu scope): the writer's data is ordered before its release store, the
// reader's acquire load before its later reads.
__device__ __forceinline__ void store_release(unsigned *p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned load_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Matrix descriptor of a K-major B tile with the 128-byte swizzle (what the TMA box writes): rows of
// 128 B (64 k), 8-row atoms 1024 B apart (stride byte offset), leading byte offset unused (1).
// Advancing 16 k inside the atom adds 32 B to the start address.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62);
}

}  // namespace sm90
}  // namespace w4a16
