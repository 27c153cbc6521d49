// The int8 correction-operand preparation as one CUDA launch (see w4a16/int8prep.h).
//
// One bounded grid-stride loop covers both outputs: elements [0, M*L) are subA (row-major), the next L*N
// are subB (row-major), so consecutive threads write consecutive addresses of either output. subB rounds
// with __fmul_rn (never contracted into an FMA; the file is also built with -fmad=false) and
// __float2half_rn, the same three roundings as PyTorch's eager chain.
#include "internal.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <stdio.h>

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8; // grid bound: enough resident warps to hide the gather latency

std::atomic<long long> g_launches{0};
int g_smCount[64];

template <typename Index>
__global__ void __launch_bounds__(kThreads)
    int8prepKernel(const __half *__restrict__ A, const int8_t *__restrict__ CB, const float *__restrict__ SCB,
                   const int64_t *__restrict__ cols, Index M, Index N, Index K, Index L, __half *__restrict__ subA,
                   __half *__restrict__ subB) {
  const float scale = __uint_as_float(W4A16_INT8PREP_SCALE_BITS);
  const Index countA = M * L, total = countA + L * N;
  const Index stride = (Index)gridDim.x * kThreads;
  for (Index i = (Index)blockIdx.x * kThreads + threadIdx.x; i < total; i += stride) {
    if (i < countA) {
      Index m = i / L, l = i - m * L;
      subA[i] = A[m * K + (Index)__ldg(&cols[l])];
    } else {
      Index j = i - countA;
      Index l = j / N, n = j - l * N;
      float code = (float)__ldg(&CB[n * K + (Index)__ldg(&cols[l])]);
      float product = __fmul_rn(code, __ldg(&SCB[n]));
      subB[j] = __float2half_rn(__fmul_rn(product, scale));
    }
  }
}

w4a16_status cudaFailure(cudaError_t e, const char *what) {
  fprintf(stderr, "w4a16 int8prep: %s: %s\n", what, cudaGetErrorString(e));
  return W4A16_ERR_CUDA;
}

} // namespace

extern "C" w4a16_status w4a16_int8prep_cuda(const uint16_t *A, const int8_t *CB, const float *SCB,
                                            const int64_t *cols, int64_t M, int64_t N, int64_t K, int64_t L,
                                            uint16_t *subA, uint16_t *subB, void *stream) {
  if (M < 0 || N < 0 || K < 0 || L < 0)
    return W4A16_ERR_BAD_SHAPE;
  const int64_t total = M * L + L * N;
  if (total == 0)
    return W4A16_OK; // L = 0: no launch, nothing touched
  if (!cols || (M && (!A || !subA)) || (N && (!CB || !SCB || !subB)))
    return W4A16_ERR_NULL_POINTER;
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess)
    return cudaFailure(e, "cudaGetDevice");
  int sms = device < 64 ? g_smCount[device] : 0;
  if (sms == 0) {
    e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e != cudaSuccess)
      return cudaFailure(e, "cudaDeviceGetAttribute");
    if (device < 64)
      g_smCount[device] = sms;
  }
  const int64_t wanted = (total + kThreads - 1) / kThreads, bound = (int64_t)sms * kBlocksPerSm;
  const unsigned blocks = (unsigned)(wanted < bound ? wanted : bound);
  cudaStream_t s = (cudaStream_t)stream;
  const __half *a = reinterpret_cast<const __half *>(A);
  __half *sa = reinterpret_cast<__half *>(subA), *sb = reinterpret_cast<__half *>(subB);
  // 32-bit index arithmetic whenever every index fits (every element index and row offset).
  const int64_t span = total > M * K ? (total > N * K ? total : N * K) : (M * K > N * K ? M * K : N * K);
  if (span < ((int64_t)1 << 31) - (int64_t)blocks * kThreads)
    int8prepKernel<int32_t><<<blocks, kThreads, 0, s>>>(a, CB, SCB, cols, (int32_t)M, (int32_t)N, (int32_t)K,
                                                        (int32_t)L, sa, sb);
  else
    int8prepKernel<int64_t><<<blocks, kThreads, 0, s>>>(a, CB, SCB, cols, M, N, K, L, sa, sb);
  e = cudaGetLastError();
  if (e != cudaSuccess)
    return cudaFailure(e, "int8prep kernel launch");
  g_launches.fetch_add(1, std::memory_order_relaxed);
  return W4A16_OK;
}

