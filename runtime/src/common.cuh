// Building blocks both fused GEMM kernels share (v1: gemm_v1.cuh, v3: gemm_v3.cuh): the fused
// epilogue (activation, bias, residual, the one rounding to f16 or bf16), the split-K partial-sum reduction, the
// cp.async pipeline primitives and the int4 -> f16 dequantisation. The probes in bench/probes build
// against these too.
#pragma once

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "w4a16/contract.h"
#include "w4a16/runtime.h"

namespace w4a16 {

// K per scale group. The weight repack and both kernels' tiles are laid out for 128; contract.h admits
// only that group size until they take others.
constexpr int kGroupShift = 7;  // K / kGroupK as a shift: K is a signed int, and a division would
constexpr int kGroupK = 1 << kGroupShift;  // cost sign-fixing instructions
static_assert(kGroupK == W4A16_DEFAULT_GROUP_SIZE, "kernels and contract disagree on the group size");
constexpr int kMaxRows = 64;   // tokens per CTA (grid.z walks larger M in chunks of 64)

// Act-order: x's 16-bit values at the 8 indices a and b hold (a row of x in global or shared memory), packed in
// index order as 8 consecutive values are stored. Only bits move, so f16 and bf16 alike. The gather launch
// (act_order_cuda.cu) and the GEMM's own gather (gemm_v3.cuh, GATHER) build their x tiles with it.
__device__ __forceinline__ uint4 gather8(const uint16_t *row, int4 a, int4 b) {
  uint4 o;
  o.x = row[a.x] | (uint32_t)row[a.y] << 16;
  o.y = row[a.z] | (uint32_t)row[a.w] << 16;
  o.z = row[b.x] | (uint32_t)row[b.y] << 16;
  o.w = row[b.z] | (uint32_t)row[b.w] << 16;
  return o;
}

// The element type of x, bias, residual and out (one per plan), which is also the type the tensor cores
// multiply in: __half or __nv_bfloat16. The kernels take those tensors as raw 16-bit words and convert
// through these; the scales' type is independent (a run-time flag, scale_value).
template <class T> struct Io;
template <> struct Io<__half> {
  static constexpr bool kBf16 = false;
  static __device__ __forceinline__ float to_float(uint16_t bits) { return __half2float(__ushort_as_half(bits)); }
  static __device__ __forceinline__ uint16_t round(float v) { return __half_as_ushort(__float2half_rn(v)); }
};
template <> struct Io<__nv_bfloat16> {
  static constexpr bool kBf16 = true;
  static __device__ __forceinline__ float to_float(uint16_t bits) { return __uint_as_float((uint32_t)bits << 16); }
  static __device__ __forceinline__ uint16_t round(float v) { return __bfloat16_as_ushort(__float2bfloat16_rn(v)); }
};

// A scale (f16 or bf16 bits, TileMeta) as f32: the plan's scales type is a run-time flag rather than a
// template parameter (GPTQ keeps f16 scales for bf16 models): one select per scale and group, next to
// the dequantisation's hundreds of instructions.
__device__ __forceinline__ float scale_value(const unsigned char *p, bool bf16) {
  const uint16_t bits = *reinterpret_cast<const uint16_t *>(p);
  return bf16 ? __uint_as_float((uint32_t)bits << 16) : __half2float(__ushort_as_half(bits));
}

// The weight's form, every kernel table's first index (the host picks it at plan creation):
//  * kSymmetric: W = (code - 8) * s; kZeroPoints: W = (code - z) * s with integer z in 0..15. The mma
//    multiplies x by code - z (exact in f16 and bf16) over a 128-k group into fresh f32 registers, and
//    the group's scale is applied once per accumulator: no weight is ever rounded.
//  * kAffine{128,64,32}: W = (code - zi) * s + o per (group of 128, 64 or 32 k, column): every other form
//    (offsets: GGUF Q4_1, torchao; fractional zero points: HQQ; zero point 16: GPTQ v1; group sizes 64 and
//    32). The plan splits (code - z) * s + m into an integer zi in 0..15 nearest to z and o = m - (z - zi) * s,
//    so that code - zi is exact and o stays small next to W (with o = m - z * s instead, o's rounding cost
//    up to 3 % of a W near 0 in bf16: gpu_test, session 11). The dequantisation computes W itself in the io
//    type (one rounding per weight, like the frontends' own f16 / bf16 dequantisation; within
//    docs/contract.md §1's tolerance) and the mma accumulates x * W straight into the f32 accumulators, so a
//    group boundary inside a 128-k step costs nothing but another set of constants. (Kernel v3 computes
//    kAffine128 for up to 4 rows of x as the exact forms do, plus o * the group's sum of x: gemm_v3.cuh, Cfg::kSums.)
enum Form { kSymmetric = 0, kZeroPoints = 1, kAffine128 = 2, kAffine64 = 3, kAffine32 = 4 };
constexpr int kForms = 5;
__host__ __device__ constexpr bool is_affine(int form) { return form >= kAffine128; }

// One 128-k group's metadata of one 16-column tile, as the plan stores it ([K/128][Npad/16] records) and
// the kernels stage it:
//  * kSymmetric: the tile's 16 scales (f16 or bf16);
//  * kZeroPoints: the scales, then its 16 zero points, one byte each in pair order (byte 2c holds column
//    c's z, byte 2c + 1 column c + 8's z, times 16 for f16 kernels; ZeroPoints::from_pair);
//  * affine: per scale group j of the 128 k (kSub of them), 80 bytes: the 8 pairs (s[c], s[c + 8]), the 8
//    pairs (o[c], o[c + 8]), both in the io type, then the 16 zi in the zero-point form's pair order
//    (Affine::load).
// One record comes in one copy instruction (2 to 16 lanes x 16 bytes): fetching the zero points from an
// array of their own, in a second instruction, cost 8 % on 8192x28672 at M = 1 (bench/RESULTS.md,
// session 10).
template <int FORM> struct TileMeta {
  static constexpr int kSub = FORM == kAffine32 ? 4 : FORM == kAffine64 ? 2 : 1;  // scale groups per 128 k
  static constexpr int kBytes = FORM == kSymmetric ? 32 : FORM == kZeroPoints ? 48 : 80 * kSub;
  static constexpr int kCopies = kBytes / 16;   // 16-byte copies per record
  static constexpr int kPerColumn = kBytes / 16;  // record bytes per column (the plan's array: Npad per group)
  static constexpr int kZeroOffset = 32;        // where the zero points start
  static constexpr int kSubBytes = 80;          // affine: bytes per scale group: the scale pairs at 0, then
  static constexpr int kOffsetPairs = 32;       //   the offset pairs,
  static constexpr int kIntegerZeros = 64;      //   then the 16 zi
};

// Both activations as v * sigmoid(z), one MUFU.EX2 and one MUFU.RCP per element: gelu_tanh's
// 0.5 * (1 + tanh(u)) is 1 / (1 + e^(-2u)). The epilogue runs once per output element on every call's
// critical path, and with expf and an IEEE division (cpu_backend.c's expressions) silu cost 2.4 us
// per call at 32 tokens on 8192x28672 (per-CTA timelines, bench/RESULTS.md session 6). The error, a few f32
// ulp, is far below the f16 output's rounding. For very negative v the denominator overflows and
// __fdividef gives 0, which is also what the exact result rounds to in f16.
// Called only with act != W4A16_ACT_NONE (activate8).
__device__ __forceinline__ float activation(float v, int act) {
  const float z = act == W4A16_ACT_GELU_TANH ? 2.0f * (W4A16_GELU_C0 * (v + W4A16_GELU_C1 * v * v * v)) : v;
  return __fdividef(v, 1.0f + __expf(-z));
}

// The activation of t[0, n) (n = 8, or 4: a GLU item's gate half) in a loop that is not unrolled, four elements
// per turn (so their MUFU latencies overlap), the halves swapped after each turn: two turns leave t in its order.
// Why not unrolled: the epilogue is inlined at every store site of every kernel, and the kernels' code size costs
// the PDL-chained layer even where their hot path is unchanged: relu and gelu_erf inlined here as 8 copies per site
// grew the kernels by ~30 % and the LLaMA-7B layer at M = 1 by 3.4 us while every kernel alone ran as fast
// (bench/RESULTS.md, session 48). The elements of a GLU item's up half get the activation too and keep their value.
__device__ __forceinline__ void activate8(float (&t)[8], int n, int act) {
  if (act == W4A16_ACT_NONE) return;
#pragma unroll 1
  for (int turn = 0; turn < 2; ++turn) {
    const bool on = 4 * turn < n;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float a = activation(t[e], act), keep = t[e + 4];
      t[e + 4] = on ? a : t[e];
      t[e] = keep;
    }
  }
}

