/* The runtime's MLIR-facing side: memref C-interface entry points called by lowered code, with a plan
 * cache so that each weight is prepared once (see include/w4a16/runtime_abi.h for the contract).
 *
 * Compiled code holds host memrefs. On the CPU backend they go straight to the plan; on CUDA the
 * weight is copied to the device once (at plan creation) and x/bias/residual/out on every call. */
#include "w4a16_testing.h"
#include "w4a16/runtime_abi.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if W4A16_WITH_CUDA
#include <cuda_runtime.h>
#endif

enum { kGroupSize = W4A16_DEFAULT_GROUP_SIZE };

typedef struct PlanEntry {
  const void *weight, *scales;
  int64_t K, N;
  int weightLayout, scalesLayout, codeBytes;
  w4a16_backend backend;
  w4a16_plan *plan;
  struct PlanEntry *next;
} PlanEntry;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static PlanEntry *g_plans;
static int64_t g_plansCreated;
static int g_backend = -1; /* -1: not chosen yet */
static int g_forcedActivation = -1;

static int32_t fail(w4a16_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "w4a16 runtime: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  return (int32_t)status;
}

w4a16_backend w4a16_rt_backend(void) {
  pthread_mutex_lock(&g_lock);
  if (g_backend < 0) {
    const char *env = getenv("W4A16_BACKEND");
    if (env && strcmp(env, "cpu") == 0)
      g_backend = W4A16_BACKEND_CPU;
    else if (env && strcmp(env, "cuda") == 0)
      g_backend = W4A16_BACKEND_CUDA;
    else
      g_backend = w4a16_cuda_available() ? W4A16_BACKEND_CUDA : W4A16_BACKEND_CPU;
  }
  w4a16_backend b = (w4a16_backend)g_backend;
  pthread_mutex_unlock(&g_lock);
  return b;
}

w4a16_backend w4a16_rt_set_backend(w4a16_backend backend) {
  w4a16_backend previous = w4a16_rt_backend();
  pthread_mutex_lock(&g_lock);
  g_backend = backend;
  pthread_mutex_unlock(&g_lock);
  return previous;
}

void w4a16_testing_force_activation(int activation) { g_forcedActivation = activation; }

int64_t w4a16_rt_plans_created(void) {
  pthread_mutex_lock(&g_lock);
  int64_t n = g_plansCreated;
  pthread_mutex_unlock(&g_lock);
  return n;
}

void w4a16_rt_release_plans(void) {
  pthread_mutex_lock(&g_lock);
  while (g_plans) {
    PlanEntry *e = g_plans;
    g_plans = e->next;
    w4a16_plan_destroy(e->plan);
    free(e);
  }
  pthread_mutex_unlock(&g_lock);
}

/* --- weight preparation: any accepted layout -> docs/contract.md §1's packed (K/8, N) words, (K/128, N) scales - */

static int32_t *packCodes(const uint8_t *codes, int layout, int64_t K, int64_t N) {
  int32_t *packed = calloc((size_t)(K / 8 * N), sizeof *packed);
  if (!packed)
    return NULL;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) {
      uint32_t code = codes[layout == W4A16_WEIGHT_K_N ? k * N + n : n * K + k] & 15u;
      packed[(k / 8) * N + n] = (int32_t)((uint32_t)packed[(k / 8) * N + n] | code << (4 * (k % 8)));
    }
  return packed;
}

static uint16_t *transposeScales(const uint16_t *scales, int64_t groups, int64_t N) {
  uint16_t *out = malloc((size_t)(groups * N) * sizeof *out);
  if (!out)
    return NULL;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t n = 0; n < N; ++n)
      out[g * N + n] = scales[n * groups + g];
  return out;
}

static w4a16_status createPlan(w4a16_backend backend, const int32_t *packed, const uint16_t *scales, int64_t K,
                               int64_t N, w4a16_plan **plan) {
  if (backend == W4A16_BACKEND_CPU)
    return w4a16_plan_create(backend, packed, scales, K, N, kGroupSize, plan);
#if W4A16_WITH_CUDA
  size_t weightBytes = (size_t)(K / 8 * N) * 4, scaleBytes = (size_t)(K / kGroupSize * N) * 2;
  void *dWeight = NULL, *dScales = NULL;
  w4a16_status status = W4A16_ERR_CUDA;
  cudaError_t error = cudaMalloc(&dWeight, weightBytes);
  if (error == cudaSuccess)
    error = cudaMalloc(&dScales, scaleBytes);
  if (error == cudaSuccess)
    error = cudaMemcpy(dWeight, packed, weightBytes, cudaMemcpyHostToDevice);
  if (error == cudaSuccess)
    error = cudaMemcpy(dScales, scales, scaleBytes, cudaMemcpyHostToDevice);
  if (error == cudaSuccess)
    status = w4a16_plan_create(backend, dWeight, dScales, K, N, kGroupSize, plan);
  else
    fprintf(stderr, "w4a16 runtime: copying the weight to the GPU: %s\n", cudaGetErrorString(error));
  cudaFree(dWeight); /* the plan holds its own repacked copy */
  cudaFree(dScales);
  return status;
#else
  (void)packed, (void)scales, (void)K, (void)N, (void)plan;
  return W4A16_ERR_NO_DEVICE;
#endif
}

