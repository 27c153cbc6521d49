// Instantiates the v3 kernels (kernels.h): 2 or 4 warpgroups per CTA x token tiles 1..8 (M rounded up
// to 8, at most 64 per CTA).
#include "kernels.h"

namespace w4a16 {
namespace {
template <int NT, int W> constexpr V3Entry entry() {
  return {v3::gemm_v3_kernel<NT, W>, v3::Cfg<NT, W>::kThreads, v3::Cfg<NT, W>::kSmemBytes, W};
}
}  // namespace
extern const V3Entry kV3Kernels[2][8] = {
    {entry<1, 2>(), entry<2, 2>(), entry<3, 2>(), entry<4, 2>(), entry<5, 2>(), entry<6, 2>(), entry<7, 2>(),
     entry<8, 2>()},
    {entry<1, 4>(), entry<2, 4>(), entry<3, 4>(), entry<4, 4>(), entry<5, 4>(), entry<6, 4>(), entry<7, 4>(),
     entry<8, 4>()}};
}  // namespace w4a16

