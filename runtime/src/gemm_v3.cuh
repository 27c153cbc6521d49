// W4A16 fused GEMM, kernel v3 (issue #5): sm_90a, wgmma with the dequantised weight as the register
// operand ("swap AB": A = 64 output columns x 16 k of weight, B = x^T, N = M rounded up to 8), and
// each warp streaming its own weights. T, the io type (x, bias, residual, out and both wgmma operands),
// is f16 or bf16: only the dequantisation's constants, the wgmma's type and the epilogue's conversions
// differ (common.cuh).
//
// out[m,n] = act(sum_k x[m,k] * W[k,n] + bias[n]) + residual[m,n] with W of the plan's form (common.cuh):
// (code - z) * scale, z = 8 or per-group zero points, scaled per 128-k group; or affine,
// W = (code - zi) * s + o, computed by the dequantisation for groups of 128, 64 or 32 k.
//
// Why this shape (bench/RESULTS.md, 2026-11-30): its predecessor v2 (commit ffc7063 has it) fed all
// operands through one TMA pipeline refilled by thread 0. A probe timing each side alone found both
// non-tensor sides slow: ~290 instructions per warp per 128-k group, and a copy pipeline stuck at
// ~2.6 TB/s whatever its depth. v3:
//  * Weights never meet another warp: a lane needs exactly the 32 bytes per group that the repack put
//    at lane*16 (+512) of its warp's 1 KB, so each lane copies them itself with cp.async into a
//    private ring slot and waits only for its own copies (cp.async.wait_group): no barrier, no
//    producer. The warp's 16 scales of the group ride along (lanes 0-1); a __syncwarp after the wait
//    makes them visible to the warp.
//  * x, the only operand the warpgroups share, comes by TMA into a ring with full/empty mbarriers.
//    With W = 4 and up to 16 tokens, a 17th warp does nothing but request it, each stage as soon as
//    it is released. Otherwise, at the top of step i, thread 0 of warpgroup i % W requests step
//    i + XS - 2, so the stage it refills was released two steps earlier: the producer does not wait
//    on the slowest warp.
//  * A pipeline step is two 128-k groups (waits, refills and loop control paid per 256 k), and the
//    loop is unrolled over the ring, so stage addresses are constants; with the warp index broadcast
//    from lane 0, ptxas keeps the wgmma descriptors in uniform registers.
//  * Per group and warp: 2 LDS.128 + 2 LDS.U16, 8 x dequant8 (9 instructions each), the first four
//    before the x wait, 8 wgmma m64nTk16 into fresh f32 p (the first with scale-d = 0), then
//    acc = fma(p, scale, acc): the same arithmetic, in the same order, as kernel v1.
//  * A CTA is W = 4 warpgroups (one CTA per SM) or W = 2 (two per SM, for small N); the host picks W
//    and the split count S. The S CTAs of a tile reduce either on chip as one cluster (as v1's
//    reduce_and_store) or, when S-CTA clusters would not all fit at once, through the plan's
//    workspace (finish_split); one store_tile finishes either way.
//  * Launched with programmatic dependent launch: a CTA prefetches its first weight steps (and x's
//    into L2) before it waits for the previous kernel in the stream, and lets the next one start
//    right away.
//  * Nothing after the main loop waits on memory where that can be avoided: each such round trip
//    costs ~2 us while the other CTAs stream (per-CTA timelines, bench/RESULTS.md session 6). The residual rows and bias
//    are staged into shared memory during the loop, and the split-K exchange batches its loads.
// Where the time goes now (overlap and co-run probes, bench/RESULTS.md session 5): the tensor work and the
// dequantisation add up rather than overlap (27.4 cycles per 64x16 block at N = 32 from registers
// alone, against 16.4 for the wgmma by itself), also when other warpgroups of the SM do the
// dequantisation, and more warps per SM do not change it: a throughput limit of the RS wgmma.
#pragma once

#include <type_traits>

#include "common.cuh"
#include "sm90.cuh"
#include "timeline.cuh"
#include "wgmma_rs.cuh"

