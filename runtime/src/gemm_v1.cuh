// W4A16 fused GEMM, kernel v1 (issue #3): mma.sync + cp.async, sm_80 and later. T, the io type (x,
// bias, residual, out and the mma operands), is f16 or bf16 (common.cuh).
//
// out[m,n] = act(sum_k x[m,k] * W[k,n] + bias[n]) + residual[m,n] with W of the plan's form (common.cuh):
// (code - z) * scale, z = 8 or per-group zero points, scaled per 128-k group; or affine,
// W = (code - zi) * s + o, computed by the dequantisation for groups of 128, 64 or 32 k.
//
// Layout of the work (see runtime/README.md for the picture):
//  * "Swap AB": mma.m16n8k16 computes C[16x8] += A[16x16] * B[16x8]. The weight is the A operand
//    (16 output columns n x 16 k) and the activations are B (16 k x 8 tokens), so a token tile is only
//    8 wide: M = 1..8 wastes at most 7/8 of a narrow operand instead of 15/16 of a 16-row tile.
//  * The weight is repacked once (repack_kernel) so that one 32-bit word per lane is exactly that
//    lane's A fragment for one mma (8 nibbles), and four consecutive k-steps of one lane sit in one
//    16-byte vector: a warp reads 512 contiguous bytes per 64 k of a 16-column tile.
//  * Scales are applied per group, not per weight: the mma sums (code-8)*x over one 128-k group into
//    fresh f32 registers p, then acc = fma(p, scale, acc). (code-8) is exact in f16 and bf16, so no
//    weight is ever rounded, and it costs 4 FMAs per mma tile per group instead of a multiply per weight.
//  * A CTA owns NCOLS = 32*WARPS output columns (each warp two 16-column tiles) for one range of
//    K groups; the groups stream through a STAGES-deep cp.async pipeline (weights, the CTA's x slice,
//    the group's scales) so that many 16-byte loads are in flight per SM.
//  * K sliced inside the CTA (KS > 1, decode): the CTA's warps form KS slices that share its columns
//    (32 * WARPS / KS of them) and each take one group of a stage of KS groups; at the end the slices'
//    partial sums are added in slice order through shared memory. A few tokens need no more columns per
//    CTA than that, so N = 4096 spreads over 128 SMs with the whole K in each CTA: no exchange between
//    CTAs, where kernel v3 (256 or 128 columns per CTA) would have to split K across CTAs and pay their
//    round trips through global memory on the call's critical path (docs/kernel.md, "Decode variant").
//    These variants are launched with programmatic dependent launch: the plan's weights and records of
//    the first stages are requested before the grid dependency wait, x only after it.
//  * Split-K without workspace: the `splits` CTAs that share a column tile form one thread-block
//    cluster (sm_90). Each leaves its partial sums in its own shared memory; after a cluster barrier
//    CTA r reduces the r-th slice of the tile by reading every peer's partials through distributed
//    shared memory, always in split order 0,1,..,S-1, so the sum is bitwise reproducible and no global
//    buffer exists that concurrent runs on other streams could share. The epilogue (bias, activation,
//    residual, the single rounding to T) runs on those registers and stores 16 bytes per thread.
#pragma once

#include "common.cuh"
#include "sm90.cuh"  // launch_dependents, grid_dependency_wait
#include "timeline.cuh"

