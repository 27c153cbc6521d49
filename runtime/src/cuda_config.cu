// Kernel configuration choice for the CUDA backend (cuda_plan.cuh): kernel v1's split count, and for kernel v3
// the CTA width, split count and reduction (clusters or the plan's workspace) of each M, from the GPU's occupancy
// answers (cached per device) and a cost model fitted on the H200 (bench/RESULTS.md).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string.h>

#include "cuda_plan.cuh"

namespace w4a16 {
namespace config {

// v3: resident CTAs per GPU for (bf16, form, width index, NT, S); -1 = not asked
static int g_occ[2][kForms][w4a16::kV3Widths][8][9];
static int g_occ_sliced[2][kForms];     // v1's decode variant: resident CTAs per GPU for (bf16, form)

void reset_capacity_cache() {
  memset(g_occ, 0xff, sizeof g_occ);
  memset(g_occ_sliced, 0xff, sizeof g_occ_sliced);
}

// v1 split-K choice: time ~ waves * (groups per CTA + a fixed cost per wave), where a wave is the
// number of CTAs the GPU holds at once. The fixed cost (pipeline fill, cluster reduction, epilogue,
// CTA launch) was fitted on the H200 (bench/RESULTS.md, 2026-11-30). Smallest cost wins, fewer splits
// on ties. Clusters are portable up to 8 CTAs.
constexpr int kWaveOverheadGroups = 16;
int choose_splits(int ctas_n, int G, int capacity) {
  int best = 1;
  long long best_cost = -1;
  for (int s = 1; s <= 8 && s <= G; ++s) {
    const long long waves = ((long long)ctas_n * s + capacity - 1) / capacity;
    const long long cost = waves * ((G + s - 1) / s + kWaveOverheadGroups);
    if (best_cost < 0 || cost < best_cost) best = s, best_cost = cost;
  }
  return best;
}

// CTAs of a kernel (v1 or v3) with cluster size S that the GPU holds at once; 0 where it fits none.
static int capacity(const void *fn, int threads, int smem, int S, int sms) {
  int c = 0;
  if (S == 1) {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, smem) != cudaSuccess)
      per_sm = 0, cudaGetLastError();
    c = per_sm * sms;
  } else {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)S, 1, 1);
    cfg.blockDim = dim3((unsigned)threads);
    cfg.dynamicSmemBytes = (size_t)smem;
    cudaLaunchAttribute attrs[1];
    add_cluster(cfg, attrs, S);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, fn, &cfg) != cudaSuccess)
      clusters = 0, cudaGetLastError();
    c = clusters * S;
  }
  return c;
}

// CTAs of v3 kernel (io type, form, W index wi, NT) with cluster size S that the GPU holds at once (call
// with g_mu held: the answers are cached per device).
static int v3_capacity(bool bf16, int form, int wi, int nt, int S, int sms) {
  int &c = g_occ[bf16][form][wi][nt - 1][S];
  if (c < 0) {
    const w4a16::V3Entry &k = w4a16::v3_kernel(bf16, form, wi, nt);
    c = capacity((const void *)k.fn, k.threads, k.smem, S, sms);
  }
  return c;
}