namespace w4a16 {
namespace v3 {

using sm90::kBlockBytes;
using sm90::kBlockCols;

// Shape of one CTA. W = 4 warpgroups, one CTA per SM; or W = 2 and two CTAs per SM, which gives the
// host twice as many CTAs to spread over the SMs when N is small (x is then loaded for half as many
// columns per CTA; where their rings outgrow half an SM, the symmetric form's from 48 tokens, two W = 2
// CTAs no longer fit one SM, and kCtasPerSm says so); or, up to 32 tokens, W = 3, one CTA per SM like
// W = 4, for N whose 256-column tiles leave SMs idle (4096x22016: 86 tiles of 256 columns, 115 of 192, on
// 132 SMs). One pipeline step is a pair of 128-k groups: the per-step costs (waits, barrier, refills, loop
// control) are paid once per 256 k. FORM: the weight's form (its records, see load_w).
// GATHER: the act-order kernels' producer warp gathers x's columns itself (gather_x in the kernel).
template <int NT, int W, int FORM, bool GATHER = false> struct Cfg {
  static constexpr int kW = W;                          // warpgroups (64-column blocks) per CTA
  static constexpr int kTok = NT * 8;                   // tokens per CTA (wgmma N)
  // x comes from a warp of its own where that costs no registers (W = 4 or 3, up to 16 tokens: W = 4's 544 threads
  // leave 96 registers per thread; at 32 tokens the kernel spilled and was no faster), else from
  // thread 0 of a rotating warpgroup at the top of each step. A gather needs a whole warp, so the act-order
  // kernels always have one.
  static constexpr bool kProducerWarp = GATHER || (W >= 3 && kTok <= 16);
  // Offsets (affine, 128-k groups), W = 4 or 3, up to kSumRows rows of x: the mma multiplies x by code - zi exactly, the
  // group's scales are applied per accumulator as in the exact forms, and the offsets enter as o * (the group's sum
  // of x), the sums of up to kSumGroups groups computed from x in global memory before the main loop (sum_groups in
  // the kernel). Computing W = (code - zi) * s + o in the dequantisation instead costs each lane 4 more fma per word
  // (+8..+33 % at M <= 32, bench/RESULTS.md session 11); so did summing each stage in the loop, and these sums for
  // 16 rows (session 24). With more rows the kernel takes the dequantisation's form.
  static constexpr bool kSums = FORM == kAffine128 && !GATHER && W >= 3 && kTok == 8;
  static constexpr int kSumGroups = 128, kSumRows = 4;
  static constexpr int kThreads = kW * 128 + (kProducerWarp ? 32 : 0);
  static constexpr int kCols = kW * kBlockCols;
  static constexpr int kXBox = kTok * 128;              // one 64-k TMA box: kTok rows x 128 B
  static constexpr int kXStage = 4 * kXBox;             // 256 k; a multiple of 1024 (the swizzle atom)
  // x stages (the main loop handles 3 or 4); 3 where 4 would not fit (the affine forms' larger records)
  static constexpr int kXS = kTok <= 32 && W >= 3 && FORM != kAffine32 ? 4 : 3;
  static constexpr int kXAhead = kXS - 2;               // x steps requested ahead of the consumer
  // A warp's ring slot holds two groups: each 1 KB of its weights and its 16 columns' TileMeta record,
  // laid out [weights 0][weights 1][record 0][record 1] and padded to a multiple of 128 bytes, so that
  // every 512-byte half of a weight block is 128-byte aligned. With the records between the weight
  // blocks (1056- or 1072-byte groups) the same kernels ran up to 12 % slower (bench/RESULTS.md, session 10).
  static constexpr int kWeights1 = 1024;                          // group 1's weights
  static constexpr int kMeta0 = 2048;                             // group 0's record
  static constexpr int kMeta1 = kMeta0 + TileMeta<FORM>::kBytes;    // group 1's record
  static constexpr int kWarpSlot = (kMeta1 + TileMeta<FORM>::kBytes + 127) / 128 * 128;
  static constexpr int kWStage = kW * 4 * kWarpSlot;
  static constexpr int kBudget = W >= 3 ? 222 * 1024 : 112 * 1024;
  static constexpr int kWD = kXS;                       // weight ring depth (steps): the main loop is
                                                        // unrolled over both rings at once
  static constexpr int kXBytes = kXS * kXStage;
  static constexpr int kRedStride = kCols + 4;
  static constexpr int kRedBytes = kTok * kRedStride * 4;
  static constexpr int kRingBytes = kXBytes + kWD * kWStage;
  static constexpr int kRingOrRed = kRingBytes > kRedBytes ? kRingBytes : kRedBytes;
  // W = 2 whose rings outgrow half an SM (the symmetric form from 48 tokens) has its SM alone anyway: it takes the
  // registers (its 64-token kernels spilled at two CTAs' 128 per thread) and the epilogue staging of one CTA per SM.
  static constexpr int kCtasPerSm = W >= 3 || kRingOrRed + 1024 > kBudget ? 1 : 2;
  // The epilogue's residual rows and bias, copied into shared memory while the main loop runs (behind
  // the ring and the partial sums), where that fits without costing occupancy: W = 4 up to 56 tokens,
  // W = 3 up to 32, W = 2 up to 32 and from 48 (one CTA per SM). Read from global memory at the end
  // instead, each load is a full memory round trip (~2 us while the other CTAs stream) on the call's
  // critical path (per-CTA timelines, bench/RESULTS.md session 6).
  static constexpr int kEpiBytes = (kTok + 1) * kCols * 2;  // kTok residual rows + the bias row
  static constexpr bool kStageEpilogue = kRingOrRed + kEpiBytes + 1024 <= (kCtasPerSm == 1 ? 227 * 1024 : kBudget);
  static constexpr int kSmemBytes = kRingOrRed + (kStageEpilogue ? kEpiBytes : 0) + 1024;  // + alignment
  // GATHER: the CTA's range of perm, then x's rows, behind everything else (the host adds their bytes,
  // gather_smem_bytes, to kSmemBytes at launch).
  static constexpr int kGatherOffset = kRingOrRed + (kStageEpilogue ? kEpiBytes : 0);
  static_assert(kWD >= 3 && (W == 2 || kRingOrRed + 1024 <= kBudget + 1024), "stages do not fit");
};

__device__ __forceinline__ void cp_async16_noalloc(uint32_t smem, const void *gmem) {
  // .cg: through L2 only; each weight byte is used once, by this lane.
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(gmem) : "memory");
}

// Four wgmma m64nTk16 (k 0-63 of one x box, descriptor low word xlo) on dequantised A fragments a,
// into p; the first of them overwrites p when `fresh`. Committed as one wgmma group, so that the next
// box's words can be dequantised while these run (one fence per group instead measured ~3 % slower).
template <int T, bool BF16>
__device__ __forceinline__ void mma_box(const uint32_t (&a)[4][4], uint64_t desc_hi, uint32_t xlo, bool fresh,
                                        float (&p)[T / 2]) {
  sm90::wgmma_fence();
  if (fresh) WgmmaRS<T, 0, BF16>::run(p, a[0], desc_hi | xlo);
  else WgmmaRS<T, 1, BF16>::run(p, a[0], desc_hi | xlo);
#pragma unroll
  for (int kk = 1; kk < 4; ++kk) WgmmaRS<T, 1, BF16>::run(p, a[kk], desc_hi | (xlo + kk * 2));  // +32 B per 16 k
  sm90::wgmma_commit();
}
template <class E>
__device__ __forceinline__ void dequant4(const uint4 &w, uint32_t (&a)[4][4], ZeroPoints<E> z) {
  dequant8(w.x, a[0], z);
  dequant8(w.y, a[1], z);
  dequant8(w.z, a[2], z);
  dequant8(w.w, a[3], z);
}
// The affine forms: W of one lane's 16-byte vector (k steps 0-3 of a 64-k box); words 0-1 and 2-3 take the
// constants of their scale group (c[0], c[1]: the same group unless G = 32).
template <class E>
__device__ __forceinline__ void dequant4_affine(const uint4 &w, uint32_t (&a)[4][4], const Affine<E> (&c)[2]) {
  dequant8_affine<E>(w.x, a[0], c[0]);
  dequant8_affine<E>(w.y, a[1], c[0]);
  dequant8_affine<E>(w.z, a[2], c[1]);
  dequant8_affine<E>(w.w, a[3], c[1]);
}
// The sum of 8 io-type values (16 bytes of an x row) in f32: exact conversions, then 7 adds.
template <class E> __device__ __forceinline__ float sum8(const uint4 &v) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 4; ++i) s += Io<E>::to_float((uint16_t)w[i]) + Io<E>::to_float((uint16_t)(w[i] >> 16));
  return s;
}
// acc += o * sum_x for one scale group: opair = (o[g8], o[g8 + 8]) in the io type, xs = the group's sums of x per token.
template <class E, int ND>
__device__ __forceinline__ void add_offsets(float (&acc)[ND], const float *xs, uint32_t opair, int lane) {
  const float o0 = Io<E>::to_float((uint16_t)opair), o1 = Io<E>::to_float((uint16_t)(opair >> 16));
  const int tq = (lane & 3) * 2;
#pragma unroll
  for (int i = 0; i < ND / 4; ++i) {  // D fragment: acc[4i+e] is (column g8 + 8*(e>>1), token 8i + tq + (e&1))
    const float2 x = *reinterpret_cast<const float2 *>(xs + 8 * i + tq);
    acc[4 * i] = fmaf(o0, x.x, acc[4 * i]), acc[4 * i + 1] = fmaf(o0, x.y, acc[4 * i + 1]);
    acc[4 * i + 2] = fmaf(o1, x.x, acc[4 * i + 2]), acc[4 * i + 3] = fmaf(o1, x.y, acc[4 * i + 3]);
  }
}

