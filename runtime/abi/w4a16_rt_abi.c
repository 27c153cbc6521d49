/* The runtime's MLIR-facing side: memref C-interface entry points called by lowered code, and the plans
 * that the generated prepare entry points create (see include/w4a16/runtime_abi.h for the contract).
 *
 * Nothing here prints or aborts: a failure goes to the thread's compiled-code status (status.c) and is
 * returned. Host-target code holds host memrefs: on the CPU backend they go straight to the plan; on CUDA the
 * weight is copied to the device once (when prepared) and x/bias/residual/out on every call. GPU-target code
 * (inside w4a16_rt_enter_device) holds device memrefs: prepare reads the weight back once to normalise it, and
 * a call only launches the plan on the caller's stream. */
#include "half.h"
#include "rt_status.h"
#include "w4a16_testing.h"
#include "w4a16/runtime_abi.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if W4A16_WITH_CUDA
#include <cuda_runtime.h>
#endif

/* What a plan is looked up by: the weight's buffers, shape, layouts, code width and backend. */
typedef struct PlanKey {
  const void *weight;
  const uint16_t *scales;
  int64_t K, N, groupSize;
  int weightLayout, scalesLayout, codeBytes;
  w4a16_backend backend;
  /* Zero points (none: the constant zeroPoint, 8 for the symmetric form): the tensor's data, its element
   * kind and the layout and offset the op states. */
  const void *zeroPoints;
  int zpKind, zpLayout, zpOffset;
  double zeroPoint;
  /* Element types of x/bias/residual/out and of the scales (w4a16_element_type). */
  int ioType, scalesType;
  /* Act-order's g_idx (K int32, row k's group), NULL: row k is in group k / G. */
  const int32_t *groupIndex;
  /* The pointers above are device pointers (GPU-target code). */
  bool onDevice;
} PlanKey;

enum { ZP_NONE, ZP_I4, ZP_I8, ZP_I32, ZP_F16, ZP_BF16, ZP_F32 };

typedef struct PlanEntry {
  PlanKey key;
  uint64_t preparedBy; /* the prepare call (w4a16_rt_prepare_id) that made the plan */
  w4a16_plan *plan;
  w4a16_backend runsOn; /* key.backend, or the CPU where the CUDA kernels do not take the form */
  struct PlanEntry *next;
} PlanEntry;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static PlanEntry *g_plans;
static int64_t g_plansCreated;
static int64_t g_cpuFallbacks;          /* plans on the CPU reference under the CUDA backend, and why the latest */
static char g_cpuFallbackReason[160];
static int g_backend = -1; /* -1: not chosen yet */
static int g_forcedActivation = -1;

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

int64_t w4a16_rt_cpu_fallbacks(void) {
  pthread_mutex_lock(&g_lock);
  int64_t n = g_cpuFallbacks;
  pthread_mutex_unlock(&g_lock);
  return n;
}

/* The text stays valid until the next fallback overwrites it (prepare calls, under g_lock). */
const char *w4a16_rt_cpu_fallback_reason(void) { return g_cpuFallbackReason; }

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