static w4a16_status findOrCreatePlan(const void *weight, int codeBytes, const uint16_t *scales, int64_t K, int64_t N,
                                     int weightLayout, int scalesLayout, w4a16_plan **plan) {
  w4a16_backend backend = w4a16_rt_backend();
  pthread_mutex_lock(&g_lock);
  for (PlanEntry *e = g_plans; e; e = e->next)
    if (e->weight == weight && e->scales == scales && e->K == K && e->N == N && e->weightLayout == weightLayout &&
        e->scalesLayout == scalesLayout && e->codeBytes == codeBytes && e->backend == backend) {
      *plan = e->plan;
      pthread_mutex_unlock(&g_lock);
      return W4A16_OK;
    }
  int32_t *packed = weightLayout == W4A16_WEIGHT_PACKED_K8_N ? NULL : packCodes(weight, weightLayout, K, N);
  uint16_t *gnScales = scalesLayout == W4A16_SCALES_G_N ? NULL : transposeScales(scales, K / kGroupSize, N);
  w4a16_status status = W4A16_ERR_OUT_OF_MEMORY;
  PlanEntry *e = calloc(1, sizeof *e);
  if (e && (weightLayout == W4A16_WEIGHT_PACKED_K8_N || packed) && (scalesLayout == W4A16_SCALES_G_N || gnScales))
    status = createPlan(backend, packed ? packed : weight, gnScales ? gnScales : scales, K, N, &e->plan);
  free(packed);
  free(gnScales);
  if (status == W4A16_OK) {
    *e = (PlanEntry){weight, scales, K, N, weightLayout, scalesLayout, codeBytes, backend, e->plan, g_plans};
    g_plans = e;
    *plan = e->plan;
    ++g_plansCreated;
  } else {
    free(e);
  }
  pthread_mutex_unlock(&g_lock);
  return status;
}

/* --- one call ----------------------------------------------------------------------------------- */

static bool rowMajor2d(const int64_t *sizes, const int64_t *strides) {
  return (strides[1] == 1 || sizes[1] <= 1) && (strides[0] == sizes[1] || sizes[0] <= 1);
}

#if W4A16_WITH_CUDA
static void *toDevice(const void *host, size_t bytes, bool *ok) {
  void *d = NULL;
  if (!host || !*ok)
    return NULL;
  *ok = cudaMalloc(&d, bytes) == cudaSuccess && cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
  return d;
}
#endif

static w4a16_status runPlan(const w4a16_plan *plan, const uint16_t *x, int64_t M, int64_t K, int64_t N,
                            const uint16_t *bias, const uint16_t *residual, w4a16_activation act, uint16_t *out) {
  if (w4a16_rt_backend() == W4A16_BACKEND_CPU)
    return w4a16_plan_run(plan, x, M, bias, residual, act, out, NULL);
#if W4A16_WITH_CUDA
  bool ok = true;
  uint16_t *dX = toDevice(x, (size_t)(M * K) * 2, &ok), *dBias = toDevice(bias, (size_t)N * 2, &ok);
  uint16_t *dResidual = toDevice(residual, (size_t)(M * N) * 2, &ok), *dOut = NULL;
  ok = ok && cudaMalloc((void **)&dOut, (size_t)(M * N) * 2) == cudaSuccess;
  w4a16_status status = ok ? w4a16_plan_run(plan, dX, M, dBias, dResidual, act, dOut, NULL) : W4A16_ERR_CUDA;
  if (status == W4A16_OK && cudaMemcpy(out, dOut, (size_t)(M * N) * 2, cudaMemcpyDeviceToHost) != cudaSuccess)
    status = W4A16_ERR_CUDA;
  cudaFree(dX), cudaFree(dBias), cudaFree(dResidual), cudaFree(dOut);
  return status;
#else
  (void)K;
  return W4A16_ERR_NO_DEVICE;
#endif
}

