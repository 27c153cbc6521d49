// Kernel tables shared by the host code (cuda_backend.cu) and the translation units that instantiate
// the kernels (gemm_v1.cu, gemm_v3.cu: split so that the build compiles them in parallel).
#pragma once

#include <cuda.h>

#include "gemm_v1.cuh"
#include "gemm_v3.cuh"

namespace w4a16 {

// Every table's first index is the weight's form: 0 = symmetric (zero point 8), 1 = zero points.

// v1 (mma.sync): token tiles 1..8 x 4 or 8 warps.
struct KernelEntry {
  void (*fn)(GemmArgs);
  int smem;
  int threads;
};
extern const KernelEntry kV1Kernels[2][2][8];

// v3 (wgmma, per-warp weight streams): [form][W = 2, 4 warpgroups per CTA][token tiles 1..8].
struct V3Entry {
  void (*fn)(CUtensorMap, sm90::Args);
  int threads;
  int smem;
  int W;
};
extern const V3Entry kV3Kernels[2][2][8];

}  // namespace w4a16
