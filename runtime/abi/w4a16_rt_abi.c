/* The runtime's MLIR-facing side: memref C-interface entry points called by lowered code, and the plans
 * that the generated prepare entry points create (see include/w4a16/runtime_abi.h for the contract).
 *
 * Nothing here prints or aborts: a failure goes to the thread's compiled-code status (status.c) and is
 * returned. Host-target code holds host memrefs: on the CPU backend they go straight to the plan; on CUDA the
 * weight is copied to the device once (when prepared) and x/bias/residual/out on every call. GPU-target code
 * (inside w4a16_rt_enter_device) holds device memrefs: prepare reads the weight back once to normalise it, and
 * a call only launches the plan on the caller's stream. */
#include "half.h"
#include "plan_weights.h"
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

typedef struct PlanEntry {
  GroupKey key;
  uint64_t preparedBy; /* the prepare call (w4a16_rt_prepare_id) that made the plan */
  w4a16_plan *plan;
  w4a16_backend runsOn; /* key.backend, or the CPU where the CUDA kernels do not take the form */
  struct PlanEntry *next;
} PlanEntry;

/* LLVM lowers an f32 -> bf16 truncation (every bf16 model's arith.truncf) to a call of __truncsfbf2 on x86 CPUs
 * without AVX512-BF16, and libgcc has it only from GCC 13: on Debian 12 (GCC 12) compiled bf16 code did not load
 * ("undefined symbol: __truncsfbf2") unless the CPU happened to have the instruction. Programs that run compiled
 * code link this file, so it provides the conversion: round to nearest even, NaN kept quiet. Weak: a libgcc or
 * compiler-rt that has it wins. The bf16 result travels in the low 16 bits of xmm0, where _Float16 is returned. */
