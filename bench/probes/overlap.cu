// Can the dequantisation overlap the tensor cores, and in which kernel structure? (issue #5)
//
// kernel_probe's modes showed kernel v3's compute side (44.6 us at 8192x28672, M = 32) close to the
// sum of its tensor part and its integer part, not the larger of the two. This probe runs the compute
// side alone -- weights from registers, x from a fixed shared-memory tile, no memory stream -- with
// 4 warpgroups per SM (one per CTA, 128 registers per thread as in v3), in three structures:
//   tc     wgmma only (A fragments fixed): the tensor cores' own rate;
//   v3     v3's group: dequantise box 0, 4 wgmma into p, dequantise box 1, 4 wgmma, wait for all,
//          acc += p * scale (the per-group scale in f32);
//   fold3  the scale folded into the f16 weights (4 HMUL2 more per 8 codes), wgmma accumulating
//          straight into acc, and a ring of 3 A-fragment boxes: box i+1 is dequantised while boxes i
//          and i-1 run (wgmma wait<2>), so no warpgroup ever waits for its own last wgmma;
//   fold2  the same with a ring of 2 boxes (wait<1>: fewer registers, one box in flight).
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

enum { kTc = 0, kV3 = 1, kFold = 2, kFold2 = 3 };

template <int N, int MODE>
__global__ void __launch_bounds__(128, 4) overlap(int groups, uint32_t seed, float *sink) {
  __shared__ __align__(1024) unsigned char xs[64 * 128 * 2];
  for (int i = threadIdx.x; i < (int)sizeof xs / 4; i += blockDim.x)
    reinterpret_cast<uint32_t *>(xs)[i] = 0x3c003c00u ^ ((i * 2654435761u) & 0x03ff03ffu);  // f16 in [1, 2)
  __syncthreads();
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
  for (int g = 0; MODE <= kV3 && g < groups; ++g) {
    fresh_codes();
    if constexpr (MODE == kTc) {
#pragma unroll
      for (int box = 0; box < 2; ++box) {
        sm90::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) WgmmaRS<N, 1>::run(acc, a[box][kk], desc(box, kk));
        sm90::wgmma_commit();
      }
      sm90::wgmma_wait<1>();
    } else if constexpr (MODE == kV3) {
#pragma unroll
      for (int box = 0; box < 2; ++box) {
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) dequant8(w[box * 4 + kk], a[box][kk]);
        sm90::wgmma_fence();
        if (box == 0) WgmmaRS<N, 0>::run(p, a[box][0], desc(box, 0));
        else WgmmaRS<N, 1>::run(p, a[box][0], desc(box, 0));
#pragma unroll
        for (int kk = 1; kk < 4; ++kk) WgmmaRS<N, 1>::run(p, a[box][kk], desc(box, kk));
        sm90::wgmma_commit();
      }
      sm90::wgmma_wait<0>();
#pragma unroll
      for (int j = 0; j < ND; ++j) sm90::fence_operand(p[j]);
#pragma unroll
      for (int j = 0; j < ND; ++j) acc[j] = fmaf(p[j], (j & 2) ? s1 : s0, acc[j]);
    }
  }
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

template <int N, int MODE> void run() {
  static const char *name[] = {"tc   ", "v3   ", "fold3", "fold2"};
  const int groups = 6000;
  const double us = time_second_launch_us([&] { overlap<N, MODE><<<sms * 4, 128>>>(groups, 12345u, sink); });
  const double mhz = recorded_mhz(0);
  const double blocks = (double)groups * 8 * 4;  // per SM: 4 warpgroups x 8 blocks per group
  printf("N=%2d %s %.1f cycles per 64x16 block per SM at %.0f MHz (%.0f us)\n", N, name[MODE], us * mhz / blocks, mhz,
         us);
}

template <int N> void all() {
  run<N, kTc>();
  run<N, kV3>();
  run<N, kFold>();
  run<N, kFold2>();
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  sms = prop.multiProcessorCount;
  CK(cudaMalloc(&sink, 4096));
  all<8>();
  all<16>();
  all<32>();
  all<64>();
  return 0;
}
