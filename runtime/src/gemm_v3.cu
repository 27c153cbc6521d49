// Instantiates the v3 kernels (kernels.h) for one io type: symmetric or zero points x 2 or 4 warpgroups
// per CTA x token tiles 1..8 (M rounded up to 8, at most 64 per CTA). f16 here; gemm_v3_bf16.cu includes
// this file with W4A16_KERNEL_BF16 set.
#include "kernels.h"

#ifdef W4A16_KERNEL_BF16
#define W4A16_IO __nv_bfloat16
#define W4A16_V3_TABLE kV3KernelsBF16
#else
#define W4A16_IO __half
#define W4A16_V3_TABLE kV3KernelsF16
#endif

namespace w4a16 {
namespace {
template <int NT, int W, bool ZP> constexpr V3Entry entry() {
  return {v3::gemm_v3_kernel<W4A16_IO, NT, W, ZP>, v3::Cfg<NT, W, ZP>::kThreads, v3::Cfg<NT, W, ZP>::kSmemBytes, W};
}
}  // namespace
#define W4A16_V3_ROW(W, ZP)                                                                                        \
  {entry<1, W, ZP>(), entry<2, W, ZP>(), entry<3, W, ZP>(), entry<4, W, ZP>(), entry<5, W, ZP>(), entry<6, W, ZP>(), \
   entry<7, W, ZP>(), entry<8, W, ZP>()}
extern const V3Table W4A16_V3_TABLE = {{W4A16_V3_ROW(2, false), W4A16_V3_ROW(4, false)},
                                       {W4A16_V3_ROW(2, true), W4A16_V3_ROW(4, true)}};
#undef W4A16_V3_ROW
}  // namespace w4a16