/* The codes in the (K/8, N) packed format; flip (8 or 0) XORs every code (two's-complement values to codes). */
static int32_t *packCodes(const void *weight, int layout, uint32_t flip, int64_t K, int64_t N) {
  int32_t *packed = calloc((size_t)(K / 8 * N), sizeof *packed);
  if (!packed)
    return NULL;
  const uint8_t *bytes = weight;  /* i4 (one byte each in memory), i8 or u8 elements */
  const uint32_t *words = weight;
  const bool inWords = w4a16_weight_container(layout) == W4A16_CODES_IN_WORDS;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) {
      int nibble;
      const int64_t at = w4a16_code_element(layout, k, n, K, N, &nibble);
      uint32_t code = ((inWords ? words[at] : bytes[at]) >> (4 * nibble)) & 15u;
      code ^= flip;
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

/* Failures below write their detail to why (WHY_SIZE bytes); the entry point reports it once. */
enum { WHY_SIZE = 320 };

#if W4A16_WITH_CUDA
/* A device copy of `bytes` bytes at host: NULL for a NULL host pointer, or once *ok is false (a failed copy
 * sets it; cudaGetLastError says why). */
static void *toDevice(const void *host, size_t bytes, bool *ok) {
  void *d = NULL;
  if (!host || !*ok)
    return NULL;
  *ok = cudaMalloc(&d, bytes) == cudaSuccess && cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
  return d;
}
#endif

static w4a16_status createPlan(w4a16_backend backend, const int32_t *packed, const uint16_t *scales,
                               const uint16_t *zeroPoints, const uint16_t *offsets, const int32_t *groupIndex,
                               int64_t K, int64_t N, int64_t G, w4a16_element_type ioType,
                               w4a16_element_type scalesType, w4a16_plan **plan, char *why) {
  if (backend == W4A16_BACKEND_CUDA && !w4a16_cuda_available()) {
    snprintf(why, WHY_SIZE, "the CUDA backend is selected (W4A16_BACKEND=cuda or w4a16_rt_set_backend) but this "
                            "build has no CUDA backend or there is no usable GPU");
    return W4A16_ERR_NO_DEVICE;
  }
  w4a16_status status = W4A16_ERR_CUDA;
  if (backend == W4A16_BACKEND_CPU) {
    status = w4a16_plan_create_act_order(backend, packed, scales, zeroPoints, offsets, groupIndex, K, N, G, ioType,
                                         scalesType, plan);
  } else {
#if W4A16_WITH_CUDA
    size_t weightBytes = (size_t)(K / 8 * N) * 4, scaleBytes = (size_t)(K / G * N) * 2;
    bool ok = true;
    void *dWeight = toDevice(packed, weightBytes, &ok), *dScales = toDevice(scales, scaleBytes, &ok);
    void *dZeroPoints = toDevice(zeroPoints, scaleBytes, &ok), *dOffsets = toDevice(offsets, scaleBytes, &ok);
    void *dGroupIndex = toDevice(groupIndex, (size_t)K * sizeof *groupIndex, &ok);
    if (ok)
      status = w4a16_plan_create_act_order(backend, dWeight, dScales, dZeroPoints, dOffsets, dGroupIndex, K, N, G,
                                           ioType, scalesType, plan);
    else
      snprintf(why, WHY_SIZE, "copying the weight to the GPU: %s", cudaGetErrorString(cudaGetLastError()));
    cudaFree(dWeight); /* the plan holds its own repacked copy */
    cudaFree(dScales);
    cudaFree(dZeroPoints);
    cudaFree(dOffsets);
    cudaFree(dGroupIndex);
    if (!ok)
      return status;
#endif
  }
  if (status != W4A16_OK)
    snprintf(why, WHY_SIZE, "preparing the weight: %s", w4a16_last_error());
  return status;
}

/* z(g, n) as (K/G, N) f16, from the zero-point tensor per its layout, element kind and offset, or the
 * constant; with W4A16_ZP_OFFSETS in the layout code the tensor's values go to *offsets instead (m in
 * (code - z) * s + m) and z is the constant. NULL when out of memory. *all8: every zero point is 8 and
 * there are no offsets (the symmetric form). */
static uint16_t *normalizeZeroPoints(const PlanKey *key, bool *all8, uint16_t **offsets) {
  const int64_t groups = key->K / key->groupSize, N = key->N;
  const bool toOffsets = key->zpKind != ZP_NONE && (key->zpLayout & W4A16_ZP_OFFSETS);
  const int zpLayout = key->zpLayout & ~W4A16_ZP_FLAGS;
  const bool wraps = key->zpKind != ZP_NONE && (key->zpLayout & W4A16_ZP_WRAPS);
  uint16_t *z = malloc((size_t)(groups * N) * sizeof *z);
  *offsets = toOffsets ? malloc((size_t)(groups * N) * sizeof **offsets) : NULL;
  if (!z || (toOffsets && !*offsets)) {
    free(z), free(*offsets);
    *offsets = NULL;
    return NULL;
  }
  *all8 = !toOffsets;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t n = 0; n < N; ++n) {
      double v = key->zeroPoint;
      if (key->zpKind != ZP_NONE) {
        const bool packed = zpLayout == W4A16_ZP_PACKED_G_N8 || zpLayout == W4A16_ZP_PACKED_G_N8_AWQ;
        const int64_t i = packed ? g * (N / 8) + n / 8 : zpLayout == W4A16_ZP_N_G ? n * groups + g : g * N + n;
        switch (key->zpKind) {
        case ZP_I4: v = ((const uint8_t *)key->zeroPoints)[i] & 15; break; /* LLVM keeps an i4 in a byte */
        case ZP_I8: v = ((const uint8_t *)key->zeroPoints)[i]; break;
        case ZP_F16: v = w4a16_h2f(((const uint16_t *)key->zeroPoints)[i]); break;
        case ZP_BF16: v = w4a16_bf2f(((const uint16_t *)key->zeroPoints)[i]); break;
        case ZP_F32: v = ((const float *)key->zeroPoints)[i]; break;
        default: {
          const uint32_t word = (uint32_t)((const int32_t *)key->zeroPoints)[i];
          v = packed ? (double)((word >> (4 * w4a16_zp_nibble(zpLayout, (int)(n % 8)))) & 15u) : (double)(int32_t)word;
        }
        }
        v += key->zpOffset;
        if (wraps) /* an integer's value plus the offset, mod 16 */
          v = (double)((((int64_t)v % 16) + 16) % 16);
      }
      if (toOffsets) {
        (*offsets)[g * N + n] = w4a16_f2h((float)v);
        v = key->zeroPoint;
      }
      z[g * N + n] = w4a16_f2h((float)v);
      *all8 &= v == W4A16_ZERO_POINT;
    }
  return z;
}

