// The CUDA backend's plan (cuda_backend.cu creates, launches and destroys it) and the choice of its kernel
// configuration (cuda_config.cu): kernel v3's CTA width, split count and reduction for each M, and kernel v1's
// splits, from the GPU's occupancy answers and a cost model fitted on the H200.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include <mutex>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "kernels.h"

// Kernel v3 configuration for one M: W warpgroups per CTA, S CTAs per tile along K, reduced on chip
// by clusters of S CTAs or (global) through the plan's workspace.
struct V3Choice {
  int W, S;
  bool global;
};

struct w4a16_cuda_plan {
  int device;
  int K, N, Npad;       // Npad = N rounded up to 64 (the v3 column block; v1 tiles divide it)
  int version;          // 3 = kernel v3 (sm_90), 1 = kernel v1
  V3Choice v3[65];      // v3: the choice for M = 1..64 (index M; larger M is chosen per call)
  uint8_t gathers[9];   // v3, M = 1..8: how an act-order call gathers x (a w4a16_gather_mode: gather_fits,
                        // decode_gather_fits)
  uint8_t slices[9];    // v3 plans, M = 1..8: K slices per CTA of kernel v1's decode variant, 0 = v3 (choose_slices)
  int force_slices;     // W4A16_FORCE_KERNEL: 1 = v1's decode variant wherever its grid fits, 0 = never, -1 = none
  bool act_order;       // the plan's calls gather x's columns first (act_order_cuda.cu): choose_v3 leaves room
  int force_w, force_s;  // test overrides (W4A16_FORCE_WG / _SPLITS), 0 = none
  int force_global;      // W4A16_FORCE_GLOBAL: 1 = split-K through the workspace, 0 = clusters, -1 = none
  bool pdl;             // v3: programmatic dependent launch (W4A16_NO_PDL=1 turns it off)
  int warps;            // v1: 4 or 8 warps per CTA: 128 or 256 output columns
  int splits;           // v1: CTAs per cluster along K (1 = no split-K)
  int sms, cc_major;
  uint4 *wq;            // repacked weight, Npad*K/2 bytes
  void *scales;         // [K/128][Npad/16] TileMeta records of the form
  int form;             // kernel tables' first index (w4a16::Form)
  bool bf16;            // x, bias, residual and out are bf16 (the bf16 kernels), else f16
  bool scales_bf16;     // the scales are bf16, else f16 (independent of the io type)
  uint64_t bytes;       // wq + scales
  // Workspace split-K state (see run_v3), guarded by `mu`. The partial sums are sized by
  // w4a16_plan_reserve (at creation for M <= W4A16_DEFAULT_MAX_M); the flags and the ticket counter are
  // zero between calls (the kernel restores them), so no call passes host state to the kernel.
  mutable std::mutex mu;
  mutable float *partials = nullptr;
  mutable uint64_t partial_bytes = 0;  // reserved bytes of partial sums
  mutable int64_t reserved_m = 0;      // the largest M the reservation covers
  unsigned *flags = nullptr;           // kMaxGrid slot flags, then the ticket counter
  cudaEvent_t done = nullptr;          // recorded after each eager workspace run (cross-stream order)
  mutable cudaStream_t last_stream = nullptr;
  mutable bool ran = false;
};

namespace w4a16 {
namespace config {

inline int token_tiles(int64_t M) { return M >= 64 ? 8 : (int)((M + 7) / 8); }

// Launch attributes, appended to cfg (attrs: room for every attribute appended, outliving the
// launch). Clusters of S CTAs along grid.x:
inline void add_cluster(cudaLaunchConfig_t &cfg, cudaLaunchAttribute *attrs, int S) {
  cudaLaunchAttribute &a = attrs[cfg.numAttrs++];
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = (unsigned)S;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  cfg.attrs = attrs;
}

// Workspace split-K flags per plan, one per partial-sum slot (the grid never exceeds kMaxGrid), then the
// call's ticket counter (the words after it are unused).
using sm90::kMaxGrid;
constexpr size_t kFlagBytes = 2 * kMaxGrid * sizeof(unsigned);

// Forgets the occupancy answers (they are per device). Call with the backend's lock held, as choose_v3 and
// gather_fits, which fill them.
void reset_capacity_cache();
int choose_splits(int ctas_n, int G, int capacity);
uint64_t slot_bytes(int64_t M, int W);
long long v3_tiles(const w4a16_cuda_plan *p, int64_t M, int W);
uint64_t split_bytes(const w4a16_cuda_plan *p, const V3Choice &c, int64_t M);
V3Choice choose_v3(const w4a16_cuda_plan *p, int64_t M);
size_t gather_smem_bytes(const w4a16_cuda_plan *p, V3Choice c, int64_t M, bool perm_in_smem);
w4a16_gather_mode gather_fits(const w4a16_cuda_plan *p, int64_t M);
bool decode_gather_fits(const w4a16_cuda_plan *p, int64_t M);
int choose_slices(const w4a16_cuda_plan *p, int64_t M);
// The bytes of x's M rows, which the act-order kernels that gather x themselves copy into shared memory.
inline size_t x_rows_bytes(const w4a16_cuda_plan *p, int64_t M) { return (size_t)M * p->K * 2; }
// The K slices of kernel v1's decode variant for a call of M tokens, or 0: not that kernel.
inline int sliced_at(const w4a16_cuda_plan *p, int64_t M) { return M >= 1 && M <= 8 ? p->slices[M] : 0; }

}  // namespace config
}  // namespace w4a16
