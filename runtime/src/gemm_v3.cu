// Instantiates the v3 kernels (kernels.h) of one io type and one family of forms (common.cuh): the forms x
// 2 or 4 warpgroups per CTA x token tiles 1..8 (M rounded up to 8, at most 64 per CTA), and for the exact
// forms the act-order kernels that gather x's columns themselves; every form also with 3 warpgroups x token
// tiles 1..4. f16 and the exact forms here; gemm_v3_{bf16,affine,affine_bf16}.cu include this file with
// W4A16_KERNEL_BF16 and / or W4A16_KERNEL_AFFINE set.
#include "kernels.h"

#ifdef W4A16_KERNEL_BF16
#define W4A16_IO __nv_bfloat16
#else
#define W4A16_IO __half
#endif

namespace w4a16 {
namespace {
template <int NT, int W, int FORM, bool GATHER = false, bool STREAMED = false> constexpr V3Entry entry() {
  using C = v3::Cfg<NT, W, FORM, GATHER>;
  return {v3::gemm_v3_kernel<W4A16_IO, NT, W, FORM, GATHER, STREAMED>, C::kThreads, C::kSmemBytes, W};
}
}  // namespace
#define W4A16_V3_ROW(W, F)                                                                                         \
  {entry<1, W, F>(), entry<2, W, F>(), entry<3, W, F>(), entry<4, W, F>(), entry<5, W, F>(), entry<6, W, F>(),       \
   entry<7, W, F>(), entry<8, W, F>()}
#define W4A16_V3_FORM(F) {W4A16_V3_ROW(2, F), W4A16_V3_ROW(4, F)}
// W = 3 (up to 32 tokens: kernels.h's kV3Tiles3)
#define W4A16_V3_W3(F) {entry<1, 3, F>(), entry<2, 3, F>(), entry<3, 3, F>(), entry<4, 3, F>()}
// The act-order kernels that gather x themselves: one token tile (M <= 8), the exact forms (GPTQ's); perm in
// shared memory, then read from global memory.
#define W4A16_V3_GATHER(F)                                                                                         \
  {{entry<1, 2, F, true>(), entry<1, 4, F, true>()}, {entry<1, 2, F, true, true>(), entry<1, 4, F, true, true>()}}
#if defined(W4A16_KERNEL_AFFINE) && defined(W4A16_KERNEL_BF16)
extern const V3Entry kV3BF16Affine[3][2][8] = {W4A16_V3_FORM(kAffine128), W4A16_V3_FORM(kAffine64), W4A16_V3_FORM(kAffine32)};
extern const V3Entry kV3BF16Affine3[3][kV3Tiles3] = {W4A16_V3_W3(kAffine128), W4A16_V3_W3(kAffine64), W4A16_V3_W3(kAffine32)};
#elif defined(W4A16_KERNEL_AFFINE)
extern const V3Entry kV3F16Affine[3][2][8] = {W4A16_V3_FORM(kAffine128), W4A16_V3_FORM(kAffine64), W4A16_V3_FORM(kAffine32)};
extern const V3Entry kV3F16Affine3[3][kV3Tiles3] = {W4A16_V3_W3(kAffine128), W4A16_V3_W3(kAffine64), W4A16_V3_W3(kAffine32)};
#elif defined(W4A16_KERNEL_BF16)
extern const V3Entry kV3BF16Exact[2][2][8] = {W4A16_V3_FORM(kSymmetric), W4A16_V3_FORM(kZeroPoints)};
extern const V3Entry kV3BF16Gather[2][2][2] = {W4A16_V3_GATHER(kSymmetric), W4A16_V3_GATHER(kZeroPoints)};
extern const V3Entry kV3BF16Exact3[2][kV3Tiles3] = {W4A16_V3_W3(kSymmetric), W4A16_V3_W3(kZeroPoints)};
#else
extern const V3Entry kV3F16Exact[2][2][8] = {W4A16_V3_FORM(kSymmetric), W4A16_V3_FORM(kZeroPoints)};
extern const V3Entry kV3F16Gather[2][2][2] = {W4A16_V3_GATHER(kSymmetric), W4A16_V3_GATHER(kZeroPoints)};
extern const V3Entry kV3F16Exact3[2][kV3Tiles3] = {W4A16_V3_W3(kSymmetric), W4A16_V3_W3(kZeroPoints)};
#endif
#undef W4A16_V3_GATHER
#undef W4A16_V3_W3
#undef W4A16_V3_FORM
#undef W4A16_V3_ROW
}  // namespace w4a16