/* A plan from the weight's current bytes, converted to docs/contract.md §1's format where it is not. It runs
 * on key->backend, except where the CUDA kernels do not take the shape (K not a multiple of 128: they walk
 * K in steps of 128): compiled code holds host memory, so such a weight runs on the CPU reference --
 * slower, never wrong, never a failure (docs/contract.md §2, "Compiled code"). */
static w4a16_status planFromWeight(const PlanKey *key, w4a16_plan **plan, w4a16_backend *runsOn, char *why) {
  const int layout = key->weightLayout & ~W4A16_WEIGHT_SIGNED_CODES;
  const uint32_t flip = key->weightLayout & W4A16_WEIGHT_SIGNED_CODES ? 8u : 0u;
  int32_t *packed = layout == W4A16_WEIGHT_PACKED_K8_N && !flip ? NULL
                                                                : packCodes(key->weight, layout, flip, key->K, key->N);
  uint16_t *gnScales = key->scalesLayout == W4A16_SCALES_G_N ? NULL
                                                             : transposeScales(key->scales, key->K / key->groupSize, key->N);
  bool all8 = true;
  uint16_t *offsets = NULL;
  uint16_t *zeroPoints = normalizeZeroPoints(key, &all8, &offsets);
  char fallback[sizeof g_cpuFallbackReason] = "";
  if (key->K % 128 != 0)
    snprintf(fallback, sizeof fallback, "K = %lld (the CUDA kernels take K a multiple of 128)", (long long)key->K);
  *runsOn = fallback[0] ? W4A16_BACKEND_CPU : key->backend;
  w4a16_status status = W4A16_ERR_OUT_OF_MEMORY;
  if (((layout == W4A16_WEIGHT_PACKED_K8_N && !flip) || packed) && (key->scalesLayout == W4A16_SCALES_G_N || gnScales) &&
      zeroPoints)
    status = createPlan(*runsOn, packed ? packed : key->weight, gnScales ? gnScales : key->scales,
                        all8 ? NULL : zeroPoints, offsets, key->groupIndex, key->K, key->N, key->groupSize,
                        (w4a16_element_type)key->ioType, (w4a16_element_type)key->scalesType, plan, why);
  else
    snprintf(why, WHY_SIZE, "out of memory converting the weight to the packed layout");
  if (status == W4A16_OK && key->backend == W4A16_BACKEND_CUDA && fallback[0]) { /* g_lock held (preparePlan) */
    ++g_cpuFallbacks;
    memcpy(g_cpuFallbackReason, fallback, sizeof fallback);
  }
  free(packed);
  free(gnScales);
  free(zeroPoints);
  free(offsets);
  return status;
}

/* The (rows, cols) of a zero-point tensor of this layout (flags ignored) for K / G groups and N columns; whether
 * it is packed eight to a word. */
static bool zeroPointShape(int zpLayout, int64_t groups, int64_t N, int64_t *rows, int64_t *cols) {
  const int layout = zpLayout & ~W4A16_ZP_FLAGS;
  const bool packed = layout == W4A16_ZP_PACKED_G_N8 || layout == W4A16_ZP_PACKED_G_N8_AWQ;
  *rows = layout == W4A16_ZP_N_G ? N : groups;
  *cols = layout == W4A16_ZP_N_G ? groups : packed ? N / 8 : N;
  return packed;
}

/* Bytes of one zero point of each kind (an i4 takes a byte). */
static size_t zeroPointBytes(int kind) {
  return kind == ZP_I32 || kind == ZP_F32 ? 4 : kind == ZP_F16 || kind == ZP_BF16 ? 2 : 1;
}

/* GPU-target code: the weight's buffers are on the device. Prepare copies them back once (prepare may
 * synchronise; a call never does) and normalises them like host buffers; the plan is a CUDA plan or nothing:
 * device pointers cannot run on the CPU reference. */
