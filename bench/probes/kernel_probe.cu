// Where does kernel v3's time go? (issue #5)
//
// Times gemm_v3_kernel (W = 4) in these modes on the benchmark shapes: "v3" (the real kernel), "v3mem"
// (consumers only wait for each stage and release it: the copy pipelines alone), "v3alu" (each weight
// slot filled once and then reused: the compute side alone, x still streamed), and two that split the
// compute side: "v3tc" (as v3alu, with the raw weight words -- one LOP3 each, so that the registers
// differ -- as A fragments: wgmma and scale FMAs, no dequantisation) and "v3int" (as v3alu,
// dequantisation and scale FMAs, no wgmma; the words are folded into the products, ~2 LOP3 per
// block, since ptxas deletes work whose results nothing reads). Three more drop the x stream (no x
// copies and no waits for them; the wgmma read whatever the x ring holds): "v3nox" (the real kernel
// otherwise), "alunox" (as v3alu) and "tcnox" (as v3tc): what the x pipeline, which couples the
// warpgroups, costs. "i8" and "i8alu" (as v3 and v3alu) swap the f16 tensor path for an integer one
// (see Int8 below). Next to them, a plain read of the same bytes and pure cp.async streams with v3's
// addressing. L2-cold (rotating over 4 weight copies), 11 groups x 64 launches, median. Output values
// are not checked (random data, as bench.c's: the tensor cores' power depends on it); gpu_test checks
// the real kernel. With KP_ENERGY=seconds each line is followed by a sustained run of that length
// with its energy per call (probe_energy.cuh): which side of the kernel spends the power budget. (Commit ffc7063's version of this file, v2_probe.cu, also timed
// kernel v2 with clock stamps at its pipeline events.)
//
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o kernel_probe kernel_probe.cu -lcuda -ldl
//   ./kernel_probe [M [shape index [mode 4..13]]]   (filters; prints one line per configuration)
#include "../../runtime/src/gemm_v3.cuh"
#include "../../runtime/test/cuda_check.h"
#include "probe_data.cuh"
#include "probe_energy.cuh"
#include "wgmma_u8s8.cuh"

#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace w4a16;

template <bool SkipCompute, bool FillOnce, bool NoDequant = false, bool NoMma = false, bool NoXWait = false>
struct Mode {
  static constexpr bool kSkipCompute = SkipCompute, kFillOnce = FillOnce, kNoDequant = NoDequant, kNoMma = NoMma;
  static constexpr bool kNoXWait = NoXWait;
  static constexpr bool kInt8 = false;
};

// "i8" / "i8alu": v3's pipeline with an integer tensor path in place of the f16 one, to time and weigh
// it where it would run. Per 128-k group and warp: the same two 16-byte weight loads, each 32-bit word
// unpacked to two registers of four u8 codes (AND, and SHF + AND: no conversion), then 4 wgmma
// m64nTk32 u8 x s8 on x box 0 read as the high s8 parts of x and 4 on box 1 as the low parts (a real
// path would split x into them: not done here, so the values are meaningless), and the s32 products
// folded into the f32 accumulators: acc += (256 ph + pl) * scale. Not done either: the per-token x
// scale and the zero-point correction (8 * the sum of x's parts over the group, per token).
template <bool FillOnce> struct Int8 : Mode<false, FillOnce> {
  static constexpr bool kInt8 = true;
  template <int T, class WaitX>
  static __device__ __forceinline__ void int8_group(const unsigned char *ws, int lane, uint64_t desc_hi, uint32_t xh,
                                                    uint32_t xl, WaitX wait_x, float (&acc)[T / 2]) {
    constexpr int ND = T / 2;
    const uint4 w0 = *reinterpret_cast<const uint4 *>(ws + lane * 16);
    const uint4 w1 = *reinterpret_cast<const uint4 *>(ws + 512 + lane * 16);
    const int g8 = lane >> 2;
    const float s0 = __half2float(*reinterpret_cast<const __half *>(ws + 1024 + g8 * 2));
    const float s1 = __half2float(*reinterpret_cast<const __half *>(ws + 1024 + 16 + g8 * 2));
    const uint32_t words[8] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
    uint32_t a[4][4];  // 4 k32 fragments: k 0-127 of the group
#pragma unroll
    for (int i = 0; i < 8; ++i) a[i / 2][(i & 1) * 2] = words[i] & 0x0F0F0F0Fu, a[i / 2][(i & 1) * 2 + 1] = (words[i] >> 4) & 0x0F0F0F0Fu;
    int ph[ND], pl[ND];
    wait_x();
    sm90::wgmma_fence();
    WgmmaU8S8<T, 0>::run(ph, a[0], desc_hi | xh);
#pragma unroll
    for (int kk = 1; kk < 4; ++kk) WgmmaU8S8<T, 1>::run(ph, a[kk], desc_hi | (xh + kk * 2));  // +32 B per 32 k
    WgmmaU8S8<T, 0>::run(pl, a[0], desc_hi | xl);
#pragma unroll
    for (int kk = 1; kk < 4; ++kk) WgmmaU8S8<T, 1>::run(pl, a[kk], desc_hi | (xl + kk * 2));
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
#pragma unroll
    for (int j = 0; j < ND; ++j) {
      asm volatile("" : "+r"(ph[j]), "+r"(pl[j])::"memory");
      acc[j] = fmaf(fmaf((float)ph[j], 256.f, (float)pl[j]), (j & 2) ? s1 : s0, acc[j]);
    }
  }
};

