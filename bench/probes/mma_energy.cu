// Is there a cheaper tensor path than f16 for the power-capped rows? (issue #5, session 7)
//
// From M = 16 the big shapes run at the H200's 700 W cap, and session 7's energy split measured the f16
// wgmma work as one of the largest consumers (bench/RESULTS.md, session 7). The only other Hopper path
// that keeps f16 activations exact enough is integer: the weight codes as u8 and x split into two s8
// parts (x ~ a * (256 h + l), per-token-and-group scale a), two wgmma m64nNk32 .s32.u8.s8 per 64 x 32
// weights -- the same instruction count and tensor time per weight as one f16 m64nNk16 per 64 x 16.
// This probe runs both streams alone on every SM (4 warpgroups, the kernel's shape), with random data
// that changes like the kernel's (A from 4 register sets, B cycling through 64 KB of shared memory),
// plus a loop without wgmma (the A-toggling ALU work both share), and prints the time and, over a
// sustained run, the energy of each. Same number of weights in each mode.
//
//   bench/probes/build.sh (from the repository root: -I runtime/src -I runtime/test, sm_90a, -ldl)
//   mma_energy [seconds per mode, default 2]
#include "cuda_check.h"
#include "sm90.cuh"
#include "wgmma_rs.cuh"
#include "probe_energy.cuh"
#include "wgmma_u8s8.cuh"

#include <cstdio>
#include <cstdlib>

using namespace w4a16;

__device__ __forceinline__ uint32_t hash(uint32_t i) {
  i = (i ^ 61u) ^ (i >> 16), i *= 9u, i ^= i >> 4, i *= 0x27d4eb2du, i ^= i >> 15;
  return i;
}
// The kernel's operand values: f16 weights (code - 8) in [-8, 7] and x in [-2, 2); u8 codes 0..15 and
// s8 parts over their full range.
__device__ __forceinline__ uint32_t f16_weight_pair(uint32_t r) {
  const __half2 h = __floats2half2_rn((float)(r & 15) - 8.f, (float)((r >> 16) & 15) - 8.f);
  return *reinterpret_cast<const uint32_t *>(&h);
}
__device__ __forceinline__ uint32_t f16_x_pair(uint32_t r) {
  const __half2 h = __floats2half2_rn((float)(r & 0xffff) / 16384.f - 2.f, (float)(r >> 16) / 16384.f - 2.f);
  return *reinterpret_cast<const uint32_t *>(&h);
}

enum Mode { kF16, kInt8, kNoMma };
constexpr int kSets = 4;        // A register sets (the kernel's A changes every block)
constexpr int kBBytes = 65536;  // B cycles through this much shared memory

// `groups` groups of 8 wgmma per warpgroup (one fence, commit and wait per group, as the kernel):
// f16: 8 x m64nNk16 = 64 x 128 weights; int8: 8 x m64nNk32 covering 64 x 128 weights twice (the h
// and l parts of x). The same weights either way.
template <Mode MODE, int N> __global__ void __launch_bounds__(512, 1) mma_stream(int groups, int *sink) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char *xs = smem_raw + ((1024u - (sm90::smem_u32(smem_raw) & 1023u)) & 1023u);
  for (int i = threadIdx.x; i < kBBytes / 4; i += blockDim.x) {
    const uint32_t r = hash(i * 7919u + blockIdx.x);
    reinterpret_cast<uint32_t *>(xs)[i] = MODE == kF16 ? f16_x_pair(r) : r;
  }
  __syncthreads();
  uint32_t a[kSets][4];
#pragma unroll
  for (int s = 0; s < kSets; ++s)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const uint32_t r = hash(threadIdx.x * 131u + s * 4 + e + blockIdx.x * 977u);
      a[s][e] = MODE == kF16 ? f16_weight_pair(r) : r & 0x0F0F0F0Fu;
    }
  float accf[N / 2];
  int acci[N / 2];