static w4a16_status planFromDeviceWeight(const PlanKey *key, w4a16_plan **plan, w4a16_backend *runsOn, char *why) {
  if (key->backend != W4A16_BACKEND_CUDA) {
    snprintf(why, WHY_SIZE, "GPU-target code needs the CUDA backend (W4A16_BACKEND=cpu is set, or this build or "
                            "machine has no usable GPU)");
    return W4A16_ERR_NO_DEVICE;
  }
  if (key->K % 128 != 0) {
    snprintf(why, WHY_SIZE, "K = %lld: GPU-target code needs K a multiple of 128 (the CUDA kernels walk K in steps "
                            "of 128; the host target runs such a weight on the CPU reference)", (long long)key->K);
    return W4A16_ERR_BAD_SHAPE;
  }
#if W4A16_WITH_CUDA
  const int64_t groups = key->K / key->groupSize;
  int64_t rows, cols;
  w4a16_weight_shape(key->weightLayout & ~W4A16_WEIGHT_SIGNED_CODES, key->K, key->N, &rows, &cols);
  const size_t weightBytes = (size_t)(rows * cols) * (size_t)key->codeBytes;
  const size_t scaleBytes = (size_t)(groups * key->N) * 2;
  size_t zpBytes = 0;
  if (key->zpKind != ZP_NONE) {
    int64_t zpRows, zpCols;
    zeroPointShape(key->zpLayout, groups, key->N, &zpRows, &zpCols);
    zpBytes = (size_t)(zpRows * zpCols) * zeroPointBytes(key->zpKind);
  }
  const size_t gIdxBytes = key->groupIndex ? (size_t)key->K * sizeof(int32_t) : 0;
  PlanKey host = *key;
  void *weight = malloc(weightBytes), *scales = malloc(scaleBytes);
  void *zeroPoints = zpBytes ? malloc(zpBytes) : NULL, *groupIndex = gIdxBytes ? malloc(gIdxBytes) : NULL;
  w4a16_status status = W4A16_ERR_OUT_OF_MEMORY;
  if (!weight || !scales || (zpBytes && !zeroPoints) || (gIdxBytes && !groupIndex)) {
    snprintf(why, WHY_SIZE, "out of memory reading the weight back from the GPU");
  } else if (cudaMemcpy(weight, key->weight, weightBytes, cudaMemcpyDeviceToHost) != cudaSuccess ||
             cudaMemcpy(scales, key->scales, scaleBytes, cudaMemcpyDeviceToHost) != cudaSuccess ||
             (zpBytes && cudaMemcpy(zeroPoints, key->zeroPoints, zpBytes, cudaMemcpyDeviceToHost) != cudaSuccess) ||
             (gIdxBytes && cudaMemcpy(groupIndex, key->groupIndex, gIdxBytes, cudaMemcpyDeviceToHost) != cudaSuccess)) {
    status = W4A16_ERR_CUDA;
    snprintf(why, WHY_SIZE, "reading the weight back from the GPU (are the weight's pointers device memory?): %s",
             cudaGetErrorString(cudaGetLastError()));
  } else {
    host.weight = weight, host.scales = scales, host.zeroPoints = zeroPoints, host.groupIndex = groupIndex;
    status = planFromWeight(&host, plan, runsOn, why);
  }
  free(weight), free(scales), free(zeroPoints), free(groupIndex);
  return status;
#else
  (void)plan, (void)runsOn;
  snprintf(why, WHY_SIZE, "this build has no CUDA backend");
  return W4A16_ERR_NO_DEVICE;
#endif
}

static bool sameKey(const PlanKey *a, const PlanKey *b) {
  return a->weight == b->weight && a->scales == b->scales && a->K == b->K && a->N == b->N &&
         a->groupSize == b->groupSize && a->zeroPoints == b->zeroPoints && a->zpKind == b->zpKind &&
         a->zpLayout == b->zpLayout && a->zpOffset == b->zpOffset && a->zeroPoint == b->zeroPoint &&
         a->weightLayout == b->weightLayout && a->scalesLayout == b->scalesLayout && a->codeBytes == b->codeBytes &&
         a->backend == b->backend && a->ioType == b->ioType && a->scalesType == b->scalesType &&
         a->groupIndex == b->groupIndex && a->onDevice == b->onDevice;
}

/* g_lock held. */
static PlanEntry **findEntry(const PlanKey *key) {
  PlanEntry **link = &g_plans;
  while (*link && !sameKey(&(*link)->key, key))
    link = &(*link)->next;
  return link;
}

/* A call outside prepare: the plan prepare made, never a new one (a plan is a snapshot the caller asked for). */
static w4a16_status preparedPlan(const PlanKey *key, w4a16_plan **plan, w4a16_backend *runsOn, char *why) {
  pthread_mutex_lock(&g_lock);
  PlanEntry *e = *findEntry(key);
  *plan = e ? e->plan : NULL;
  *runsOn = e ? e->runsOn : key->backend;
  pthread_mutex_unlock(&g_lock);
  if (e)
    return W4A16_OK;
  const char *fn = w4a16_rt_function();
  snprintf(why, WHY_SIZE, "weight not prepared for the %s backend: call w4a16c_prepare_%s first (plans are snapshots "
                          "taken by prepare)",
           key->backend == W4A16_BACKEND_CUDA ? "CUDA" : "CPU", fn ? fn : "<function>");
  return W4A16_ERR_BAD_ARGUMENT;
}

/* Inside prepare: the plan is made from the weight's bytes now, once per prepare call (a weight used by
 * several calls of one function is prepared once). A failure drops the old plan too: no stale snapshot
 * outlives a prepare that did not succeed. */