/* Shared by the three entry points; weight is (aligned + offset) of the weight memref. */
static int32_t matmul(w4a16_memref2d_f16 *x, const void *weight, const int64_t *wSizes, const int64_t *wStrides,
                      int codeBytes, w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                      w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *out, int32_t activation,
                      int32_t weightLayout, int32_t scalesLayout, int32_t hasBias, int32_t hasResidual) {
  int64_t M = x->sizes[0], K = x->sizes[1], N = out->sizes[1];
  if (out->sizes[0] != M)
    return fail(W4A16_ERR_BAD_SHAPE, "out has %lld rows, x has %lld", (long long)out->sizes[0], (long long)M);
  w4a16_shape_rule rule = w4a16_check_shape(K, N, kGroupSize);
  if (rule != W4A16_SHAPE_OK)
    return fail(W4A16_ERR_BAD_SHAPE, "K = %lld, N = %lld: %s", (long long)K, (long long)N, w4a16_shape_rule_text(rule));
  int64_t wantRows = weightLayout == W4A16_WEIGHT_PACKED_K8_N ? K / 8 : weightLayout == W4A16_WEIGHT_K_N ? K : N;
  int64_t wantCols = weightLayout == W4A16_WEIGHT_N_K ? K : N;
  if (wSizes[0] != wantRows || wSizes[1] != wantCols)
    return fail(W4A16_ERR_BAD_SHAPE, "weight is %lldx%lld, expected %lldx%lld", (long long)wSizes[0],
                (long long)wSizes[1], (long long)wantRows, (long long)wantCols);
  int64_t groups = K / kGroupSize;
  bool scalesOk = scalesLayout == W4A16_SCALES_G_N ? scales->sizes[0] == groups && scales->sizes[1] == N
                                                   : scales->sizes[0] == N && scales->sizes[1] == groups;
  if (!scalesOk)
    return fail(W4A16_ERR_BAD_SHAPE, "scales are %lldx%lld for K = %lld, N = %lld", (long long)scales->sizes[0],
                (long long)scales->sizes[1], (long long)K, (long long)N);
  if ((hasBias && bias->sizes[0] != N) || (hasResidual && (residual->sizes[0] != M || residual->sizes[1] != N)))
    return fail(W4A16_ERR_BAD_SHAPE, "bias or residual does not match (M, N) = (%lld, %lld)", (long long)M, (long long)N);
  if (!rowMajor2d(x->sizes, x->strides) || !rowMajor2d(wSizes, wStrides) || !rowMajor2d(scales->sizes, scales->strides) ||
      !rowMajor2d(out->sizes, out->strides) || (hasBias && bias->strides[0] != 1 && N > 1) ||
      (hasResidual && !rowMajor2d(residual->sizes, residual->strides)))
    return fail(W4A16_ERR_BAD_ARGUMENT, "memrefs must be contiguous and row-major");
  if (M == 0)
    return 0; /* an empty batch: nothing to compute */

  w4a16_plan *plan = NULL;
  const uint16_t *scalesData = scales->aligned + scales->offset;
  w4a16_status status = findOrCreatePlan(weight, codeBytes, scalesData, K, N, weightLayout, scalesLayout, &plan);
  if (status != W4A16_OK)
    return fail(status, "preparing the weight: %s", w4a16_last_error());
  w4a16_activation act = (w4a16_activation)(g_forcedActivation >= 0 ? g_forcedActivation : activation);
  status = runPlan(plan, x->aligned + x->offset, M, K, N, hasBias ? bias->aligned + bias->offset : NULL,
                   hasResidual ? residual->aligned + residual->offset : NULL, act, out->aligned + out->offset);
  if (status != W4A16_OK)
    return fail(status, "%s", w4a16_last_error());
  return 0;
}

int32_t _mlir_ciface_w4a16_rt_matmul_i32(w4a16_memref2d_f16 *x, w4a16_memref2d_i32 *weight,
                                         w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                                         w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *out, int32_t activation,
                                         int32_t weightLayout, int32_t scalesLayout, int32_t hasBias,
                                         int32_t hasResidual) {
  return matmul(x, weight->aligned + weight->offset, weight->sizes, weight->strides, 4, scales, bias, residual, out,
                activation, weightLayout, scalesLayout, hasBias, hasResidual);
}

int32_t _mlir_ciface_w4a16_rt_matmul_i8(w4a16_memref2d_f16 *x, w4a16_memref2d_i8 *weight,
                                        w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                                        w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *out, int32_t activation,
                                        int32_t weightLayout, int32_t scalesLayout, int32_t hasBias,
                                        int32_t hasResidual) {
  return matmul(x, weight->aligned + weight->offset, weight->sizes, weight->strides, 1, scales, bias, residual, out,
                activation, weightLayout, scalesLayout, hasBias, hasResidual);
}

/* LLVM stores an i4 in one byte, so an i4 memref is laid out like the i8 container. */
int32_t _mlir_ciface_w4a16_rt_matmul_i4(w4a16_memref2d_f16 *x, w4a16_memref2d_i8 *weight,
                                        w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                                        w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *out, int32_t activation,
                                        int32_t weightLayout, int32_t scalesLayout, int32_t hasBias,
                                        int32_t hasResidual) {
  return _mlir_ciface_w4a16_rt_matmul_i8(x, weight, scales, bias, residual, out, activation, weightLayout,
                                         scalesLayout, hasBias, hasResidual);
}
