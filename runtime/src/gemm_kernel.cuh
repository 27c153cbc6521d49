// W4A16 fused GEMM, tensor-core kernel v1 (issue #3).
//
// out[m,n] = act(sum_k x[m,k] * (code[k,n]-8) * scale[k/128,n] + bias[n]) + residual[m,n]
//
// Layout of the work (see runtime/README.md for the picture):
//  * "Swap AB": mma.m16n8k16 computes C[16x8] += A[16x16] * B[16x8]. The weight is the A operand
//    (16 output columns n x 16 k) and the activations are B (16 k x 8 tokens), so a token tile is only
//    8 wide: M = 1..8 wastes at most 7/8 of a narrow operand instead of 15/16 of a 16-row tile.
//  * The weight is repacked once (repack_kernel) so that one 32-bit word per lane is exactly that
//    lane's A fragment for one mma (8 nibbles), and four consecutive k-steps of one lane sit in one
//    16-byte vector: a warp reads 512 contiguous bytes per 64 k of a 16-column tile.
//  * Scales are applied per group, not per weight: the mma sums (code-8)*x over one 128-k group into
//    fresh f32 registers p, then acc = fma(p, scale, acc). (code-8) is exact in f16, so no weight is
//    ever rounded, and it costs 4 FMAs per mma tile per group instead of a multiply per weight.
//  * A CTA owns NCOLS = 32*WARPS output columns (each warp two 16-column tiles) for one range of
//    K groups; the groups stream through a STAGES-deep cp.async pipeline (weights, the CTA's x slice,
//    the group's scales) so that many 16-byte loads are in flight per SM.
//  * Split-K without workspace: the `splits` CTAs that share a column tile form one thread-block
//    cluster (sm_90). Each leaves its partial sums in its own shared memory; after a cluster barrier
//    CTA r reduces the r-th slice of the tile by reading every peer's partials through distributed
//    shared memory, always in split order 0,1,..,S-1, so the sum is bitwise reproducible and no global
//    buffer exists that concurrent runs on other streams could share. The epilogue (bias, activation,
//    residual, the single f16 rounding) runs on those registers and stores 16 bytes per thread.
#pragma once

#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace w4a16 {

constexpr int kXStride = 136;  // halves per staged x row: 128 + 8 pad, so the 8 rows an ldmatrix
                               // reads start 272 B apart and fall on 8 distinct 4-bank groups
constexpr int kMaxRows = 64;   // tokens per CTA (grid.z walks larger M in chunks of 64)

struct GemmArgs {
  const uint4 *wq;          // repacked weight: [K/128][Npad/64][4 tiles][2 chunks][32 lanes] x 16 B (group-major, cuda_backend.cu)
  const __half *scales;     // [K/128][Npad], padded columns hold 0
  const __half *x;          // [M][K]
  const __half *bias;       // [N] or null
  const __half *residual;   // [M][N] or null
  __half *out;              // [M][N]
  int M, K, N, Npad, splits, act;
};

// Both activations as v * sigmoid(z), one MUFU.EX2 and one MUFU.RCP per element: gelu_tanh's
// 0.5 * (1 + tanh(u)) is 1 / (1 + e^(-2u)). The epilogue runs once per output element on every call's
// critical path, and with expf and an IEEE division (cpu_backend.c's expressions) silu cost 2.4 us
// per call at 32 tokens on 8192x28672 (bench/probes/timeline.cu, session 6). The error, a few f32
// ulp, is far below the f16 output's rounding. For very negative v the denominator overflows and
// __fdividef gives 0, which is also what the exact result rounds to in f16.
__device__ __forceinline__ float activation(float v, int act) {
  if (act == 1) return __fdividef(v, 1.0f + __expf(-v));
  if (act == 2) {
    const float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    return __fdividef(v, 1.0f + __expf(-2.0f * u));
  }
  return v;
}

