// Would wgmma with both operands in shared memory ("SS") let the dequantisation overlap? (issue #5)
//
// NOT YET RUN: written at the end of session 5, after the device budget was spent; compile-checked
// only. Its first run should be the next session's first device call (~2 s).
//
// Session 5 found (bench/RESULTS.md) that while wgmma reads its A operand -- the dequantised weight --
// from registers ("RS"), the ALU work of the same SM sub-partition barely overlaps it, whichever
// warps do it (corun.cu), and more warps do not help (overlap.cu x6/x8). This probe asks whether the
// RS register reads are the cause: with A in shared memory the register file is left to the ALU.
// The price is the weight moving through shared memory (written once as f16 fragments, read by the
// wgmma) on top of x's reads. Per SM 4 warpgroups (one per CTA, as overlap.cu), 8 wgmma m64nNk16
// per 128-k group (2 boxes of 4 k-steps, one box in flight), N = 8..64; modes:
//   ss       SS wgmma alone: its rate, and whether shared-memory bandwidth limits it at small N
//            (compare overlap.cu's RS "tc": 13.4/13.7/16.4/32.0 cycles per 64x16 block);
//   ss+sts   the same warps also store one 64x16 f16 A block per wgmma (STS.128, 2 KB per warpgroup)
//            into a second buffer: the handoff's write traffic;
//   ss+alu   the same warps also dequantise 8 words per thread and group (as v3, results folded so
//            ptxas keeps them): does the ALU work overlap SS wgmma where it did not overlap RS?
//   ss+both  both: the shape of a kernel that dequantises into shared memory and runs SS wgmma.
// The stored fragments are never read (the wgmma read a fixed A tile), so nothing orders the two; the
// timing is what matters. Prints cycles per 64x16 weight block per SM (clock read in the kernel).
//
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o ss_rate ss_rate.cu
#include "../../runtime/src/gemm_kernel.cuh"
#include "../../runtime/src/sm90.cuh"
#include "../../runtime/test/cuda_check.h"
#include "probe_timing.cuh"

#include <cstdio>

using namespace w4a16;

// wgmma.mma_async m64nNk16, A and B from shared memory through matrix descriptors (both K-major:
// imm-trans-a = imm-trans-b = 0), D in N/2 f32 registers per thread. One specialisation per N, as in
// runtime/src/wgmma_rs.cuh: inline asm needs a fixed operand list. If a kernel adopts SS, generate
// these with runtime/src/gen/gen_wgmma.py instead.
template <int N, int SCALE_D> struct WgmmaSS;
template <int SCALE_D> struct WgmmaSS<8, SCALE_D> {
  static __device__ __forceinline__ void run(float (&d)[4], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {"
        "%0, %1, %2, %3"
        "}, %4, %5, %6, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "l"(desc_a), "l"(desc_b), "n"(SCALE_D));
  }
};
template <int SCALE_D> struct WgmmaSS<16, SCALE_D> {
  static __device__ __forceinline__ void run(float (&d)[8], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7"
        "}, %8, %9, %10, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
        : "l"(desc_a), "l"(desc_b), "n"(SCALE_D));
  }
};
template <int SCALE_D> struct WgmmaSS<32, SCALE_D> {
  static __device__ __forceinline__ void run(float (&d)[16], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
        "}, %16, %17, %18, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "l"(desc_a), "l"(desc_b), "n"(SCALE_D));
  }
};
template <int SCALE_D> struct WgmmaSS<64, SCALE_D> {
  static __device__ __forceinline__ void run(float (&d)[32], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, %34, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(desc_a), "l"(desc_b), "n"(SCALE_D));
  }
};

enum { kSs = 0, kSsSts = 1, kSsAlu = 2, kSsBoth = 3 };

