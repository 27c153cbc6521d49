// Kernel tables shared by the host code (cuda_backend.cu) and the translation units that instantiate
// the kernels (gemm_v1.cu, gemm_v3.cu and their bf16 twins: split so that the build compiles them in
// parallel).
#pragma once

#include <cuda.h>

#include "gemm_v1.cuh"
#include "gemm_v3.cuh"

namespace w4a16 {

// Every table's first index is the weight's form: 0 = symmetric (zero point 8), 1 = zero points; one
// table per io type (f16, bf16).

// v1 (mma.sync): token tiles 1..8 x 4 or 8 warps.
struct KernelEntry {
  void (*fn)(GemmArgs);
  int smem;
  int threads;
};
using V1Table = KernelEntry[2][2][8];
extern const V1Table kV1KernelsF16, kV1KernelsBF16;

// v3 (wgmma, per-warp weight streams): [form][W = 2, 4 warpgroups per CTA][token tiles 1..8].
struct V3Entry {
  void (*fn)(CUtensorMap, sm90::Args);
  int threads;
  int smem;
  int W;
};
using V3Table = V3Entry[2][2][8];
extern const V3Table kV3KernelsF16, kV3KernelsBF16;

inline const V1Table &v1_kernels(bool bf16) { return bf16 ? kV1KernelsBF16 : kV1KernelsF16; }
inline const V3Table &v3_kernels(bool bf16) { return bf16 ? kV3KernelsBF16 : kV3KernelsF16; }

}  // namespace w4a16
