// Baselines the benchmark measures next to the runtime's kernel, plus the HBM read probe.
//  * plain direct-W4 kernel: the simplest correct fused kernel (CUDA cores, the caller's GPTQ layout,
//    no repack): one thread per output column and 8 tokens, x staged in shared memory per group.
//  * dequantise + epilogue kernels for the cuBLAS baseline (dense f16 GEMM on a dequantised copy of the
//    weight, then a separate bias/activation/residual kernel, as an unfused framework would run it).
//  * a read-only bandwidth kernel.
#include <cuda_fp16.h>
#include <stdint.h>

namespace {

__device__ __forceinline__ float act_f(float v, int act) {
  if (act == 1) return v / (1.0f + expf(-v));
  if (act == 2) return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
  return v;
}

constexpr int kPlainThreads = 256;

__global__ void __launch_bounds__(kPlainThreads) plain_w4_kernel(const int32_t *__restrict__ qw,
                                                                 const __half *__restrict__ scales,
                                                                 const __half *__restrict__ x,
                                                                 const __half *__restrict__ bias,
                                                                 const __half *__restrict__ residual,
                                                                 __half *__restrict__ out, int M, int K, int N,
                                                                 int act) {
  __shared__ float4 xs[128][2];  // [k][tokens 0-3, 4-7] of one group, f32
  const int n = blockIdx.x * kPlainThreads + threadIdx.x, m0 = blockIdx.y * 8;
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int g = 0; g < K / 128; ++g) {
    __syncthreads();
    for (int i = threadIdx.x; i < 128 * 8; i += kPlainThreads) {
      const int k = i >> 3, r = i & 7;
      reinterpret_cast<float *>(&xs[k][0])[r] = m0 + r < M ? __half2float(x[(size_t)(m0 + r) * K + g * 128 + k]) : 0.f;
    }
    __syncthreads();
    if (n < N) {
      float p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int kw = 0; kw < 16; ++kw) {
        const uint32_t word = (uint32_t)qw[(size_t)(g * 16 + kw) * N + n];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const float w = (float)((int)((word >> (4 * j)) & 15u) - 8);
          const float4 a = xs[kw * 8 + j][0], b = xs[kw * 8 + j][1];
          p[0] += a.x * w, p[1] += a.y * w, p[2] += a.z * w, p[3] += a.w * w;
          p[4] += b.x * w, p[5] += b.y * w, p[6] += b.z * w, p[7] += b.w * w;
        }
      }
      const float s = __half2float(scales[(size_t)g * N + n]);
#pragma unroll
      for (int r = 0; r < 8; ++r) acc[r] = fmaf(p[r], s, acc[r]);
    }
  }
  if (n >= N) return;
  for (int r = 0; r < 8 && m0 + r < M; ++r) {
    float v = acc[r];
    if (bias) v += __half2float(bias[n]);
    v = act_f(v, act);
    if (residual) v += __half2float(residual[(size_t)(m0 + r) * N + n]);
    out[(size_t)(m0 + r) * N + n] = __float2half_rn(v);
  }
}

__global__ void dequant_kernel(const int32_t *__restrict__ qw, const __half *__restrict__ scales,
                               __half *__restrict__ w, int K, int N) {
  const size_t total = (size_t)K * N;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const int k = (int)(i / N), n = (int)(i % N);
    const int c = (int)(((uint32_t)qw[(size_t)(k / 8) * N + n] >> (4 * (k % 8))) & 15u);
    w[i] = __float2half_rn((float)(c - 8) * __half2float(scales[(size_t)(k / 128) * N + n]));
  }
}

// out = act(y + bias) + residual, 8 halves per thread; y is the GEMM's f16 output.
__global__ void epilogue_kernel(const __half *__restrict__ y, const __half *__restrict__ bias,
                                const __half *__restrict__ residual, __half *__restrict__ out, int M, int N,
                                int act) {
  const size_t i8 = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 8;
  if (i8 >= (size_t)M * N) return;
  const int n = (int)(i8 % N);
  uint4 yv = *reinterpret_cast<const uint4 *>(y + i8), o;
  uint4 bv = bias ? *reinterpret_cast<const uint4 *>(bias + n) : make_uint4(0, 0, 0, 0);
  uint4 rv = residual ? *reinterpret_cast<const uint4 *>(residual + i8) : make_uint4(0, 0, 0, 0);
  const __half *yh = reinterpret_cast<const __half *>(&yv), *bh = reinterpret_cast<const __half *>(&bv);
  const __half *rh = reinterpret_cast<const __half *>(&rv);
  __half *oh = reinterpret_cast<__half *>(&o);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    float v = __half2float(yh[e]) + __half2float(bh[e]);
    oh[e] = __float2half_rn(act_f(v, act) + __half2float(rh[e]));
  }
  *reinterpret_cast<uint4 *>(out + i8) = o;
}

__global__ void read_kernel(const uint4 *__restrict__ p, size_t n, uint32_t *sink) {
  uint32_t a = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const uint4 v = p[i];
    a ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (a == 0x9e3779b9u) *sink = a;  // practically never taken; keeps the loads alive
}

}  // namespace

extern "C" int bench_plain_w4(const int32_t *qw, const uint16_t *scales, const uint16_t *x, const uint16_t *bias,
                              const uint16_t *residual, uint16_t *out, int M, int K, int N, int act, void *stream) {
  dim3 grid((unsigned)((N + kPlainThreads - 1) / kPlainThreads), (unsigned)((M + 7) / 8));
  plain_w4_kernel<<<grid, kPlainThreads, 0, (cudaStream_t)stream>>>(
      qw, (const __half *)scales, (const __half *)x, (const __half *)bias, (const __half *)residual, (__half *)out, M,
      K, N, act);
  return (int)cudaGetLastError();
}

extern "C" int bench_dequant(const int32_t *qw, const uint16_t *scales, uint16_t *w, int K, int N) {
  dequant_kernel<<<1024, 256>>>(qw, (const __half *)scales, (__half *)w, K, N);
  return (int)cudaGetLastError();
}

extern "C" int bench_epilogue(const uint16_t *y, const uint16_t *bias, const uint16_t *residual, uint16_t *out, int M,
                              int N, int act, void *stream) {
  const size_t items = (size_t)M * N / 8;
  epilogue_kernel<<<(unsigned)((items + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
      (const __half *)y, (const __half *)bias, (const __half *)residual, (__half *)out, M, N, act);
  return (int)cudaGetLastError();
}

extern "C" int bench_read(const void *p, size_t bytes, uint32_t *sink, int sms) {
  read_kernel<<<sms * 8, 512>>>((const uint4 *)p, bytes / 16, sink);
  return (int)cudaGetLastError();
}
