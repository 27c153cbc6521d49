// Instantiates the v1 kernels (see kernels.h) of one io type and one family of forms (common.cuh): the
// forms x 4 or 8 warps x token tiles 1..8 (M rounded up to 8, at most 64 per CTA), and per form the decode variant
// (K sliced inside the CTA). Deeper pipelines where the staged x slice is small; two CTAs of ~100 KB fit one SM in
// every configuration but the decode variant (one per SM). f16 and the exact
// forms here; gemm_v1_{bf16,affine,affine_bf16}.cu include this file with W4A16_KERNEL_BF16 and / or
// W4A16_KERNEL_AFFINE set.
#include "kernels.h"

#ifdef W4A16_KERNEL_BF16
#define W4A16_IO __nv_bfloat16
#else
#define W4A16_IO __half
#endif

namespace w4a16 {
namespace {
template <int NT, int WARPS, int FORM> constexpr KernelEntry entry() {
  constexpr int S = NT <= 4 ? 4 : 3;
  return {w4a16_gemm_kernel<W4A16_IO, NT, WARPS, S, FORM>, Config<NT, WARPS, S, FORM>::kSmemBytes, WARPS * 32};
}
// Decode (one token tile), K sliced 16 ways inside the CTA: 16 warps of 32 columns, 3 stages of 16 groups (2 with
// G = 32's larger records: the stages must fit one SM's shared memory). 8 warps left the SM's issue slots idle
// (~2.5 TB/s at most, bench/RESULTS.md session 31). The act-order kernels (GATHER) take 2 stages too: x's rows sit
// behind them (M * K * 2 bytes: 64 KB at 8 tokens and K = 4096).
template <int FORM, bool GATHER> constexpr KernelEntry sliced1() {
  constexpr int S = FORM == kAffine32 || GATHER ? 2 : 3;
  return {w4a16_gemm_kernel<W4A16_IO, 1, 16, S, FORM, kSlices, GATHER>, Config<1, 16, S, FORM, kSlices>::kSmemBytes,
          16 * 32};
}
#define sliced(F) {sliced1<F, false>(), sliced1<F, true>()}
}  // namespace
#define W4A16_V1_ROW(WARPS, F)                                                                                       \
  {entry<1, WARPS, F>(), entry<2, WARPS, F>(), entry<3, WARPS, F>(), entry<4, WARPS, F>(),                           \
   entry<5, WARPS, F>(), entry<6, WARPS, F>(), entry<7, WARPS, F>(), entry<8, WARPS, F>()}
#define W4A16_V1_FORM(F) {W4A16_V1_ROW(4, F), W4A16_V1_ROW(8, F)}
#if defined(W4A16_KERNEL_AFFINE) && defined(W4A16_KERNEL_BF16)
extern const KernelEntry kV1BF16Affine[3][2][8] = {W4A16_V1_FORM(kAffine128), W4A16_V1_FORM(kAffine64), W4A16_V1_FORM(kAffine32)};
extern const KernelEntry kV1BF16AffineSliced[3][2] = {sliced(kAffine128), sliced(kAffine64), sliced(kAffine32)};
#elif defined(W4A16_KERNEL_AFFINE)
extern const KernelEntry kV1F16Affine[3][2][8] = {W4A16_V1_FORM(kAffine128), W4A16_V1_FORM(kAffine64), W4A16_V1_FORM(kAffine32)};
extern const KernelEntry kV1F16AffineSliced[3][2] = {sliced(kAffine128), sliced(kAffine64), sliced(kAffine32)};
#elif defined(W4A16_KERNEL_BF16)
extern const KernelEntry kV1BF16Exact[2][2][8] = {W4A16_V1_FORM(kSymmetric), W4A16_V1_FORM(kZeroPoints)};
extern const KernelEntry kV1BF16ExactSliced[2][2] = {sliced(kSymmetric), sliced(kZeroPoints)};
#else
extern const KernelEntry kV1F16Exact[2][2][8] = {W4A16_V1_FORM(kSymmetric), W4A16_V1_FORM(kZeroPoints)};
extern const KernelEntry kV1F16ExactSliced[2][2] = {sliced(kSymmetric), sliced(kZeroPoints)};
#endif
#undef sliced
#undef W4A16_V1_FORM
#undef W4A16_V1_ROW
}  // namespace w4a16