// Where the epilogue reads bias and residual: the caller's tensors in global memory, or a copy of a
// tile's rows staged in shared memory (kernel v3). Element (token tok of the CTA's chunk, output column
// n): bias[n - col0], residual[(tok - row0) * stride + n - col0]; null pointers: no bias / residual.
struct EpilogueInputs {
  const __half *bias, *residual;
  int col0, row0;
  size_t stride;
  static __device__ __forceinline__ EpilogueInputs global(const __half *bias, const __half *residual, int m0, int N) {
    return {bias, residual, 0, -m0, (size_t)N};
  }
  __device__ __forceinline__ const __half *bias_at(int n) const { return bias ? bias + (n - col0) : nullptr; }
  __device__ __forceinline__ const __half *residual_at(int tok, int n) const {
    return residual ? residual + (size_t)(tok - row0) * stride + (n - col0) : nullptr;
  }
};

// The fused epilogue for 8 consecutive columns of one token: bias, activation and residual in f32,
// then the one rounding to f16; 16-byte loads and store. bias8 / residual8 may be null.
__device__ __forceinline__ void store8(const float (&v)[8], const __half *bias8, const __half *residual8, __half *out8,
                                       int act) {
  uint4 bias_v = make_uint4(0, 0, 0, 0), res_v = make_uint4(0, 0, 0, 0);
  if (bias8) bias_v = *reinterpret_cast<const uint4 *>(bias8);
  if (residual8) res_v = *reinterpret_cast<const uint4 *>(residual8);
  const __half *bh = reinterpret_cast<const __half *>(&bias_v);
  const __half *rh = reinterpret_cast<const __half *>(&res_v);
  uint4 o;
  __half *oh = reinterpret_cast<__half *>(&o);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    float t = v[e];
    if (bias8) t += __half2float(bh[e]);
    t = activation(t, act);
    if (residual8) t += __half2float(rh[e]);
    oh[e] = __float2half_rn(t);  // the one f16 rounding
  }
  *reinterpret_cast<uint4 *>(out8) = o;
}

// v += the 8 floats lo, hi (one 8-column item of split-K partial sums).
__device__ __forceinline__ void add8(float (&v)[8], const float4 &lo, const float4 &hi) {
  v[0] += lo.x, v[1] += lo.y, v[2] += lo.z, v[3] += lo.w;
  v[4] += hi.x, v[5] += hi.y, v[6] += hi.z, v[7] += hi.w;
}

// v += the n partial sums of one 8-column item, in order 0..n-1 (the same bits whoever reduces);
// load(q, lo, hi) fetches partial q. Four loads are in flight at once: one memory round trip per four
// splits instead of one per split, in 32 registers.
template <class Load> __device__ __forceinline__ void add_partials(float (&v)[8], int n, Load load) {
  constexpr int kLoadsAtOnce = 4;
  for (int q0 = 0; q0 < n; q0 += kLoadsAtOnce) {
    float4 lo[kLoadsAtOnce], hi[kLoadsAtOnce];
#pragma unroll
    for (int j = 0; j < kLoadsAtOnce; ++j)
      if (q0 + j < n) load(q0 + j, lo[j], hi[j]);
#pragma unroll
    for (int j = 0; j < kLoadsAtOnce; ++j)
      if (q0 + j < n) add8(v, lo[j], hi[j]);
  }
}

// The items [i0, i1) of a tile's (token, 8 columns) items that split `split` of `splits` finishes.
__device__ __forceinline__ void split_items(int split, int splits, int items, int &i0, int &i1) {
  i0 = (int)((long long)split * items / splits), i1 = (int)((long long)(split + 1) * items / splits);
}

