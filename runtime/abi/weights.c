/* Plans from the weights of compiled code (plan_weights.h): any layout the op accepts -> docs/contract.md §1's
 * packed (K/8, N) words and (K/G, N) scales, zero points and offsets normalised to f16, windows of larger buffers
 * read through their strides, device weights read back once, and the weights of a merged call joined into one
 * plan's columns. */
#include "half.h"
#include "plan_weights.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if W4A16_WITH_CUDA
#include <cuda_runtime.h>
#endif

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

#if W4A16_WITH_CUDA
void *copyToDevice(const void *host, size_t bytes, bool *ok) {
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
    void *dWeight = copyToDevice(packed, weightBytes, &ok), *dScales = copyToDevice(scales, scaleBytes, &ok);
    void *dZeroPoints = copyToDevice(zeroPoints, scaleBytes, &ok), *dOffsets = copyToDevice(offsets, scaleBytes, &ok);
    void *dGroupIndex = copyToDevice(groupIndex, (size_t)K * sizeof *groupIndex, &ok);
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
 * (code - z) * s + m, negated under W4A16_ZP_SUBTRACTED) and z is the constant; under W4A16_ZP_SIGNED an integer
 * zero point is its low (or named) nibble read as two's complement, plus 8. NULL when out of memory. *all8: every
 * zero point is 8 and there are no offsets (the symmetric form). *unsure: (g * N + n) of the first int8 zero point of 128..255 read
 * without a wrap, else -1: the matcher, which samples zero points of up to 8 bits in 0..15, did not learn whether
 * the IR extends them signed or unsigned, and from 128 up the two differ. */
static uint16_t *normalizeZeroPoints(const PlanKey *key, bool *all8, uint16_t **offsets, int64_t *unsure) {
  const int64_t groups = key->K / key->groupSize, N = key->N;
  const bool toOffsets = key->zpKind != ZP_NONE && (key->zpLayout & W4A16_ZP_OFFSETS);
  const int zpLayout = key->zpLayout & ~W4A16_ZP_FLAGS;
  const bool wraps = key->zpKind != ZP_NONE && (key->zpLayout & W4A16_ZP_WRAPS);
  const double offsetSign = toOffsets && (key->zpLayout & W4A16_ZP_SUBTRACTED) ? -1.0 : 1.0;
  const bool signedNibbles = key->zpKind != ZP_NONE && (key->zpLayout & W4A16_ZP_SIGNED);
  uint16_t *z = malloc((size_t)(groups * N) * sizeof *z);
  *offsets = toOffsets ? malloc((size_t)(groups * N) * sizeof **offsets) : NULL;
  if (!z || (toOffsets && !*offsets)) {
    free(z), free(*offsets);
    *offsets = NULL;
    return NULL;
  }
  *all8 = !toOffsets;
  *unsure = -1;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t n = 0; n < N; ++n) {
      double v = key->zeroPoint;
      if (key->zpKind != ZP_NONE) {
        int nibble;
        const int64_t i = w4a16_zp_element(zpLayout, g, n, groups, N, &nibble);
        switch (key->zpKind) {
        case ZP_I4: v = ((const uint8_t *)key->zeroPoints)[i] & 15; break; /* LLVM keeps an i4 in a byte */
        case ZP_I8:
          v = nibble >= 0 ? (double)((((const uint8_t *)key->zeroPoints)[i] >> (4 * nibble)) & 15u)
                          : (double)((const uint8_t *)key->zeroPoints)[i];
          if (v >= 128 && !wraps && !signedNibbles && *unsure < 0) *unsure = g * N + n;
          break;
        case ZP_F16: v = w4a16_h2f(((const uint16_t *)key->zeroPoints)[i]); break;
        case ZP_BF16: v = w4a16_bf2f(((const uint16_t *)key->zeroPoints)[i]); break;
        case ZP_F32: v = ((const float *)key->zeroPoints)[i]; break;
        default: {
          const uint32_t word = (uint32_t)((const int32_t *)key->zeroPoints)[i];
          v = nibble >= 0 ? (double)((word >> (4 * nibble)) & 15u) : (double)(int32_t)word;
        }
        }
        if (signedNibbles) /* s_z + 8 of the two's-complement nibble s_z */
          v = (double)(((int64_t)v & 15) ^ 8);
        v += key->zpOffset;
        if (wraps) /* an integer's value plus the offset, mod 16 */
          v = (double)((((int64_t)v % 16) + 16) % 16);
      }
      if (toOffsets) {
        (*offsets)[g * N + n] = w4a16_f2h((float)(offsetSign * v)); /* exact: f16 negates by its sign bit */
        v = key->zeroPoint;
      }
      z[g * N + n] = w4a16_f2h((float)v);
      *all8 &= v == W4A16_ZERO_POINT;
    }
  return z;
}

