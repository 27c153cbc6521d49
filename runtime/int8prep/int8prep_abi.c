/* _mlir_ciface_w4a16_rt_int8_prep: the entry point code compiled by w4a16 calls for w4a16.int8_prep
 * (see w4a16/int8prep.h). Validates the shapes and the column indices, then runs the CPU reference or the
 * CUDA kernel. The lowered code never calls it with L = 0. Failures go to the compiled-code status
 * (w4a16/runtime_abi.h), never to stdout/stderr. */
#include "internal.h"
#include "rt_status.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int g_backend = -1; /* -1: not chosen yet */
static atomic_llong g_entryCalls;

/* Unspecified after a failure, but never uninitialised memory for the code that reads it next. */
static void zeroFill(w4a16_memref2d_f16 *m) {
  for (int64_t i = 0; i < m->sizes[0]; ++i)
    for (int64_t j = 0; j < m->sizes[1]; ++j)
      m->aligned[m->offset + i * m->strides[0] + j * m->strides[1]] = 0;
}

static int32_t fail(w4a16_memref2d_f16 *subA, w4a16_memref2d_f16 *subB, w4a16_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int32_t fail(w4a16_memref2d_f16 *subA, w4a16_memref2d_f16 *subB, w4a16_status status, const char *fmt, ...) {
  char why[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  if (subA && subB) {
    zeroFill(subA);
    zeroFill(subB);
  }
  return w4a16_rt_fail(status, "w4a16.int8_prep: %s", why);
}

w4a16_backend w4a16_int8prep_backend(void) {
  int b = atomic_load(&g_backend);
  if (b < 0) {
    const char *env = getenv("W4A16_BACKEND");
    if (env && strcmp(env, "cpu") == 0)
      b = W4A16_BACKEND_CPU;
    else if (env && strcmp(env, "cuda") == 0)
      b = W4A16_BACKEND_CUDA;
    else
      b = w4a16_int8prep_cuda_available() ? W4A16_BACKEND_CUDA : W4A16_BACKEND_CPU;
    int unset = -1;
    atomic_compare_exchange_strong(&g_backend, &unset, b);
    b = atomic_load(&g_backend);
  }
  return (w4a16_backend)b;
}

w4a16_backend w4a16_int8prep_set_backend(w4a16_backend backend) {
  w4a16_backend previous = w4a16_int8prep_backend();
  atomic_store(&g_backend, (int)backend);
  return previous;
}

int64_t w4a16_int8prep_entry_calls(void) { return (int64_t)atomic_load(&g_entryCalls); }

int32_t _mlir_ciface_w4a16_rt_int8_prep(w4a16_memref2d_f16 *A, w4a16_memref2d_i8 *CB, w4a16_memref1d_f32 *SCB,
                                        w4a16_memref1d_i64 *cols, w4a16_memref2d_f16 *subA,
                                        w4a16_memref2d_f16 *subB) {
  if (!A || !CB || !SCB || !cols || !subA || !subB)
    return fail(subA, subB, W4A16_ERR_NULL_POINTER, "a memref descriptor is NULL");
  const int64_t M = A->sizes[0], K = A->sizes[1], N = CB->sizes[0], L = cols->sizes[0];
  if (CB->sizes[1] != K || SCB->sizes[0] != N || subA->sizes[0] != M || subA->sizes[1] != L ||
      subB->sizes[0] != L || subB->sizes[1] != N)
    return fail(subA, subB, W4A16_ERR_BAD_SHAPE,
                "shapes do not agree: A %lldx%lld, CB %lldx%lld, SCB %lld, cols %lld, subA %lldx%lld, subB %lldx%lld",
                (long long)M, (long long)K, (long long)CB->sizes[0], (long long)CB->sizes[1], (long long)SCB->sizes[0],
                (long long)L, (long long)subA->sizes[0], (long long)subA->sizes[1], (long long)subB->sizes[0],
                (long long)subB->sizes[1]);
  if (M * L + L * N == 0)
    return 0;
  atomic_fetch_add(&g_entryCalls, 1);
  Int8PrepView v = {A->aligned + A->offset,
                    (const int8_t *)CB->aligned + CB->offset,
                    SCB->aligned + SCB->offset,
                    cols->aligned + cols->offset,
                    subA->aligned + subA->offset,
                    subB->aligned + subB->offset,
                    M, N, K, L,
                    {A->strides[0], A->strides[1]},
                    {CB->strides[0], CB->strides[1]},
                    SCB->strides[0],
                    cols->strides[0],
                    {subA->strides[0], subA->strides[1]},
                    {subB->strides[0], subB->strides[1]}};
  int64_t bad = w4a16_int8prep_bad_column(&v);
  if (bad >= 0)
    return fail(subA, subB, W4A16_ERR_BAD_ARGUMENT, "cols[%lld] = %lld is outside [0, K = %lld)", (long long)bad,
                (long long)v.cols[bad * v.sCols], (long long)K);
  if (w4a16_int8prep_backend() == W4A16_BACKEND_CPU) {
    w4a16_int8prep_cpu_strided(&v);
    return 0;
  }
  w4a16_status status = w4a16_int8prep_cuda_from_host(&v);
  return status == W4A16_OK ? 0 : fail(subA, subB, status, "the CUDA backend failed");
}