// Median, min and max over 11 groups of 64 back-to-back launches (launch(i) issues launch i), in us.
struct Timing {
  double med, min, max;
};
template <class F> Timing time_groups(F launch) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int g = 0; g < 11; ++g) {
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 64; ++i) launch(i);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1000.0 / 64);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(t.begin(), t.end());
  return {t[5], t[0], t[10]};
}

__global__ void read_all(const uint4 *p, size_t n, unsigned *sink) {
  uint32_t x = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const uint4 v = __ldcs(p + i);
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x12345678u) *sink = x;
}

// Every SM busy for `ns` doing nothing (nanosleep): the board power of a running, idle GPU, the base
// under every other energy figure here.
__global__ void spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

// Pure weight streams with cp.async, no compute: `ctas` CTAs of 16 warps, each lane copying 2 x 16 B
// per 16 KB chunk into a private ring of WD chunks. Order 0: chunk g of CTA y at (g * ctas + y) * 16 KB
// (v3's group-major order); order 1: each CTA walks its own contiguous range.
template <int WD>
__global__ void __launch_bounds__(512, 1) stream_chunks(const unsigned char *w, int chunks_per_cta, int order,
                                                        unsigned *sink) {
  extern __shared__ __align__(16) unsigned char ring[];
  const int tid = threadIdx.x, y = blockIdx.x, ctas = gridDim.x;
  const uint32_t base = sm90::smem_u32(ring) + tid * 32;
  auto src = [&](int g) {
    const size_t chunk = order == 0 ? (size_t)g * ctas + y : (size_t)y * chunks_per_cta + g;
    return w + chunk * 16384 + tid * 32;
  };
  for (int g = 0; g < WD - 1; ++g) {
    if (g < chunks_per_cta) {
      v3::cp_async16_noalloc(base + (g % WD) * 16384, src(g));
      v3::cp_async16_noalloc(base + (g % WD) * 16384 + 16, src(g) + 16);
    }
    cp_async_commit();
  }
  uint32_t x = 0;
  for (int g = 0; g < chunks_per_cta; ++g) {
    cp_async_wait<WD - 2>();
    x ^= *reinterpret_cast<const uint32_t *>(ring + (g % WD) * 16384 + tid * 32);
    const int n = g + WD - 1;
    if (n < chunks_per_cta) {
      v3::cp_async16_noalloc(base + (n % WD) * 16384, src(n));
      v3::cp_async16_noalloc(base + (n % WD) * 16384 + 16, src(n) + 16);
    }
    cp_async_commit();
  }
  if (x == 0x12345678u) *sink = x;
}