// Where the epilogue reads bias and residual: the caller's tensors in global memory, or a copy of a
// tile's rows staged in shared memory (kernel v3). Element (token tok of the CTA's chunk, output column
// n): bias[n - col0], residual[(tok - row0) * stride + n - col0]; null pointers: no bias / residual.
struct EpilogueInputs {
  const uint16_t *bias, *residual;  // elements of the io type (Io<T>)
  int col0, row0;
  size_t stride;
  static __device__ __forceinline__ EpilogueInputs global(const uint16_t *bias, const uint16_t *residual, int m0,
                                                          int N) {
    return {bias, residual, 0, -m0, (size_t)N};
  }
  __device__ __forceinline__ const uint16_t *bias_at(int n) const { return bias ? bias + (n - col0) : nullptr; }
  __device__ __forceinline__ const uint16_t *residual_at(int tok, int n) const {
    return residual ? residual + (size_t)(tok - row0) * stride + (n - col0) : nullptr;
  }
};

// Where the epilogue stores: the call's outputs (runtime.h, w4a16_outputs; issue #21). w4a16_plan_run is one
// output of N columns (count 1); w4a16_plan_run_outputs splits the plan's columns over up to four outputs
// (q | k | v) or, with glu, writes one (M, N/2) output from gate / up column pairs. A uniform kernel parameter:
// every thread takes the same branch. Kept small: it is part of every kernel's parameter block, and plain calls
// became 1-5 % slower when its first version (every output's stride and count too) grew v3's block from 232 to
// 296 bytes (bench/RESULTS.md, session 14; not a cost per byte as such: a synthetic kernel showed none, session
// 15). An output's row stride is its column count -- the next output's first column (or N) minus its own -- or
// N / 2 with glu; output 0 starts at column 0.
struct Outputs {
  uint16_t *ptr[W4A16_MAX_OUTPUTS];    // output i, row-major, io type
  int next[W4A16_MAX_OUTPUTS - 1];     // next[i]: output i + 1's first plan column (multiples of 8, ascending),
                                       // INT_MAX where there is no output i + 1
  int glu;
};