// Waits until at most N wgmma groups are in flight; the registers they write (d) are fenced so that the
// compiler keeps them in place across the wait.
template <int N, int ND> __device__ __forceinline__ void wgmma_wait_acc(float (&d)[ND]) {
  sm90::wgmma_wait<N>();
#pragma unroll
  for (int j = 0; j < ND; ++j) sm90::fence_operand(d[j]);
}

// acc += p * scale once p is complete (rows g8 and g8 + 8 of the warp's 16 columns).
template <int ND>
__device__ __forceinline__ void scale_add(float (&p)[ND], float s0, float s1, float (&acc)[ND]) {
  wgmma_wait_acc<0>(p);
  // D fragment: p[4i+e] is (row g8 + 8*(e>>1), token 8i + 2t + (e&1)); rows are output columns.
#pragma unroll
  for (int j = 0; j < ND; ++j) acc[j] = fmaf(p[j], (j & 2) ? s1 : s0, acc[j]);
}

// Split-K through the plan's workspace instead of a cluster (the host's choice when S-CTA clusters
// would not all fit at once); `red` holds this CTA's partial sums ([token][kRedStride] f32).
// Nothing in this exchange depends on host state, so a launch captured in a CUDA graph replays any
// number of times. Each CTA takes its place from a ticket drawn at its start (draw_ticket): ticket t is split
// t % S of tile t / S, so a tile's last split is the latest of its CTAs to start. The first S-1 splits publish
// their partial sums in the slot of their split and set its flag to split + 1; the last waits for the S-1 flags
// (their CTAs have started, so they are running), resets them, adds all S partial sums in split order and stores
// through the fused epilogue. The ticket is drawn at the CTA's start, before the grid dependency wait, so that
// under programmatic dependent launch the CTAs that start early, behind the previous call, take the first tiles
// and all their splits. With the place taken from blockIdx and the last CTA to arrive after the wait finishing,
// 11008x4096 and 14336x4096 at 48 tokens ran 5.7 / 6.5 % slower back-to-back than 2655af8 (tickets reset by the
// host), alike without PDL; with these tickets 2.1-2.7 / 1.4 % (bench/RESULTS.md sessions 54-55). The grid's last
// draw resets the counter and fences before its CTA reaches launch_dependents, so the next grid's first draw finds
// it zero; the flags are zero again when the grid ends, and the next call touches them only after its grid
// dependency wait. Flags are polled by one lane each and an item's partial loads are batched (add_partials).
// The grid's ticket counter, after the slots' flags (sm90::Args::flags).
__device__ __forceinline__ unsigned *ticket_counter(const sm90::Args &args) { return args.flags + sm90::kMaxGrid; }
__device__ __forceinline__ int draw_ticket(const sm90::Args &args) {
  unsigned *counter = ticket_counter(args);
  const unsigned t = atomicAdd(counter, 1u);
  if (t == gridDim.x - 1) {
    atomicExch(counter, 0u);
    __threadfence();
  }
  return (int)t;
}
// The workspace steps of that exchange up to the finish: returns false where this CTA only published its partial
// sums, true for the tile's last split, with ws set for store_tile once the others' sums are visible.
template <int kCols, int kRedStride, int kThreads>
__device__ __forceinline__ bool finish_split(const float *red, const sm90::Args &args, int tile, int split, int S,
                                             int rows, Workspace &ws) {
  constexpr int kVec4 = kCols / 4;
  const int slot0 = tile * (S - 1);
  const size_t slot = (size_t)min(args.M, kMaxRows) * kCols;  // floats per slot (the host sizes them alike)
  __shared__ int slot_of[8];                                   // slot_of[q]: the slot holding split q's partial sums
  if (split < S - 1) {
    float *dst = args.partials + (slot0 + split) * slot;
    for (int i = threadIdx.x; i < rows * kVec4; i += kThreads) {
      const int tok = i / kVec4, c4 = i - tok * kVec4;
      __stcg(reinterpret_cast<float4 *>(dst + tok * kCols + c4 * 4),
             *reinterpret_cast<const float4 *>(red + tok * kRedStride + c4 * 4));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      sm90::store_release(args.flags + slot0 + split, (unsigned)split + 1);
    }
    return false;
  }
  if (threadIdx.x < S - 1) {
    unsigned f;
    while ((f = sm90::load_acquire(args.flags + slot0 + threadIdx.x)) == 0) __nanosleep(64);
    __threadfence();
    slot_of[f - 1] = threadIdx.x;
    args.flags[slot0 + threadIdx.x] = 0;
  }
  __syncthreads();
  ws = {args.partials + slot0 * slot, slot_of, slot};
  return true;
}