// Bytes of split-K partial sums the memory contract (docs/contract.md §2) leaves for a call with M tokens: they
// are floating-point storage (at most 2MK + 4MN + 1 MiB besides the scales copy, whose padding
// columns count here) and workspace (at most max(8 MiB, 4MK + 8MN), less the weight padding).
static uint64_t partials_allowance(const w4a16_cuda_plan *p, int64_t M) {
  const uint64_t K = (uint64_t)p->K, N = (uint64_t)p->N, pad = (uint64_t)(p->Npad - p->N), G = K / w4a16::kGroupK;
  const uint64_t fp = 2 * M * K + 4 * M * N + (1u << 20), fp_used = G * pad * 2;
  const uint64_t ws = std::max<uint64_t>(8u << 20, 4 * M * K + 8 * M * N);
  const uint64_t ws_used = pad * K / 2 + fp_used + kFlagBytes;
  const uint64_t a = fp > fp_used ? fp - fp_used : 0, b = ws > ws_used ? ws - ws_used : 0;
  return std::min(a, b);
}
// One partial-sum slot: up to 64 tokens x W*64 columns of f32.
uint64_t slot_bytes(int64_t M, int W) { return (uint64_t)std::min<int64_t>(M, 64) * W * 64 * 4; }
// Tiles of v3 with CTA width W: 64-token chunks x column tiles of W blocks.
long long v3_tiles(const w4a16_cuda_plan *p, int64_t M, int W) {
  return (long long)(p->Npad / 64 + W - 1) / W * ((M + 63) / 64);
}
// Workspace bytes of configuration c: S-1 slots per tile.
uint64_t split_bytes(const w4a16_cuda_plan *p, const V3Choice &c, int64_t M) {
  return c.global ? (uint64_t)v3_tiles(p, M, c.W) * (c.S - 1) * slot_bytes(M, c.W) : 0;
}

// From 32 tokens per CTA this kernel runs the H200 into its power cap (clocks drop from 1980 to
// ~1800 MHz and below), and more SMs stop paying off: 8192x28672 took the same time on 112, 128 and
// 132 CTAs, 28672x8192 gained 12 %, not 33 %, from 96 to 128 (bench/RESULTS.md, 2026-11-30 session
// 3). The model caps the SMs that count there. With up to 16 tokens every SM counts: 8192x8192 at
// M = 1 took 12.7 us on 128 SMs against 14.4 on 96 (session 6).
constexpr double kPowerCappedSms = 108;
static double counted_sms(int sms, int T) {
  const double capped = std::min<double>(sms, kPowerCappedSms);
  return T <= 16 ? sms : T >= 32 ? capped : sms + (capped - sms) * (T - 16) / 16.0;
}

