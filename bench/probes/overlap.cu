// Can the dequantisation overlap the tensor cores, and in which kernel structure? (issue #5)
//
// kernel_probe's modes showed kernel v3's compute side (44.6 us at 8192x28672, M = 32) close to the
// sum of its tensor part and its integer part, not the larger of the two. This probe runs the compute
// side alone -- weights from registers, x from a fixed shared-memory tile, no memory stream -- with
// 4 warpgroups per SM (one per CTA, 128 registers per thread as in v3), in these structures:
//   tc     wgmma only (A fragments fixed): the tensor cores' own rate;
//   v3     v3's group: dequantise box 0, 4 wgmma into p, dequantise box 1, 4 wgmma, wait for all,
//          acc += p * scale (the per-group scale in f32);
//   fold3  the scale folded into the f16 weights (4 HMUL2 more per 8 codes), wgmma accumulating
//          straight into acc, and a ring of 3 A-fragment boxes: box i+1 is dequantised while boxes i
//          and i-1 run (wgmma wait<2>), so no warpgroup ever waits for its own last wgmma;
//   fold2  the same with a ring of 2 boxes (wait<1>: fewer registers, one box in flight);
//   v3lds  v3, with each group's weight words and scales loaded from a shared-memory ring (2 LDS.128
//          + 2 LDS.U16 per thread, as v3 reads them) instead of computed in registers;
//   v3cp   v3lds, plus v3's per-lane weight stream: each group cp.asyncs the next words 3 groups
//          ahead from an L2-resident buffer and waits for its own copies (cp.async.wait_group +
//          __syncwarp): the steps between "v3" and the real kernel's compute side (kernel_probe's
//          v3alu), which costs ~12 cycles per block more.
//   v3ldg  v3, with each group's words and scales loaded straight into registers (2 LDG.128 +
//          2 LDG.U16 per thread, L1 no-allocate) one group ahead from an L2-resident buffer, and
//          lane 0 of each warp issuing one 1 KB cp.async.bulk.prefetch.L2 per group: no shared
//          memory, no copy bookkeeping. The candidate replacement for v3's per-lane cp.async ring.
//   v3il   v3 with the dequantisation interleaved at the finest grain: each k-step's 8 codes are
//          dequantised right before its own wgmma (a fence before each), so a warp never queues
//          four wgmma back to back. corun.cu found that wgmma with A in registers slows the ALU
//          work of other warps on the same scheduler (N = 32: dequant 222 -> 389 cycles per group,
//          N = 64: 222 -> 499); if queued wgmma hold the dispatch, spacing them out should help.
//   v3bar  v3 with the 4 warpgroups of an SM in one CTA of 512 threads that meet at a barrier once
//          per group (v3bar2: once per two groups, v3's pipeline step). Kernel v3's warpgroups are
//          coupled through the shared x ring; kernel_probe found even its wgmma-only side at
//          ~27 cycles per block at N = 8 against 13 here. Does the coupling cost the overlap that
//          independent warpgroups get?
//   v3off  v3 with 5 instructions per 8 codes instead of 9: no HSUB2/HFMA2, the fragments hold
//          1024 + code (low nibbles, magic 0x6400) or 64 + code (high nibbles, magic 0x5400), and the
//          offsets come off per token and group afterwards, acc = fma(p - offset, scale, acc), with
//          the offsets (1032 x the sum of x over the low-nibble k, 72 x over the high ones) read
//          from shared memory (LDS.64 per token pair). What would that dequantisation save?
// For N <= 16, tc and v3 also run with 6 and 8 warpgroups per SM ("x6", "x8"; 85 and 64 registers
// per thread): do more warps per scheduler overlap the tensor and ALU work better?
// Prints cycles per 64x16 weight block per SM (the clock read in the kernel) for N = 8..64.
//
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o overlap overlap.cu
#include "../../runtime/src/gemm_kernel.cuh"
#include "../../runtime/src/sm90.cuh"
#include "../../runtime/src/wgmma_rs.cuh"
#include "../../runtime/test/cuda_check.h"
#include "probe_timing.cuh"

