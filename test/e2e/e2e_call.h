/* e2e-driver's calls: how a build's w4a16c_run_<f> / w4a16c_prepare_<f> is called (memref descriptors, the
 * pointer-only calling convention, the result read as (M, N)) and where the test build's data lives: host
 * memory, or (--gpu-target) device memory and a stream of the driver's own, with the CUDA graph checks and
 * timings of GPU-target calls. Without CUDA (W4A16_WITH_CUDA unset) only the host half does anything. */
#ifndef W4A16_E2E_CALL_H
#define W4A16_E2E_CALL_H

#define W4A16_E2E_TYPES_ONLY /* the example table stays in e2e_driver.c */
#include "examples.h"
#undef W4A16_E2E_TYPES_ONLY

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if W4A16_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

/* ---------------------------------------------------------------------------------------------------- */
/* Memref descriptors of any rank: {allocated, aligned, offset, sizes[r], strides[r]} is a sequence of     */
/* 8-byte words, so one struct with room for the largest rank is layout-compatible with every rank.      */
/* ---------------------------------------------------------------------------------------------------- */

typedef struct AnyMemref {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t dims[2 * kMaxRank]; /* sizes[0..rank-1], then strides[0..rank-1] */
} AnyMemref;

/* A row-major descriptor of data with the given rank and sizes. */
AnyMemref make_memref(void *data, int rank, const int64_t *sizes);

/* Result of a function returning one rank-2 memref (the ciface writes it through the first argument). */
typedef struct Memref2 {
  uint16_t *allocated;
  uint16_t *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} Memref2;

/* w4a16c_run_<f> / w4a16c_prepare_<f>: pointer arguments (the stream, the result, the memrefs), a status
 * returned. Pn takes n pointers. */
typedef int32_t (*P2)(void *, void *);
typedef int32_t (*P3)(void *, void *, void *);
typedef int32_t (*P4)(void *, void *, void *, void *);
typedef int32_t (*P5)(void *, void *, void *, void *, void *);
typedef int32_t (*P6)(void *, void *, void *, void *, void *, void *);
typedef int32_t (*P7)(void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*P8)(void *, void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*P9)(void *, void *, void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*P10)(void *, void *, void *, void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*P11)(void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*P12)(void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *);

/* How a build is called. Host-target code: host memrefs, a malloc'ed result. GPU-target code: the stream
 * first, device memrefs, the result in the runtime's arena of that stream (valid until the next call on it). */
typedef struct Target {
  bool gpu;
  void *stream; /* the cudaStream_t of GPU-target calls */
} Target;
static const Target kHostTarget = {false, NULL};

/* fn, an entry point of ex, called with a (ex->nargs memrefs) and its result written to ret, read as (M, N)
 * whatever its rank (ex->out_rank). Returns the call's status. */
int32_t call_entry(void *fn, const Target *t, Memref2 *ret, AnyMemref *a, const Example *ex);

/* The result is (M, N) row-major (rank 1 read as one row by call_entry). */
bool result_shape_ok(const Example *ex, const Memref2 *r, int64_t M);

/* Nonzero status: say which call failed and why; returns whether it succeeded. */
bool call_ok(int32_t status, const char *what, const char *build, int64_t M);

/* ---------------------------------------------------------------------------------------------------- */
/* Where the test build's data lives: host memory, or (--gpu-target) device memory and a stream. Without   */
/* CUDA only the host half exists (--gpu-target is refused before any of this runs).                     */
/* ---------------------------------------------------------------------------------------------------- */

#if W4A16_WITH_CUDA
/* Any CUDA failure ends the run: the driver has no way to recover, and a clear message beats a crash. */
#define CUDA_OK(call) cuda_ok((call), #call)
void cuda_ok(cudaError_t e, const char *what);
#endif

/* A copy of bytes bytes of host in the target's memory (host: the same pointer, nothing copied). */
void *target_copy(const Target *t, const void *host, size_t bytes);
/* Frees what target_copy made (host: nothing, the caller owns the host buffer). */
void target_free_copy(const Target *t, void *p);
/* Waits for a call's work: GPU-target calls only enqueue it on the stream. */
void target_sync(const Target *t);
/* The n elements of a (row-major) result, readable here: host results in place, device results copied
 * into buf. */
const uint16_t *result_data(const Target *t, const Memref2 *r, int64_t n, uint16_t *buf);

/* The stream of GPU-target calls; exits with a clear message where there is no GPU. */
void gpu_start(Target *t);
void gpu_stop(Target *t);

/* Monotonic seconds. */
double now_s(void);

/* GPU target: one w4a16c_run_<f> captured into a CUDA graph (thread-local capture mode: this thread's
 * calls only), the graph replayed twice and its result (the captured call's ret) required bitwise equal to
 * want (the eager call's); then replays timed: up to 50, at least 5, stopping once they took min_time.
 * Returns the errors found (CUDA errors exit); *ms: the median replay (launch + sync), -1 if none. */
int graph_check(void *fn, const Target *t, AnyMemref *args, const Example *ex, int64_t M, const uint16_t *want,
                int64_t n, uint16_t *buf, double min_time, double *ms, int *replays);

/* GPU target, L2-cold as a model runs (--cold): one call per weight set (copies of the weights at their own
 * addresses, each prepared, so each has its own plans) captured into one CUDA graph, so that a replay streams
 * more than 4 x L2 of weights; reps replays back to back with an event between consecutive replays, as
 * bench/layer.c times its layers. st: us per call (replay / copies) median, min, max. Returns 0 or 1 (a call
 * failed while capturing). */
int cold_graph_time(void *fn, const Target *t, AnyMemref (*args)[kMaxArgs], int copies, const Example *ex,
                    int64_t M, int reps, double st[3]);

#endif