// v3 configuration for M tokens (T = 8*nt per CTA, 64-token chunks beyond): W = 4 warpgroups per CTA
// (one CTA per SM), W = 3 (one per SM, up to 32 tokens) or W = 2 (two per SM), S CTAs per tile along
// K, reduced by S-CTA clusters or, when those would not all fit at once (4-CTA clusters of one CTA per SM
// fill only 120 of the H200's 132 SMs), through the plan's workspace if the memory contract leaves room
// for it. Estimated time,
// in block-groups (64 columns x 128 k): those the busiest SM streams, scaled up when the SM holds
// fewer warps than its loop needs to hide its latencies (16, 12 for W = 3, or 8 from 48 tokens, where each
// wgmma is larger), or all of them over the SMs that count (counted_sms) if that is more; scaled by the x
// tile each CTA re-reads from L2 (a quarter of an HBM byte per byte); plus a fixed cost per wave of
// CTAs (fill, epilogue) and per split (the reduction). With W = 4 a cluster's reduction costs more
// than the workspace's at small T (its CTAs wait for each other twice, with nothing else on their
// SMs; the workspace's lower splits publish and leave) and less at large T, where the workspace's
// partial sums (T x 64W floats per split) grow; with W = 2 clusters are cheap. Fitted to session 6's configuration sweeps
// (bench/results/2026-11-30-s6-timeline: 8192x8192, W = 4, 3 splits, workspace vs cluster: -1.5 us
// at M = 1, -1.2 at M = 32, +0.7 at M = 64; 14336x4096 at M = 16-32: W = 2 with 7-CTA clusters
// 0.7-1.6 us faster than any W = 4 configuration). A second wave (a tail that the first wave's SMs wait for) is
// taken only when nothing fits in one. Up to 32 tokens, W = 2 only where neither W = 4 nor W = 3 fits anything in
// one wave, and for act-order calls (W = 3 only from 9 tokens: there are no W = 3 gathering kernels); ties go to
// W = 4, then 3, and fewer splits. Up to 32 tokens, clusters only where the workspace can take no split, or from 17
// tokens (to 48) where a one-wave cluster has the workspace pick's width and as many splits (below; act-order calls
// that gather x first have a rule of their own).
// The rules measured in the LLaMA-7B layer (one CTA width; the workspace before clusters) hold up to this many tokens.
constexpr int kLayerRuleTokens = 32;
// W = 3 over W = 4 on short K ranges up to 24 tokens: each split then streams few groups, and W = 3's CTA, with 12
// warps to hide the loop's latencies instead of 16, reaches its full rate sooner. The cost model, which charges both
// widths alike per group, had 4096x11008 (32 groups) on W = 4 with 3 splits, 2.4 / 2.1 / 7.9 / 7.0 % slower than
// 2655af8 at M = 1 / 16 / 18 / 24; W = 3 with 2 splits (16 groups each; a cluster from 17 tokens, as at 32 tokens
// without this rule) runs 2.6 / 6.1 / 3.3 / 6.7 % faster than 2655af8 (H100, back-to-back, bench/RESULTS.md session 52
// runs 1 and 4). The factor is the smallest that moves that shape. No other benchmark shape's pick moved at M = 1 /
// 16 / 18 / 24 / 32, and the LLaMA-7B layer did not change; session 46's factor without the range condition also took
// W = 3 on 8192x8192 and 28672x8192 (22 and 75 groups per split), and both got slower.
constexpr int kShortRangeTokens = 24, kShortRangeGroups = 20;
constexpr double kShortRangeW3Factor = 0.94;
V3Choice choose_v3(const w4a16_cuda_plan *p, int64_t M) {
  const int nt = token_tiles(M), T = nt * 8, G = p->K / w4a16::kGroupK, sms = p->sms;
  // The cheapest one-wave cluster of each width (the act-order and same-width rules below choose among them).
  V3Choice best = {4, 1, false}, cluster_of_width[w4a16::kV3Widths] = {};
  double best_cost = -1, cluster_cost_of_width[w4a16::kV3Widths] = {-1, -1, -1};
  constexpr int kWidthOrder[] = {1, 2, 0};  // W = 4, 3, 2: ties go to the first
  // An act-order call of 8 to 64 tokens first gathers x in M CTAs of 1024 threads (act_order_cuda.cu,
  // gather_row_kernel's kRows), launched early (PDL): they hold M SMs while this call's CTAs arrive, one CTA of this
  // kernel fewer on each. A cluster needs all its CTAs placed at once, so its capacity drops by M; with that,
  // clusters beat the workspace there (H200 sweep of every configuration, bench/RESULTS.md session 18: the
  // best act-order configuration was a cluster on 10 of 12 rows at M = 16 and 32; 7-CTA clusters that fill
  // the GPU without the gather ran 35-60 % slower than 6-CTA ones at M = 32 on N = 4096). Since session 28 the
  // gather takes smaller CTAs up to 32 tokens (gather_row_kernel's kSlices), which hold no SM to themselves; the cut
  // stays because it still picks better there: without it 7 rows went from -7.8..+4.3 % over the plain call to
  // +9.5..+17.8 % (bench/RESULTS.md session 28, run 3).
  const bool gathered_before = p->act_order && M >= 8 && M <= 64;
  for (int wi : kWidthOrder) {
    // Up to 32 tokens, W = 2 only where W = 4 fits nothing in one wave (act-order calls, whose sweep, session 18,
    // had both widths, excepted). In a model, a kernel whose CTAs take a whole SM following one of half-SM CTAs
    // (or the reverse) starts on an SM only when the previous kernel's CTAs there have all finished; with one width
    // throughout, the layer took 52.0 / 58.0 / 72.9 us at M = 1 / 16 / 32 against 54.7 / 60.3 / 76.3 with the cost
    // model's mix. From 48 tokens (wgmma tiles twice as tall) the mix wins even there: the layer 82.7 / 96.7 us at
    // M = 48 / 64 with it, 90.0 / 106.4 with W = 4 throughout; single N = 4096 calls 24-36 % slower with W = 4
    // (bench/RESULTS.md session 21). M = 33-40 (T = 40) keeps the mix too: no layer measured there.
    if (wi == 0 && T <= kLayerRuleTokens && !p->force_w && !p->act_order && best_cost >= 0 && best_cost < 1e6) break;
    // No W = 3 gathering kernels: act-order calls of up to 8 tokens, which may gather x in the GEMM, keep W = 4 or 2.
    // From 9 tokens they gather by a launch and run the plain kernel (H100, session 35 run 3: 11008x4096 and
    // 14336x4096 at M = 16 2.4 / 3.6 % faster L2-cold with W = 3 in the running, 5-6 % slower L2-hot; others +-0.2 us).
    if (!w4a16::v3_has(p->form, wi, nt) || (wi == 2 && p->act_order && M <= 8)) continue;
    const w4a16::V3Entry &k = w4a16::v3_kernel(p->bf16, p->form, wi, nt);
    if (p->force_w && p->force_w != k.W) continue;
    const long long tiles = v3_tiles(p, M, k.W);
    // Clusters only where the workspace can take no split of this width: in a model, where each call follows
    // other kernels, an S-CTA cluster starts only once S SMs of one GPC are free at once, and its CTAs started up
    // to 8-11 us after the call's first ones (timeline of the LLaMA-7B layer, bench/RESULTS.md session 15). A
    // cluster reduction beats the workspace in back-to-back calls of one shape (by 5-23 % on N = 4096 at M = 16-32),
    // but a model is not that: with clusters wherever the workspace could not take that particular split, the layer
    // took 66.6 / 81.9 us at M = 16 / 32 and the LLaMA MLP block 47.3 us at M = 32; with the workspace wherever it can
    // split at all, 60.2 / 76.1 and 44.6 (bench/RESULTS.md session 20). Up to 32 tokens only: from 40 the cost model
    // picks between them, which took the layer from 83.7 / 97.2 to 82.6 / 93.8 us at M = 48 / 64 and single calls
    // 9-25 % faster on 12 of 24 rows at M = 40-64 (the workspace's partial sums grow with T; session 27).
    auto workspace_takes = [&](int S) {
      return S > 1 && (!p->force_s || p->force_s == S) && tiles * S <= kMaxGrid &&
             split_bytes(p, V3Choice{k.W, S, true}, M) <= partials_allowance(p, M);
    };
    bool workspace_splits = false;
    for (int S = 2; S <= 8 && S <= G; ++S) workspace_splits = workspace_splits || workspace_takes(S);
    for (int S = 1; S <= 8 && S <= G; ++S) {
      if (p->force_s && p->force_s != S) continue;
      const bool workspace_fits = workspace_takes(S);
      for (int global = 0; global <= (S > 1); ++global) {
        if (S > 1 && p->force_global >= 0 && p->force_global != global) continue;
        // Up to 32 tokens the workspace before clusters (the layer rule above); such a cluster is still costed for
        // the same-width rule below.
        const bool layer_rule_skips =
            S > 1 && p->force_global < 0 && !global && workspace_splits && !gathered_before && T <= kLayerRuleTokens;
        const V3Choice c = {k.W, S, global != 0};
        if (global && !workspace_fits) continue;
        int cap = v3_capacity(p->bf16, p->form, wi, nt, global ? 1 : S, sms);
        if (gathered_before && S > 1 && !global) cap -= (int)M;
        if (cap <= 0) continue;
        const long long ctas = tiles * S, waves = (ctas + cap - 1) / cap;
        const long long resident = (cap + sms - 1) / sms;  // CTAs one SM holds at once
        const long long per_sm = ctas <= cap ? (ctas + sms - 1) / sms : waves * resident;  // the busiest SM's
        const double warps = (double)(per_sm < resident ? per_sm : resident) * 4 * k.W;   // ... at once
        const double needed = T >= 48 ? 8 : k.W == 3 ? 12 : 16;
        const double eff = warps >= needed ? 1.0 : warps / needed;
        const double work = std::max((double)per_sm * k.W * ((G + S - 1) / S) / eff,
                                     (double)tiles * k.W * G / counted_sms(sms, T));
        const double per_split = global ? 0.5 + 0.02 * T * k.W : k.W >= 3 ? 5.0 : 0.5;  // workspace: by slot size
        const bool short_w3 = k.W == 3 && T <= kShortRangeTokens && (G + S - 1) / S <= kShortRangeGroups;
        const double cost = (work * (1.0 + 0.25 * T / (16.0 * k.W)) + 8.0 * (double)waves + per_split * S) *
                                (short_w3 ? kShortRangeW3Factor : 1.0) +
                            (waves > 1 ? 1e6 : 0.0);  // one wave if at all possible
        if (!layer_rule_skips && (best_cost < 0 || cost < best_cost - 1e-9)) best = c, best_cost = cost;
        if (S > 1 && !global && waves == 1 && (cluster_cost_of_width[wi] < 0 || cost < cluster_cost_of_width[wi] - 1e-9))
          cluster_of_width[wi] = c, cluster_cost_of_width[wi] = cost;
      }
    }
  }
  // Act-order calls of 9 to 32 tokens take a one-wave cluster over the cost model's workspace pick where it has as
  // many splits. Likely cause (not profiled): the sliced gather's CTAs (act_order_cuda.cu) hold K x 2 bytes of shared
  // memory on most SMs while this call's CTAs arrive, and W = 4's rings at 24-32 tokens leave no room beside them,
  // so those CTAs start late. Measured on the H200 (graph, L2-cold, bench/RESULTS.md session 28, run 6): act-order's
  // overhead over the plain call went from +9.3..+12.0 % to -3.0..+3.8 % on 4096x12288 and 8192^2 at M = 24 and 32,
  // and from +11.6 to -0.7 % on 4096x11008 at M = 32. Clusters with fewer splits lost 9-18 points where they were
  // forced (28672x8192: 3 splits instead of 4; run 4). From 9 tokens since session 29 (run 3): 4096x12288, the only
  // shape of 8 whose pick changed there, went from +12.7 / +11.8 % to +7.4 / +5.5 % at M = 12 / 16.
  if (gathered_before && T >= 16 && T <= kLayerRuleTokens && best.S > 1 && best.global && p->force_global < 0) {
    int cheapest = -1;  // of every width (the layer rule skips nothing for these calls)
    for (int wi : kWidthOrder)
      if (cluster_cost_of_width[wi] >= 0 &&
          (cheapest < 0 || cluster_cost_of_width[wi] < cluster_cost_of_width[cheapest] - 1e-9))
        cheapest = wi;
    if (cheapest >= 0 && cluster_of_width[cheapest].S >= best.S) return cluster_of_width[cheapest];
  }
  // Plain calls of 17 to 48 tokens take a one-wave cluster of the workspace pick's width over it where the cluster
  // has as many splits: it saves the workspace's exchange (its partial sums stored, a flag polled and the sums
  // reloaded: each a memory round trip on the call's critical path, 4.8-6.1 us of qkv, o and down at M = 32 in the
  // LLaMA-7B layer's timeline). With W = 3 such clusters start on time behind the previous kernel. Measured with
  // clusters wherever one fits (W4A16_FORCE_GLOBAL=0, H200, bench/RESULTS.md session 34, runs 3-5): the layer 48.0 /
  // 51.9 / 58.2 / 62.0 us at M = 8 / 16 / 24 / 32 against 48.9 / 54.0 / 62.5 / 66.3; single calls where the cluster
  // kept the width and the splits 3-14 % faster, with fewer splits 7-12 % slower where K is long (8192x8192,
  // 28672x8192). This rule alone (H100, session 35, run 1): the layer 62.0 / 62.8 us at M = 24 / 32 against 64.1 /
  // 67.6, but 58.4 against 57.7 at M = 16 and 53.1 against 52.9 at M = 8 (only qkv switches there), hence from 17.
  // Up to 48 tokens since session 53: there the cost model still prefers the workspace (0.5 + 0.02 T W = 4.3 per split
  // against a W = 4 cluster's 5), but the cluster of the same width and splits is faster. H100 (bench/RESULTS.md
  // session 53, run 1): graph single calls of 4096x11008 / 4096x12288 / 8192x8192 8-10 % faster at M = 40 (only the
  // first two move at 48), the layer 87.0 -> 85.9 us at M = 40 and 79.0 -> 78.0 at M = 48; no other benchmark
  // pick moves at M = 48 / 64.
  constexpr int kClusterRuleAboveTokens = 16, kClusterRuleTokens = 48;
  const int bw = w4a16::v3_width_index(best.W);
  if (!p->act_order && M > kClusterRuleAboveTokens && T <= kClusterRuleTokens && best.S > 1 && best.global &&
      cluster_cost_of_width[bw] >= 0 && cluster_of_width[bw].S >= best.S && p->force_global < 0)
    return cluster_of_width[bw];
  return best;
}

