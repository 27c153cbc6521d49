// Kernel tables shared by the host code (cuda_backend.cu) and the translation units that instantiate
// the kernels (gemm_v1.cu, gemm_v2_w{1,2,4}.cu: split so that the build compiles them in parallel).
#pragma once

#include <cuda.h>

#include "gemm_kernel.cuh"
#include "gemm_v2.cuh"
#include "gemm_v3.cuh"

namespace w4a16 {

// v1 (mma.sync): token tiles 1..8 x 4 or 8 warps.
struct KernelEntry {
  void (*fn)(GemmArgs);
  int smem;
  int threads;
};
extern const KernelEntry kV1Kernels[2][8];

// v2 (wgmma): token tiles 1..8 for W = 1, 2, 4 warpgroups (accumulation schedule 0).
struct V2Entry {
  void (*fn)(CUtensorMap, v2::Args);
  int threads;
  int max_stages;  // what the compile-time shared-memory budget allows
  int stage_bytes;
  int red_bytes;
  int smem(int stages) const { return (stages * stage_bytes > red_bytes ? stages * stage_bytes : red_bytes) + 1024; }
};
// Schedules instantiated (gemm_v2.cuh describes 0..2; 1 and 2 measured slower and are left out).
constexpr int kV2Scheds = 1;
extern const V2Entry kV2W1S0[8], kV2W2S0[8], kV2W4S0[8];

template <int NT, int W, int S> constexpr V2Entry v2entry() {
  using C = v2::Cfg<NT, W>;
  return {v2::gemm_v2_kernel<NT, W, S>, C::kThreads, C::kStages, C::kStageBytes, C::kRedBytes};
}
#define W4A16_V2_TABLE(W, SC)                                                                                  \
  extern const V2Entry kV2W##W##S##SC[8] = {v2entry<1, W, SC>(), v2entry<2, W, SC>(), v2entry<3, W, SC>(),    \
                                            v2entry<4, W, SC>(), v2entry<5, W, SC>(), v2entry<6, W, SC>(),    \
                                            v2entry<7, W, SC>(), v2entry<8, W, SC>()};

// v3 (wgmma, per-warp weight streams): [W = 2, 4 warpgroups per CTA][token tiles 1..8].
struct V3Entry {
  void (*fn)(CUtensorMap, v2::Args);
  int threads;
  int smem;
  int W;
};
extern const V3Entry kV3Kernels[2][8];

}  // namespace w4a16
