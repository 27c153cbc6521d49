// Where a call's time goes (kernels v3 and v1), CTA by CTA (issue #21's per-kernel timeline). Only in builds
// configured with -DW4A16_TIMELINE=ON (bench/prebuilt-gpu.sh timeline); otherwise every stamp below compiles to
// nothing and sm90::Args and GemmArgs have no timeline field. The host gives each launch its own region of the buffer
// the benchmark set (w4a16_debug_set_timeline; a captured launch keeps its region, so a graph replay rewrites the
// same records),
// and thread 0 of each CTA writes %globaltimer (ns, one clock for all SMs) into its CTA's record at each phase
// boundary -- plain stores, no atomics, so that the stamps cost the kernel next to nothing:
//   [0] the plan's weight pointer (which launch)  [1] blockIdx.x | y << 16 | z << 32 | smid << 48
//   [2] entry  [3] grid dependency wait done  [4] first weights in shared memory  [5] first x stage landed
//   [6] main loop done  [7] epilogue inputs ready (split-K exchange starts)  [8] done
#pragma once

#include <stdint.h>

namespace w4a16 {
namespace timeline {

constexpr int kWords = 9;          // per CTA record
constexpr int kCtas = 2048;        // records per launch region (CTAs past it do not stamp)
constexpr int kLaunches = 256;     // regions; the host wraps around
enum Stamp { kId, kWhere, kEntry, kWaited, kFirstWeights, kFirstX, kLoopDone, kEpilogueReady, kDone };

#ifdef W4A16_TIMELINE
__device__ __forceinline__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// Thread 0's record in the launch's region, or null (other threads, no buffer, a CTA past kCtas).
__device__ __forceinline__ unsigned long long *take(unsigned long long *region, const void *id) {
  const unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (!region || threadIdx.x != 0 || cta >= (unsigned)kCtas) return nullptr;
  unsigned long long *r = region + (size_t)cta * kWords;
  r[kEntry] = now();
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  r[kId] = reinterpret_cast<unsigned long long>(id);
  r[kWhere] = blockIdx.x | (unsigned long long)blockIdx.y << 16 | (unsigned long long)blockIdx.z << 32 |
              (unsigned long long)smid << 48;
  return r;
}
#define W4A16_STAMP(rec, which)                                      \
  do {                                                               \
    if (rec) (rec)[w4a16::timeline::which] = w4a16::timeline::now(); \
  } while (0)
#else
#define W4A16_STAMP(rec, which) \
  do {                          \
  } while (0)
#endif

}  // namespace timeline
}  // namespace w4a16