// t[e] += the 8 io-type values in w, exactly as f32.
template <class T> __device__ __forceinline__ void add8_io(float (&t)[8], const uint4 &w) {
  const uint16_t *h = reinterpret_cast<const uint16_t *>(&w);
#pragma unroll
  for (int e = 0; e < 8; ++e) t[e] += Io<T>::to_float(h[e]);
}

// The fused epilogue of the 8-column item at plan column n (n % 8 == 0) of row `row` of the call's (M, N) result:
// bias, activation and residual in f32, then the one rounding to the io type T; 16-byte loads and store. bias8 /
// residual8 may be null. It stores through the outputs map; an item never straddles two outputs (their first
// columns are multiples of 8). With glu, the plan interleaves gate and up by fours -- columns 8j..8j+3 are the
// gate's 4j..4j+3, 8j+4..8j+7 up's -- because 8 columns are the unit every epilogue path (reduce_and_store,
// finish_split) hands one thread, so each item holds 4 whole pairs and no thread needs another's values:
// out4[e] = act(gate + bias) * (up + bias), an 8-byte store. One copy of each step for every path (see activate8).
template <class T>
__device__ __forceinline__ void store_item(const float (&v)[8], const uint16_t *bias8, const uint16_t *residual8,
                                           const Outputs &o, int row, int n, int N, int act) {
  uint4 bias_v = make_uint4(0, 0, 0, 0), res_v = make_uint4(0, 0, 0, 0);
  if (bias8) bias_v = *reinterpret_cast<const uint4 *>(bias8);
  if (residual8) res_v = *reinterpret_cast<const uint4 *>(residual8);
  float t[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) t[e] = v[e];
  if (bias8) add8_io<T>(t, bias_v);
  activate8(t, o.glu ? 4 : 8, act);
  if (o.glu) {
    uint2 out;
    uint16_t *oh = reinterpret_cast<uint16_t *>(&out);
#pragma unroll
    for (int e = 0; e < 4; ++e) oh[e] = Io<T>::round(t[e] * t[e + 4]);  // the one rounding
    *reinterpret_cast<uint2 *>(o.ptr[0] + (size_t)row * (N >> 1) + (n >> 1)) = out;
    return;
  }
  uint16_t *dst = o.ptr[0] + (size_t)row * N + n;  // w4a16_plan_run
  if (o.next[0] != INT_MAX) {  // the output holding column n: selects over the (constant-indexed) parameters
    uint16_t *p = o.ptr[0];
    int first = 0, end = o.next[0];
#pragma unroll
    for (int i = 1; i < W4A16_MAX_OUTPUTS; ++i)
      if (n >= o.next[i - 1]) p = o.ptr[i], first = o.next[i - 1], end = i + 1 < W4A16_MAX_OUTPUTS ? o.next[i] : N;
    dst = p + (size_t)row * (min(end, N) - first) + (n - first);
  }
  if (residual8) add8_io<T>(t, res_v);
  uint4 out;
  uint16_t *oh = reinterpret_cast<uint16_t *>(&out);
#pragma unroll
  for (int e = 0; e < 8; ++e) oh[e] = Io<T>::round(t[e]);  // the one rounding
  *reinterpret_cast<uint4 *>(dst) = out;
}

