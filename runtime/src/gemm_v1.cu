// Instantiates the v1 kernels (see kernels.h): token tiles 1..8 (M rounded up to 8, at most 64 per
// CTA) x 4 or 8 warps. Deeper pipelines where the staged x slice is small; two CTAs of ~100 KB fit
// one SM in every configuration.
#include "kernels.h"

namespace w4a16 {
namespace {
template <int NT, int WARPS> constexpr KernelEntry entry() {
  constexpr int S = NT <= 4 ? 4 : 3;
  return {w4a16_gemm_kernel<NT, WARPS, S>, Config<NT, WARPS, S>::kSmemBytes, WARPS * 32};
}
}  // namespace
extern const KernelEntry kV1Kernels[2][8] = {
    {entry<1, 4>(), entry<2, 4>(), entry<3, 4>(), entry<4, 4>(), entry<5, 4>(), entry<6, 4>(), entry<7, 4>(),
     entry<8, 4>()},
    {entry<1, 8>(), entry<2, 8>(), entry<3, 8>(), entry<4, 8>(), entry<5, 8>(), entry<6, 8>(), entry<7, 8>(),
     entry<8, 8>()},
};
}  // namespace w4a16
