// Kernel tables shared by the host code (cuda_backend.cu) and the translation units that instantiate
// the kernels (gemm_v1.cu, gemm_v3.cu and their bf16 twins: split so that the build compiles them in
// parallel).
#pragma once

#include <cuda.h>

#include "gemm_v1.cuh"
#include "gemm_v3.cuh"

namespace w4a16 {

// The kernels of one io type and one family of forms (common.cuh's Form): the exact forms (symmetric,
// zero points) and the affine ones (groups of 128, 64, 32), each table in a translation unit of its own so
// that the build compiles the eight in parallel; v1_kernel / v3_kernel pick the entry for (io type, form,
// CTA width index, token tiles).

// v1 (mma.sync): [form of the family][4 or 8 warps][token tiles 1..8].
struct KernelEntry {
  void (*fn)(GemmArgs);
  int smem;
  int threads;
};
extern const KernelEntry kV1F16Exact[2][2][8], kV1F16Affine[3][2][8], kV1BF16Exact[2][2][8], kV1BF16Affine[3][2][8];
// v1's decode variant: one token tile, K sliced kSlices ways inside a CTA of 16 warps and 32 columns (gemm_v1.cuh,
// KS): [form of the family][x read in place, x gathered through perm (act-order, GATHER)].
constexpr int kSlices = 16, kSlicedCols = 32;
extern const KernelEntry kV1F16ExactSliced[2][2], kV1F16AffineSliced[3][2], kV1BF16ExactSliced[2][2],
    kV1BF16AffineSliced[3][2];

// v3 (wgmma, per-warp weight streams): [form of the family][W = 2, 4 warpgroups per CTA][token tiles 1..8].
struct V3Entry {
  void (*fn)(CUtensorMap, sm90::Args);
  int threads;
  int smem;
  int W;
};
extern const V3Entry kV3F16Exact[2][2][8], kV3F16Affine[3][2][8], kV3BF16Exact[2][2][8], kV3BF16Affine[3][2][8];
// v3 with W = 3 warpgroups: up to 32 tokens (kV3Tiles3 token tiles): [form][token tiles 1..4].
// Width index 2 (v3_kernel).
constexpr int kV3Tiles3 = 4;
extern const V3Entry kV3F16Exact3[2][kV3Tiles3], kV3BF16Exact3[2][kV3Tiles3], kV3F16Affine3[3][kV3Tiles3],
    kV3BF16Affine3[3][kV3Tiles3];
constexpr int kV3Widths = 3;  // width indices: 0 = W 2, 1 = W 4, 2 = W 3
inline int v3_width_index(int W) { return W == 4 ? 1 : W == 3 ? 2 : 0; }
// Whether v3 has a kernel of width index wi for (form, token tiles).
inline bool v3_has(int form, int wi, int nt) { return wi < 2 || nt <= kV3Tiles3; }
// Act-order kernels of the exact forms that gather x's columns themselves (gemm_v3.cuh, GATHER), one token
// tile: [form][perm in shared memory, perm read from global memory (STREAMED)][W = 2, 4].
extern const V3Entry kV3F16Gather[2][2][2], kV3BF16Gather[2][2][2];

inline const KernelEntry &v1_kernel(bool bf16, int form, int wi, int nt) {
  if (is_affine(form)) return (bf16 ? kV1BF16Affine : kV1F16Affine)[form - kAffine128][wi][nt - 1];
  return (bf16 ? kV1BF16Exact : kV1F16Exact)[form][wi][nt - 1];
}
inline const KernelEntry &v1_sliced_kernel(bool bf16, int form, bool gather = false) {
  if (is_affine(form)) return (bf16 ? kV1BF16AffineSliced : kV1F16AffineSliced)[form - kAffine128][gather];
  return (bf16 ? kV1BF16ExactSliced : kV1F16ExactSliced)[form][gather];
}
inline const V3Entry &v3_kernel(bool bf16, int form, int wi, int nt) {  // v3_has(form, wi, nt)
  if (wi == 2 && is_affine(form)) return (bf16 ? kV3BF16Affine3 : kV3F16Affine3)[form - kAffine128][nt - 1];
  if (wi == 2) return (bf16 ? kV3BF16Exact3 : kV3F16Exact3)[form][nt - 1];
  if (is_affine(form)) return (bf16 ? kV3BF16Affine : kV3F16Affine)[form - kAffine128][wi][nt - 1];
  return (bf16 ? kV3BF16Exact : kV3F16Exact)[form][wi][nt - 1];
}
inline const V3Entry &v3_gather_kernel(bool bf16, int form, int wi, bool streamed) {
  return (bf16 ? kV3BF16Gather : kV3F16Gather)[form][streamed][wi];
}

}  // namespace w4a16