#include <cstdio>
#include <type_traits>

using namespace w4a16;

__device__ __forceinline__ uint32_t hmul2_u(uint32_t a, uint32_t b) {
  uint32_t d;
  asm("mul.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

enum { kTc = 0, kV3 = 1, kFold = 2, kFold2 = 3, kV3Lds = 4, kV3Copy = 5, kV3Ldg = 6, kV3Il = 7, kV3Bar = 8,
       kV3Bar2 = 9, kV3Off = 10 };
constexpr bool one_cta_per_sm(int mode) { return mode == kV3Bar || mode == kV3Bar2; }

__device__ __forceinline__ uint4 lds128_volatile(const void *p) {  // not hoisted: the ring never changes in kV3Lds
  uint4 v;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(sm90::smem_u32(p)));
  return v;
}
__device__ __forceinline__ float lds_half_volatile(const void *p) {
  unsigned short h;
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(h) : "r"(sm90::smem_u32(p)));
  return __half2float(__ushort_as_half(h));
}

__device__ __forceinline__ uint4 ldg128_stream(const void *p) {  // volatile: the buffer repeats every 8 groups
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ float ldg_half_stream(const void *p) {
  unsigned short h;
  asm volatile("ld.global.nc.L1::no_allocate.u16 %0, [%1];\n" : "=h"(h) : "l"(p));
  return __half2float(__ushort_as_half(h));
}

// 8 codes -> 4 f16x2 without the offset: low nibbles 1024 + code, high nibbles 64 + code (kV3Off).
__device__ __forceinline__ void dequant8_offset(uint32_t q, uint32_t a[4]) {
  constexpr uint32_t kLo = 0x000f000fu, kHi = 0x00f000f0u, k1024 = 0x64006400u, k64 = 0x54005400u;
  const uint32_t q8 = q >> 8;
  a[0] = and_or(q, kLo, k1024), a[1] = and_or(q, kHi, k64);
  a[2] = and_or(q8, kLo, k1024), a[3] = and_or(q8, kHi, k64);
}

template <int N, int MODE, int OCC = 4>  // OCC: warpgroups (CTAs of 128 threads) per SM
__global__ void __launch_bounds__(one_cta_per_sm(MODE) ? 512 : 128, one_cta_per_sm(MODE) ? 1 : OCC)
    overlap(int groups, uint32_t seed, const uint4 *gsrc, float *sink) {
  __shared__ __align__(1024) unsigned char xs[64 * 128 * 2];
  // kV3Lds / kV3Copy: a 4-slot ring of this thread's 32 weight bytes per group and 16 scales per warp,
  // as v3 keeps them in shared memory.
  __shared__ __align__(16) uint4 wring[MODE >= kV3Lds ? 4 : 1][128][2];
  __shared__ __align__(16) __half sring[MODE >= kV3Lds ? 4 : 1][4][16];
  for (int i = threadIdx.x; i < (int)sizeof xs / 4; i += blockDim.x)
    reinterpret_cast<uint32_t *>(xs)[i] = 0x3c003c00u ^ ((i * 2654435761u) & 0x03ff03ffu);  // f16 in [1, 2)
  for (int i = threadIdx.x; i < (int)(sizeof wring / 16); i += blockDim.x)
    reinterpret_cast<uint4 *>(wring)[i] = make_uint4(seed * i, seed * i + 1, seed * i + 2, seed * i + 3);
  for (int i = threadIdx.x; i < (int)(sizeof sring / 2); i += blockDim.x)
    reinterpret_cast<__half *>(sring)[i] = __float2half(0.0625f);
  __shared__ float2 xoffs[8][32];  // kV3Off: per-token offsets of 8 groups (token pairs)
  for (int i = threadIdx.x; i < 8 * 32; i += blockDim.x) xoffs[i / 32][i % 32] = make_float2(1032.f * i, 72.f * i);
  __syncthreads();
  // kV3Copy: each group also copies this thread's next 32 bytes (and lanes 0-1 the warp's scales) with
  // cp.async from an L2-resident buffer, 3 groups ahead, and waits for its own copies as v3 does.
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint4 *src = gsrc + (size_t)(blockIdx.x % 128) * 2048 + threadIdx.x * 2;  // 32 KB per CTA, 8 groups
  auto copy_group = [&](int g) {
    const int slot = g & 3;
    const uint4 *s = src + (g & 7) * 256;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sm90::smem_u32(&wring[slot][threadIdx.x][0])),
                 "l"(s) : "memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sm90::smem_u32(&wring[slot][threadIdx.x][1])),
                 "l"(s + 1) : "memory");
    if (lane < 2)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sm90::smem_u32(&sring[slot][warp][lane * 8])),
                   "l"(s) : "memory");
    cp_async_commit();
  };
  if constexpr (MODE == kV3Copy)
    for (int g = 0; g < 3; ++g) copy_group(g);
  constexpr int ND = N / 2;
  const ClockStamp start = clock_stamp();
  float acc[ND], p[ND];