extern "C" int w4a16_int8prep_cuda_available(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

extern "C" int64_t w4a16_int8prep_launches(void) { return g_launches.load(std::memory_order_relaxed); }

namespace {

// Contiguous host copies of strided operands (compiled code normally passes contiguous buffers).
template <typename T> const T *packed(const T *base, int64_t rows, int64_t cols, int64_t s0, int64_t s1, T **tmp) {
  *tmp = nullptr;
  if ((s1 == 1 || cols <= 1) && (s0 == cols || rows <= 1))
    return base;
  *tmp = static_cast<T *>(malloc(sizeof(T) * (size_t)(rows * cols ? rows * cols : 1)));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      (*tmp)[r * cols + c] = base[r * s0 + c * s1];
  return *tmp;
}

} // namespace

extern "C" w4a16_status w4a16_int8prep_cuda_from_host(const Int8PrepView *v) {
  const int64_t M = v->M, N = v->N, K = v->K, L = v->L;
  if (M * L + L * N == 0)
    return W4A16_OK;
  uint16_t *tA;
  int8_t *tCB;
  float *tSCB;
  int64_t *tCols;
  const uint16_t *hA = packed(v->A, M, K, v->sA[0], v->sA[1], &tA);
  const int8_t *hCB = packed(v->CB, N, K, v->sCB[0], v->sCB[1], &tCB);
  const float *hSCB = packed(v->SCB, 1, N, 0, v->sSCB, &tSCB);
  const int64_t *hCols = packed(v->cols, 1, L, 0, v->sCols, &tCols);
  void *d[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  const size_t bytes[6] = {2 * (size_t)(M * K), (size_t)(N * K), 4 * (size_t)N, 8 * (size_t)L, 2 * (size_t)(M * L),
                           2 * (size_t)(L * N)};
  const void *host[4] = {hA, hCB, hSCB, hCols};
  w4a16_status status = W4A16_OK;
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < 6 && e == cudaSuccess; ++i)
    if (bytes[i])
      e = cudaMalloc(&d[i], bytes[i]);
  for (int i = 0; i < 4 && e == cudaSuccess; ++i)
    if (bytes[i])
      e = cudaMemcpy(d[i], host[i], bytes[i], cudaMemcpyHostToDevice);
  if (e != cudaSuccess)
    status = cudaFailure(e, "staging the operands");
  if (status == W4A16_OK)
    status = w4a16_int8prep_cuda((const uint16_t *)d[0], (const int8_t *)d[1], (const float *)d[2],
                                 (const int64_t *)d[3], M, N, K, L, (uint16_t *)d[4], (uint16_t *)d[5], nullptr);
  uint16_t *outA = nullptr, *outB = nullptr;
  if (status == W4A16_OK) {
    outA = static_cast<uint16_t *>(malloc(bytes[4] ? bytes[4] : 1));
    outB = static_cast<uint16_t *>(malloc(bytes[5] ? bytes[5] : 1));
    if (bytes[4] && (e = cudaMemcpy(outA, d[4], bytes[4], cudaMemcpyDeviceToHost)) != cudaSuccess)
      status = cudaFailure(e, "copying subA back");
    if (status == W4A16_OK && bytes[5] && (e = cudaMemcpy(outB, d[5], bytes[5], cudaMemcpyDeviceToHost)) != cudaSuccess)
      status = cudaFailure(e, "copying subB back");
  }
  if (status == W4A16_OK) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t l = 0; l < L; ++l)
        v->subA[m * v->sSubA[0] + l * v->sSubA[1]] = outA[m * L + l];
    for (int64_t l = 0; l < L; ++l)
      for (int64_t n = 0; n < N; ++n)
        v->subB[l * v->sSubB[0] + n * v->sSubB[1]] = outB[l * N + n];
  }
  free(outA);
  free(outB);
  for (int i = 0; i < 6; ++i)
    cudaFree(d[i]);
  free(tA);
  free(tCB);
  free(tSCB);
  free(tCols);
  return status;
}