/* A weight in docs/contract.md §1's form, in host memory: packed (K/8, N) codes, (K/G, N) scales (f16 or bf16 as
 * the key says), z (K/G, N) f16 or NULL when every zero point is 8, offsets (K/G, N) f16 or NULL. */
typedef struct Normalized {
  const int32_t *packed;
  const uint16_t *scales;
  uint16_t *zeroPoints, *offsets;
  void *owned[2]; /* converted copies of the codes and the scales */
} Normalized;

static void freeNormalized(Normalized *n) {
  free(n->owned[0]), free(n->owned[1]), free(n->zeroPoints), free(n->offsets);
  *n = (Normalized){0};
}

static w4a16_status normalize(const PlanKey *key, Normalized *n, char *why) {
  const int layout = key->weightLayout & ~W4A16_WEIGHT_SIGNED_CODES;
  const uint32_t flip = key->weightLayout & W4A16_WEIGHT_SIGNED_CODES ? 8u : 0u;
  *n = (Normalized){key->weight, key->scales, NULL, NULL, {NULL, NULL}};
  if (layout != W4A16_WEIGHT_PACKED_K8_N || flip)
    n->packed = n->owned[0] = packCodes(key->weight, layout, flip, key->K, key->N);
  if (key->scalesLayout != W4A16_SCALES_G_N)
    n->scales = n->owned[1] = transposeScales(key->scales, key->K / key->groupSize, key->N);
  bool all8 = true;
  int64_t unsure = -1;
  n->zeroPoints = normalizeZeroPoints(key, &all8, &n->offsets, &unsure);
  if (!n->packed || !n->scales || !n->zeroPoints) {
    freeNormalized(n);
    snprintf(why, WHY_SIZE, "out of memory converting the weight to the packed layout");
    return W4A16_ERR_OUT_OF_MEMORY;
  }
  if (unsure >= 0) { /* a clear error, not a result the IR may not have meant */
    freeNormalized(n);
    snprintf(why, WHY_SIZE, "zero point (group %lld, column %lld) is an int8 of 128..255 (-128..-1 signed): int8 zero "
             "points must be 0..127, where reading them signed or unsigned gives the same number (4-bit checkpoints "
             "hold 0..15)", (long long)(unsure / key->N), (long long)(unsure % key->N));
    return W4A16_ERR_BAD_ARGUMENT;
  }
  if (all8) {
    free(n->zeroPoints);
    n->zeroPoints = NULL;
  }
  return W4A16_OK;
}

/* Where the CUDA kernels cannot run the shape, host weights run on the CPU reference: which backend, and why. */
static w4a16_backend backendFor(const PlanKey *key, char *fallback) {
  fallback[0] = 0;
  if (key->K % 128 != 0 && key->backend == W4A16_BACKEND_CUDA)
    snprintf(fallback, FALLBACK_SIZE, "K = %lld (the CUDA kernels take K a multiple of 128)", (long long)key->K);
  return key->K % 128 != 0 ? W4A16_BACKEND_CPU : key->backend;
}

/* The (rows, cols) of a zero-point tensor of this layout (flags ignored) for K / G groups and N columns; the bits
 * of the element that packs its nibbles (w4a16_zp_container_bits: 32, 8, or 0 when not packed). */
int zeroPointShape(int zpLayout, int64_t groups, int64_t N, int64_t *rows, int64_t *cols) {
  const int layout = zpLayout & ~W4A16_ZP_FLAGS;
  w4a16_zp_shape(layout, groups, N, rows, cols);
  return w4a16_zp_container_bits(layout);
}

/* Bytes of one zero point of each kind (an i4 takes a byte). */
static size_t zeroPointBytes(int kind) {
  return kind == ZP_I32 || kind == ZP_F32 ? 4 : kind == ZP_F16 || kind == ZP_BF16 ? 2 : 1;
}

/* One stored operand of a plan as the memref states it: (rows, cols) elements of `bytes` bytes each, element (r, c)
 * at data + r * strides[0] + c * strides[1] elements. */
typedef struct Stored {
  const void *data;
  int64_t rows, cols;
  const int64_t *strides;
  size_t bytes;
} Stored;

static bool rowMajor(const Stored *s) {
  return (s->strides[1] == 1 || s->cols <= 1) && (s->strides[0] == s->cols || s->rows <= 1);
}