// Shared memory a gathering kernel (gemm_v3.cuh, GATHER) takes beyond its rings at M tokens: x's M rows, and with
// perm_in_smem the largest range of perm a split reads (whole groups of 128 int32).
size_t gather_smem_bytes(const w4a16_cuda_plan *p, V3Choice c, int64_t M, bool perm_in_smem) {
  const int G = p->K / w4a16::kGroupK;
  const size_t perm = perm_in_smem ? (size_t)((G + c.S - 1) / c.S) * w4a16::kGroupK * 4 : 0;
  return perm + x_rows_bytes(p, M);
}

// Whether an act-order call at M <= 8 tokens (one token tile) runs the gathering kernel, and how: the exact forms,
// and only where its copies leave as many CTAs per SM as the plain kernel of the same configuration gets (x's rows
// take 2K bytes per token: at M = 1 that is K <= ~24000 for W = 2, ~33000 for W = 4 on the H200). perm's range
// goes into shared memory too where it fits (one bulk copy before the grid dependency wait); where only x's rows
// fit (28672x8192 at M = 1: 57 KB of rows + 28 KB of perm beside 158 KB of rings), the producer warp reads it from
// global memory a step ahead instead of the call taking the gather launch.
w4a16_gather_mode gather_fits(const w4a16_cuda_plan *p, int64_t M) {
  if (p->version != 3 || w4a16::is_affine(p->form) || M < 1 || M > 8) return W4A16_GATHER_BY_LAUNCH;
  const V3Choice c = p->v3[M];
  const int wi = w4a16::v3_width_index(c.W);
  const int plain_per_sm = v3_capacity(p->bf16, p->form, wi, 1, 1, p->sms) / p->sms;  // cached per device
  for (const w4a16_gather_mode mode : {W4A16_GATHER_PERM_IN_SMEM, W4A16_GATHER_PERM_STREAMED}) {
    const w4a16::V3Entry &g = w4a16::v3_gather_kernel(p->bf16, p->form, wi, mode == W4A16_GATHER_PERM_STREAMED);
    const int smem = g.smem + (int)gather_smem_bytes(p, c, M, mode == W4A16_GATHER_PERM_IN_SMEM);
    const int gather_per_sm = capacity((const void *)g.fn, g.threads, smem, 1, p->sms) / p->sms;  // 0: too large
    if (plain_per_sm >= 1 && gather_per_sm >= plain_per_sm) return mode;
  }
  return W4A16_GATHER_BY_LAUNCH;  // the gather launch instead
}