static w4a16_status preparePlan(const PlanKey *key, uint64_t prepareId, w4a16_plan **plan, w4a16_backend *runsOn,
                                char *why) {
  pthread_mutex_lock(&g_lock);
  PlanEntry **link = findEntry(key), *e = *link;
  w4a16_status status = W4A16_OK;
  if (!e || e->preparedBy != prepareId) {
    w4a16_plan *fresh = NULL;
    w4a16_backend freshRunsOn = key->backend;
    status = key->onDevice ? planFromDeviceWeight(key, &fresh, &freshRunsOn, why)
                           : planFromWeight(key, &fresh, &freshRunsOn, why);
    if (status == W4A16_OK && e) {
      w4a16_plan_destroy(e->plan);
    } else if (status == W4A16_OK && (e = calloc(1, sizeof *e))) {
      *e = (PlanEntry){.key = *key, .next = g_plans};
      g_plans = e;
    } else if (status == W4A16_OK) {
      w4a16_plan_destroy(fresh);
      snprintf(why, WHY_SIZE, "out of memory");
      status = W4A16_ERR_OUT_OF_MEMORY;
    } else if (e) {
      *link = e->next;
      w4a16_plan_destroy(e->plan);
      free(e);
      e = NULL;
    }
    if (status == W4A16_OK) {
      e->plan = fresh;
      e->runsOn = freshRunsOn;
      e->preparedBy = prepareId;
      ++g_plansCreated;
    }
  }
  *plan = status == W4A16_OK ? e->plan : NULL;
  *runsOn = status == W4A16_OK ? e->runsOn : key->backend;
  pthread_mutex_unlock(&g_lock);
  return status;
}

/* --- one call ----------------------------------------------------------------------------------- */

static bool rowMajor2d(const int64_t *sizes, const int64_t *strides) {
  return (strides[1] == 1 || sizes[1] <= 1) && (strides[0] == sizes[1] || sizes[0] <= 1);
}

static w4a16_status runPlan(const w4a16_plan *plan, w4a16_backend backend, const uint16_t *x, int64_t M, int64_t K,
                            int64_t N, const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                            uint16_t *out, bool onDevice, char *why) {
  if (onDevice) { /* GPU-target code: the operands are on the device already; launch on the caller's stream */
    w4a16_status status = w4a16_plan_run(plan, x, M, bias, residual, act, out, w4a16_rt_stream());
    if (status != W4A16_OK)
      snprintf(why, WHY_SIZE, "%s", w4a16_last_error());
    return status;
  }
  if (backend == W4A16_BACKEND_CPU) {
    w4a16_status status = w4a16_plan_run(plan, x, M, bias, residual, act, out, NULL);
    if (status != W4A16_OK)
      snprintf(why, WHY_SIZE, "%s", w4a16_last_error());
    return status;
  }
#if W4A16_WITH_CUDA
  bool ok = true;
  uint16_t *dX = toDevice(x, (size_t)(M * K) * 2, &ok), *dBias = toDevice(bias, (size_t)N * 2, &ok);
  uint16_t *dResidual = toDevice(residual, (size_t)(M * N) * 2, &ok), *dOut = NULL;
  ok = ok && cudaMalloc((void **)&dOut, (size_t)(M * N) * 2) == cudaSuccess;
  w4a16_status status = W4A16_ERR_CUDA;
  if (!ok)
    snprintf(why, WHY_SIZE, "staging the operands on the GPU: %s", cudaGetErrorString(cudaGetLastError()));
  else if ((status = w4a16_plan_run(plan, dX, M, dBias, dResidual, act, dOut, NULL)) != W4A16_OK)
    snprintf(why, WHY_SIZE, "%s", w4a16_last_error());
  else if (cudaMemcpy(out, dOut, (size_t)(M * N) * 2, cudaMemcpyDeviceToHost) != cudaSuccess) {
    status = W4A16_ERR_CUDA;
    snprintf(why, WHY_SIZE, "copying the result from the GPU: %s", cudaGetErrorString(cudaGetLastError()));
  }
  cudaFree(dX), cudaFree(dBias), cudaFree(dResidual), cudaFree(dOut);
  return status;
#else
  (void)plan, (void)x, (void)M, (void)K, (void)N, (void)bias, (void)residual, (void)act, (void)out;
  snprintf(why, WHY_SIZE, "this build has no CUDA backend");
  return W4A16_ERR_NO_DEVICE;
#endif
}

/* The shapes and strides the lowered code passed agree with each other and with the contract. */
/* G as the scales' shape states it, (K/G, N) or (N, K/G); 0 when it is no divisor of K. */
static int64_t groupSizeOf(const w4a16_memref2d_f16 *scales, int32_t scalesLayout, int64_t K) {
  const int64_t groups = scalesLayout == W4A16_SCALES_G_N ? scales->sizes[0] : scales->sizes[1];
  return groups > 0 && K % groups == 0 ? K / groups : 0;
}