// v += the 8 floats lo, hi (one 8-column item of split-K partial sums).
__device__ __forceinline__ void add8(float (&v)[8], const float4 &lo, const float4 &hi) {
  v[0] += lo.x, v[1] += lo.y, v[2] += lo.z, v[3] += lo.w;
  v[4] += hi.x, v[5] += hi.y, v[6] += hi.z, v[7] += hi.w;
}

// v += the n partial sums of one 8-column item, in order 0..n-1 (the same bits whoever reduces);
// load(q, lo, hi) fetches partial q. Four loads are in flight at once: one memory round trip per four
// splits instead of one per split, in 32 registers.
template <class Load> __device__ __forceinline__ void add_partials(float (&v)[8], int n, Load load) {
  constexpr int kLoadsAtOnce = 4;
  for (int q0 = 0; q0 < n; q0 += kLoadsAtOnce) {
    float4 lo[kLoadsAtOnce], hi[kLoadsAtOnce];
#pragma unroll
    for (int j = 0; j < kLoadsAtOnce; ++j)
      if (q0 + j < n) load(q0 + j, lo[j], hi[j]);
#pragma unroll
    for (int j = 0; j < kLoadsAtOnce; ++j)
      if (q0 + j < n) add8(v, lo[j], hi[j]);
  }
}

// An even split of `items` things: [i0, i1) is split `split` of `splits`'s share. Used for a tile's (token,
// 8 columns) items and for the K groups of kernels v1 and v3. In unsigned 32-bit arithmetic: at most 8 splits
// (cuda_config.cu) of < 2^24 items, and a 64-bit division is ~1 KB of code, which costs (activate8).
__device__ __forceinline__ void split_items(int split, int splits, int items, int &i0, int &i1) {
  i0 = (int)((unsigned)split * items / splits), i1 = (int)((unsigned)(split + 1) * items / splits);
}

// Where a tile's finishing CTA finds the other splits' partial sums: null partials, in the shared memory of the
// cluster's CTAs (or its own, unsplit); else split q's in slot slot_of[q] of the workspace (kernel v3's
// finish_split), the finishing CTA's own still in its shared memory.
struct Workspace {
  const float *partials;  // the tile's first slot
  const int *slot_of;     // slot_of[q]: the slot holding split q's partial sums (shared memory)
  size_t slot;            // floats per slot
};

// The fused epilogue of the tile's items [i0, i1) (token, 8 columns), thread by thread: the S splits' partial sums
// (each left in `red` with row stride kRedStride floats, or in the workspace ws) added in split order 0..S-1 -- the
// same bits whichever CTA finishes -- then store_item. One call site per kernel: the epilogue is most of a
// kernel's code (common.cuh, activate8).
template <class T, int kCols, int kRedStride, int kThreads>
__device__ __forceinline__ void store_tile(const float *red, int i0, int i1, int split, int splits, int col0, int m0,
                                           int N, const EpilogueInputs &in, const Outputs &out, int act,
                                           const Workspace &ws) {
  constexpr int kGroups8 = kCols / 8;
  for (int it = i0 + (int)threadIdx.x; it < i1; it += kThreads) {
    const int tok = it / kGroups8, c8 = it - tok * kGroups8;
    const int n = col0 + c8 * 8;
    if (n >= N) continue;  // N % 8 == 0, so an 8-column item is all in or all out
    const int off = tok * kRedStride + c8 * 8;
    float v[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) v[e] = 0.f;
    add_partials(v, splits, [&](int q, float4 &lo, float4 &hi) {
      if (ws.partials && q != split) {  // written by another CTA with __stcg: read past L1
        const float *src = ws.partials + ws.slot_of[q] * ws.slot + tok * kCols + c8 * 8;
        lo = __ldcg(reinterpret_cast<const float4 *>(src)), hi = __ldcg(reinterpret_cast<const float4 *>(src + 4));
        return;
      }
      const float *src = red + off;
#if __CUDA_ARCH__ >= 900
      if (!ws.partials && splits > 1) src = cooperative_groups::this_cluster().map_shared_rank(red, q) + off;
#endif
      lo = *reinterpret_cast<const float4 *>(src), hi = *reinterpret_cast<const float4 *>(src + 4);
    });
    store_item<T>(v, in.bias_at(n), in.residual_at(tok, n), out, m0 + tok, n, N, act);
  }
}