// Split-K reduce-scatter + the fused epilogue (kernels v1 and v3). Each CTA of a cluster has left
// its partial sums for the (token, column) tile in `red` (row stride kRedStride floats); this CTA
// finishes its split_items of the tile's (token, 8 columns) items, adding the partials in split order
// 0..S-1 -- the same bits whichever CTA reduces -- then bias, activation and residual in f32 and one
// rounding to f16. Ends with a cluster barrier: peers may still be reading this CTA's shared memory.
template <int kCols, int kRedStride, int kThreads>
__device__ __forceinline__ void reduce_and_store(const float *red, int split, int splits, int rows, int col0, int m0,
                                                 int N, const EpilogueInputs &in, __half *out, int act) {
  constexpr int kGroups8 = kCols / 8;
  int i0, i1;
  split_items(split, splits, rows * kGroups8, i0, i1);
  for (int it = i0 + (int)threadIdx.x; it < i1; it += kThreads) {
    const int tok = it / kGroups8, c8 = it - tok * kGroups8;
    const int n = col0 + c8 * 8;
    if (n >= N) continue;  // N % 8 == 0, so an 8-column item is all in or all out
    const int off = tok * kRedStride + c8 * 8;
    float v[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) v[e] = 0.f;
    add_partials(v, splits, [&](int q, float4 &lo, float4 &hi) {
      const float *src = red + off;
#if __CUDA_ARCH__ >= 900
      if (splits > 1) src = cooperative_groups::this_cluster().map_shared_rank(red, q) + off;
#endif
      lo = *reinterpret_cast<const float4 *>(src), hi = *reinterpret_cast<const float4 *>(src + 4);
    });
    store8(v, in.bias_at(n), in.residual_at(tok, n), out + (size_t)(m0 + tok) * N + n, act);
  }
#if __CUDA_ARCH__ >= 900
  if (splits > 1) cooperative_groups::this_cluster().sync();
#endif
}

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem, bool valid) {
  // src-size 0 zero-fills the 16 bytes without reading gmem (used for tokens >= M, columns >= Npad).
  // No L2 cache hint: CUDA 13 ptxas was seen to drop the createpolicy feeding one (NOTES.md).
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

__device__ __forceinline__ void mma16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t hsub2_u(uint32_t a, uint32_t b) {
  uint32_t d;
  asm("sub.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ uint32_t hfma2_u(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("fma.rn.f16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// (a & b) | c in one LOP3 (ptxas was seen to emit an AND and an OR for the plain C expression).
__device__ __forceinline__ uint32_t and_or(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("lop3.b32 %0, %1, %2, %3, 0xea;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// One repacked word -> the four f16x2 A-fragment registers of one mma, holding code-8 exactly.
// Magic-number trick: OR-ing a nibble into the mantissa of 1024.0 (0x6400) gives the f16 value
// 1024 + code (one LOP3); subtracting 1032 leaves code - 8. A nibble
// sitting 4 bits higher gives 1024 + 16*code, so fma(v, 1/16, -72) = code - 8 instead. Both halves of
// a register are converted at once, and the results are exact. Nibble j of the word was placed by
// repack_kernel so that registers come out as (nib0,nib4) (nib1,nib5) (nib2,nib6) (nib3,nib7).
__device__ __forceinline__ void dequant8(uint32_t q, uint32_t a[4]) {
  constexpr uint32_t kLo = 0x000f000fu, kHi = 0x00f000f0u, kMagic = 0x64006400u;
  constexpr uint32_t k1032 = 0x64086408u, kSixteenth = 0x2c002c00u, kMinus72 = 0xd480d480u;
  const uint32_t q8 = q >> 8;
  a[0] = hsub2_u(and_or(q, kLo, kMagic), k1032);
  a[1] = hfma2_u(and_or(q, kHi, kMagic), kSixteenth, kMinus72);
  a[2] = hsub2_u(and_or(q8, kLo, kMagic), k1032);
  a[3] = hfma2_u(and_or(q8, kHi, kMagic), kSixteenth, kMinus72);
}

template <int NT, int WARPS, int STAGES> struct Config {
  static constexpr int kNA = 2;                        // 16-column tiles per warp
  static constexpr int kThreads = WARPS * 32;
  static constexpr int kTiles = WARPS * kNA;           // 16-column tiles per CTA
  static constexpr int kCols = kTiles * 16;
  static constexpr int kRows = NT * 8;                 // token rows held per CTA
  static constexpr int kWBytes = kTiles * 2 * 512;     // one group: 2 chunks of 64 k per tile
  static constexpr int kXBytes = kRows * kXStride * 2;
  static constexpr int kSBytes = kCols * 2;
  static constexpr int kStageBytes = kWBytes + kXBytes + kSBytes;
  static constexpr int kRedStride = kCols + 4;         // f32 partials row; +4 spreads tokens over banks
  static constexpr int kRedBytes = kRows * kRedStride * 4;
  static constexpr int kSmemBytes = STAGES * kStageBytes > kRedBytes ? STAGES * kStageBytes : kRedBytes;
  static constexpr int kMinBlocks = (NT <= 4 ? 2 : 1) * (8 / WARPS);
};

template <int NT, int WARPS, int STAGES>
__global__ void __launch_bounds__(WARPS * 32, Config<NT, WARPS, STAGES>::kMinBlocks)
    w4a16_gemm_kernel(const GemmArgs args) {
  using C = Config<NT, WARPS, STAGES>;
  constexpr int NA = C::kNA;
  extern __shared__ __align__(16) unsigned char smem[];

  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int split = blockIdx.x, splits = args.splits;
  const int tile0 = blockIdx.y * C::kTiles;  // first 16-column tile of this CTA
  const int m0 = blockIdx.z * kMaxRows;
  const int rows = min(C::kRows, args.M - m0);  // valid tokens in this CTA
  const int K = args.K, G = K >> 7, ntiles = args.Npad >> 4;
  // Even split of the K groups; host guarantees splits <= G, so every CTA gets at least one group.
  const int g_begin = (int)((long long)split * G / splits);
  const int ng = (int)((long long)(split + 1) * G / splits) - g_begin;

  bool tile_ok[NA];
#pragma unroll
  for (int j = 0; j < NA; ++j) tile_ok[j] = tile0 + warp * NA + j < ntiles;

  // Copies one K group into pipeline stage `buf`. Each warp copies its own tiles' weights (one
  // 16-byte vector per lane per 64 k); all threads share the x slice and the scales.
  auto load_stage = [&](int buf, int grp) {
    unsigned char *st = smem + buf * C::kStageBytes;
#pragma unroll
    for (int j = 0; j < NA; ++j) {
      if (!tile_ok[j]) continue;
      const size_t tile = (size_t)(tile0 + warp * NA + j);
#pragma unroll
      for (int kc = 0; kc < 2; ++kc)
        cp_async16(st + ((warp * NA + j) * 2 + kc) * 512 + lane * 16,
                 args.wq + ((((size_t)grp * (args.Npad >> 6) + (tile >> 2)) * 4 + (tile & 3)) * 2 + kc) * 32 + lane,
                 true);
    }
    __half *xs = reinterpret_cast<__half *>(st + C::kWBytes);
    for (int c = tid; c < C::kRows * 16; c += C::kThreads) {
      const int row = c >> 4, col = (c & 15) * 8;
      const bool ok = row < rows;
      cp_async16(xs + row * kXStride + col, ok ? args.x + (size_t)(m0 + row) * K + grp * 128 + col : args.x, ok);
    }
    if (tid < C::kCols / 8) {
      const int n = tile0 * 16 + tid * 8;
      const bool ok = n < args.Npad;
      cp_async16(st + C::kWBytes + C::kXBytes + tid * 16, ok ? args.scales + (size_t)grp * args.Npad + n : args.scales,
                 ok);
    }
  };

  float acc[NA][NT][4];
#pragma unroll
  for (int j = 0; j < NA; ++j)
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[j][t][e] = 0.f;

  // Pipeline prologue: STAGES-1 groups in flight. Empty commit groups keep the wait count uniform.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ng) load_stage(s, g_begin + s);
    cp_async_commit();
  }

  for (int i = 0; i < ng; ++i) {
    cp_async_wait<STAGES - 2>();  // this thread's copies for group i have landed
    __syncthreads();              // everyone's have, and everyone is done with the buffer refilled next
    if (i + STAGES - 1 < ng) load_stage((i + STAGES - 1) % STAGES, g_begin + i + STAGES - 1);
    cp_async_commit();

    const unsigned char *st = smem + (i % STAGES) * C::kStageBytes;
    const unsigned xs = static_cast<unsigned>(__cvta_generic_to_shared(st + C::kWBytes));
    float p[NA][NT][4];
#pragma unroll
    for (int j = 0; j < NA; ++j)
#pragma unroll
      for (int t = 0; t < NT; ++t)
#pragma unroll
        for (int e = 0; e < 4; ++e) p[j][t][e] = 0.f;

#pragma unroll
    for (int kc = 0; kc < 2; ++kc) {
      uint4 wv[NA];
#pragma unroll
      for (int j = 0; j < NA; ++j)
        wv[j] = tile_ok[j] ? *reinterpret_cast<const uint4 *>(st + ((warp * NA + j) * 2 + kc) * 512 + lane * 16)
                           : make_uint4(0x88888888u, 0x88888888u, 0x88888888u, 0x88888888u);
#pragma unroll
      for (int kp = 0; kp < 2; ++kp) {  // two k-steps of 16 per ldmatrix.x4
        uint32_t a[NA][2][4];
#pragma unroll
        for (int j = 0; j < NA; ++j) {
          dequant8(kp ? wv[j].z : wv[j].x, a[j][0]);
          dequant8(kp ? wv[j].w : wv[j].y, a[j][1]);
        }
        // B fragments: lanes 0-7 address rows of matrix 0 (k 0-7 of step 2kp), 8-15 matrix 1 (k 8-15),
        // 16-31 the same for step 2kp+1. x is [token][k] row-major, which is B in "col" layout.
        const int kcol = (kc * 4 + kp * 2) * 16 + (lane >> 3) * 8;
#pragma unroll
        for (int t = 0; t < NT; ++t) {
          uint32_t b[4];
          ldmatrix_x4(b, xs + ((t * 8 + (lane & 7)) * kXStride + kcol) * 2);
#pragma unroll
          for (int j = 0; j < NA; ++j) {
            mma16816(p[j][t], a[j][0], b[0], b[1]);
            mma16816(p[j][t], a[j][1], b[2], b[3]);
          }
        }
      }
    }
    // Per-group scale, applied once per accumulator: rows g and g+8 of each 16-column tile.
    const __half *ss = reinterpret_cast<const __half *>(st + C::kWBytes + C::kXBytes);
#pragma unroll
    for (int j = 0; j < NA; ++j) {
      const float s0 = __half2float(ss[(warp * NA + j) * 16 + (lane >> 2)]);
      const float s1 = __half2float(ss[(warp * NA + j) * 16 + (lane >> 2) + 8]);
#pragma unroll
      for (int t = 0; t < NT; ++t) {
        acc[j][t][0] = fmaf(p[j][t][0], s0, acc[j][t][0]);
        acc[j][t][1] = fmaf(p[j][t][1], s0, acc[j][t][1]);
        acc[j][t][2] = fmaf(p[j][t][2], s1, acc[j][t][2]);
        acc[j][t][3] = fmaf(p[j][t][3], s1, acc[j][t][3]);
      }
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // pipeline buffers are dead from here on: reuse them for the partial sums

  // Partials to shared memory as red[token][column]. C fragment: c0,c1 = (row g, tokens 2t, 2t+1),
  // c2,c3 = (row g+8, same tokens), where rows are output columns.
  float *red = reinterpret_cast<float *>(smem);
  {
    const int g = lane >> 2, tq = (lane & 3) * 2;
#pragma unroll
    for (int j = 0; j < NA; ++j)
#pragma unroll
      for (int t = 0; t < NT; ++t) {
        const int col = (warp * NA + j) * 16 + g, tok = t * 8 + tq;
        red[tok * C::kRedStride + col] = acc[j][t][0];
        red[(tok + 1) * C::kRedStride + col] = acc[j][t][1];
        red[tok * C::kRedStride + col + 8] = acc[j][t][2];
        red[(tok + 1) * C::kRedStride + col + 8] = acc[j][t][3];
      }
  }

#if __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  if (splits > 1) cg::this_cluster().sync(); else __syncthreads();
#else
  if (splits > 1) __trap();  // host never asks for split-K below sm_90 (no clusters there)
  __syncthreads();
#endif

  reduce_and_store<C::kCols, C::kRedStride, C::kThreads>(red, split, splits, rows, tile0 * 16, m0, args.N,
                                                        EpilogueInputs::global(args.bias, args.residual, m0, args.N),
                                                        args.out, args.act);
}

}  // namespace w4a16