#pragma unroll
  for (int j = 0; j < ND; ++j) acc[j] = 0.f, p[j] = 0.f;
  uint32_t w[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) w[i] = seed * (threadIdx.x + 1) + i * 0x9e3779b9u;
  const uint32_t s2 = 0x2c002c00u ^ (threadIdx.x & 7);  // a scale pair, ~1/16
  const float s0 = 0.0625f, s1 = 0.0625f + threadIdx.x * 1e-6f;
  const uint64_t d0 = sm90::desc_sw128(sm90::smem_u32(xs));
  auto desc = [&](int box, int kk) { return d0 + (uint64_t)(((box & 1) * 4096 + kk * 32) >> 4); };
  uint32_t a[3][4][4];  // v3 uses [0] and [1] (its a and b); fold the ring of 3
  if (MODE == kTc)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int e = 0; e < 4; ++e) a[0][kk][e] = w[kk * 2 + (e & 1)] & 0x3bff3bffu, a[1][kk][e] = a[0][kk][e] ^ 0x100;

  auto fresh_codes = [&] {
#pragma unroll
    for (int i = 0; i < 8; ++i) w[i] = w[i] * 1664525u + 1013904223u;
  };
  if constexpr (MODE == kFold || MODE == kFold2) {
    // Box b of a group into ring slot `slot`; the loop is unrolled over three groups (six boxes) so
    // that every slot is a compile-time constant and ptxas sees which registers are in flight.
    auto box = [&](auto slot_c, int b) {
      constexpr int slot = decltype(slot_c)::value;
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        dequant8(w[b * 4 + kk], a[slot][kk]);
#pragma unroll
        for (int e = 0; e < 4; ++e) a[slot][kk][e] = hmul2_u(a[slot][kk][e], s2);
      }
      sm90::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) WgmmaRS<N, 1>::run(acc, a[slot][kk], desc(b, kk));
      sm90::wgmma_commit();
      // The slot written next is free once the box that used it is done: with 3 slots, the box before
      // the previous one (wait<2>); with 2, the previous one (wait<1>).
      if constexpr (MODE == kFold) sm90::wgmma_wait<2>();
      else sm90::wgmma_wait<1>();
    };
    using S0 = std::integral_constant<int, 0>;
    using S1 = std::integral_constant<int, 1>;
    using S2 = std::integral_constant<int, 2>;
    for (int g = 0; MODE == kFold2 && g < groups; ++g) {
      fresh_codes();
      box(S0(), 0), box(S1(), 1);
    }
    for (int g = 0; MODE == kFold && g < groups; g += 3) {
      fresh_codes();
      box(S0(), 0), box(S1(), 1);
      fresh_codes();
      box(S2(), 0), box(S0(), 1);
      fresh_codes();
      box(S1(), 0), box(S2(), 1);
    }
  }
  // kV3Ldg: this thread's next group in registers (32 bytes of words, its two scales).
  uint4 next0 = make_uint4(0, 0, 0, 0), next1 = next0;
  float nsc0 = s0, nsc1 = s1;
  const unsigned char *gbytes = reinterpret_cast<const unsigned char *>(gsrc + (size_t)(blockIdx.x % 128) * 2048);
  auto ldg_group = [&](int g) {
    const unsigned char *base = gbytes + (g & 7) * 4096;
    next0 = ldg128_stream(base + threadIdx.x * 16);
    next1 = ldg128_stream(base + 2048 + threadIdx.x * 16);
    nsc0 = ldg_half_stream(base + warp * 32 + (lane >> 2) * 2);
    nsc1 = ldg_half_stream(base + warp * 32 + 16 + (lane >> 2) * 2);
    if (lane == 0)
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], 1024;\n" ::"l"(gbytes + ((g + 4) & 7) * 4096 + warp * 1024)
                   : "memory");
  };
  if constexpr (MODE == kV3Ldg) ldg_group(0);
  for (int g = 0; (MODE <= kV3 || MODE >= kV3Lds) && g < groups; ++g) {
    float sc0 = s0, sc1 = s1;
    if constexpr (MODE == kV3Bar) asm volatile("bar.sync 1, 512;\n" ::: "memory");
    if constexpr (MODE == kV3Bar2)
      if ((g & 1) == 0) asm volatile("bar.sync 1, 512;\n" ::: "memory");
    if constexpr (MODE == kV3Ldg) {
      w[0] = next0.x, w[1] = next0.y, w[2] = next0.z, w[3] = next0.w;
      w[4] = next1.x, w[5] = next1.y, w[6] = next1.z, w[7] = next1.w;
      sc0 = nsc0, sc1 = nsc1;
      ldg_group(g + 1);
    } else if constexpr (MODE == kV3Lds || MODE == kV3Copy) {  // words and scales from the ring, as v3 reads them
      if constexpr (MODE == kV3Copy) {
        cp_async_wait<2>();
        __syncwarp();
      }
      const int slot = g & 3;
      const uint4 v0 = lds128_volatile(&wring[slot][threadIdx.x][0]);
      const uint4 v1 = lds128_volatile(&wring[slot][threadIdx.x][1]);
      w[0] = v0.x, w[1] = v0.y, w[2] = v0.z, w[3] = v0.w, w[4] = v1.x, w[5] = v1.y, w[6] = v1.z, w[7] = v1.w;
      sc0 = lds_half_volatile(&sring[slot][warp][lane >> 2]);
      sc1 = lds_half_volatile(&sring[slot][warp][8 + (lane >> 2)]);
      if constexpr (MODE == kV3Copy) copy_group(g + 3);
    } else {
      fresh_codes();
    }
    if constexpr (MODE == kTc) {
#pragma unroll
      for (int box = 0; box < 2; ++box) {
        sm90::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) WgmmaRS<N, 1>::run(acc, a[box][kk], desc(box, kk));
        sm90::wgmma_commit();
      }
      sm90::wgmma_wait<1>();
    } else if constexpr (MODE == kV3Il) {
#pragma unroll
      for (int box = 0; box < 2; ++box) {
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          dequant8(w[box * 4 + kk], a[box][kk]);
          sm90::wgmma_fence();
          if (box == 0 && kk == 0) WgmmaRS<N, 0>::run(p, a[box][kk], desc(box, kk));
          else WgmmaRS<N, 1>::run(p, a[box][kk], desc(box, kk));
        }
        sm90::wgmma_commit();
      }
      sm90::wgmma_wait<0>();
