// Instantiates the v1 kernels (see kernels.h) for one io type: symmetric or zero points x 4 or 8 warps x
// token tiles 1..8 (M rounded up to 8, at most 64 per CTA). Deeper pipelines where the staged x slice is
// small; two CTAs of ~100 KB fit one SM in every configuration. f16 here; gemm_v1_bf16.cu includes this
// file with W4A16_KERNEL_BF16 set.
#include "kernels.h"

#ifdef W4A16_KERNEL_BF16
#define W4A16_IO __nv_bfloat16
#define W4A16_V1_TABLE kV1KernelsBF16
#else
#define W4A16_IO __half
#define W4A16_V1_TABLE kV1KernelsF16
#endif

namespace w4a16 {
namespace {
template <int NT, int WARPS, bool ZP> constexpr KernelEntry entry() {
  constexpr int S = NT <= 4 ? 4 : 3;
  return {w4a16_gemm_kernel<W4A16_IO, NT, WARPS, S, ZP>, Config<NT, WARPS, S, ZP>::kSmemBytes, WARPS * 32};
}
}  // namespace
#define W4A16_V1_ROW(WARPS, ZP)                                                                                      \
  {entry<1, WARPS, ZP>(), entry<2, WARPS, ZP>(), entry<3, WARPS, ZP>(), entry<4, WARPS, ZP>(),                       \
   entry<5, WARPS, ZP>(), entry<6, WARPS, ZP>(), entry<7, WARPS, ZP>(), entry<8, WARPS, ZP>()}
extern const V1Table W4A16_V1_TABLE = {{W4A16_V1_ROW(4, false), W4A16_V1_ROW(8, false)},
                                       {W4A16_V1_ROW(4, true), W4A16_V1_ROW(8, true)}};
#undef W4A16_V1_ROW
}  // namespace w4a16