namespace w4a16 {

constexpr int kXStride = 136;  // halves per staged x row: 128 + 8 pad, so the 8 rows an ldmatrix
                               // reads start 272 B apart and fall on 8 distinct 4-bank groups

struct GemmArgs {
  const uint4 *wq;          // repacked weight: [K/128][Npad/64][4 tiles][2 chunks][32 lanes] x 16 B (group-major, cuda_backend.cu)
  const void *scales;       // [K/128][Npad/16] TileMeta records (scales, zero points); padded columns' scale 0
  const uint16_t *x;        // [M][K]; x, bias, residual and out in the kernel's io type
  const int32_t *perm;      // the decode variant's act-order kernels (GATHER): the weight's row i is x's column perm[i]
  const uint16_t *bias;     // [N] or null
  const uint16_t *residual; // [M][N] or null
  Outputs out;              // where the (M, N) result goes (common.cuh)
  int M, K, N, Npad, splits, act;
  int scales_bf16;          // the records' scales are bf16 (else f16)
#ifdef W4A16_TIMELINE
  unsigned long long *timeline;  // instrumented builds only (timeline.cuh): where each CTA's time goes
#endif
};

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem, bool valid) {
  // src-size 0 zero-fills the 16 bytes without reading gmem (used for tokens >= M, columns >= Npad).
  // No L2 cache hint: CUDA 13 ptxas was seen to drop the createpolicy feeding one (docs/kernel.md, Notes).
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

template <class T>
__device__ __forceinline__ void mma16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
  if constexpr (Io<T>::kBf16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <int NT, int WARPS, int STAGES, int FORM, int KS = 1> struct Config {
  static constexpr int kNA = 2;                        // 16-column tiles per warp
  static constexpr int kThreads = WARPS * 32;
  static constexpr int kSliceWarps = WARPS / KS;       // warps of one K slice (they share one group per stage)
  static constexpr int kTiles = kSliceWarps * kNA;     // 16-column tiles per CTA
  static constexpr int kCols = kTiles * 16;
  static constexpr int kRows = NT * 8;                 // token rows held per CTA
  static constexpr int kWBytes = kTiles * 2 * 512;     // one group: 2 chunks of 64 k per tile
  static constexpr int kXBytes = kRows * kXStride * 2;
  static constexpr int kSBytes = kTiles * TileMeta<FORM>::kBytes;  // the group's records
  static constexpr int kGroupBytes = kWBytes + kXBytes + kSBytes;  // one group's part of a stage
  static constexpr int kStageBytes = KS * kGroupBytes;
  static constexpr int kRedStride = kCols + 4;         // f32 partials row; +4 spreads tokens over banks
  static constexpr int kRedBytes = KS * kRows * kRedStride * 4;  // each slice's partial sums
  static constexpr int kSmemBytes = STAGES * kStageBytes > kRedBytes ? STAGES * kStageBytes : kRedBytes;
  static constexpr int kMinBlocks = KS > 1 ? 1 : (NT <= 4 ? 2 : 1) * (8 / WARPS);
  static_assert(WARPS % KS == 0, "whole warps per K slice");
};

// acc += p * scale, the group's scale applied once per accumulator: rows g and g+8 of each of the warp's
// 16-column tiles (meta: the group's staged TileMeta records of the CTA's tiles; cw: the warp's place among
// the warps of its K slice, which own the CTA's tiles in turn).
template <int FORM, int NA, int NT>
__device__ __forceinline__ void scale_accumulate(const float (&p)[NA][NT][4], const unsigned char *meta, int cw,
                                                 int lane, bool scales_bf16, float (&acc)[NA][NT][4]) {
#pragma unroll
  for (int j = 0; j < NA; ++j) {
    const unsigned char *ss = meta + (cw * NA + j) * TileMeta<FORM>::kBytes;
    const float s0 = scale_value(ss + 2 * (lane >> 2), scales_bf16);
    const float s1 = scale_value(ss + 2 * ((lane >> 2) + 8), scales_bf16);
#pragma unroll
    for (int t = 0; t < NT; ++t) {
      acc[j][t][0] = fmaf(p[j][t][0], s0, acc[j][t][0]);
      acc[j][t][1] = fmaf(p[j][t][1], s0, acc[j][t][1]);
      acc[j][t][2] = fmaf(p[j][t][2], s1, acc[j][t][2]);
      acc[j][t][3] = fmaf(p[j][t][3], s1, acc[j][t][3]);
    }
  }
}

// The affine forms in the decode variant (KS > 1): acc += s * p + o * sx, p = the sum of (code - zi) * x over one
// scale group (exact products, as the exact forms), sx = that group's sum of x per token (a ones-mma), s and o from
// the group's affine record (io type; scale group `sub` of the 128 k: kAffine64 has 2, kAffine32 4). Kernel v3 adds
// the offsets the same way at a few tokens (gemm_v3.cuh, Cfg::kSums); the per-weight fma(code - zi, s, o) of the
// other v1 kernels rounds every weight first, which on cancelling data reached 1.3x the f16 element bound (gpu_test,
// session 31).
template <class T, int FORM, int NA, int NT>
__device__ __forceinline__ void affine_accumulate(const float (&p)[NA][NT][4], const float (&sx)[NT][4],
                                                  const unsigned char *meta, int sub, int cw, int lane,
                                                  float (&acc)[NA][NT][4]) {
  using Meta = TileMeta<FORM>;
  const int g8 = lane >> 2;
#pragma unroll
  for (int j = 0; j < NA; ++j) {
    const unsigned char *rec = meta + (cw * NA + j) * Meta::kBytes + sub * Meta::kSubBytes;
    const float s0 = scale_value(rec + 4 * g8, Io<T>::kBf16), s1 = scale_value(rec + 4 * g8 + 2, Io<T>::kBf16);
    const float o0 = scale_value(rec + Meta::kOffsetPairs + 4 * g8, Io<T>::kBf16);
    const float o1 = scale_value(rec + Meta::kOffsetPairs + 4 * g8 + 2, Io<T>::kBf16);
#pragma unroll
    for (int t = 0; t < NT; ++t) {  // sx[t][0..1]: the lane's two tokens (rows g and g + 8 of a ones-mma agree)
      acc[j][t][0] = fmaf(p[j][t][0], s0, fmaf(sx[t][0], o0, acc[j][t][0]));
      acc[j][t][1] = fmaf(p[j][t][1], s0, fmaf(sx[t][1], o0, acc[j][t][1]));
      acc[j][t][2] = fmaf(p[j][t][2], s1, fmaf(sx[t][0], o1, acc[j][t][2]));
      acc[j][t][3] = fmaf(p[j][t][3], s1, fmaf(sx[t][1], o1, acc[j][t][3]));
    }
  }
}

// The warp's accumulators into red[token][column]. C fragment: c0,c1 = (row g, tokens 2t, 2t+1),
// c2,c3 = (row g+8, same tokens), where rows are output columns (cw as in scale_accumulate).
template <class C, int NA, int NT>
__device__ __forceinline__ void store_partials(const float (&acc)[NA][NT][4], float *red, int cw, int lane) {
  const int g = lane >> 2, tq = (lane & 3) * 2;
#pragma unroll
  for (int j = 0; j < NA; ++j)
#pragma unroll
    for (int t = 0; t < NT; ++t) {
      const int col = (cw * NA + j) * 16 + g, tok = t * 8 + tq;
      red[tok * C::kRedStride + col] = acc[j][t][0];
      red[(tok + 1) * C::kRedStride + col] = acc[j][t][1];
      red[tok * C::kRedStride + col + 8] = acc[j][t][2];
      red[(tok + 1) * C::kRedStride + col + 8] = acc[j][t][3];
    }
}

// GATHER (decode variant, act-order plans): x's columns are gathered through args.perm while they are staged, so that
// the call needs no gather launch before it (see gather_stage below). The CTA copies x's rows whole into shared memory
// behind its stages (M * K * 2 bytes more than kSmemBytes: the host launches it only where they fit).
template <class T, int NT, int WARPS, int STAGES, int FORM, int KS = 1, bool GATHER = false>
__global__ void __launch_bounds__(WARPS * 32, Config<NT, WARPS, STAGES, FORM, KS>::kMinBlocks)
    w4a16_gemm_kernel(const GemmArgs args) {
  static_assert(!GATHER || (KS == WARPS && NT == 1), "the gather gives each thread one 4-k piece per row");
  using C = Config<NT, WARPS, STAGES, FORM, KS>;
  constexpr int NA = C::kNA;
  // The affine forms in the decode variant: exact products plus o * the sums of x, per scale group
  // (affine_accumulate); every other affine kernel computes each weight as fma(code - zi, s, o) in T
  // (dequant8_affine). kSteps: 16-k mma steps per scale group (8, 4 or 2 of the stage's 8).
  constexpr bool kExactAffine = is_affine(FORM) && KS > 1, kRoundedAffine = is_affine(FORM) && !kExactAffine;
  constexpr int kSub = TileMeta<FORM>::kSub, kSteps = 8 / kSub;
  constexpr uint32_t kOne2 = Io<T>::kBf16 ? 0x3f803f80u : 0x3c003c00u;  // two 1.0 in T
  const uint32_t kOnes[4] = {kOne2, kOne2, kOne2, kOne2};
  extern __shared__ __align__(16) unsigned char smem[];

#ifdef W4A16_TIMELINE
  unsigned long long *const tl = timeline::take(args.timeline, args.wq);  // thread 0's record (timeline.cuh)
#endif
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  // The warp's K slice (which group of each stage it takes) and its place among the slice's warps (which of
  // the CTA's tiles it owns). KS = 1: one slice, cw = warp.
  const int slice = warp / C::kSliceWarps, cw = warp - slice * C::kSliceWarps;
  // The decode variant (KS > 1) is never split (run_v1 launches it with splits = 1): constants there, so its
  // split-K code folds away (~5 KB of its ~29: code costs, common.cuh activate8).
  const int split = KS > 1 ? 0 : (int)blockIdx.x, splits = KS > 1 ? 1 : args.splits;
  const int tile0 = blockIdx.y * C::kTiles;  // first 16-column tile of this CTA
  const int m0 = blockIdx.z * kMaxRows;
  const int rows = min(C::kRows, args.M - m0);  // valid tokens in this CTA
  const int K = args.K, G = K >> kGroupShift, ntiles = args.Npad >> 4;
  // Even split of the K groups; host guarantees splits <= G, so every CTA gets at least one group.
  int g_begin, g_end;
  split_items(split, splits, G, g_begin, g_end);
  const int ng = g_end - g_begin;
  const int nsteps = (ng + KS - 1) / KS;  // pipeline stages of KS groups; the last may hold fewer

  bool tile_ok[NA];
#pragma unroll
  for (int j = 0; j < NA; ++j) tile_ok[j] = tile0 + cw * NA + j < ntiles;

  // Stage `buf` holds groups step * KS + q (q < KS) of the CTA's range, one part of C::kGroupBytes each:
  // weights, x slice, records. The plan's data (weights: each warp its own tiles of its slice's group, one
  // 16-byte vector per lane per 64 k; records: all threads) never changes after plan creation, so the first
  // stages' are requested before the grid dependency wait; x (all threads) only after it.
  auto part = [&](int buf, int q) { return smem + buf * C::kStageBytes + q * C::kGroupBytes; };
  auto load_plan_data = [&](int buf, int step) {
    if (step * KS + slice < ng) {
      const int grp = g_begin + step * KS + slice;
      unsigned char *st = part(buf, slice);
#pragma unroll
      for (int j = 0; j < NA; ++j) {
        if (!tile_ok[j]) continue;
        const size_t tile = (size_t)(tile0 + cw * NA + j);
#pragma unroll
        for (int kc = 0; kc < 2; ++kc)
          cp_async16(st + ((cw * NA + j) * 2 + kc) * 512 + lane * 16,
                     args.wq + ((((size_t)grp * (args.Npad >> 6) + (tile >> 2)) * 4 + (tile & 3)) * 2 + kc) * 32 + lane,
                     true);
      }
    }
    constexpr int kMeta = TileMeta<FORM>::kPerColumn, kCopies = C::kSBytes / 16;
    const unsigned char *meta = reinterpret_cast<const unsigned char *>(args.scales);
    for (int c = tid; c < KS * kCopies; c += C::kThreads) {  // each group's records of the CTA's tiles: contiguous
      const int q = c / kCopies, grp = g_begin + step * KS + q;
      if (step * KS + q >= ng) break;
      const size_t off = (size_t)grp * args.Npad * kMeta + (size_t)tile0 * 16 * kMeta + (c - q * kCopies) * 16;
      const bool ok = off < (size_t)(grp + 1) * args.Npad * kMeta;
      cp_async16(part(buf, q) + C::kWBytes + C::kXBytes + (c - q * kCopies) * 16, ok ? meta + off : meta, ok);
    }
  };
  auto load_x = [&](int buf, int step) {  // the valid rows only: rows past M were zeroed once below
    for (int c = tid; c < KS * rows * 16; c += C::kThreads) {
      const int q = c / (rows * 16), row = (c >> 4) - q * rows, col = (c & 15) * 8;
      if (step * KS + q >= ng) break;
      uint16_t *xs = reinterpret_cast<uint16_t *>(part(buf, q) + C::kWBytes);
      cp_async16(xs + row * kXStride + col, args.x + (size_t)(m0 + row) * K + (g_begin + step * KS + q) * kGroupK + col,
                 true);
    }
  };
  // Act-order (GATHER): stage `step`'s x is x[m, perm[k]] for its KS groups' k, scattered over x's rows. x's rows
  // are copied whole (coalesced cp.async, after the grid dependency wait) into shared memory behind the stages, and
  // each stage is built from there: thread tid owns 4 consecutive k of one group of the stage (KS groups x 32 pieces =
  // the CTA's threads) in every valid row, one 16-byte vector of perm (plan data, read from global memory STAGES - 1
  // stages ahead, the first ones before the wait) and 4 two-byte shared-memory reads per row. Gathering from global
  // memory instead (session 40) cost an L1 wavefront per distinct line each warp-wide read touched: 2-7x slower.
  const int gather_q = tid >> 5, gather_k = (tid & 31) * 4;
  uint16_t *const xrows = reinterpret_cast<uint16_t *>(smem + C::kSmemBytes);
  auto owns_piece = [&](int step) { return step * KS + gather_q < ng; };  // false past the last stage too
  auto perm_of = [&](int step) {
    int4 v = {0, 0, 0, 0};
    if (GATHER && owns_piece(step))
      v = __ldg(reinterpret_cast<const int4 *>(args.perm + (size_t)(g_begin + step * KS + gather_q) * kGroupK + gather_k));
    return v;
  };
  auto gather_stage = [&](int step, int4 pv) {  // stage `step`'s x from the copied rows (after they have landed)
    if (!owns_piece(step)) return;
    uint16_t *xs = reinterpret_cast<uint16_t *>(part(step % STAGES, gather_q) + C::kWBytes);
    for (int r = 0; r < rows; ++r) {
      const uint16_t *row = xrows + (size_t)r * K;
      const uint32_t a = row[pv.x], b = row[pv.y], c = row[pv.z], d = row[pv.w];
      *reinterpret_cast<uint2 *>(xs + r * kXStride + gather_k) = make_uint2(a | (b << 16), c | (d << 16));
    }
  };
  // Rows of the token tile past M are zero in every stage: no copy ever writes them.
  if (rows < C::kRows)
    for (int c = tid; c < STAGES * KS * (C::kRows - rows) * 16; c += C::kThreads) {
      const int q = c / ((C::kRows - rows) * 16), row = rows + (c >> 4) - q * (C::kRows - rows);
      *reinterpret_cast<uint4 *>(smem + q * C::kGroupBytes + C::kWBytes + (row * kXStride + (c & 15) * 8) * 2) =
          make_uint4(0, 0, 0, 0);
    }

  float acc[NA][NT][4];
#pragma unroll
  for (int j = 0; j < NA; ++j)
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[j][t][e] = 0.f;

  // Pipeline prologue: STAGES-1 stages in flight, the plan's data in one commit group, then each stage's x
  // in its own, so that waiting for stage i's x (the (STAGES-1+i)-th group, as the loop's refills are) also
  // waits for its weights. Empty commit groups keep the wait count uniform.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s)
    if (s < nsteps) load_plan_data(s, s);
  cp_async_commit();
  // GATHER: perm's vectors of stages 0 .. 2 * STAGES - 3, read before the wait (plan data): perm_first for the stages
  // the prologue builds, perm_queue for the ones the loop builds next (it takes one per iteration and reads another).
  int4 perm_first[STAGES - 1], perm_queue[STAGES - 1];
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) perm_first[s] = perm_of(s), perm_queue[s] = perm_of(STAGES - 1 + s);
#if __CUDA_ARCH__ >= 900
  // Programmatic dependent launch (a no-op when launched without it): the next kernel may start its own
  // prologue now; x, bias, residual and out belong to the previous kernel until the wait.
  sm90::launch_dependents();
  sm90::grid_dependency_wait();
#endif
  W4A16_STAMP(tl, kWaited);
  if constexpr (GATHER) {
    // x's valid rows into shared memory; once they (and the plan data before them) have landed, the first stages.
    for (int c = tid; c < rows * (K >> 3); c += C::kThreads)
      cp_async16(xrows + (size_t)c * 8, args.x + (size_t)m0 * K + (size_t)c * 8, true);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) gather_stage(s, perm_first[s]);
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) cp_async_commit();  // empty groups: the loop's wait count stays as below
  } else {
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < nsteps) load_x(s, s);
      if (s < STAGES - 2) cp_async_commit();
    }
    cp_async_commit();
  }

  for (int i = 0; i < nsteps; ++i) {
    cp_async_wait<STAGES - 2>();  // this thread's copies for stage i have landed
    __syncthreads();              // everyone's have, and everyone is done with the buffer refilled next
    if (i == 0) {  // one cp.async stage brings the first weights and x
      W4A16_STAMP(tl, kFirstWeights);
      W4A16_STAMP(tl, kFirstX);
    }
    if (i + STAGES - 1 < nsteps) {
      load_plan_data((i + STAGES - 1) % STAGES, i + STAGES - 1);
      if constexpr (GATHER) {  // its buffer was freed by this iteration's barrier; readers pass another first
        gather_stage(i + STAGES - 1, perm_queue[0]);
#pragma unroll
        for (int s = 0; s < STAGES - 2; ++s) perm_queue[s] = perm_queue[s + 1];
        perm_queue[STAGES - 2] = perm_of(i + 2 * STAGES - 2);
      } else {
        load_x((i + STAGES - 1) % STAGES, i + STAGES - 1);
      }
    }
    cp_async_commit();
    if (i * KS + slice >= ng) continue;  // the last stage may hold fewer groups than slices

    const unsigned char *st = part(i % STAGES, slice);
    const unsigned xs = static_cast<unsigned>(__cvta_generic_to_shared(st + C::kWBytes));
    const unsigned char *meta = st + C::kWBytes + C::kXBytes;
    // The zero points of the lane's columns g and g + 8 of each of its tiles (symmetric: constants; kExactAffine:
    // the record's integer zi).
    ZeroPoints<T> z[NA];
    float p[NA][NT][4], sx[NT][4];
    // At the start of each scale group (the stage's one for the exact forms): its zero points, fresh sums.
    auto begin_scale_group = [&](int sub) {
#pragma unroll
      for (int j = 0; j < NA; ++j) {
        if constexpr (FORM == kZeroPoints)
          z[j] = ZeroPoints<T>::from_pair(*reinterpret_cast<const uint16_t *>(
              meta + (cw * NA + j) * TileMeta<FORM>::kBytes + TileMeta<FORM>::kZeroOffset + (lane >> 2) * 2));
        else if constexpr (kExactAffine)
          z[j] = ZeroPoints<T>::from_pair(*reinterpret_cast<const uint16_t *>(
              meta + (cw * NA + j) * TileMeta<FORM>::kBytes + sub * TileMeta<FORM>::kSubBytes +
              TileMeta<FORM>::kIntegerZeros + (lane >> 2) * 2));
        else
          z[j] = ZeroPoints<T>::symmetric();
      }
#pragma unroll
      for (int t = 0; t < NT; ++t) {
#pragma unroll
        for (int e = 0; e < 4; ++e) sx[t][e] = 0.f;
#pragma unroll
        for (int j = 0; j < NA; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) p[j][t][e] = 0.f;
      }
    };
    begin_scale_group(0);

#pragma unroll
    for (int kc = 0; kc < 2; ++kc) {
      uint4 wv[NA];
#pragma unroll
      for (int j = 0; j < NA; ++j)
        wv[j] = tile_ok[j] ? *reinterpret_cast<const uint4 *>(st + ((cw * NA + j) * 2 + kc) * 512 + lane * 16)
                           : make_uint4(0x88888888u, 0x88888888u, 0x88888888u, 0x88888888u);
#pragma unroll
      for (int kp = 0; kp < 2; ++kp) {  // two k-steps of 16 per ldmatrix.x4
        // k steps kc*4 + 2kp + {0, 1} lie in scale group (2 kc + kp) * kSub / 4 of the record.
        const int step = kc * 4 + kp * 2, sub = step / kSteps;
        if constexpr (kExactAffine && kSub > 1)
          if (step > 0 && step % kSteps == 0) begin_scale_group(sub);
        uint32_t a[NA][2][4];
#pragma unroll
        for (int j = 0; j < NA; ++j) {
          if constexpr (kRoundedAffine) {
            const Affine<T> c = Affine<T>::load(meta + (cw * NA + j) * TileMeta<FORM>::kBytes +
                                                    sub * TileMeta<FORM>::kSubBytes,
                                                lane >> 2);
            dequant8_affine<T>(kp ? wv[j].z : wv[j].x, a[j][0], c);
            dequant8_affine<T>(kp ? wv[j].w : wv[j].y, a[j][1], c);
          } else {
            dequant8(kp ? wv[j].z : wv[j].x, a[j][0], z[j]);
            dequant8(kp ? wv[j].w : wv[j].y, a[j][1], z[j]);
          }
        }
        // B fragments: lanes 0-7 address rows of matrix 0 (k 0-7 of step 2kp), 8-15 matrix 1 (k 8-15),
        // 16-31 the same for step 2kp+1. x is [token][k] row-major, which is B in "col" layout.
        const int kcol = (kc * 4 + kp * 2) * 16 + (lane >> 3) * 8;
#pragma unroll
        for (int t = 0; t < NT; ++t) {
          uint32_t b[4];
          ldmatrix_x4(b, xs + ((t * 8 + (lane & 7)) * kXStride + kcol) * 2);
          if constexpr (kExactAffine) {  // the group's sums of x: a ones A operand
            mma16816<T>(sx[t], kOnes, b[0], b[1]);
            mma16816<T>(sx[t], kOnes, b[2], b[3]);
          }
#pragma unroll
          for (int j = 0; j < NA; ++j) {
            float(&d)[4] = kRoundedAffine ? acc[j][t] : p[j][t];  // rounded affine: W already scaled
            mma16816<T>(d, a[j][0], b[0], b[1]);
            mma16816<T>(d, a[j][1], b[2], b[3]);
          }
        }
        if constexpr (kExactAffine)
          if ((step + 2) % kSteps == 0) affine_accumulate<T, FORM>(p, sx, meta, sub, cw, lane, acc);
      }
    }
    if constexpr (!is_affine(FORM)) scale_accumulate<FORM>(p, meta, cw, lane, args.scales_bf16, acc);
  }
  cp_async_wait<0>();
  __syncthreads();  // pipeline buffers are dead from here on: reuse them for the partial sums
  W4A16_STAMP(tl, kLoopDone);

  float *red = reinterpret_cast<float *>(smem);
  store_partials<C>(acc, red + slice * C::kRows * C::kRedStride, cw, lane);
  if constexpr (KS > 1) {
    // The slices' partial sums, added in slice order 0..KS-1 into slice 0's: the same bits on every call.
    __syncthreads();
    constexpr int kVec4 = C::kCols / 4;
    for (int it = tid; it < rows * kVec4; it += C::kThreads) {
      float *v = red + (it / kVec4) * C::kRedStride + (it % kVec4) * 4;
      float4 s = *reinterpret_cast<const float4 *>(v);
#pragma unroll
      for (int q = 1; q < KS; ++q) {
        const float4 o = *reinterpret_cast<const float4 *>(v + q * C::kRows * C::kRedStride);
        s.x += o.x, s.y += o.y, s.z += o.z, s.w += o.w;
      }
      *reinterpret_cast<float4 *>(v) = s;
    }
  }

#if __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  if (splits > 1) cg::this_cluster().sync(); else __syncthreads();
#else
  if (splits > 1) __trap();  // host never asks for split-K below sm_90 (no clusters there)
  __syncthreads();
#endif
  W4A16_STAMP(tl, kEpilogueReady);  // the slices' and the cluster's partial sums are in place

  reduce_and_store<T, C::kCols, C::kRedStride, C::kThreads>(red, split, splits, rows, tile0 * 16, m0, args.N,
                                                        EpilogueInputs::global(args.bias, args.residual, m0, args.N),
                                                        args.out, args.act);
  W4A16_STAMP(tl, kDone);
}

}  // namespace w4a16