static w4a16_status checkOperands(const w4a16_memref2d_f16 *x, const int64_t *wSizes, const int64_t *wStrides,
                                  const w4a16_memref2d_f16 *scales, const w4a16_memref1d_f16 *bias,
                                  const w4a16_memref2d_f16 *residual, const w4a16_memref2d_f16 *out, int32_t weightLayout,
                                  int32_t scalesLayout, int32_t hasBias, int32_t hasResidual, char *why) {
  int64_t M = x->sizes[0], K = x->sizes[1], N = out->sizes[1];
  if (out->sizes[0] != M) {
    snprintf(why, WHY_SIZE, "out has %lld rows, x has %lld", (long long)out->sizes[0], (long long)M);
    return W4A16_ERR_BAD_SHAPE;
  }
  const int64_t G = groupSizeOf(scales, scalesLayout, K), groups = G > 0 ? K / G : 0;
  w4a16_shape_rule rule = w4a16_check_shape(K, N, G);
  if (rule != W4A16_SHAPE_OK) {
    snprintf(why, WHY_SIZE, "%s", w4a16_shape_rule_text(rule));
    return W4A16_ERR_BAD_SHAPE;
  }
  int64_t wantRows, wantCols;
  w4a16_weight_shape(weightLayout, K, N, &wantRows, &wantCols);
  if (wSizes[0] != wantRows || wSizes[1] != wantCols) {
    snprintf(why, WHY_SIZE, "weight is %lldx%lld, expected %lldx%lld", (long long)wSizes[0], (long long)wSizes[1],
             (long long)wantRows, (long long)wantCols);
    return W4A16_ERR_BAD_SHAPE;
  }
  bool scalesOk = scalesLayout == W4A16_SCALES_G_N ? scales->sizes[0] == groups && scales->sizes[1] == N
                                                   : scales->sizes[0] == N && scales->sizes[1] == groups;
  if (!scalesOk) {
    snprintf(why, WHY_SIZE, "scales are %lldx%lld", (long long)scales->sizes[0], (long long)scales->sizes[1]);
    return W4A16_ERR_BAD_SHAPE;
  }
  if ((hasBias && bias->sizes[0] != N) || (hasResidual && (residual->sizes[0] != M || residual->sizes[1] != N))) {
    snprintf(why, WHY_SIZE, "bias or residual does not match (M, N)");
    return W4A16_ERR_BAD_SHAPE;
  }
  if (!rowMajor2d(x->sizes, x->strides) || !rowMajor2d(wSizes, wStrides) || !rowMajor2d(scales->sizes, scales->strides) ||
      !rowMajor2d(out->sizes, out->strides) || (hasBias && bias->strides[0] != 1 && N > 1) ||
      (hasResidual && !rowMajor2d(residual->sizes, residual->strides))) {
    snprintf(why, WHY_SIZE, "memrefs must be contiguous and row-major");
    return W4A16_ERR_BAD_ARGUMENT;
  }
  return W4A16_OK;
}

/* Unspecified after a failure, but never uninitialised memory for the code that reads it next. */
static void zeroFill(w4a16_memref2d_f16 *out, bool onDevice) {
  if (onDevice) { /* enqueued like the call it stands for */
#if W4A16_WITH_CUDA
    if (out->strides[1] == 1 || out->sizes[1] <= 1)
      cudaMemset2DAsync(out->aligned + out->offset, (size_t)out->strides[0] * 2, 0, (size_t)out->sizes[1] * 2,
                        (size_t)out->sizes[0], (cudaStream_t)w4a16_rt_stream());
#endif
    return;
  }
  for (int64_t m = 0; m < out->sizes[0]; ++m)
    for (int64_t n = 0; n < out->sizes[1]; ++n)
      out->aligned[out->offset + m * out->strides[0] + n * out->strides[1]] = 0;
}

/* The zero points of one call: the tensor (data == NULL: none) with its element kind, layout and offset as
 * the op states them, and the constant used without a tensor. */
typedef struct ZeroPoints {
  const void *data;
  const int64_t *sizes, *strides;
  int kind, layout, offset;
  double constant;
} ZeroPoints;

static w4a16_status checkZeroPoints(const ZeroPoints *zp, int64_t K, int64_t N, int64_t G, char *why) {
  if (!zp->data)
    return W4A16_OK;
  const int64_t groups = G > 0 ? K / G : 0;
  const int layout = zp->layout & ~W4A16_ZP_FLAGS;
  int64_t rows, cols;
  const bool packed = zeroPointShape(zp->layout, groups, N, &rows, &cols);
  if (layout < 0 || layout >= W4A16_ZP_LAYOUT_COUNT || (packed && zp->kind != ZP_I32) ||
      zp->sizes[0] != rows || zp->sizes[1] != cols || !rowMajor2d(zp->sizes, zp->strides)) {
    snprintf(why, WHY_SIZE, "zero points are %lldx%lld, expected a contiguous %lldx%lld %s tensor",
             (long long)zp->sizes[0], (long long)zp->sizes[1], (long long)rows, (long long)cols,
             w4a16_zero_point_layout_name(layout) ? w4a16_zero_point_layout_name(layout) : "?");
    return W4A16_ERR_BAD_SHAPE;
  }
  return W4A16_OK;
}