using KernelFn = void (*)(CUtensorMap, sm90::Args);
template <int NT> KernelFn kernel_for(int mode) {
  switch (mode) {
    case 4: return v3::gemm_v3_kernel<NT, 4>;
    case 5: return v3::gemm_v3_kernel<NT, 4, Mode<true, false>>;
    case 6: return v3::gemm_v3_kernel<NT, 4, Mode<false, true>>;
    case 7: return v3::gemm_v3_kernel<NT, 4, Mode<false, true, true, false>>;
    case 8: return v3::gemm_v3_kernel<NT, 4, Mode<false, true, false, true>>;
    case 9: return v3::gemm_v3_kernel<NT, 4, Mode<false, false, false, false, true>>;
    case 10: return v3::gemm_v3_kernel<NT, 4, Mode<false, true, false, false, true>>;
    case 12:
      if constexpr (NT <= 4) return v3::gemm_v3_kernel<NT, 4, Int8<false>>;
      return nullptr;
    case 13:
      if constexpr (NT <= 4) return v3::gemm_v3_kernel<NT, 4, Int8<true>>;
      return nullptr;
    default: return v3::gemm_v3_kernel<NT, 4, Mode<false, true, true, false, true>>;
  }
}
KernelFn pick(int nt, int mode) {
  return nt == 1 ? kernel_for<1>(mode) : nt == 2 ? kernel_for<2>(mode) : nt == 4 ? kernel_for<4>(mode) : kernel_for<8>(mode);
}
// CTA size and dynamic shared memory of the W = 4 kernel for NT token tiles.
struct V3Shape {
  int threads, smem;
};
template <int NT> V3Shape v3_shape_of() { return {v3::Cfg<NT, 4>::kThreads, v3::Cfg<NT, 4>::kSmemBytes}; }
V3Shape v3_shape(int nt) {
  return nt == 1 ? v3_shape_of<1>() : nt == 2 ? v3_shape_of<2>() : nt == 4 ? v3_shape_of<4>() : v3_shape_of<8>();
}

static const char *kModeName[] = {"",       "",       "",      "",      "v3",   "v3mem", "v3alu",
                                  "v3tc",   "v3int",  "v3nox", "alunox", "tcnox", "i8",    "i8alu"};

