// W4A16 fused GEMM, kernel v2 (issue #5): sm_90a, wgmma with the dequantised weight as the register
// operand, a TMA / bulk-copy pipeline fed by thread 0, and the v1 cluster split-K epilogue.
//
// out[m,n] = act(sum_k x[m,k] * (code[k,n]-8) * scale[k/128,n] + bias[n]) + residual[m,n]
//
// Why (bench/RESULTS.md has the numbers): at M = 32 the tensor work is 7.5 GFMA for 8192x28672, which
// the legacy mma.sync path (~half of Hopper's dense f16 rate) cannot finish in the 27 us the weight
// stream takes; wgmma.m64nNk16 can. Swap AB as in v1: A = 64 output columns x 16 k of dequantised
// weight in registers, B = x^T (16 k x N tokens, N = M rounded up to 8) from shared memory.
//
//  * CTA = W warpgroups (64 output columns each, C = 64W columns); thread 0 also issues the copies.
//  * One pipeline stage = one 128-k group: the x tile (T tokens x 128 k, two TMA boxes of 64 k with
//    the 128-byte swizzle wgmma reads), the weights of the CTA's W 64-column blocks (4 KB each, in
//    the order the A fragments are consumed; the repack is group-major, so they are one contiguous
//    bulk copy), and the group's C scales (one bulk copy). Group-major matters: all CTAs walk K at the
//    same pace, so at any moment they read one contiguous region of the weight. With block-major
//    storage (the first v2 layout) their streams were G * 4 KB apart and camped on a few DRAM
//    channels: ~1.2 TB/s whatever the pipeline depth (bench/RESULTS.md). Stages complete on an
//    mbarrier (transaction bytes); consumers release a stage with one arrive per warp.
//  * Consumer warp w of warpgroup v owns 16 output columns; per group it reads two 16-byte vectors
//    (8 words = 8 k-steps of A fragments), dequantises with the v1 magic-number trick, and issues two
//    batches of four wgmma into fresh f32 registers p (the first with scale-d = 0), then applies the
//    group's scale once per accumulator: acc = fma(p, scale, acc). No dequantised weight is rounded.
//  * Split-K across a thread-block cluster and the epilogue are v1's: partials to shared memory,
//    cluster barrier, CTA r reduces slice r of the tile over ranks 0..S-1 in fixed order.
#pragma once

#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "gemm_kernel.cuh"
#include "wgmma_rs.cuh"