#if defined(__x86_64__) && defined(__FLT16_MAX__)
__attribute__((weak)) _Float16 __truncsfbf2(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  uint16_t b = (bits & 0x7fffffffu) > 0x7f800000u ? (uint16_t)((bits >> 16) | 0x40u)
                                                   : (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  _Float16 h;
  memcpy(&h, &b, sizeof h);
  return h;
}
/* f64 -> bf16 (torch-mlir's f64 scalars truncated into a bf16 model), rounded once: the double goes to f32 rounded
 * to odd (toward zero, the last bit set when inexact), which keeps the information the second rounding needs
 * (24 >= 8 + 2 bits), then to bf16 to nearest even. */
__attribute__((weak)) _Float16 __truncdfbf2(double d) {
  float f = (float)d;
  if (f == f && (double)f != d) { /* inexact (overflow to infinity included) */
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if (d < 0 ? (double)f < d : (double)f > d) /* rounded away from zero: one step back (sign-magnitude bits) */
      bits -= 1;
    bits |= 1;
    memcpy(&f, &bits, sizeof f);
  }
  return __truncsfbf2(f);
}
#endif

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static PlanEntry *g_plans;
static int64_t g_plansCreated;
static int64_t g_cpuFallbacks;          /* plans on the CPU reference under the CUDA backend, and why the latest */
static char g_cpuFallbackReason[FALLBACK_SIZE];
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

static bool sameKey(const PlanKey *a, const PlanKey *b) {
  return a->weight == b->weight && a->scales == b->scales && a->K == b->K && a->N == b->N &&
         a->groupSize == b->groupSize && a->zeroPoints == b->zeroPoints && a->zpKind == b->zpKind &&
         a->zpLayout == b->zpLayout && a->zpOffset == b->zpOffset && a->zeroPoint == b->zeroPoint &&
         a->weightLayout == b->weightLayout && a->scalesLayout == b->scalesLayout && a->codeBytes == b->codeBytes &&
         a->backend == b->backend && a->ioType == b->ioType && a->scalesType == b->scalesType &&
         a->groupIndex == b->groupIndex && a->onDevice == b->onDevice &&
         memcmp(a->weightStrides, b->weightStrides, sizeof a->weightStrides) == 0 &&
         memcmp(a->scalesStrides, b->scalesStrides, sizeof a->scalesStrides) == 0 &&
         memcmp(a->zpStrides, b->zpStrides, sizeof a->zpStrides) == 0;
}

static bool sameGroup(const GroupKey *a, const GroupKey *b) {
  if (a->count != b->count || a->glu != b->glu)
    return false;
  for (int i = 0; i < a->count; ++i)
    if (!sameKey(&a->member[i], &b->member[i]))
      return false;
  return true;
}

/* g_lock held. */
static PlanEntry **findEntry(const GroupKey *key) {
  PlanEntry **link = &g_plans;
  while (*link && !sameGroup(&(*link)->key, key))
    link = &(*link)->next;
  return link;
}

/* A call outside prepare: the plan prepare made, never a new one (a plan is a snapshot the caller asked for). */
static w4a16_status preparedPlan(const GroupKey *key, w4a16_plan **plan, w4a16_backend *runsOn, char *why) {
  pthread_mutex_lock(&g_lock);
  PlanEntry *e = *findEntry(key);
  *plan = e ? e->plan : NULL;
  *runsOn = e ? e->runsOn : key->member[0].backend;
  pthread_mutex_unlock(&g_lock);
  if (e)
    return W4A16_OK;
  const char *fn = w4a16_rt_function();
  snprintf(why, WHY_SIZE, "weight not prepared for the %s backend: call w4a16c_prepare_%s first (plans are snapshots "
                          "taken by prepare)",
           key->member[0].backend == W4A16_BACKEND_CUDA ? "CUDA" : "CPU", fn ? fn : "<function>");
  return W4A16_ERR_BAD_ARGUMENT;
}

/* Inside prepare: the plan is made from the weight's bytes now, once per prepare call (a weight used by
 * several calls of one function is prepared once). A failure drops the old plan too: no stale snapshot
 * outlives a prepare that did not succeed. */
static w4a16_status preparePlan(const GroupKey *key, uint64_t prepareId, w4a16_plan **plan, w4a16_backend *runsOn,
                                char *why) {
  pthread_mutex_lock(&g_lock);
  PlanEntry **link = findEntry(key), *e = *link;
  w4a16_status status = W4A16_OK;
  if (!e || e->preparedBy != prepareId) {
    w4a16_plan *fresh = NULL;
    w4a16_backend freshRunsOn = key->member[0].backend;
    char fallback[FALLBACK_SIZE];
    status = planFromWeights(key, &fresh, &freshRunsOn, fallback, why);
    if (status == W4A16_OK && fallback[0]) {
      ++g_cpuFallbacks;
      memcpy(g_cpuFallbackReason, fallback, sizeof fallback);
    }
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
  *runsOn = status == W4A16_OK ? e->runsOn : key->member[0].backend;
  pthread_mutex_unlock(&g_lock);
  return status;
}

/* --- one call ----------------------------------------------------------------------------------- */

static bool rowMajor2d(const int64_t *sizes, const int64_t *strides) {
  return (strides[1] == 1 || sizes[1] <= 1) && (strides[0] == sizes[1] || sizes[0] <= 1);
}

/* What a plan is made from (weight, scales, zero points) may be any window of a larger buffer: the plan reads it
 * through its strides once, when it is prepared (weights.c). */
static bool window2d(const int64_t *strides) { return strides[0] >= 0 && strides[1] >= 0; }

/* One launch of plan: a plain call's single output (residual allowed), or a merged call's outputs. */
static w4a16_status launch(const w4a16_plan *plan, const uint16_t *x, int64_t M, const uint16_t *bias,
                           const uint16_t *residual, w4a16_activation act, const w4a16_outputs *outs, void *stream) {
  if (outs->count == 1 && !outs->glu)
    return w4a16_plan_run(plan, x, M, bias, residual, act, outs->out[0], stream);
  return w4a16_plan_run_outputs(plan, x, M, bias, act, outs, stream);
}

/* Runs plan with x (M, K), bias (N, the plan's columns) and residual as the memrefs hold them: on the device
 * already (GPU-target code: launched on the caller's stream), host memory on the CPU backend, or host memory
 * staged through the device for a CUDA plan. */
static w4a16_status runPlan(const w4a16_plan *plan, w4a16_backend backend, const uint16_t *x, int64_t M, int64_t K,
                            int64_t N, const uint16_t *bias, const uint16_t *residual, w4a16_activation act,
                            const w4a16_outputs *outs, bool onDevice, char *why) {
  if (onDevice || backend == W4A16_BACKEND_CPU) {
    w4a16_status status = launch(plan, x, M, bias, residual, act, outs, onDevice ? w4a16_rt_stream() : NULL);
    if (status != W4A16_OK)
      snprintf(why, WHY_SIZE, "%s", w4a16_last_error());
    return status;
  }
#if W4A16_WITH_CUDA
  bool ok = true;
  uint16_t *dX = copyToDevice(x, (size_t)(M * K) * 2, &ok), *dBias = copyToDevice(bias, (size_t)N * 2, &ok);
  uint16_t *dResidual = copyToDevice(residual, (size_t)(M * N) * 2, &ok);
  w4a16_outputs dOuts = *outs;
  for (int i = 0; i < outs->count; ++i) {
    dOuts.out[i] = NULL; /* freed below, allocated or not */
    ok = ok && cudaMalloc((void **)&dOuts.out[i], (size_t)(M * outs->cols[i]) * 2) == cudaSuccess;
  }
  w4a16_status status = W4A16_ERR_CUDA;
  if (!ok)
    snprintf(why, WHY_SIZE, "staging the operands on the GPU: %s", cudaGetErrorString(cudaGetLastError()));
  else if ((status = launch(plan, dX, M, dBias, dResidual, act, &dOuts, NULL)) != W4A16_OK)
    snprintf(why, WHY_SIZE, "%s", w4a16_last_error());
  for (int i = 0; i < outs->count && status == W4A16_OK; ++i)
    if (cudaMemcpy(outs->out[i], dOuts.out[i], (size_t)(M * outs->cols[i]) * 2, cudaMemcpyDeviceToHost) != cudaSuccess) {
      status = W4A16_ERR_CUDA;
      snprintf(why, WHY_SIZE, "copying the result from the GPU: %s", cudaGetErrorString(cudaGetLastError()));
    }
  cudaFree(dX), cudaFree(dBias), cudaFree(dResidual);
  for (int i = 0; i < outs->count; ++i)
    cudaFree(dOuts.out[i]);
  return status;
#else
  (void)plan, (void)x, (void)M, (void)K, (void)N, (void)bias, (void)residual, (void)act, (void)outs;
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
  if (!rowMajor2d(x->sizes, x->strides) || !rowMajor2d(out->sizes, out->strides) ||
      (hasBias && bias->strides[0] != 1 && N > 1) || (hasResidual && !rowMajor2d(residual->sizes, residual->strides))) {
    snprintf(why, WHY_SIZE, "x, out, bias and residual must be contiguous and row-major");
    return W4A16_ERR_BAD_ARGUMENT;
  }
  if (!window2d(wStrides) || !window2d(scales->strides)) {
    snprintf(why, WHY_SIZE, "weight strides (%lld, %lld), scales strides (%lld, %lld): negative strides are not taken",
             (long long)wStrides[0], (long long)wStrides[1], (long long)scales->strides[0],
             (long long)scales->strides[1]);
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
  const int packedIn = zeroPointShape(zp->layout, groups, N, &rows, &cols);
  if (layout < 0 || layout >= W4A16_ZP_LAYOUT_COUNT || (packedIn == 32 && zp->kind != ZP_I32) ||
      (packedIn == 8 && zp->kind != ZP_I8) ||
      zp->sizes[0] != rows || zp->sizes[1] != cols || !window2d(zp->strides)) {
    snprintf(why, WHY_SIZE, "zero points are %lldx%lld (strides %lld, %lld), expected a %lldx%lld %s tensor",
             (long long)zp->sizes[0], (long long)zp->sizes[1], (long long)zp->strides[0], (long long)zp->strides[1],
             (long long)rows, (long long)cols,
             w4a16_zero_point_layout_name(layout) ? w4a16_zero_point_layout_name(layout) : "?");
    return W4A16_ERR_BAD_SHAPE;
  }
  if ((zp->layout & W4A16_ZP_SIGNED) && (zp->kind == ZP_F16 || zp->kind == ZP_BF16 || zp->kind == ZP_F32)) {
    snprintf(why, WHY_SIZE, "zero-point layout code %d: W4A16_ZP_SIGNED with float zero points (only integer nibbles "
             "are two's-complement)", zp->layout);
    return W4A16_ERR_BAD_ARGUMENT;
  }
  if ((zp->layout & W4A16_ZP_SUBTRACTED) && !(zp->layout & W4A16_ZP_OFFSETS)) {
    snprintf(why, WHY_SIZE, "zero-point layout code %d: W4A16_ZP_SUBTRACTED without W4A16_ZP_OFFSETS (only offsets "
             "are subtracted)", zp->layout);
    return W4A16_ERR_BAD_ARGUMENT;
  }
  return W4A16_OK;
}

/* --- merged calls (issue #21) ----------------------------------------------------------------------- */

/* A w4a16.merged_matmul in progress on this thread: w4a16_rt_merged announced `expected` member calls, which
 * lowered code makes next, in order; each is checked and recorded, and the last runs them as one launch. */
typedef struct MergedCall {
  int expected, count;
  bool glu;
  w4a16_status status; /* the first failure among the members so far, and why */
  char why[WHY_SIZE];
  GroupKey key;
  const uint16_t *x, *bias[W4A16_MAX_MERGED];
  int64_t M, K;
  int activation[W4A16_MAX_MERGED];
  w4a16_memref2d_f16 out[W4A16_MAX_MERGED];
} MergedCall;

static _Thread_local MergedCall t_merged;

int32_t _mlir_ciface_w4a16_rt_merged(int32_t count, int32_t glu) {
  if (count < 2 || count > W4A16_MAX_MERGED || (glu && count != 2))
    return w4a16_rt_fail(W4A16_ERR_BAD_ARGUMENT, "w4a16.merged_matmul: %d members%s (2 to %d; a glu has 2)",
                         (int)count, glu ? " with glu" : "", W4A16_MAX_MERGED);
  t_merged = (MergedCall){.expected = count, .glu = glu != 0};
  return 0;
}

/* The members' biases as the plan's columns: side by side, or for a glu interleaved by fours as its plan interleaves
 * gate and up (runtime.h, w4a16_outputs: column 8j + e is the gate's 4j + e, column 8j + 4 + e up's). Device memory
 * from the call's arena (GPU-target code; copies enqueued on the caller's stream), else host memory the caller frees
 * (*owned). NULL without biases. */
static const uint16_t *joinedBias(const MergedCall *c, int64_t N, bool onDevice, void **owned, char *why) {
  *owned = NULL;
  if (!c->bias[0])
    return NULL;
  uint16_t *joined = onDevice ? w4a16_rt_device_alloc(N * 2) : (*owned = malloc((size_t)N * 2));
  for (int i = 0, first = 0; joined && i < c->count; first += (int)c->key.member[i++].N) {
    const int64_t n = c->key.member[i].N;
    /* runs of `run` values, `stride` apart in joined, from `start` */
    const int64_t run = c->glu ? 4 : n, runs = n / run, stride = c->glu ? 8 : n, start = c->glu ? 4 * i : first;
#if W4A16_WITH_CUDA
    if (onDevice && cudaMemcpy2DAsync(joined + start, (size_t)stride * 2, c->bias[i], (size_t)run * 2, (size_t)run * 2,
                                      (size_t)runs, cudaMemcpyDeviceToDevice, (cudaStream_t)w4a16_rt_stream()) != cudaSuccess) {
      snprintf(why, WHY_SIZE, "joining the biases: %s", cudaGetErrorString(cudaGetLastError()));
      return NULL;
    }
#endif
    for (int64_t r = 0; !onDevice && r < runs; ++r)
      memcpy(joined + start + r * stride, c->bias[i] + r * run, (size_t)run * 2);
  }
  if (!joined)
    snprintf(why, WHY_SIZE, "out of memory joining the biases");
  return joined;
}

/* The last member has been recorded: one plan for all, one launch. */
static w4a16_status runMerged(MergedCall *c, bool onDevice, char *why) {
  const PlanKey *lead = &c->key.member[0];
  int64_t N = 0;
  w4a16_outputs outs = {.count = c->glu ? 1 : c->count, .glu = c->glu};
  for (int i = 0; i < c->count; ++i) {
    N += c->key.member[i].N;
    if (!c->glu)
      outs.out[i] = c->out[i].aligned + c->out[i].offset, outs.cols[i] = c->key.member[i].N;
  }
  if (c->glu) {
    outs.out[0] = c->out[0].aligned + c->out[0].offset, outs.cols[0] = N / 2;
    if (c->key.member[1].N != lead->N || outs.out[0] != c->out[1].aligned + c->out[1].offset ||
        c->activation[1] != W4A16_ACT_NONE) {
      snprintf(why, WHY_SIZE, "a glu's gate and up must have the same N, write one result and up no activation");
      return W4A16_ERR_BAD_ARGUMENT;
    }
  }
  for (int i = 1; i < (c->glu ? 1 : c->count); ++i)
    if (c->activation[i] != c->activation[0]) {
      snprintf(why, WHY_SIZE, "members with different activations");
      return W4A16_ERR_BAD_ARGUMENT;
    }
  w4a16_plan *plan = NULL;
  w4a16_backend runsOn = lead->backend;
  const uint64_t prepareId = w4a16_rt_prepare_id();
  w4a16_status status = W4A16_OK;
  if (prepareId)
    status = preparePlan(&c->key, prepareId, &plan, &runsOn, why);
  else if (c->M > 0)
    status = preparedPlan(&c->key, &plan, &runsOn, why);
  if (status != W4A16_OK || c->M == 0)
    return status;
  void *owned = NULL;
  const uint16_t *bias = joinedBias(c, N, onDevice, &owned, why);
  if (c->bias[0] && !bias)
    return W4A16_ERR_OUT_OF_MEMORY;
  const w4a16_activation act = (w4a16_activation)(g_forcedActivation >= 0 ? g_forcedActivation : c->activation[0]);
  status = runPlan(plan, runsOn, c->x, c->M, c->K, N, bias, NULL, act, &outs, onDevice, why);
  free(owned);
  return status;
}

/* A member call of a merged call: recorded, checked against the first; the last one runs them all. */
static int32_t mergedMember(const PlanKey *key, const uint16_t *x, int64_t M, const uint16_t *bias, bool hasResidual,
                            w4a16_memref2d_f16 *out, int32_t activation, w4a16_status status, const char *why) {
  MergedCall *c = &t_merged;
  const int i = c->count++;
  c->key.count = c->count, c->key.glu = c->glu;
  c->key.member[i] = *key;
  c->bias[i] = bias, c->out[i] = *out, c->activation[i] = activation;
  if (i == 0)
    c->x = x, c->M = M, c->K = key->K;
  if (status == W4A16_OK && (hasResidual || key->groupIndex || x != c->x || M != c->M || key->K != c->K ||
                             key->ioType != c->key.member[0].ioType || (bias != NULL) != (c->bias[0] != NULL))) {
    status = W4A16_ERR_BAD_ARGUMENT;
    why = "the members must read one x, have no residual and no g_idx, and biases on all or none";
  }
  if (status != W4A16_OK && c->status == W4A16_OK) {
    c->status = status;
    snprintf(c->why, sizeof c->why, "member %d: %s", i, why);
  }
  if (c->count < c->expected)
    return 0; /* the last member reports */
  c->expected = 0;
  const bool onDevice = key->onDevice;
  char runWhy[WHY_SIZE] = "";
  status = c->status == W4A16_OK ? runMerged(c, onDevice, runWhy) : c->status;
  if (status == W4A16_OK)
    return 0;
  for (int k = 0; k < c->count; ++k)
    zeroFill(&c->out[k], onDevice);
  return w4a16_rt_fail(status, "w4a16.merged_matmul (%d members, M = %lld, K = %lld): %s", c->count, (long long)c->M,
                       (long long)c->K, c->status != W4A16_OK ? c->why : runWhy);
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
                 groupIndex ? groupIndex->aligned + groupIndex->offset : NULL, onDevice,
                 {wStrides[0], wStrides[1]}, {scales->strides[0], scales->strides[1]},
                 {zp->data ? zp->strides[0] : 0, zp->data ? zp->strides[1] : 0}};
  if (t_merged.expected)
    return mergedMember(&key, x->aligned + x->offset, M, hasBias ? bias->aligned + bias->offset : NULL, hasResidual,
                        out, activation, status, why);
  const GroupKey single = {1, false, {key}};
  if (status == W4A16_OK && prepareId)
    status = preparePlan(&single, prepareId, &plan, &runsOn, why);
  else if (status == W4A16_OK && M > 0) /* an empty batch computes nothing and needs no plan */
    status = preparedPlan(&single, &plan, &runsOn, why);
  if (status == W4A16_OK && M > 0) {
    w4a16_activation act = (w4a16_activation)(g_forcedActivation >= 0 ? g_forcedActivation : activation);
    const w4a16_outputs outs = {1, 0, {out->aligned + out->offset}, {N}};
    status = runPlan(plan, runsOn, x->aligned + x->offset, M, K, N, hasBias ? bias->aligned + bias->offset : NULL,
                     hasResidual ? residual->aligned + residual->offset : NULL, act, &outs, onDevice, why);
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
    {"_mlir_ciface_w4a16_rt_merged", (void *)_mlir_ciface_w4a16_rt_merged},
    {"w4a16_rt_enter", (void *)w4a16_rt_enter},
    {"w4a16_rt_leave", (void *)w4a16_rt_leave},
};

const w4a16_rt_symbol *w4a16_rt_symbols(int *count) {
  *count = (int)(sizeof kSymbols / sizeof kSymbols[0]);
  return kSymbols;
}