/* The operand's elements, row-major, in host memory: *copy (malloc'ed, the caller frees it), or NULL where data
 * already is that (host memory, row-major). Device memory (GPU-target code) is read back here, once per prepare:
 * the elements' whole span, then gathered on the host where the operand is a window with other strides. */
static w4a16_status hostRowMajor(const Stored *s, bool onDevice, void **copy, char *why) {
  *copy = NULL;
  if (!s->data || s->rows <= 0 || s->cols <= 0 || (!onDevice && rowMajor(s)))
    return W4A16_OK;
  const char *from = s->data;
  void *staged = NULL;
  if (onDevice) {
#if W4A16_WITH_CUDA
    const size_t span = (size_t)(1 + (s->rows - 1) * s->strides[0] + (s->cols - 1) * s->strides[1]);
    if (!(staged = malloc(span * s->bytes))) {
      snprintf(why, WHY_SIZE, "out of memory reading the weight back from the GPU");
      return W4A16_ERR_OUT_OF_MEMORY;
    }
    if (cudaMemcpy(staged, s->data, span * s->bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
      free(staged);
      snprintf(why, WHY_SIZE, "reading the weight back from the GPU (are the weight's pointers device memory?): %s",
               cudaGetErrorString(cudaGetLastError()));
      return W4A16_ERR_CUDA;
    }
    from = staged;
    if (rowMajor(s)) {
      *copy = staged;
      return W4A16_OK;
    }
#else
    snprintf(why, WHY_SIZE, "this build has no CUDA backend");
    return W4A16_ERR_NO_DEVICE;
#endif
  }
  char *out = malloc((size_t)(s->rows * s->cols) * s->bytes);
  if (!out) {
    free(staged);
    snprintf(why, WHY_SIZE, "out of memory reading a strided weight");
    return W4A16_ERR_OUT_OF_MEMORY;
  }
  for (int64_t r = 0; r < s->rows; ++r)
    for (int64_t c = 0; c < s->cols; ++c)
      memcpy(out + (size_t)(r * s->cols + c) * s->bytes, from + (size_t)(r * s->strides[0] + c * s->strides[1]) * s->bytes,
             s->bytes);
  free(staged);
  *copy = out;
  return W4A16_OK;
}

/* The key's weight, scales, zero points and g_idx as row-major host arrays in *host (copies in owned[0..3], for the
 * caller to free), whether they are windows of larger buffers or on the device (GPU-target code: read back once;
 * prepare may synchronise, a call never does). A device weight's plan is a CUDA plan or nothing: device pointers
 * cannot run on the CPU reference. */
static w4a16_status hostWeights(const PlanKey *key, PlanKey *host, void *owned[4], char *why) {
  if (key->onDevice && key->backend != W4A16_BACKEND_CUDA) {
    snprintf(why, WHY_SIZE, "GPU-target code needs the CUDA backend (W4A16_BACKEND=cpu is set, or this build or "
                            "machine has no usable GPU)");
    return W4A16_ERR_NO_DEVICE;
  }
  if (key->onDevice && key->K % 128 != 0) {
    snprintf(why, WHY_SIZE, "K = %lld: GPU-target code needs K a multiple of 128 (the CUDA kernels walk K in steps "
                            "of 128; the host target runs such a weight on the CPU reference)", (long long)key->K);
    return W4A16_ERR_BAD_SHAPE;
  }
  const int64_t groups = key->K / key->groupSize, one[2] = {key->K, 1};
  Stored operand[4] = {{key->weight, 0, 0, key->weightStrides, (size_t)key->codeBytes},
                       {key->scales, key->scalesLayout == W4A16_SCALES_G_N ? groups : key->N,
                        key->scalesLayout == W4A16_SCALES_G_N ? key->N : groups, key->scalesStrides, 2},
                       {key->zeroPoints, 0, 0, key->zpStrides, zeroPointBytes(key->zpKind)},
                       {key->groupIndex, 1, key->K, one, sizeof(int32_t)}}; /* the ABI checked g_idx contiguous */
  w4a16_weight_shape(key->weightLayout & ~W4A16_WEIGHT_SIGNED_CODES, key->K, key->N, &operand[0].rows, &operand[0].cols);
  if (key->zpKind != ZP_NONE)
    zeroPointShape(key->zpLayout, groups, key->N, &operand[2].rows, &operand[2].cols);
  for (int i = 0; i < 4; ++i) {
    w4a16_status status = hostRowMajor(&operand[i], key->onDevice, &owned[i], why);
    if (status != W4A16_OK)
      return status;
  }
  *host = *key;
  host->weight = owned[0] ? owned[0] : key->weight;
  host->scales = owned[1] ? owned[1] : key->scales;
  host->zeroPoints = owned[2] ? owned[2] : key->zeroPoints;
  host->groupIndex = owned[3] ? owned[3] : key->groupIndex;
  host->onDevice = false;
  return W4A16_OK;
}

/* Column c of member m in the joined plan: side by side, or (glu) gate and up interleaved by fours so that the
 * kernels' 8-column epilogue item holds 4 gate/up pairs (runtime.h, w4a16_plan_run_outputs). */
static int64_t joinedColumn(const GroupKey *g, int m, int64_t c) {
  if (g->glu)
    return 8 * (c / 4) + 4 * m + c % 4;
  int64_t first = 0;
  for (int i = 0; i < m; ++i)
    first += g->member[i].N;
  return first + c;
}

/* The members' normalised weights as one (K/8, N) / (K/G, N) set of arrays, N the sum of theirs. */
static w4a16_status join(const GroupKey *g, const Normalized *n, int64_t N, Normalized *out, char *why) {
  const PlanKey *lead = &g->member[0];
  const int64_t rows = lead->K / 8, groups = lead->K / lead->groupSize;
  bool anyZeroPoints = false, offsets = false;
  for (int m = 0; m < g->count; ++m)
    anyZeroPoints |= n[m].zeroPoints != NULL, offsets |= n[m].offsets != NULL;
  int32_t *packed = malloc((size_t)(rows * N) * sizeof *packed);
  uint16_t *scales = malloc((size_t)(groups * N) * sizeof *scales);
  *out = (Normalized){packed, scales, anyZeroPoints ? malloc((size_t)(groups * N) * 2) : NULL,
                      offsets ? malloc((size_t)(groups * N) * 2) : NULL, {packed, scales}};
  if (!packed || !scales || (anyZeroPoints && !out->zeroPoints) || (offsets && !out->offsets)) {
    freeNormalized(out);
    snprintf(why, WHY_SIZE, "out of memory joining the merged weights");
    return W4A16_ERR_OUT_OF_MEMORY;
  }
  for (int m = 0; m < g->count; ++m) {
    const int64_t Nm = g->member[m].N;
    for (int64_t c = 0; c < Nm; ++c) {
      const int64_t to = joinedColumn(g, m, c);
      for (int64_t r = 0; r < rows; ++r)
        packed[r * N + to] = n[m].packed[r * Nm + c];
      for (int64_t q = 0; q < groups; ++q) {
        scales[q * N + to] = n[m].scales[q * Nm + c];
        if (anyZeroPoints)
          out->zeroPoints[q * N + to] = n[m].zeroPoints ? n[m].zeroPoints[q * Nm + c] : w4a16_f2h(W4A16_ZERO_POINT);
        if (offsets)
          out->offsets[q * N + to] = n[m].offsets ? n[m].offsets[q * Nm + c] : 0;
      }
    }
  }
  return W4A16_OK;
}

w4a16_status planFromWeights(const GroupKey *g, w4a16_plan **plan, w4a16_backend *runsOn, char *fallback, char *why) {
  PlanKey host[W4A16_MAX_MERGED];
  void *owned[W4A16_MAX_MERGED][4] = {{NULL}};
  Normalized n[W4A16_MAX_MERGED] = {{0}}, joined = {0};
  w4a16_status status = W4A16_OK;
  int64_t N = 0;
  for (int m = 0; m < g->count && status == W4A16_OK; ++m) {
    status = hostWeights(&g->member[m], &host[m], owned[m], why);
    if (status == W4A16_OK)
      status = normalize(&host[m], &n[m], why);
    N += g->member[m].N;
  }
  if (status == W4A16_OK && g->count > 1)
    status = join(g, n, N, &joined, why);
  if (status == W4A16_OK) {
    const PlanKey *lead = &host[0];
    const Normalized *w = g->count > 1 ? &joined : &n[0];
    *runsOn = backendFor(&g->member[0], fallback);
    status = createPlan(*runsOn, w->packed, w->scales, w->zeroPoints, w->offsets, lead->groupIndex, lead->K, N,
                        lead->groupSize, (w4a16_element_type)lead->ioType, (w4a16_element_type)lead->scalesType,
                        plan, why);
  }
  freeNormalized(&joined);
  for (int m = 0; m < g->count; ++m) {
    freeNormalized(&n[m]);
    for (int i = 0; i < 4; ++i)
      free(owned[m][i]);
  }
  return status;
}
