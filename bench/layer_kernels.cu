// The one kernel the layer benchmark (bench/layer.c) needs besides the runtime's: the separate configuration's
// GLU product p = round(silu_gate * up) of two f16 or bf16 tensors (each already rounded by its own matmul), 8 values
// a thread. It releases the next kernel in the stream at once (programmatic dependent launch: the runtime launches
// the down projection with it, and that kernel waits for this one to finish before it reads p), so down may start
// fetching its weights while this runs, as it does after the merged configuration's GLU matmul.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

template <bool BF16>
__global__ void glu_mul_kernel(const uint4 *__restrict__ gate, const uint4 *__restrict__ up, uint4 *__restrict__ out,
                               size_t n8) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n8) return;
  const uint4 a = gate[i], b = up[i];
  uint4 r;
  if constexpr (BF16) {
    const __nv_bfloat162 *ha = reinterpret_cast<const __nv_bfloat162 *>(&a),
                         *hb = reinterpret_cast<const __nv_bfloat162 *>(&b);
    __nv_bfloat162 *hr = reinterpret_cast<__nv_bfloat162 *>(&r);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 fa = __bfloat1622float2(ha[j]), fb = __bfloat1622float2(hb[j]);
      hr[j] = __floats2bfloat162_rn(fa.x * fb.x, fa.y * fb.y);  // exact in f32 (8 x 8 bits), one rounding to bf16
    }
  } else {
    const __half2 *ha = reinterpret_cast<const __half2 *>(&a), *hb = reinterpret_cast<const __half2 *>(&b);
    __half2 *hr = reinterpret_cast<__half2 *>(&r);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 fa = __half22float2(ha[j]), fb = __half22float2(hb[j]);
      hr[j] = __floats2half2_rn(fa.x * fb.x, fa.y * fb.y);  // exact in f32 (11 x 11 bits), one rounding to f16
    }
  }
  out[i] = r;
}

}  // namespace

// out[i] = round(gate[i] * up[i]) in f16 (bf16 = 0) or bf16, i < n (n % 8 == 0, 16-byte aligned pointers); returns a
// cudaError_t.
extern "C" int bench_layer_glu_mul(const uint16_t *gate, const uint16_t *up, uint16_t *out, int64_t n, int bf16,
                                   void *stream) {
  if (n <= 0 || n % 8) return (int)cudaErrorInvalidValue;
  const size_t n8 = (size_t)n / 8;
  const unsigned threads = 256, blocks = (unsigned)((n8 + threads - 1) / threads);
  const auto kernel = bf16 ? glu_mul_kernel<true> : glu_mul_kernel<false>;
  kernel<<<blocks, threads, 0, (cudaStream_t)stream>>>(reinterpret_cast<const uint4 *>(gate),
                                                       reinterpret_cast<const uint4 *>(up),
                                                       reinterpret_cast<uint4 *>(out), n8);
  return (int)cudaGetLastError();
}