#pragma unroll
      for (int j = 0; j < ND; ++j) sm90::fence_operand(p[j]);
#pragma unroll
      for (int j = 0; j < ND; ++j) acc[j] = fmaf(p[j], (j & 2) ? sc1 : sc0, acc[j]);
    } else {  // kV3, kV3Lds, kV3Copy, kV3Ldg, kV3Off
#pragma unroll
      for (int box = 0; box < 2; ++box) {
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          if constexpr (MODE == kV3Off) dequant8_offset(w[box * 4 + kk], a[box][kk]);
          else dequant8(w[box * 4 + kk], a[box][kk]);
        }
        sm90::wgmma_fence();
        if (box == 0) WgmmaRS<N, 0>::run(p, a[box][0], desc(box, 0));
        else WgmmaRS<N, 1>::run(p, a[box][0], desc(box, 0));
#pragma unroll
        for (int kk = 1; kk < 4; ++kk) WgmmaRS<N, 1>::run(p, a[box][kk], desc(box, kk));
        sm90::wgmma_commit();
      }
      float2 off[ND / 4];  // kV3Off: D fragment p[4i + e] is token 8i + 2(lane & 3) + (e & 1)
      if constexpr (MODE == kV3Off) {
#pragma unroll
        for (int i = 0; i < ND / 4; ++i) {
          const uint32_t addr = sm90::smem_u32(&xoffs[g & 7][4 * i + (lane & 3)]);
          asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(off[i].x), "=f"(off[i].y) : "r"(addr));
        }
      }
      sm90::wgmma_wait<0>();