/* Shared by the entry points; weight is (aligned + offset) of the weight memref. */
static int32_t matmul(w4a16_memref2d_f16 *x, const void *weight, const int64_t *wSizes, const int64_t *wStrides,
                      int codeBytes, w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                      w4a16_memref2d_f16 *residual, const ZeroPoints *zp, const w4a16_memref1d_i32 *groupIndex,
                      w4a16_memref2d_f16 *out, int32_t activation, int32_t weightLayout, int32_t scalesLayout,
                      int32_t hasBias, int32_t hasResidual, w4a16_element_type ioType, w4a16_element_type scalesType) {
  int64_t M = x->sizes[0], K = x->sizes[1], N = out->sizes[1];
  uint64_t prepareId = w4a16_rt_prepare_id();
  char why[WHY_SIZE] = "";
  const int64_t G = groupSizeOf(scales, scalesLayout, K);
  w4a16_status status = checkOperands(x, wSizes, wStrides, scales, bias, residual, out,
                                      weightLayout & ~W4A16_WEIGHT_SIGNED_CODES, scalesLayout,
                                      hasBias, hasResidual, why);
  if (status == W4A16_OK)
    status = checkZeroPoints(zp, K, N, G, why);
  if (status == W4A16_OK && groupIndex && (groupIndex->sizes[0] != K || (groupIndex->strides[0] != 1 && K > 1))) {
    snprintf(why, WHY_SIZE, "g_idx has %lld entries (stride %lld), expected a contiguous (K) = (%lld) tensor",
             (long long)groupIndex->sizes[0], (long long)groupIndex->strides[0], (long long)K);
    status = W4A16_ERR_BAD_SHAPE;
  }
  w4a16_plan *plan = NULL;
  w4a16_backend runsOn = w4a16_rt_backend();
  const bool onDevice = w4a16_rt_device_call() != 0;
  PlanKey key = {weight, scales->aligned + scales->offset, K, N, G, weightLayout, scalesLayout, codeBytes, runsOn,
                 zp->data, zp->data ? zp->kind : ZP_NONE, zp->layout, zp->offset, zp->constant, ioType, scalesType,
                 groupIndex ? groupIndex->aligned + groupIndex->offset : NULL, onDevice};
  if (status == W4A16_OK && prepareId)
    status = preparePlan(&key, prepareId, &plan, &runsOn, why);
  else if (status == W4A16_OK && M > 0) /* an empty batch computes nothing and needs no plan */
    status = preparedPlan(&key, &plan, &runsOn, why);
  if (status == W4A16_OK && M > 0) {
    w4a16_activation act = (w4a16_activation)(g_forcedActivation >= 0 ? g_forcedActivation : activation);
    status = runPlan(plan, runsOn, x->aligned + x->offset, M, K, N, hasBias ? bias->aligned + bias->offset : NULL,
                     hasResidual ? residual->aligned + residual->offset : NULL, act, out->aligned + out->offset,
                     onDevice, why);
  }
  if (status == W4A16_OK)
    return 0;
  zeroFill(out, onDevice);
  return w4a16_rt_fail(status, "w4a16.fused_matmul (M = %lld, K = %lld, N = %lld): %s", (long long)M, (long long)K,
                       (long long)N, why);
}

static const ZeroPoints kSymmetric = {NULL, NULL, NULL, ZP_NONE, 0, 0, W4A16_ZERO_POINT};

int32_t _mlir_ciface_w4a16_rt_matmul_i32(w4a16_memref2d_f16 *x, w4a16_memref2d_i32 *weight,
                                         w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                                         w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *out, int32_t activation,
                                         int32_t weightLayout, int32_t scalesLayout, int32_t hasBias,
                                         int32_t hasResidual) {
  return matmul(x, weight->aligned + weight->offset, weight->sizes, weight->strides, 4, scales, bias, residual,
                &kSymmetric, NULL, out, activation, weightLayout, scalesLayout, hasBias, hasResidual, W4A16_ELEM_F16,
                W4A16_ELEM_F16);
}