namespace w4a16 {
namespace v2 {

constexpr int kBlockCols = 64;       // output columns per warpgroup (wgmma M)
constexpr int kBlockBytes = 4096;    // one 64-column block of one 128-k group: 64 * 128 / 2

struct Args {
  const unsigned char *wq;  // repack: [K/128 groups][Npad/64 blocks][4 tiles][2 chunks][32 lanes] x 16 B
  const __half *scales;     // [K/128][Npad], padded columns hold 0
  const __half *bias;       // [N] or null
  const __half *residual;   // [M][N] or null
  __half *out;              // [M][N]
  int M, K, N, Npad, splits, act, stages, l2hint;
};

// Accumulation schedule. A single chain of 8 dependent wgmma per group (one accumulator) is latency
// bound on the H200: v2's first measurement took ~2600 cycles per group whatever the token count
// (bench/RESULTS.md). So each warpgroup runs several independent chains per group: the 8 k-steps
// are dealt round-robin to CK accumulator sets, and the T tokens are cut into TC chunks of TN tokens
// (one wgmma m64nTNk16 per chunk), giving CK * TC chains; the CK partial sums are added in fixed
// order before the scale is applied. CK is as large as the registers allow (128 per thread).
//   SCHED 0: TN = T, CK = 1 (one chain: the first v2 schedule)
//   SCHED 1: TN = 8 (a wgmma per 8-token tile), CK max
//   SCHED 2: TN = the largest of 32, 16, 8 dividing T, CK max
__host__ __device__ constexpr int sched_ck(int T, int sched) {
  return sched == 0 ? 1 : ((8 + 1) * (T / 2) <= 63 ? 8 : (4 + 1) * (T / 2) <= 63 ? 4 : (2 + 1) * (T / 2) <= 63 ? 2 : 1);
}
__host__ __device__ constexpr int sched_tn(int T, int sched) {
  return sched == 0 ? T : sched == 1 ? 8 : T % 32 == 0 ? 32 : T % 16 == 0 ? 16 : 8;
}

template <int NT, int W> struct Cfg {
  static constexpr int kTok = NT * 8;                  // tokens per CTA (wgmma N)
  static constexpr int kThreads = W * 128;             // thread 0 doubles as the producer
  static constexpr int kCols = W * kBlockCols;
  static constexpr int kXHalf = kTok * 128;            // one 64-k TMA box: kTok rows x 128 B
  static constexpr int kXBytes = 2 * kXHalf;
  static constexpr int kWBytes = W * kBlockBytes;
  static constexpr int kSBytes = W * kBlockCols * 2;
  static constexpr int kStageBytes = (kXBytes + kWBytes + kSBytes + 1023) / 1024 * 1024;  // swizzle atoms
  static constexpr int kRedStride = kCols + 4;         // f32 partials row; +4 spreads tokens over banks
  static constexpr int kRedBytes = kTok * kRedStride * 4;
  static constexpr int kMaxStages = 8;
  // Shared memory for the pipeline: ~200 KB for one CTA per SM (W = 4), ~100 KB for two (W = 2),
  // ~70 KB for three (W = 1), so that every SM keeps ~100-200 KB of loads in flight.
  static constexpr int kBudget = W == 4 ? 200 * 1024 : W == 2 ? 100 * 1024 : 70 * 1024;
  static constexpr int kStagesA = kBudget / kStageBytes;
  static constexpr int kStages = kStagesA > kMaxStages ? kMaxStages : (kStagesA < 2 ? 2 : kStagesA);
  static constexpr int smem_bytes(int stages) {
    return (stages * kStageBytes > kRedBytes ? stages * kStageBytes : kRedBytes) + 1024;  // + alignment
  }
  static constexpr int kMinBlocks = W == 4 ? 1 : W == 2 ? 2 : 3;  // 16, 16, 12 warps per SM: 128 registers
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
// 1-D bulk copy global -> own shared memory, completing `bytes` on the mbarrier. With evict_first the
// weight stream does not push x and the scales out of L2. The policy is CUTLASS's constant for
// EVICT_FIRST (no createpolicy instruction: NOTES.md records CUDA 13 ptxas dropping one).
__device__ __forceinline__ void bulk_g2s(uint32_t dst, const void *src, uint32_t bytes, uint32_t bar, bool evict_first) {
  if (evict_first)
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;\n" ::"r"(
            dst),
        "l"(src), "r"(bytes), "r"(bar), "l"(0x12F0000000000000ull)
        : "memory");
  else
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
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving reads of wgmma-written registers above the wait (CUTLASS's
// warpgroup_fence_operand).
__device__ __forceinline__ void fence_operand(float &r) { asm volatile("" : "+f"(r)::"memory"); }

// Matrix descriptor of a K-major B tile with the 128-byte swizzle (what the TMA box writes): rows of
// 128 B (64 k), 8-row atoms 1024 B apart (stride byte offset), leading byte offset unused (1).
// Advancing 16 k inside the atom adds 32 B to the start address.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62);
}

// Instrumentation points for bench/probes (v2_probe.cu): the runtime's kernels use NoProbe, whose
// hooks compile to nothing. A probe records clock stamps at these events and can switch off one
// side of the pipeline to time the other alone.
enum ProbeEvent { kCtaStart, kLoopEnd, kCtaEnd, kProduceBegin, kProduceIssued, kWaitBegin, kWaitEnd, kComputeEnd };
struct NoProbe {
  static constexpr bool kSkipCompute = false;  // consumers only wait and release: the memory side alone
  static constexpr bool kFillOnce = false;     // each stage filled once, then reused: the compute side alone
  __device__ static void at(ProbeEvent, int) {}
};

template <int NT, int W, int SCHED, class Probe = NoProbe>
__global__ void __launch_bounds__(Cfg<NT, W>::kThreads, Cfg<NT, W>::kMinBlocks)
    gemm_v2_kernel(const __grid_constant__ CUtensorMap xmap, const Args args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using C = Cfg<NT, W>;
  constexpr int T = C::kTok, ND = T / 2;
  constexpr int CK = sched_ck(T, SCHED), TN = sched_tn(T, SCHED), TC = T / TN, NDC = TN / 2;
  // Prefetch the next stage's weights and scales (10 registers) while the wgmma run, if they fit.
  constexpr bool kPrefetch = (CK + 1) * ND + 32 + 10 <= 100;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[C::kMaxStages], empty_bar[C::kMaxStages];
  // 1024-byte aligned base for the swizzled x tiles. Offsetting the __shared__ array (rather than
  // rounding a generic pointer) keeps the address space visible: the reads below compile to LDS.
  unsigned char *smem = smem_raw + ((1024u - (smem_u32(smem_raw) & 1023u)) & 1023u);

  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  Probe::at(kCtaStart, 0);
  const int split = blockIdx.x, splits = args.splits, stages = args.stages;
  const int nblocks = args.Npad / kBlockCols;
  const int cb0 = blockIdx.y * W;                        // first 64-column block of this CTA
  const int nvalid = min(W, nblocks - cb0);              // blocks of this CTA inside Npad
  const int m0 = blockIdx.z * kMaxRows;
  const int rows = min(T, args.M - m0);
  const int G = args.K >> 7;
  const int g_begin = (int)((long long)split * G / splits);
  const int ng = (int)((long long)(split + 1) * G / splits) - g_begin;

  if (tid == 0) {
    for (int s = 0; s < stages; ++s) {
      mbar_init(smem_u32(&full_bar[s]), 1);           // the producer's arrive.expect_tx
      mbar_init(smem_u32(&empty_bar[s]), W * 4);      // one arrive per warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  // Producer: thread 0 fills iteration j (group g_begin + j) into stage j % stages once every warp has
  // released that stage's previous use. It runs inside warp 0 (a separate producer warp would make
  // 17 or 9 warps per CTA, which caps registers at 96 per thread: 5 warps per SM sub-partition).
  const bool hint = args.l2hint != 0;
  auto produce = [&](int j) {
    const int s = j % stages, n = j / stages, g = g_begin + j;
    if (Probe::kFillOnce && n > 0) return;
    Probe::at(kProduceBegin, j);
    if (n > 0) mbar_wait(smem_u32(&empty_bar[s]), (n - 1) & 1);
    const uint32_t fb = smem_u32(&full_bar[s]);
    const uint32_t sb = smem_u32(smem + s * C::kStageBytes);
    mbar_expect_tx(fb, C::kXBytes + nvalid * (kBlockBytes + kBlockCols * 2));
    tma_2d(sb, &xmap, g * 128, m0, fb);
    tma_2d(sb + C::kXHalf, &xmap, g * 128 + 64, m0, fb);
    bulk_g2s(sb + C::kXBytes, args.wq + ((size_t)g * nblocks + cb0) * kBlockBytes, nvalid * kBlockBytes, fb, hint);
    bulk_g2s(sb + C::kXBytes + C::kWBytes, args.scales + (size_t)g * args.Npad + (size_t)cb0 * kBlockCols,
             nvalid * kBlockCols * 2, fb, false);
    Probe::at(kProduceIssued, j);
  };
  if (tid == 0)
    for (int j = 0; j < stages - 1 && j < ng; ++j) produce(j);

  float acc[ND];
#pragma unroll
  for (int j = 0; j < ND; ++j) acc[j] = 0.f;
  {
    const int wg = warp >> 2, wq = warp & 3;
    const bool active = wg < nvalid;  // uniform over the warpgroup
    const int g8 = lane >> 2;
    const int woff = C::kXBytes + wg * kBlockBytes + wq * 1024 + lane * 16;          // this lane's A words
    const int soff = C::kXBytes + C::kWBytes + (wg * kBlockCols + wq * 16 + g8) * 2;  // its two scales
    float p[CK][TC][NDC];
#pragma unroll
    for (int c = 0; c < CK; ++c)
#pragma unroll
      for (int t = 0; t < TC; ++t)
#pragma unroll
        for (int j = 0; j < NDC; ++j) p[c][t][j] = 0.f;
    uint4 w0 = make_uint4(0, 0, 0, 0), w1 = w0;
    __half2 sc = __floats2half2_rn(0.f, 0.f);
    auto load_words = [&](int stage) {
      const unsigned char *sb = smem + stage * C::kStageBytes;
      w0 = *reinterpret_cast<const uint4 *>(sb + woff);
      w1 = *reinterpret_cast<const uint4 *>(sb + woff + 512);
      sc = __halves2half2(*reinterpret_cast<const __half *>(sb + soff), *reinterpret_cast<const __half *>(sb + soff + 16));
    };
    int st = 0;
    uint32_t ph = 0;
    bool have = false;  // w0/w1/sc already hold this iteration's words (prefetched)
    for (int i = 0; i < ng; ++i) {
      // Refill the stage released in iteration i-1 (all warps finished with it, or about to).
      if (tid == 0 && i + stages - 1 < ng) produce(i + stages - 1);
      __syncwarp();
      Probe::at(kWaitBegin, i);
      if (!have && !(Probe::kFillOnce && i >= stages)) mbar_wait(smem_u32(&full_bar[st]), ph);
      Probe::at(kWaitEnd, i);
      const int nst = st + 1 == stages ? 0 : st + 1;
      const uint32_t nph = st + 1 == stages ? ph ^ 1 : ph;
      if (active && !Probe::kSkipCompute) {
        if (!have) load_words(st);
        const float s0 = __low2float(sc), s1 = __high2float(sc);
        // Descriptor of this stage's x tile; k-step kk of half h and token chunk t add constants.
        const uint64_t d0 = desc_sw128(smem_u32(smem + st * C::kStageBytes));
        uint32_t a[8][4];
        dequant8(w0.x, a[0]);
        dequant8(w0.y, a[1]);
        dequant8(w0.z, a[2]);
        dequant8(w0.w, a[3]);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
#pragma unroll
          for (int t = 0; t < TC; ++t) {
            const uint64_t d = d0 + (uint64_t)((kk * 32 + t * TN * 128) >> 4);
            if (kk < CK) WgmmaRS<TN, 0>::run(p[kk % CK][t], a[kk], d);
            else WgmmaRS<TN, 1>::run(p[kk % CK][t], a[kk], d);
          }
        wgmma_commit();
        dequant8(w1.x, a[4]);
        dequant8(w1.y, a[5]);
        dequant8(w1.z, a[6]);
        dequant8(w1.w, a[7]);
        wgmma_fence();
#pragma unroll
        for (int kk = 4; kk < 8; ++kk)
#pragma unroll
          for (int t = 0; t < TC; ++t) {
            const uint64_t d = d0 + (uint64_t)((C::kXHalf + (kk - 4) * 32 + t * TN * 128) >> 4);
            if (kk < CK) WgmmaRS<TN, 0>::run(p[kk % CK][t], a[kk], d);
            else WgmmaRS<TN, 1>::run(p[kk % CK][t], a[kk], d);
          }
        wgmma_commit();
        have = false;
        if (kPrefetch && i + 1 < ng) {  // next stage's words while the wgmma run
          if (!(Probe::kFillOnce && i + 1 >= stages)) mbar_wait(smem_u32(&full_bar[nst]), nph);
          load_words(nst);
          have = true;
        }
        wgmma_wait<0>();
#pragma unroll
        for (int c = 0; c < CK; ++c)
#pragma unroll
          for (int t = 0; t < TC; ++t)
#pragma unroll
            for (int j = 0; j < NDC; ++j) fence_operand(p[c][t][j]);
        __syncwarp();
        Probe::at(kComputeEnd, i);
        if (lane == 0) mbar_arrive(smem_u32(&empty_bar[st]));
        // D fragment (full T): d[4i+e] is (row g8 + 8*(e>>1), token 8i + 2t + (e&1)); rows are output
        // columns. Chunk t holds d[t*NDC .. t*NDC + NDC).
#pragma unroll
        for (int t = 0; t < TC; ++t)
#pragma unroll
          for (int j = 0; j < NDC; ++j) {
            float q = p[0][t][j];
#pragma unroll
            for (int c = 1; c < CK; ++c) q += p[c][t][j];  // fixed order
            acc[t * NDC + j] = fmaf(q, (j & 2) ? s1 : s0, acc[t * NDC + j]);
          }
      } else {
        have = false;
        __syncwarp();
        if (lane == 0) mbar_arrive(smem_u32(&empty_bar[st]));
      }
      st = nst, ph = nph;
    }
  }
  Probe::at(kLoopEnd, 0);
  __syncthreads();  // every stage consumed (so every copy landed): the buffers become the partials

  float *red = reinterpret_cast<float *>(smem);
  {
    const int wg = warp >> 2, wq = warp & 3, g8 = lane >> 2, tq = (lane & 3) * 2;
#pragma unroll
    for (int j = 0; j < ND; ++j) {
      const int col = wg * kBlockCols + wq * 16 + g8 + 8 * ((j >> 1) & 1);
      const int tok = 8 * (j >> 2) + tq + (j & 1);
      red[tok * C::kRedStride + col] = acc[j];
    }
  }

  namespace cg = cooperative_groups;
  if (splits > 1) cg::this_cluster().sync(); else __syncthreads();

  reduce_and_store<C::kCols, C::kRedStride, C::kThreads>(red, split, splits, rows, cb0 * kBlockCols, m0, args.N,
                                                        args.bias, args.residual, args.out, args.act);
  Probe::at(kCtaEnd, 0);
#else
  __trap();  // built only for sm_90a; the host never launches it elsewhere
#endif
}

}  // namespace v2
}  // namespace w4a16