// Whether kernel v1's decode variant gathers an act-order call's x itself at M tokens (gemm_v1.cuh, GATHER): x's M
// rows (2K bytes per token) must fit in shared memory behind its two stages, one CTA per SM: up to 8 tokens at
// K = 4096, 4 at 11008 and 3 at 14336 in the 227 KB a CTA may have on the H100 and H200. Else the gather launch.
bool decode_gather_fits(const w4a16_cuda_plan *p, int64_t M) {
  const KernelEntry &k = w4a16::v1_sliced_kernel(p->bf16, p->form, true);
  return capacity((const void *)k.fn, k.threads, k.smem + (int)x_rows_bytes(p, M), 1, p->sms) >= p->sms;
}

// Kernel v1's decode variant for M <= 8 tokens (gemm_v1.cuh, KS > 1): every CTA runs the whole K for 32 columns,
// its 16 warps slicing K, so no CTA waits for another. Where v3 would split K across CTAs (too few 256- or 128-column
// tiles to fill the SMs: N = 4096 and 8192), that exchange costs a round trip through global memory or a cluster
// barrier on the call's critical path: ~4-6 us of the LLaMA-7B layer's o and down projections at M = 1, whose main
// loops take 1-5 us (per-CTA timeline, bench/RESULTS.md session 15). The variant's CTAs each read all of x, M/8 of
// their weight bytes again, and its stream lags v3's as K grows: on the H200 (graph replays, L2-cold, session 31
// run 4) it took 4096x4096 at M = 1-8 -17..-23 %, 11008x4096 -10 / -7 / -1 / +8 % and 14336x4096
// -6 / -3 / +4 / +14 % at M = 1 / 2 / 4 / 8; 64-column CTAs (for N = 8192) lost from M = 2 and by 14-34 % on
// 28672x8192. Hence: 32-column CTAs in one wave, where v3 splits, for M <= 2, or up to 8 tokens where K <= 4096.
// Act-order plans take it too, gathering x themselves where its rows fit (decode_gather_fits), else behind the
// gather launch (x's columns permuted into the plan's buffer first). Any forced v3 configuration (the tests'
// W4A16_FORCE_* pins) keeps v3.
// The affine forms take it as the exact ones: the variant computes them as v3 does at M <= 4 (exact products per
// scale group of 128, 64 or 32 k, plus o * the group's sums of x: gemm_v1.cuh, affine_accumulate), not as the other
// v1 kernels' rounded fma(code - zi, s, o) per weight, which on adversarial data (codes 15, zero point 16, large
// scales: heavy cancellation) reached 1.3x the f16 element bound (gpu_test, session 31).
// Returns the slices (w4a16::kSlices) or 0 = kernel v3.
int choose_slices(const w4a16_cuda_plan *p, int64_t M) {
  if (M < 1 || M > 8 || p->force_slices == 0) return 0;
  constexpr int kLongK = 4096;  // beyond this many k, only up to 2 tokens
  if (p->force_slices < 0 && (p->force_w || p->force_s || p->force_global >= 0 || p->v3[M].S == 1 ||
                              (M > 2 && p->K > kLongK)))
    return 0;
  int &cap = g_occ_sliced[p->bf16][p->form];
  if (cap < 0) {
    const w4a16::KernelEntry &k = w4a16::v1_sliced_kernel(p->bf16, p->form);
    cap = capacity((const void *)k.fn, k.threads, k.smem, 1, p->sms);
  }
  return (p->Npad + w4a16::kSlicedCols - 1) / w4a16::kSlicedCols <= cap ? w4a16::kSlices : 0;
}

}  // namespace config
}  // namespace w4a16