int main(int argc, char **argv) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &q));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  unsigned *sink;
  CK(cudaMalloc(&sink, 4));

  struct Shape { int K, N; } shapes[] = {{8192, 28672}, {8192, 8192}, {28672, 8192}};
  const int Ms[] = {1, 16, 32, 64};
  const int R = 4;  // weight copies: 4 x 117 MB > 4 x L2
  const int only_m = argc > 1 ? atoi(argv[1]) : 0, only_shape = argc > 2 ? atoi(argv[2]) : -1;
  const int only_mode = argc > 3 ? atoi(argv[3]) : -1;
  const double energy_seconds = getenv("KP_ENERGY") ? atof(getenv("KP_ENERGY")) : 0.0;
  const probe::Nvml nvml;
  for (int si = 0; si < 3; ++si) {
    if (only_shape >= 0 && si != only_shape) continue;
    const Shape &sh = shapes[si];
    const int K = sh.K, N = sh.N, Npad = N, G = K / 128, nblocks = Npad / 64;
    const size_t wbytes = (size_t)Npad * K / 2;
    std::vector<unsigned char *> wq(R);
    for (auto &w : wq) {
      CK(cudaMalloc(&w, wbytes));
      probe::fill_random<<<1024, 256>>>(reinterpret_cast<uint32_t *>(w), wbytes / 4, (uint32_t)(&w - wq.data()) + 1);
    }
    __half *scales, *x, *out;
    CK(cudaMalloc(&scales, (size_t)G * Npad * 2));
    probe::fill_half<<<1024, 256>>>(reinterpret_cast<uint16_t *>(scales), (size_t)G * Npad, 0.001f, 0.03f, 7);
    CK(cudaMalloc(&x, (size_t)64 * K * 2));
    probe::fill_half<<<1024, 256>>>(reinterpret_cast<uint16_t *>(x), (size_t)64 * K, -2.f, 2.f, 8);
    CK(cudaDeviceSynchronize());
    CK(cudaMalloc(&out, (size_t)64 * N * 2));
    // plain read of one weight copy: what a ~wbytes stream costs by itself (not with a mode filter)
    if (only_mode < 0) {
      const Timing t = time_groups(
          [&](int i) { read_all<<<sms * 8, 512>>>((const uint4 *)wq[i % R], wbytes / 16, sink); });
      printf("K=%d N=%d plain-read %.1f us (%.2f TB/s) min %.1f max %.1f\n", K, N, t.med, wbytes / t.med / 1e6, t.min,
             t.max);
      if (energy_seconds > 0) {
        printf("  sustained spin (30 us per launch): ");
        probe::print_sustained(probe::sustained(nvml, [&](long long) { spin<<<sms, 512>>>(30000); }, energy_seconds));
        printf("  sustained plain-read: ");
        probe::print_sustained(probe::sustained(
            nvml, [&](long long i) { read_all<<<sms * 8, 512>>>((const uint4 *)wq[i % R], wbytes / 16, sink); },
            energy_seconds));
      }
      const int chunks = (int)(wbytes / 16384);
      for (int order = 0; order < 2; ++order)
        for (int ctas : {112, 128, 132}) {
          const int per = chunks / ctas;  // the remainder is left out of the stream
          const int smem = 8 * 16384;
          CK(cudaFuncSetAttribute(stream_chunks<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
          const Timing t =
              time_groups([&](int i) { stream_chunks<8><<<ctas, 512, smem>>>(wq[i % R], per, order, sink); });
          printf("K=%d N=%d cp.async stream order=%s ctas=%d: %.1f us for %.1f MB (%.2f TB/s)\n", K, N,
                 order ? "contiguous-per-CTA" : "interleaved", ctas, t.med, per * ctas * 16384 / 1e6,
                 per * ctas * 16384.0 / t.med / 1e6);
        }
    }
    for (int M : Ms) {
      if (only_m && M != only_m) continue;
      const int nt = M >= 64 ? 8 : (M + 7) / 8;
      const int W = 4, nbw = nblocks / W;
      // Split-K as the host would for W = 4: one wave (4-CTA clusters of one CTA per SM do not all fit
      // at 128 CTAs on the H200, so at most 96 CTAs here).
      int S = 1;
      while (S < 8 && (S + 1) <= G && nbw * (S + 1) <= 100) ++S;
      CUtensorMap map;
      cuuint64_t dims[2] = {(cuuint64_t)K, (cuuint64_t)M};
      cuuint64_t strides[1] = {(cuuint64_t)K * 2};
      cuuint32_t box[2] = {64, (cuuint32_t)(nt * 8)};
      cuuint32_t estr[2] = {1, 1};
      if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, x, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                 CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) !=
          CUDA_SUCCESS) {
        fprintf(stderr, "encode failed\n");
        return 1;
      }
      for (int mode = 4; mode < 14; ++mode) {
        if (only_mode >= 0 && mode != only_mode) continue;
        KernelFn fn = pick(nt, mode);
        if (!fn) continue;  // the integer path has no 64-token wgmma wrapper here
        const V3Shape shape = v3_shape(nt);
        const int smem = shape.smem;
        CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        sm90::Args a{};
        a.scales = scales, a.out = out, a.M = M, a.K = K, a.N = N, a.Npad = Npad, a.splits = S, a.act = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(S, nbw, 1);
        cfg.blockDim = dim3(shape.threads);
        cfg.dynamicSmemBytes = smem;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = S, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr, cfg.numAttrs = S > 1 ? 1 : 0;
        auto launch = [&](int i) {
          a.wq = wq[i % R];
          CK(cudaLaunchKernelEx(&cfg, fn, map, a));
        };
        for (int i = 0; i < 16; ++i) launch(i);  // warm-up
        const Timing t = time_groups(launch);
        printf("K=%d N=%d M=%d S=%d %-6s %.1f us (min %.1f max %.1f)\n", K, N, M, S, kModeName[mode], t.med, t.min,
               t.max);
        if (energy_seconds > 0) {
          printf("  sustained %s: ", kModeName[mode]);
          probe::print_sustained(probe::sustained(nvml, [&](long long i) { launch((int)i); }, energy_seconds));
        }
      }
    }
    for (auto w : wq) CK(cudaFree(w));
    CK(cudaFree(scales));
    CK(cudaFree(x));
    CK(cudaFree(out));
  }
  return 0;
}