#pragma unroll
  for (int j = 0; j < N / 2; ++j) accf[j] = 0.f, acci[j] = 0;
  constexpr int kBox = N * 128;  // N rows x 128 B: 64 f16 or 128 s8 of k per row
  const uint32_t base = sm90::smem_u32(xs);
  uint32_t fold = 0;
  // Unrolled over the register sets, so that every A index is a compile-time constant (an index
  // computed at run time puts the array in local memory).
  for (int g0 = 0; g0 < groups; g0 += kSets) {
#pragma unroll
    for (int gs = 0; gs < kSets; ++gs) {
      // Two boxes per group (8 k-steps of 32 B per row), cycling through the buffer.
      const uint32_t box0 = base + (uint32_t)((2 * (g0 + gs) * kBox) % kBBytes);
      if constexpr (MODE == kNoMma) {
#pragma unroll
        for (int e = 0; e < 4; ++e) fold ^= a[gs][e] + box0;
      } else {
        sm90::wgmma_fence();
#pragma unroll
        for (int k = 0; k < 8; ++k) {
          const uint64_t d = sm90::desc_sw128(box0 + (k >> 2) * kBox) + (uint64_t)((k & 3) * 2);
          if constexpr (MODE == kF16) WgmmaRS<N, 1>::run(accf, a[(gs + k) % kSets], d);
          else WgmmaU8S8<N, 1>::run(acci, a[(gs + k) % kSets], d);
        }
        sm90::wgmma_commit();
        sm90::wgmma_wait<0>();
#pragma unroll
        for (int j = 0; j < N / 2; ++j) {
          sm90::fence_operand(accf[j]);
          asm volatile("" : "+r"(acci[j])::"memory");
        }
      }
      // The A registers change every group, as the kernel's dequantised weights do (one LOP3 each).
#pragma unroll
      for (int e = 0; e < 4; ++e) a[gs][e] ^= MODE == kF16 ? 0x80008000u : 0x01010101u;
    }
  }
  int s = (int)fold;
#pragma unroll
  for (int j = 0; j < N / 2; ++j) s += acci[j] + (int)accf[j];
  if (s == 0x12345678) sink[threadIdx.x] = s;
}

template <Mode MODE, int N> void run(const probe::Nvml &nvml, int sms, int *sink, double seconds) {
  static const char *kName[] = {"f16 m64nNk16", "u8.s8 m64nNk32 x2", "no wgmma"};
  const int smem = kBBytes + 1024, groups = 2000;  // a multiple of 2 * kSets
  CK(cudaFuncSetAttribute(mma_stream<MODE, N>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  auto launch = [&](long long) { mma_stream<MODE, N><<<sms, 512, smem>>>(MODE == kInt8 ? groups / 2 : groups, sink); };
  launch(0);
  CK(cudaDeviceSynchronize());
  printf("N=%d %-18s ", N, kName[MODE]);
  const probe::Sustained r = probe::sustained(nvml, launch, seconds);
  // Weights per launch: f16 64 x 128 per group per warpgroup; int8 64 x 256 per group, half the groups.
  const double weights = (double)sms * 4 * groups * 64 * 128;
  probe::print_sustained(r);
  if (r.mj_per_call > 0)
    printf("    %.1f pJ per weight (x %d tokens), %.1f pJ per weight above the spin base of 128 W\n",
           r.mj_per_call * 1e9 / weights, N, (r.mj_per_call - 0.128 * r.median_us) * 1e9 / weights);
}

int main(int argc, char **argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 2.0;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int *sink;
  CK(cudaMalloc(&sink, 4096));
  const probe::Nvml nvml;
  if (!nvml.ok) printf("NVML not available: times only\n");
  const int sms = prop.multiProcessorCount;
  run<kNoMma, 16>(nvml, sms, sink, seconds);
  run<kF16, 16>(nvml, sms, sink, seconds);
  run<kInt8, 16>(nvml, sms, sink, seconds);
  run<kF16, 32>(nvml, sms, sink, seconds);
  run<kInt8, 32>(nvml, sms, sink, seconds);
  return 0;
}