// Split-K reduce-scatter + the fused epilogue through a cluster (kernel v1; v3 inlines the same steps beside its
// workspace path). Each CTA of the cluster has left its partial sums for the (token, column) tile in `red`; this
// CTA finishes its split_items of the tile's items. Ends with a cluster barrier: peers may still be reading this
// CTA's shared memory.
template <class T, int kCols, int kRedStride, int kThreads>
__device__ __forceinline__ void reduce_and_store(const float *red, int split, int splits, int rows, int col0, int m0,
                                                 int N, const EpilogueInputs &in, const Outputs &out, int act) {
  int i0, i1;
  split_items(split, splits, rows * (kCols / 8), i0, i1);
  store_tile<T, kCols, kRedStride, kThreads>(red, i0, i1, split, splits, col0, m0, N, in, out, act, Workspace{});
#if __CUDA_ARCH__ >= 900
  if (splits > 1) cooperative_groups::this_cluster().sync();
#endif
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ uint32_t hsub2_u(uint32_t a, uint32_t b) {
  uint32_t d;
  asm("sub.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ uint32_t hfma2_u(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("fma.rn.f16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// (a & b) | c in one LOP3 (ptxas was seen to emit an AND and an OR for the plain C expression).
__device__ __forceinline__ uint32_t and_or(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("lop3.b32 %0, %1, %2, %3, 0xea;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

__device__ __forceinline__ uint32_t bfma2_u(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// One repacked word -> the four A-fragment registers (two halves each) of one mma, holding code - z
// exactly, in the io type T. Nibble j of the word was placed by repack_kernel so that registers come out
// as (nib0,nib4) (nib1,nib5) (nib2,nib6) (nib3,nib7): registers 0 and 2 hold the lane's column gr,
// registers 1 and 3 column gr + 8, so each needs one zero point, given as the per-type constants of
// ZeroPoints<T>. The symmetric form's constants (z = 8) are compile-time.
//
// f16, magic-number trick: OR-ing a nibble into the mantissa of 1024.0 (0x6400) gives the f16 value
// 1024 + code (one LOP3); subtracting 1024 + z leaves code - z. A nibble sitting 4 bits higher gives
// 1024 + 16*code, so fma(v, 1/16, -(64 + z)) = code - z instead: 9 instructions per word.
// bf16 has 7 mantissa bits: 128.0 (0x4300) has ulp 1, so 128 + code works for a nibble in bits 0-3, but
// a nibble in bits 4-7 would reach the exponent. The high nibbles are shifted down first (two more
// shifts: 11 instructions per word), and fma(v, 1, -(128 + z)) leaves code - z (exact: |code - z| <= 15
// needs 4 significant bits). bf16x2 fma is sm_80's; bf16x2 sub only came with sm_90.
template <class T> struct ZeroPoints;
template <> struct ZeroPoints<__half> {
  uint32_t lo;  // (1024 + z[gr]) in both halves
  uint32_t hi;  // -(64 + z[gr + 8]) in both halves
  static constexpr __device__ __forceinline__ ZeroPoints symmetric() { return {0x64086408u, 0xd480d480u}; }
  // From the lane's two zero-point bytes, pair = z[gr] | (16 z[gr + 8]) << 8 (TileMeta's pair order; the
  // plan stores the second one shifted). 1024 + z is 0x6400 + z, and -(64 + z) is 0xd400 + 16 z (the f16
  // ulp at 64 is 1/16), so each constant is the pair's byte under a fixed high byte, twice: one byte
  // permute each (the zero-point form's only extra work per group besides one shared-memory load).
  static __device__ __forceinline__ ZeroPoints from_pair(uint32_t pair) {
    return {__byte_perm(pair, 0xd464u, 0x4040u), __byte_perm(pair, 0xd464u, 0x5151u)};
  }
};
template <> struct ZeroPoints<__nv_bfloat16> {
  uint32_t lo;  // -(128 + z[gr]) in both halves
  uint32_t hi;  // -(128 + z[gr + 8]) in both halves
  static constexpr __device__ __forceinline__ ZeroPoints symmetric() { return {0xc308c308u, 0xc308c308u}; }
  // pair = z[gr] | z[gr + 8] << 8 (a bf16 plan stores neither shifted); -(128 + z) is 0xc300 + z.
  static __device__ __forceinline__ ZeroPoints from_pair(uint32_t pair) {
    return {__byte_perm(pair, 0xc3u, 0x4040u), __byte_perm(pair, 0xc3u, 0x4141u)};
  }
};

template <class T>
__device__ __forceinline__ void dequant8(uint32_t q, uint32_t a[4], ZeroPoints<T> z = ZeroPoints<T>::symmetric()) {
  constexpr uint32_t kLo = 0x000f000fu;
  if constexpr (Io<T>::kBf16) {
    constexpr uint32_t kMagic = 0x43004300u, kOne = 0x3f803f80u;
    a[0] = bfma2_u(and_or(q, kLo, kMagic), kOne, z.lo);
    a[1] = bfma2_u(and_or(q >> 4, kLo, kMagic), kOne, z.hi);
    a[2] = bfma2_u(and_or(q >> 8, kLo, kMagic), kOne, z.lo);
    a[3] = bfma2_u(and_or(q >> 12, kLo, kMagic), kOne, z.hi);
  } else {
    constexpr uint32_t kHi = 0x00f000f0u, kMagic = 0x64006400u, kSixteenth = 0x2c002c00u;
    const uint32_t q8 = q >> 8;
    a[0] = hsub2_u(and_or(q, kLo, kMagic), z.lo);
    a[1] = hfma2_u(and_or(q, kHi, kMagic), kSixteenth, z.hi);
    a[2] = hsub2_u(and_or(q8, kLo, kMagic), z.lo);
    a[3] = hfma2_u(and_or(q8, kHi, kMagic), kSixteenth, z.hi);
  }
}

// The affine forms' per-lane constants for one scale group: zi, s and o of the lane's columns gr (registers
// 0 and 2) and gr + 8 (registers 1 and 3), each in both halves: one 32-bit load and two byte permutes per
// pair of s and o, and zi as the zero-point form's constants.
template <class T> struct Affine {
  ZeroPoints<T> z;
  uint32_t s_lo, s_hi, o_lo, o_hi;
  static __device__ __forceinline__ Affine load(const unsigned char *sub, int g8) {
    const uint32_t s = *reinterpret_cast<const uint32_t *>(sub + 4 * g8);
    using Meta = TileMeta<kAffine128>;  // every affine form's scale groups are laid out alike
    const uint32_t o = *reinterpret_cast<const uint32_t *>(sub + Meta::kOffsetPairs + 4 * g8);
    const uint16_t zi = *reinterpret_cast<const uint16_t *>(sub + Meta::kIntegerZeros + 2 * g8);
    return {ZeroPoints<T>::from_pair(zi), __byte_perm(s, 0, 0x1010u), __byte_perm(s, 0, 0x3232u),
            __byte_perm(o, 0, 0x1010u), __byte_perm(o, 0, 0x3232u)};
  }
};

// One repacked word -> the four A-fragment registers holding W = (code - zi) * s + o in T: code - zi
// exactly (dequant8), then one fma with the group's s and o, rounded once.
template <class T> __device__ __forceinline__ void dequant8_affine(uint32_t q, uint32_t a[4], const Affine<T> &c) {
  dequant8<T>(q, a, c.z);
  if constexpr (Io<T>::kBf16) {
    a[0] = bfma2_u(a[0], c.s_lo, c.o_lo), a[1] = bfma2_u(a[1], c.s_hi, c.o_hi);
    a[2] = bfma2_u(a[2], c.s_lo, c.o_lo), a[3] = bfma2_u(a[3], c.s_hi, c.o_hi);
  } else {
    a[0] = hfma2_u(a[0], c.s_lo, c.o_lo), a[1] = hfma2_u(a[1], c.s_hi, c.o_hi);
    a[2] = hfma2_u(a[2], c.s_lo, c.o_lo), a[3] = hfma2_u(a[3], c.s_hi, c.o_hi);
  }
}

}  // namespace w4a16