#pragma unroll
      for (int j = 0; j < ND; ++j) sm90::fence_operand(p[j]);
#pragma unroll
      for (int j = 0; j < ND; ++j) {
        const float pj = MODE == kV3Off ? p[j] - ((j & 1) ? off[j / 4].y : off[j / 4].x) : p[j];
        acc[j] = fmaf(pj, (j & 2) ? sc1 : sc0, acc[j]);
      }
    }
  }
  if constexpr (MODE == kV3Copy) cp_async_wait<0>();
  sm90::wgmma_wait<0>();
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < ND; ++j) {
    sm90::fence_operand(acc[j]);
    s += acc[j];
  }
  if (s == 12345.f) sink[threadIdx.x] = s;
  clock_record(start);
}

int sms;
float *sink;
const uint4 *gsrc;  // 4 MB, L2-resident: kV3Copy's source

template <int N, int MODE, int OCC = 4> void run() {
  static const char *name[] = {"tc   ", "v3   ", "fold3", "fold2", "v3lds", "v3cp ",
                               "v3ldg", "v3il ", "v3bar", "v3bar2", "v3off"};
  const int groups = 6000;
  const double us = time_second_launch_us([&] {
    if (one_cta_per_sm(MODE)) overlap<N, MODE><<<sms, 512>>>(groups, 12345u, gsrc, sink);
    else overlap<N, MODE, OCC><<<sms * OCC, 128>>>(groups, 12345u, gsrc, sink);
  });
  const double mhz = recorded_mhz(0);
  const double blocks = (double)groups * 8 * OCC;  // per SM: OCC warpgroups x 8 blocks per group
  printf("N=%2d %s%s %.1f cycles per 64x16 block per SM at %.0f MHz (%.0f us)\n", N, name[MODE],
         OCC == 4 ? "" : OCC == 6 ? " x6" : " x8", us * mhz / blocks, mhz,
         us);
}

template <int N> void all() {
  run<N, kTc>();
  run<N, kV3>();
  run<N, kFold>();
  run<N, kFold2>();
  run<N, kV3Lds>();
  run<N, kV3Copy>();
  run<N, kV3Ldg>();
  run<N, kV3Il>();
  run<N, kV3Bar>();
  run<N, kV3Bar2>();
  run<N, kV3Off>();
  if constexpr (N <= 16) {  // 6 or 8 warpgroups per SM fit the registers only with few tokens
    run<N, kTc, 6>();
    run<N, kV3, 6>();
    run<N, kTc, 8>();
    run<N, kV3, 8>();
  }
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  sms = prop.multiProcessorCount;
  CK(cudaMalloc(&sink, 4096));
  void *src;
  CK(cudaMalloc(&src, 128 * 32768));
  CK(cudaMemset(src, 0x5a, 128 * 32768));
  gsrc = static_cast<const uint4 *>(src);
  all<8>();
  all<16>();
  all<32>();
  all<64>();
  return 0;
}
