// Instantiates the v3 kernels (kernels.h): symmetric or zero points x 2 or 4 warpgroups per CTA x token
// tiles 1..8 (M rounded up to 8, at most 64 per CTA).
#include "kernels.h"

namespace w4a16 {
namespace {
template <int NT, int W, bool ZP> constexpr V3Entry entry() {
  return {v3::gemm_v3_kernel<NT, W, ZP>, v3::Cfg<NT, W, ZP>::kThreads, v3::Cfg<NT, W, ZP>::kSmemBytes, W};
}
}  // namespace
#define W4A16_V3_ROW(W, ZP)                                                                                        \
  {entry<1, W, ZP>(), entry<2, W, ZP>(), entry<3, W, ZP>(), entry<4, W, ZP>(), entry<5, W, ZP>(), entry<6, W, ZP>(), \
   entry<7, W, ZP>(), entry<8, W, ZP>()}
extern const V3Entry kV3Kernels[2][2][8] = {{W4A16_V3_ROW(2, false), W4A16_V3_ROW(4, false)},
                                            {W4A16_V3_ROW(2, true), W4A16_V3_ROW(4, true)}};
#undef W4A16_V3_ROW
}  // namespace w4a16
