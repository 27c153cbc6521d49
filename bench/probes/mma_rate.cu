// How fast does one SM consume weights through the tensor cores at small token counts? (issue #5)
//
// The kernel probe showed kernel v2's compute side alone (no memory waits) taking ~2000 cycles per
// 128-k group per SM at any M <= 32: far slower than its FLOPs. This probe times the two instruction
// shapes the kernels use, with everything else stripped away, in the patterns that matter:
//   wgmma m64nNk16 (A = weight in registers, B = x^T from shared memory), N = 8..64, with
//     `chains` independent accumulators per warpgroup, 8 k-steps per group, and either a full wait
//     after each group (v2's pattern) or a one-group-deep pipeline (wait for group i-1 after issuing i);
//   mma.sync m16n8k16 (v1), with `chains` independent accumulators per warp.
// Result: cycles of one SM per weight block (64 x 16 weights for wgmma, 16 x 16 for mma.sync), at
// 1..4 warpgroups (or 4..32 warps) per SM. Operands are zeros by default; `--random` uses random f16
// operands, and the clock is measured in the kernel.
//
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o mma_rate mma_rate.cu
#include "../../runtime/src/gemm_kernel.cuh"
#include "../../runtime/src/sm90.cuh"
#include "../../runtime/src/wgmma_rs.cuh"
#include "../../runtime/test/cuda_check.h"
#include "probe_timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

using namespace w4a16;

// Operands: zeros (the default) or, with --random, f16 values in [-1, 1) -- the tensor cores draw more
// power on real data, and the clock is read inside the kernel.
__device__ int g_random;
__device__ __forceinline__ uint32_t random_h2(uint32_t i) {
  i = (i ^ 61u) ^ (i >> 16), i *= 9u, i ^= i >> 4, i *= 0x27d4eb2du, i ^= i >> 15;
  const __half2 h = __floats2half2_rn((float)(i & 0xffff) / 32768.f - 1.f, (float)(i >> 16) / 32768.f - 1.f);
  return *reinterpret_cast<const uint32_t *>(&h);
}

template <int N, int CHAINS, bool PIPE>
__global__ void __launch_bounds__(128) wgmma_rate(int iters, float *sink) {
  __shared__ __align__(1024) unsigned char xs[64 * 128 * 2];
  for (int i = threadIdx.x; i < (int)sizeof xs / 4; i += blockDim.x)
    reinterpret_cast<uint32_t *>(xs)[i] = g_random ? random_h2(i * 7919u + 17u) : 0u;
  __syncthreads();
  const ClockStamp start = clock_stamp();
  constexpr int ND = N / 2;
  float acc[2][CHAINS][ND];
#pragma unroll
  for (int b = 0; b < 2; ++b)
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
      for (int j = 0; j < ND; ++j) acc[b][c][j] = 0.f;
  uint32_t a[8][4];
#pragma unroll
  for (int k = 0; k < 8; ++k)
#pragma unroll
    for (int e = 0; e < 4; ++e) a[k][e] = g_random ? random_h2(threadIdx.x * 131u + k * 4 + e) : threadIdx.x * 0 + k;
  const uint64_t d0 = sm90::desc_sw128(sm90::smem_u32(xs));
  auto group = [&](auto bc) {  // one 128-k group into accumulator set bc (a compile-time 0 or 1)
    constexpr int b = decltype(bc)::value;
    sm90::wgmma_fence();
#pragma unroll
    for (int k = 0; k < 8; ++k)
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) {
        const uint64_t d = d0 + (uint64_t)(((k & 3) * 32 + (k >> 2) * 8192 / 2) >> 4);
        // Always accumulate: a group that overwrote its accumulators (scale-d = 0 on its first k)
        // would leave the previous group's results unread, and ptxas removes such wgmma chains (the
        // first version of this probe did, reporting ~3x the datasheet's dense rate).
        WgmmaRS<N, 1>::run(acc[b][c], a[k], d);
      }
    sm90::wgmma_commit();
    if (PIPE) sm90::wgmma_wait<1>();  // group i-1 (the other set) is done; group i keeps running
    else sm90::wgmma_wait<0>();
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
      for (int j = 0; j < ND; ++j) sm90::fence_operand(acc[PIPE ? 1 - b : b][c][j]);
  };
  for (int it = 0; it < iters; it += 2) {
    group(std::integral_constant<int, 0>());
    group(std::integral_constant<int, PIPE ? 1 : 0>());
  }
  sm90::wgmma_wait<0>();
  float s = 0.f;
#pragma unroll
  for (int b = 0; b < 2; ++b)
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
      for (int j = 0; j < ND; ++j) s += acc[b][c][j];
  if (s == 12345.f) sink[threadIdx.x] = s;
  clock_record(start);
}

template <int CHAINS> __global__ void mma_rate(int iters, float *sink) {
  float acc[CHAINS][4] = {};
  uint32_t a[4] = {threadIdx.x * 0u, 1u, 2u, 3u}, b0 = 0, b1 = 0;
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int k = 0; k < 8; ++k)
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) mma16816(acc[c], a, b0, b1);
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 12345.f) sink[threadIdx.x] = s;
}

int sms, mhz;
float *sink;

template <int N, int CHAINS, bool PIPE> void wg(int per_sm) {
  const int iters = 4000;
  const double us = time_second_launch_us([&] { wgmma_rate<N, CHAINS, PIPE><<<sms * per_sm, 128>>>(iters, sink); });
  const double blocks = (double)iters * 8 * CHAINS * per_sm;  // 64x16 weight blocks per SM
  const double real_mhz = recorded_mhz(mhz);
  printf("wgmma m64n%dk16 chains=%d %s WG/SM=%d: %.1f cycles per 64x16 weight block per SM at %.0f MHz, "
         "%.0f FMA/cycle/SM (%.1f us)\n", N, CHAINS, PIPE ? "pipelined" : "wait-all ", per_sm,
         us * real_mhz / blocks, real_mhz, 64.0 * 16 * N * blocks / (us * real_mhz), us);
}
template <int CHAINS> void mm(int warps_per_sm) {
  const int iters = 4000;
  const double us = time_second_launch_us([&] { mma_rate<CHAINS><<<sms * warps_per_sm / 4, 128>>>(iters, sink); });
  const double blocks = (double)iters * 8 * CHAINS * warps_per_sm / 4;  // 4 warps' 16x16 blocks = one 64x16
  printf("mma.sync m16n8k16 chains=%d warps/SM=%d: %.1f cycles per 64x16 weight block per SM (%.1f us)\n", CHAINS,
         warps_per_sm, us * mhz / blocks, us);
}

int main(int argc, char **argv) {
  const int random = argc > 1 && !strcmp(argv[1], "--random");
  CK(cudaMemcpyToSymbol(g_random, &random, sizeof random));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  sms = prop.multiProcessorCount;
  int khz;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  mhz = khz / 1000;
  CK(cudaMalloc(&sink, 4096));
  printf("%d SMs, %d MHz (nominal clock used to convert)\n", sms, mhz);
  for (int w = 1; w <= 4; w *= 2) {
    wg<8, 1, false>(w);
    wg<8, 1, true>(w);
    wg<16, 1, false>(w);
    wg<16, 1, true>(w);
    wg<32, 1, false>(w);
    wg<32, 1, true>(w);
    wg<64, 1, false>(w);
    wg<64, 1, true>(w);
  }
  for (int w = 4; w <= 32; w *= 2) {
    mm<1>(w);
    mm<2>(w);
    mm<4>(w);
  }
  return 0;
}