// Parts of the kernel that need none of its lambdas' state: barrier setup and the partial sums' layout
// in shared memory. (The epilogue staging stays inline: as a function it changed the PTX.)

// Thread 0: the x ring's full/empty barriers, the epilogue barrier, and the x tensor map's prefetch.
template <class C, bool GATHER>
__device__ __forceinline__ void init_barriers(const CUtensorMap &xmap, uint64_t *full_bar, uint64_t *empty_bar,
                                              uint64_t *epi_bar, uint64_t *gather_bar, uint64_t *sum_bar) {
  // A gathering kernel's xmap holds its GatherParams, not a tensor map.
  if (!GATHER) asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&xmap)) : "memory");
  for (int s = 0; s < C::kXS; ++s) {
    sm90::mbar_init(sm90::smem_u32(&full_bar[s]), 1);
    sm90::mbar_init(sm90::smem_u32(&empty_bar[s]), C::kW * 4);
  }
  sm90::mbar_init(sm90::smem_u32(epi_bar), 1);
  if (C::kSums) sm90::mbar_init(sm90::smem_u32(sum_bar), C::kW * 4);
  if (GATHER) sm90::mbar_init(sm90::smem_u32(gather_bar), 1);
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// This warp's accumulators into red[token][kRedStride]. D fragment of the wgmma: acc[4i+e] is (output
// column g8 + 8*((j>>1)&1) of the warp's 16, token 8*(j>>2) + 2*(lane&3) + (j&1)).
template <class C, int ND>
__device__ __forceinline__ void store_partials(const float (&acc)[ND], float *red, int wg, int warp_in_wg, int lane) {
  const int g8 = lane >> 2, tq = (lane & 3) * 2;
#pragma unroll
  for (int j = 0; j < ND; ++j) {
    const int col = wg * kBlockCols + warp_in_wg * 16 + g8 + 8 * ((j >> 1) & 1);
    const int tok = 8 * (j >> 2) + tq + (j & 1);
    red[tok * C::kRedStride + col] = acc[j];
  }
}