int32_t _mlir_ciface_w4a16_rt_matmul_i8(w4a16_memref2d_f16 *x, w4a16_memref2d_i8 *weight,
                                        w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                                        w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *out, int32_t activation,
                                        int32_t weightLayout, int32_t scalesLayout, int32_t hasBias,
                                        int32_t hasResidual) {
  return matmul(x, weight->aligned + weight->offset, weight->sizes, weight->strides, 1, scales, bias, residual,
                &kSymmetric, NULL, out, activation, weightLayout, scalesLayout, hasBias, hasResidual, W4A16_ELEM_F16,
                W4A16_ELEM_F16);
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

/* With zero points: _mlir_ciface_w4a16_rt_matmul_zp_<w>_<z>, w the weight's and z the zero points' element
 * type (f16 with an empty tensor when the zero point is the constant zero_point); with bf16 activations or
 * scales: _mlir_ciface_w4a16_rt_matmul_typed_<io>_<s>_<w>_<z>, io the element type of x, bias, residual and
 * out and s that of the scales. Every such memref has the same descriptor layout as its f16 or i8
 * counterpart (bf16 is 16 raw bits), so one body serves them all. */
#define W4A16_ENTRY(NAME, IOTYPE, STYPE, WTYPE, WBYTES, ZTYPE, ZKIND)                                           \
  int32_t NAME(w4a16_memref2d_f16 *x, WTYPE *weight, w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,     \
               w4a16_memref2d_f16 *residual, ZTYPE *zeroPoints, w4a16_memref1d_i32 *groupIndex,                 \
               w4a16_memref2d_f16 *out, int32_t activation, int32_t weightLayout, int32_t scalesLayout,        \
               int32_t hasBias, int32_t hasResidual, int32_t hasZeroPoints, int32_t zeroPointLayout,           \
               int32_t zeroPointOffset, double zeroPoint, int32_t hasGroupIndex) {                             \
    ZeroPoints zp = {hasZeroPoints ? (const void *)(zeroPoints->aligned + zeroPoints->offset) : NULL,           \
                     zeroPoints->sizes, zeroPoints->strides, ZKIND, zeroPointLayout, zeroPointOffset, zeroPoint}; \
    return matmul(x, weight->aligned + weight->offset, weight->sizes, weight->strides, WBYTES, scales, bias,     \
                  residual, &zp, hasGroupIndex ? groupIndex : NULL, out, activation, weightLayout, scalesLayout, \
                  hasBias, hasResidual, IOTYPE, STYPE);                                                        \
  }
/* X(name, io type, scales type, weight memref, weight bytes, zero-point memref, zero-point kind) for every
 * entry of the two families: each zero-point element type of each weight type of each (io, scales) pair. */
#define W4A16_ZP_ENTRIES(X, PREFIX, IOTYPE, STYPE, W, WTYPE, WBYTES)                                              \
  X(PREFIX##W##_i32, IOTYPE, STYPE, WTYPE, WBYTES, w4a16_memref2d_i32, ZP_I32)                                   \
  X(PREFIX##W##_i8, IOTYPE, STYPE, WTYPE, WBYTES, w4a16_memref2d_i8, ZP_I8)                                      \
  X(PREFIX##W##_i4, IOTYPE, STYPE, WTYPE, WBYTES, w4a16_memref2d_i8, ZP_I4)                                      \
  X(PREFIX##W##_f16, IOTYPE, STYPE, WTYPE, WBYTES, w4a16_memref2d_f16, ZP_F16)                                   \
  X(PREFIX##W##_bf16, IOTYPE, STYPE, WTYPE, WBYTES, w4a16_memref2d_f16, ZP_BF16)                                 \
  X(PREFIX##W##_f32, IOTYPE, STYPE, WTYPE, WBYTES, w4a16_memref2d_f32, ZP_F32)
#define W4A16_WEIGHT_ENTRIES(X, PREFIX, IOTYPE, STYPE)                                                           \
  W4A16_ZP_ENTRIES(X, PREFIX, IOTYPE, STYPE, i32, w4a16_memref2d_i32, 4)                                       \
  W4A16_ZP_ENTRIES(X, PREFIX, IOTYPE, STYPE, i8, w4a16_memref2d_i8, 1)                                         \
  W4A16_ZP_ENTRIES(X, PREFIX, IOTYPE, STYPE, i4, w4a16_memref2d_i8, 1)
#define W4A16_ALL_ENTRIES(X)                                                                                     \
  W4A16_WEIGHT_ENTRIES(X, _mlir_ciface_w4a16_rt_matmul_zp_, W4A16_ELEM_F16, W4A16_ELEM_F16)                     \
  W4A16_WEIGHT_ENTRIES(X, _mlir_ciface_w4a16_rt_matmul_typed_bf16_f16_, W4A16_ELEM_BF16, W4A16_ELEM_F16)        \
  W4A16_WEIGHT_ENTRIES(X, _mlir_ciface_w4a16_rt_matmul_typed_bf16_bf16_, W4A16_ELEM_BF16, W4A16_ELEM_BF16)      \
  W4A16_WEIGHT_ENTRIES(X, _mlir_ciface_w4a16_rt_matmul_typed_f16_bf16_, W4A16_ELEM_F16, W4A16_ELEM_BF16)

W4A16_ALL_ENTRIES(W4A16_ENTRY)

/* --- every symbol compiled code may call, for JIT embedders ------------------------------------------ */

#define W4A16_SYMBOL(NAME, ...) {#NAME, (void *)NAME},
static const w4a16_rt_symbol kSymbols[] = {
    {"_mlir_ciface_w4a16_rt_matmul_i32", (void *)_mlir_ciface_w4a16_rt_matmul_i32},
    {"_mlir_ciface_w4a16_rt_matmul_i8", (void *)_mlir_ciface_w4a16_rt_matmul_i8},
    {"_mlir_ciface_w4a16_rt_matmul_i4", (void *)_mlir_ciface_w4a16_rt_matmul_i4},
    W4A16_ALL_ENTRIES(W4A16_SYMBOL)
    {"w4a16_rt_enter", (void *)w4a16_rt_enter},
    {"w4a16_rt_leave", (void *)w4a16_rt_leave},
};

const w4a16_rt_symbol *w4a16_rt_symbols(int *count) {
  *count = (int)(sizeof kSymbols / sizeof kSymbols[0]);
  return kSymbols;
}
