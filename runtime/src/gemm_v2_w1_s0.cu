// Instantiates the v2 kernels with 1 warpgroup(s) per CTA and accumulation schedule 0 (kernels.h).
#include "kernels.h"

namespace w4a16 {
W4A16_V2_TABLE(1, 0)
}  // namespace w4a16