// STREAMED (GATHER only): perm is read from global memory a step ahead instead of copied into shared memory.
template <class E, int NT, int W, int FORM, bool GATHER = false, bool STREAMED = false>
__global__ void __launch_bounds__(Cfg<NT, W, FORM, GATHER>::kThreads, Cfg<NT, W, FORM, GATHER>::kCtasPerSm)
    gemm_v3_kernel(const __grid_constant__ CUtensorMap xmap, const sm90::Args args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using C = Cfg<NT, W, FORM, GATHER>;
  constexpr int T = C::kTok, ND = T / 2, XS = C::kXS, WD = C::kWD;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ __align__(8) uint64_t full_bar[XS], empty_bar[XS], epi_bar, gather_bar, sum_bar;
  __shared__ __align__(16) float xsum[C::kSums ? C::kSumGroups * T : 2];  // [group of the chunk][token]
  unsigned char *smem = smem_raw + ((1024u - (sm90::smem_u32(smem_raw) & 1023u)) & 1023u);

  const int tid = threadIdx.x, lane = tid & 31;
#ifdef W4A16_TIMELINE
  unsigned long long *const tl = timeline::take(args.timeline, args.wq);  // thread 0's record (timeline.cuh)
#endif
  // Broadcast from lane 0 so that the compiler knows the warp index is warp-uniform: branches on it
  // stay uniform and the wgmma descriptors stay in uniform registers.
  const int warp = __shfl_sync(0xffffffffu, tid >> 5, 0);
  const int wg = warp >> 2, warp_in_wg = warp & 3, g8 = lane >> 2;
  const int nblocks = args.Npad / kBlockCols;
  // Which tile (64-token chunk x W column blocks) and which of its `splits` K ranges: from the grid,
  // (split, column tile, chunk) with clusters (gridDim.x = splits), or from a ticket, ticket = tile * splits + split,
  // through the workspace (draw_ticket, finish_split; gridDim.x = tiles * splits).
  int splits = gridDim.x, split = blockIdx.x, ctile = blockIdx.y, chunk = blockIdx.z, tile = 0;
  if (args.partials) {
    const int tiles_n = (nblocks + C::kW - 1) / C::kW;
    splits = gridDim.x / (tiles_n * ((args.M + kMaxRows - 1) / kMaxRows));
    __shared__ int ticket;
    if (tid == 0) ticket = draw_ticket(args);
    __syncthreads();
    tile = ticket / splits;
    split = ticket - tile * splits, ctile = tile % tiles_n, chunk = tile / tiles_n;
  }
  const int cb0 = ctile * C::kW;
  const bool producer = C::kProducerWarp && warp == C::kW * 4;  // the x producer warp
  const bool active = !producer && wg < nblocks - cb0;
  const int m0 = chunk * kMaxRows;
  const int rows = min(T, args.M - m0);
  const bool sums = C::kSums && rows <= C::kSumRows;  // Cfg::kSums: the offsets as o * (sum of x)
  const int G = args.K >> kGroupShift;
  int g_begin, g_end;
  split_items(split, splits, G, g_begin, g_end);
  const int ng = g_end - g_begin;
  const int nsteps = (ng + 1) >> 1;  // the last step holds one group when ng is odd

  if (tid == 0) init_barriers<C, GATHER>(xmap, full_bar, empty_bar, &epi_bar, &gather_bar, &sum_bar);
  __syncthreads();
  // The next call's CTAs may take SMs this grid leaves idle and
  // prefetch their weights while this call runs (they wait for it before touching anything else).
  sm90::launch_dependents();

  // x producer: step j's tile (2 groups = 4 boxes of 64 k) into stage j % XS once step j - XS has
  // released it. The producer warp waits here for each release; the rotating producer (see the loop)
  // asks two steps after the release, so its wait is normally satisfied.
  auto produce_x = [&](int j) {
    const int s = j % XS, n = j / XS, g = g_begin + 2 * j;
    const int boxes = 2 * j + 1 < ng ? 4 : 2;
    if (n > 0) sm90::mbar_wait(sm90::smem_u32(&empty_bar[s]), (n - 1) & 1);
    const uint32_t fb = sm90::smem_u32(&full_bar[s]);
    const uint32_t sb = sm90::smem_u32(smem + s * C::kXStage);
    sm90::mbar_expect_tx(fb, boxes * C::kXBox);
    for (int b = 0; b < boxes; ++b) sm90::tma_2d(sb + b * C::kXBox, &xmap, g * 128 + b * 64, m0, fb);
  };
  // Act-order (GATHER): the weight's rows are sorted by group (act_order.c), so step j's x tile is x's columns
  // perm[k] for the step's 256 k, which lie anywhere in x's rows. A gather launch before the GEMM costs
  // +6..+17 % at M = 1 on the H200 (the GEMM's x waits for a second grid to end), and gathering from global
  // memory here, one scattered 2-byte load per k and row, cost more (bench/RESULTS.md, session 17). So the CTA
  // copies its range of perm (plan data: before the grid dependency wait) and x's rows (one bulk copy each, after
  // it) into shared memory, and the producer warp builds each stage from those: lane l takes the step's 8-k chunk
  // l and stores it where the TMA box would have put it (128-byte swizzle: chunk c of row r at
  // r * 128 + 16 * (c ^ (r % 8))). Rows past M are zero; nothing else writes a stage, so they are written once.
  // The host takes this path only where the copies fit beside the rings without costing occupancy. Where x's rows
  // fit but perm's range does not (STREAMED), the producer warp reads each step's perm from global memory (plan
  // data, L2-resident after the first CTAs) one step ahead, so its latency hides behind a step's gather. A kernel
  // of its own: with a run-time switch instead, the shared-memory path lost 0.4-0.7 us at M = 1 (W = 4,
  // bench/RESULTS.md session 30, run 5).
  const sm90::GatherParams gather = GATHER ? *reinterpret_cast<const sm90::GatherParams *>(&xmap) : sm90::GatherParams{};
  constexpr bool perm_streamed = GATHER && STREAMED;
  const int32_t *perm_smem = reinterpret_cast<const int32_t *>(smem + C::kGatherOffset);
  const uint16_t *xrows_smem =
      reinterpret_cast<const uint16_t *>(smem + C::kGatherOffset + (perm_streamed ? 0 : ng * 512));
  // Step j's perm chunk of this lane (8 k) from global memory (perm_streamed).
  auto perm_chunk = [&](int j, int4 &lo, int4 &hi) {
    if ((2 * j + lane / 16) >= ng) return;
    const int4 *src = reinterpret_cast<const int4 *>(gather.perm + (size_t)g_begin * 128 + j * 256 + lane * 8);
    lo = __ldg(src), hi = __ldg(src + 1);
  };
  // lo, hi: step j's perm chunk where perm_streamed, else read here from shared memory.
  auto gather_x = [&](int j, int4 lo, int4 hi) {
    const int s = j % XS, n = j / XS;
    if (n > 0) sm90::mbar_wait(sm90::smem_u32(&empty_bar[s]), (n - 1) & 1);
    if ((2 * j + lane / 16) < ng) {  // a last step of one group fills boxes 0-1 only
      if constexpr (!perm_streamed) {
        lo = *reinterpret_cast<const int4 *>(perm_smem + j * 256 + lane * 8);
        hi = *reinterpret_cast<const int4 *>(perm_smem + j * 256 + lane * 8 + 4);
      }
      unsigned char *box = smem + s * C::kXStage + (lane >> 3) * C::kXBox;
      const int c = lane & 7;
#pragma unroll
      for (int r = 0; r < C::kTok; ++r) {
        if (r >= rows && n > 0) continue;  // zero since the stage's first use
        const uint4 v = r < rows ? gather8(xrows_smem + r * args.K, lo, hi) : uint4{0u, 0u, 0u, 0u};
        *reinterpret_cast<uint4 *>(box + r * 128 + ((c ^ (r & 7)) << 4)) = v;
      }
      sm90::fence_proxy_async_smem();  // the wgmma reads the stage through the async proxy
    }
    __syncwarp();
    if (lane == 0) sm90::mbar_arrive(sm90::smem_u32(&full_bar[s]));  // the full barrier's one arrival
  };

  // Cfg::kSums: the sums of x over groups [g0, g0 + n) of the CTA's range (n <= kSumGroups) for each of its rows
  // into xsum, by the consumer warps: 32 consecutive items per warp and round, an item one 16-byte chunk of a
  // (row, group) pair's 256 bytes, the pair's 16 chunks added across a half-warp. Rows past M are left as they are
  // (their accumulators are never stored).
  auto sum_groups = [&](int g0, int n) {
    const int items = rows * n * 16;
    for (int base = warp * 32; base < items; base += C::kW * 128) {
      const int i = base + lane, pair = i >> 4, r = pair / n, g = pair - r * n;
      float sum = 0.f;
      if (i < items)
        sum = sum8<E>(*reinterpret_cast<const uint4 *>(args.x + (size_t)(m0 + r) * args.K +
                                                       (size_t)(g_begin + g0 + g) * 128 + (i & 15) * 8));
#pragma unroll
      for (int o = 8; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
      if ((i & 15) == 0 && i < items) xsum[g * T + r] = sum;
    }
  };

  // This lane's weights: 16 bytes at lane*16 and 512 + lane*16 of its warp's 1 KB per group;
  // consecutive groups are nblocks * 4 KB apart (group-major repack). Lanes 0 to kCopies - 1 also copy
  // the warp's TileMeta record of the group: its 16 scales (and zero points, or affine constants). Ring
  // slot = 2 groups per warp.
  const int cb = cb0 + (active ? wg : 0);
  const size_t gstride = (size_t)nblocks * kBlockBytes;
  const unsigned char *wsrc = args.wq + ((size_t)g_begin * nblocks + cb) * kBlockBytes + warp_in_wg * 1024 + lane * 16;
  using Meta = TileMeta<FORM>;
  const size_t sstride = (size_t)args.Npad * Meta::kPerColumn;
  const unsigned char *ssrc = reinterpret_cast<const unsigned char *>(args.scales) + g_begin * sstride +
                              (cb * 4 + warp_in_wg) * Meta::kBytes + (lane % Meta::kCopies) * 16;
  const uint32_t wring = sm90::smem_u32(smem + C::kXBytes) + warp * C::kWarpSlot;
  int load_step = 0;
  auto load_w = [&](int slot) {  // the next step's two groups into ring slot `slot` (caller commits)
    const uint32_t load_slot = wring + slot * C::kWStage;
    if (active && load_step < nsteps) {
      const bool two = 2 * load_step + 1 < ng;
      cp_async16_noalloc(load_slot + lane * 16, wsrc);
      cp_async16_noalloc(load_slot + 512 + lane * 16, wsrc + 512);
      if (two) {
        cp_async16_noalloc(load_slot + C::kWeights1 + lane * 16, wsrc + gstride);
        cp_async16_noalloc(load_slot + C::kWeights1 + 512 + lane * 16, wsrc + gstride + 512);
      }
      if (lane < Meta::kCopies) cp_async16_noalloc(load_slot + C::kMeta0 + lane * 16, ssrc);
      if (lane < Meta::kCopies && two)
        cp_async16_noalloc(load_slot + C::kMeta1 + lane * 16, ssrc + sstride);
    }
    wsrc += 2 * gstride;
    ssrc += 2 * sstride;
    ++load_step;
  };
#pragma unroll
  for (int i = 0; i < WD - 1; ++i) {
    load_w(i);
    cp_async_commit();
  }
  // x's first steps into L2 while the previous kernel finishes, so that the copies after the wait
  // below hit L2. Only L2 is filled, and L2 is where every write to x lands, so those copies still see
  // the previous kernel's x. Measured 0.1-0.3 us per call faster (A/B, session 6). The first x stage
  // still lands ~2 us after the wait, half of that behind the staging copies below in the TMA unit,
  // but issuing those later did not shorten the call (bench/RESULTS.md, session 6). A gathering kernel's
  // producer copies its whole range of perm instead (plan data); x's rows follow after the wait.
  if constexpr (GATHER) {
    if (producer && lane == 0) {  // the barrier's one arrival: done once perm's range and x's rows have landed
      const uint32_t perm_bytes = perm_streamed ? 0u : (uint32_t)ng * 512u;
      sm90::mbar_expect_tx(sm90::smem_u32(&gather_bar), perm_bytes + (uint32_t)rows * (uint32_t)args.K * 2u);
      if (!perm_streamed)
        sm90::bulk_g2s(sm90::smem_u32(perm_smem), gather.perm + (size_t)g_begin * 128, perm_bytes,
                       sm90::smem_u32(&gather_bar));
    }
  } else if (tid == 0) {
    for (int j = 0; j < XS && 2 * j < ng; ++j)
      for (int b = 0; b < (2 * j + 1 < ng ? 4 : 2); ++b) sm90::tma_prefetch_2d(&xmap, (g_begin + 2 * j) * 128 + b * 64, m0);
  }
  // Only the plan's weights and scales (written before the plan was returned, never after) are read
  // above this point (x only into L2). x, bias, residual, out and the workspace may belong to the
  // previous kernel in the stream, which may still be running (programmatic dependent launch): wait
  // for it here.
  sm90::grid_dependency_wait();
  W4A16_STAMP(tl, kWaited);
  if (GATHER && producer && lane == 0)
    sm90::bulk_g2s(sm90::smem_u32(xrows_smem), gather.x + (size_t)m0 * args.K, (uint32_t)rows * (uint32_t)args.K * 2u,
                   sm90::smem_u32(&gather_bar));
  // The epilogue's inputs for the rows this CTA will store, staged while the main loop runs.
  const int col0 = cb0 * kBlockCols;
  // The rows [row_lo, row_hi) of the chunk this CTA stores: a cluster split finishes its split_items of
  // the tile; through the workspace, the tile's last split stores all of it (finish_split).
  int row_lo = 0, row_hi = 0;
  if (args.partials) {
    if (split == splits - 1) row_hi = rows;
  } else {
    int i0, i1;
    split_items(split, splits, rows * (C::kCols / 8), i0, i1);
    if (i1 > i0) row_lo = i0 / (C::kCols / 8), row_hi = (i1 - 1) / (C::kCols / 8) + 1;
  }
  uint16_t *epi_smem = reinterpret_cast<uint16_t *>(smem + C::kRingOrRed);  // [kTok][kCols] residual, then bias
  if (C::kStageEpilogue && warp == C::kW * 4 - 1) {
    const uint32_t bar = sm90::smem_u32(&epi_bar), row_bytes = 2u * (uint32_t)min(C::kCols, args.N - col0);
    const bool bias = args.bias && row_hi > row_lo;
    const uint32_t total = (args.residual ? (uint32_t)(row_hi - row_lo) * row_bytes : 0u) + (bias ? row_bytes : 0u);
    if (lane == 0) sm90::mbar_expect_tx(bar, total);  // the barrier's one arrival: done once `total` bytes land
    __syncwarp();
    if (args.residual)
      for (int r = row_lo + lane; r < row_hi; r += 32)
        sm90::bulk_g2s(sm90::smem_u32(epi_smem + (r - row_lo) * C::kCols),
                       args.residual + (size_t)(m0 + r) * args.N + col0, row_bytes, bar);
    if (bias && lane == 0)
      sm90::bulk_g2s(sm90::smem_u32(epi_smem + C::kTok * C::kCols), args.bias + col0, row_bytes, bar);
  }
  if constexpr (GATHER) {
    if (producer) {
      if constexpr (perm_streamed) {
        int4 next_lo = {}, next_hi = {};
        perm_chunk(0, next_lo, next_hi);  // in flight while x's rows land
        sm90::mbar_wait(sm90::smem_u32(&gather_bar), 0);
        for (int j = 0; j < nsteps; ++j) {
          const int4 lo = next_lo, hi = next_hi;
          if (j + 1 < nsteps) perm_chunk(j + 1, next_lo, next_hi);
          gather_x(j, lo, hi);
        }
      } else {
        sm90::mbar_wait(sm90::smem_u32(&gather_bar), 0);
        for (int j = 0; j < nsteps; ++j) gather_x(j, int4{}, int4{});
      }
    }
  } else if constexpr (C::kProducerWarp) {
    if (producer && lane == 0)
      for (int j = 0; j < nsteps; ++j) produce_x(j);  // each stage as soon as the consumers release it
  } else if (tid == 0) {
    for (int j = 0; j < C::kXAhead && j < nsteps; ++j) produce_x(j);
  }

  if constexpr (C::kSums) {
    if (sums && !producer) {
      sum_groups(0, min(C::kSumGroups, ng));
      __syncwarp();
      if (lane == 0) sm90::mbar_arrive(sm90::smem_u32(&sum_bar));  // awaited where step 0 adds the offsets
    }
  }
  float acc[ND];
#pragma unroll
  for (int j = 0; j < ND; ++j) acc[j] = 0.f;
  float p[ND];
  // Matrix descriptors of the x boxes: the high word is the same for every box (stride byte offset,
  // swizzle mode); the low word holds the address, and the k-step offsets never carry out of it.
  const uint64_t desc_hi = sm90::desc_sw128(0) & 0xFFFFFFFF00000000ull;
  const uint32_t xlo_base = (uint32_t)sm90::desc_sw128(sm90::smem_u32(smem));
  const unsigned char *wslots = smem + C::kXBytes + warp * C::kWarpSlot;
  // One pipeline step; `s` (= step % XS, which is also step % WD) is a compile-time constant in every
  // copy of the unrolled loop below, so ring addresses and descriptors are constants plus a base.
  auto run_step = [&](int step, auto sc, uint32_t xphase) {
    constexpr int s = decltype(sc)::value;
    // Without a producer warp, the producer's extra work rotates over the warpgroups (thread 0 of
    // warpgroup step % W): the warps of a warpgroup meet at every wgmma, and x for everyone comes from
    // the producer, so a fixed producing consumer warp would set the pace of the whole CTA.
    if (!C::kProducerWarp && tid == (step % C::kW) * 128 && step + C::kXAhead < nsteps)
      produce_x(step + C::kXAhead);
    if constexpr (C::kSums) {  // the next kSumGroups groups' sums, once every consumer is done with the last ones
      if (sums && step > 0 && 2 * step % C::kSumGroups == 0) {
        asm volatile("bar.sync 1, %0;\n" ::"n"(C::kW * 128) : "memory");
        sum_groups(2 * step, min(C::kSumGroups, ng - 2 * step));
        asm volatile("bar.sync 1, %0;\n" ::"n"(C::kW * 128) : "memory");
      }
    }
    cp_async_wait<WD - 2>();  // this lane's copies for this step have landed
    __syncwarp();             // ... and lanes 0-2's scales and zero points are visible to the warp
    if (step == 0) W4A16_STAMP(tl, kFirstWeights);
    load_w((s + WD - 1) % WD);  // refills the slot read in the previous step (before the __syncwarp)
    cp_async_commit();
    const bool two = 2 * step + 1 < ng;
    const uint32_t full = sm90::smem_u32(&full_bar[s]);
    // This step's x stage (descriptor low word) and the warp's weight slot.
    const uint32_t xlo = xlo_base + (uint32_t)(s * (C::kXStage >> 4));
    constexpr uint32_t kBox = C::kXBox >> 4;
    const unsigned char *ws = wslots + s * C::kWStage;
    if (is_affine(FORM) && !sums) {
      if (active) {
        // W = (code - zi) * s + o from the dequantisation, accumulated straight into acc: no per-group scaling,
        // so a wgmma group only has to finish before its A registers are reused (wait<1>) and before
        // the x stage is released (wait<0> at the end of the step). Box kc (64 k) of a record: its
        // words 0-1 and 2-3 (k 0-31, 32-63) fall in scale groups (2 kc + {0, 1}) * kSub / 4.
        auto box_constants = [&](const unsigned char *record, int kc, Affine<E> (&c)[2]) {
          constexpr int kSub = Meta::kSub;
          c[0] = Affine<E>::load(record + (2 * kc * kSub / 4) * Meta::kSubBytes, g8);
          c[1] = kSub == 4 ? Affine<E>::load(record + (2 * kc + 1) * Meta::kSubBytes, g8) : c[0];
        };
        uint4 w0 = *reinterpret_cast<const uint4 *>(ws + lane * 16);
        uint4 w1 = *reinterpret_cast<const uint4 *>(ws + 512 + lane * 16);
        Affine<E> c[2];
        uint32_t a[4][4], b[4][4];
        box_constants(ws + C::kMeta0, 0, c);
        dequant4_affine<E>(w0, a, c);
        sm90::mbar_wait(full, xphase);
        if (step == 0) W4A16_STAMP(tl, kFirstX);
        mma_box<T, Io<E>::kBf16>(a, desc_hi, xlo, false, acc);
        box_constants(ws + C::kMeta0, 1, c);
        dequant4_affine<E>(w1, b, c);
        mma_box<T, Io<E>::kBf16>(b, desc_hi, xlo + kBox, false, acc);
        if (two) {
          const unsigned char *wt = ws + C::kWeights1;
          w0 = *reinterpret_cast<const uint4 *>(wt + lane * 16);
          w1 = *reinterpret_cast<const uint4 *>(wt + 512 + lane * 16);
          box_constants(ws + C::kMeta1, 0, c);
          wgmma_wait_acc<1>(acc);  // box 0 has read a
          dequant4_affine<E>(w0, a, c);
          mma_box<T, Io<E>::kBf16>(a, desc_hi, xlo + 2 * kBox, false, acc);
          box_constants(ws + C::kMeta1, 1, c);
          wgmma_wait_acc<1>(acc);  // box 1 has read b
          dequant4_affine<E>(w1, b, c);
          mma_box<T, Io<E>::kBf16>(b, desc_hi, xlo + 3 * kBox, false, acc);
        }
        wgmma_wait_acc<0>(acc);
      } else {
        sm90::mbar_wait(full, xphase);
      }
    } else if (active) {
      // Group 0 of the step: k 0-127 in x boxes 0-1; group 1: boxes 2-3. The weights do not depend on
      // x, so the first words are dequantised before the x wait (hiding its latency).
      uint4 w0 = *reinterpret_cast<const uint4 *>(ws + lane * 16);
      uint4 w1 = *reinterpret_cast<const uint4 *>(ws + 512 + lane * 16);
      // The scales of the lane's columns g8 and g8 + 8 (the offsets form's record holds them as a pair in the io type).
      auto scales = [&](const unsigned char *record, float &lo, float &hi) {
        if constexpr (C::kSums) {
          const uint32_t pair = *reinterpret_cast<const uint32_t *>(record + 4 * g8);
          lo = Io<E>::to_float((uint16_t)pair), hi = Io<E>::to_float((uint16_t)(pair >> 16));
        } else {
          lo = scale_value(record + g8 * 2, args.scales_bf16), hi = scale_value(record + 16 + g8 * 2, args.scales_bf16);
        }
      };
      float s0, s1;
      scales(ws + C::kMeta0, s0, s1);
      // The zero points of the lane's columns g8 and g8 + 8 (the symmetric form's are constants).
      auto zero_points = [&](const unsigned char *record) {
        if constexpr (FORM == kZeroPoints)
          return ZeroPoints<E>::from_pair(*reinterpret_cast<const uint16_t *>(record + Meta::kZeroOffset + g8 * 2));
        else if constexpr (C::kSums)
          return ZeroPoints<E>::from_pair(*reinterpret_cast<const uint16_t *>(record + Meta::kIntegerZeros + g8 * 2));
        else return ZeroPoints<E>::symmetric();
      };
      // The offsets of the lane's columns (C::kSums), added as o * (the group's sum of x) after the group's scaling.
      auto offsets = [&](const unsigned char *record) {
        return C::kSums ? *reinterpret_cast<const uint32_t *>(record + Meta::kOffsetPairs + 4 * g8) : 0u;
      };
      const uint32_t o0 = offsets(ws + C::kMeta0), o1 = two ? offsets(ws + C::kMeta1) : 0u;
      ZeroPoints<E> z = zero_points(ws + C::kMeta0);
      uint32_t a[4][4], b[4][4];
      dequant4(w0, a, z);
      sm90::mbar_wait(full, xphase);
      if (step == 0) W4A16_STAMP(tl, kFirstX);
      mma_box<T, Io<E>::kBf16>(a, desc_hi, xlo, true, p);
      dequant4(w1, b, z);
      mma_box<T, Io<E>::kBf16>(b, desc_hi, xlo + kBox, false, p);
      if (two) {
        const unsigned char *wt = ws + C::kWeights1;
        w0 = *reinterpret_cast<const uint4 *>(wt + lane * 16);
        w1 = *reinterpret_cast<const uint4 *>(wt + 512 + lane * 16);
        float t0, t1;
        scales(ws + C::kMeta1, t0, t1);
        z = zero_points(ws + C::kMeta1);
        scale_add<ND>(p, s0, s1, acc);
        dequant4(w0, a, z);
        mma_box<T, Io<E>::kBf16>(a, desc_hi, xlo + 2 * kBox, true, p);
        dequant4(w1, b, z);
        mma_box<T, Io<E>::kBf16>(b, desc_hi, xlo + 3 * kBox, false, p);
        s0 = t0, s1 = t1;
      }
      scale_add<ND>(p, s0, s1, acc);
      if constexpr (C::kSums) {
        if (step == 0) sm90::mbar_wait(sm90::smem_u32(&sum_bar), 0);
        const float *xs = xsum + (2 * step) % C::kSumGroups * T;
        add_offsets<E>(acc, xs, o0, lane);
        if (two) add_offsets<E>(acc, xs + T, o1, lane);
      }
    } else {
      sm90::mbar_wait(full, xphase);
    }
    __syncwarp();
    if (lane == 0) sm90::mbar_arrive(sm90::smem_u32(&empty_bar[s]));
  };
  uint32_t xphase = 0;
  for (int base = 0; !producer && base < nsteps; base += XS, xphase ^= 1) {
    run_step(base, std::integral_constant<int, 0>(), xphase);
    if (base + 1 < nsteps) run_step(base + 1, std::integral_constant<int, 1>(), xphase);
    if (base + 2 < nsteps) run_step(base + 2, std::integral_constant<int, 2>(), xphase);
    if constexpr (XS > 3)
      if (base + 3 < nsteps) run_step(base + 3, std::integral_constant<int, 3>(), xphase);
  }
  cp_async_wait<0>();
  W4A16_STAMP(tl, kLoopDone);
  __syncthreads();  // every x stage consumed and every copy landed: the rings become the partials

  float *red = reinterpret_cast<float *>(smem);
  if (!producer) store_partials<C>(acc, red, wg, warp_in_wg, lane);
  EpilogueInputs in = EpilogueInputs::global(args.bias, args.residual, m0, args.N);
  if constexpr (C::kStageEpilogue) {
    in = {args.bias ? epi_smem + C::kTok * C::kCols : nullptr, args.residual ? epi_smem : nullptr, col0, row_lo,
          (size_t)C::kCols};
    if (row_hi > row_lo) sm90::mbar_wait(sm90::smem_u32(&epi_bar), 0);
  }
  W4A16_STAMP(tl, kEpilogueReady);
  // The tile's items this CTA finishes: all of them through the workspace (if it is the last split), its split_items
  // through a cluster. One store_tile for both (its one call site).
  int i0 = 0, i1 = rows * (C::kCols / 8);
  Workspace ws{};
  bool finishes = true;
  if (args.partials) {
    __syncthreads();
    finishes = finish_split<C::kCols, C::kRedStride, C::kThreads>(red, args, tile, split, splits, rows, ws);
  } else {
    if (splits > 1) cooperative_groups::this_cluster().sync(); else __syncthreads();
    split_items(split, splits, i1, i0, i1);
  }
  if (finishes)
    store_tile<E, C::kCols, C::kRedStride, C::kThreads>(red, i0, i1, split, splits, col0, m0, args.N, in, args.out,
                                                        args.act, ws);
  if (!args.partials && splits > 1) cooperative_groups::this_cluster().sync();  // peers may still read our red
  W4A16_STAMP(tl, kDone);
#else
  __trap();  // built only for sm_90a; the host never launches it elsewhere
#endif
}

}  // namespace v3
}  // namespace w4a16