template <int N, int MODE>
__global__ void __launch_bounds__(128, 4) ss_rate(int groups, uint32_t seed, float *sink) {
  // A: one 64-row x 64-k tile (8 KB, 128-byte swizzle); B: x^T, up to 64 rows x 64 k per box, 2 boxes.
  __shared__ __align__(1024) unsigned char as[64 * 128];
  __shared__ __align__(1024) unsigned char bs[2 * 64 * 128];
  __shared__ __align__(16) uint4 handoff[8][128];  // ss+sts: one 2 KB A block per wgmma, never read
  for (int i = threadIdx.x; i < (int)sizeof as / 4; i += blockDim.x)
    reinterpret_cast<uint32_t *>(as)[i] = 0x3c003c00u ^ ((i * 2246822519u) & 0x03ff03ffu);
  for (int i = threadIdx.x; i < (int)sizeof bs / 4; i += blockDim.x)
    reinterpret_cast<uint32_t *>(bs)[i] = 0x3c003c00u ^ ((i * 2654435761u) & 0x03ff03ffu);
  __syncthreads();
  constexpr int ND = N / 2;
  float acc[ND];
#pragma unroll
  for (int j = 0; j < ND; ++j) acc[j] = 0.f;
  uint32_t w[8], keep = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) w[i] = seed * (threadIdx.x + 1) + i * 0x9e3779b9u;
  const uint64_t da = sm90::desc_sw128(sm90::smem_u32(as)), db = sm90::desc_sw128(sm90::smem_u32(bs));
  const ClockStamp start = clock_stamp();
  for (int g = 0; g < groups; ++g) {
#pragma unroll
    for (int box = 0; box < 2; ++box) {
      if constexpr (MODE == kSsAlu || MODE == kSsBoth) {
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          const int i = box * 4 + kk;
          w[i] = w[i] * 1664525u + 1013904223u;
          uint32_t f[4];
          dequant8(w[i], f);
          if constexpr (MODE == kSsBoth)  // volatile: nothing reads the buffer, so a plain store would go
            asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(sm90::smem_u32(&handoff[i][threadIdx.x])),
                         "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3])
                         : "memory");
          else keep ^= f[0] ^ f[1] ^ f[2] ^ f[3];
        }
      }
      if constexpr (MODE == kSsSts) {
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
          asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(
                           sm90::smem_u32(&handoff[box * 4 + kk][threadIdx.x])),
                       "r"(w[kk]), "r"(w[kk + 4]), "r"(w[kk] ^ g), "r"(w[kk + 4] ^ g)
                       : "memory");
      }
      sm90::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)  // +32 B per 16 k inside the swizzle atom, for A and B alike
        WgmmaSS<N, 1>::run(acc, da + (uint64_t)((kk * 32) >> 4), db + (uint64_t)((box * 8192 + kk * 32) >> 4));
      sm90::wgmma_commit();
      sm90::wgmma_wait<1>();
    }
  }
  sm90::wgmma_wait<0>();
  clock_record(start);
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < ND; ++j) {
    sm90::fence_operand(acc[j]);
    s += acc[j];
  }
  if (s == 12345.f || keep == 0x12345u) sink[threadIdx.x] = s;
}

int sms;
float *sink;

template <int N, int MODE> void run() {
  static const char *name[] = {"ss     ", "ss+sts ", "ss+alu ", "ss+both"};
  const int groups = 6000;
  const double us = time_second_launch_us([&] { ss_rate<N, MODE><<<sms * 4, 128>>>(groups, 12345u, sink); });
  const double mhz = recorded_mhz(0);
  const double blocks = (double)groups * 8 * 4;  // per SM: 4 warpgroups x 8 blocks per group
  printf("N=%2d %s %.1f cycles per 64x16 block per SM at %.0f MHz (%.0f us)\n", N, name[MODE], us * mhz / blocks, mhz,
         us);
}

template <int N> void all() {
  run<N, kSs>();
  run<N, kSsSts>();
  run<N, kSsAlu>();
  run<N, kSsBoth>();
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
