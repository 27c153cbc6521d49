/* e2e-driver's calls and where the test build's data lives (e2e_call.h). */
#define _POSIX_C_SOURCE 200809L

#include "e2e_call.h"

#include "w4a16/runtime.h"
#include "w4a16/runtime_abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------------------------------------------- */
/* Calls                                                                                                 */
/* ---------------------------------------------------------------------------------------------------- */

AnyMemref make_memref(void *data, int rank, const int64_t *sizes) {
  AnyMemref m = {data, data, 0, {0}};
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    m.dims[d] = sizes[d];
    m.dims[rank + d] = stride;
    stride *= sizes[d];
  }
  return m;
}

/* An (N) result descriptor {allocated, aligned, offset, N, 1} read as (1, N). */
static void as_one_row(Memref2 *m) {
  const int64_t n = m->sizes[0], stride = m->sizes[1];
  m->sizes[0] = 1, m->sizes[1] = n, m->strides[0] = n, m->strides[1] = stride;
}

/* Every argument of these functions is a pointer (the stream of GPU-target code, then the result and the
 * memrefs): call with the right number of them. */
static int32_t call_entry_raw(void *fn, const Target *t, Memref2 *ret, AnyMemref *a, int n) {
  void *p[2 + kMaxArgs];
  int k = 0;
  if (t->gpu)
    p[k++] = t->stream;
  p[k++] = ret;
  for (int i = 0; i < n && i < kMaxArgs; ++i)
    p[k++] = &a[i];
  switch (n < 1 || n > kMaxArgs ? 0 : k) {
  case 2: return ((P2)fn)(p[0], p[1]);
  case 3: return ((P3)fn)(p[0], p[1], p[2]);
  case 4: return ((P4)fn)(p[0], p[1], p[2], p[3]);
  case 5: return ((P5)fn)(p[0], p[1], p[2], p[3], p[4]);
  case 6: return ((P6)fn)(p[0], p[1], p[2], p[3], p[4], p[5]);
  case 7: return ((P7)fn)(p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
  case 8: return ((P8)fn)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
  case 9: return ((P9)fn)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]);
  case 10: return ((P10)fn)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]);
  case 11: return ((P11)fn)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10]);
  case 12: return ((P12)fn)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11]);
  default: fprintf(stderr, "e2e: unsupported arity %d\n", n); exit(2);
  }
}

/* call_entry_raw, with the result read as (M, N) whatever its rank. */
int32_t call_entry(void *fn, const Target *t, Memref2 *ret, AnyMemref *a, const Example *ex) {
  const int32_t status = call_entry_raw(fn, t, ret, a, ex->nargs);
  if (ex->out_rank == 1)
    as_one_row(ret);
  return status;
}

bool result_shape_ok(const Example *ex, const Memref2 *r, int64_t M) {
  return r->sizes[0] == M && r->sizes[1] == ex->out_n && r->strides[0] == ex->out_n && r->strides[1] == 1;
}

bool call_ok(int32_t status, const char *what, const char *build, int64_t M) {
  if (status == 0)
    return true;
  fprintf(stderr, "e2e: %s of the %s build (M = %lld) returned %s: %s\n", what, build, (long long)M,
          w4a16_status_name((w4a16_status)status), w4a16_rt_last_error());
  return false;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Where the test build's data lives                                                                     */
/* ---------------------------------------------------------------------------------------------------- */

#if W4A16_WITH_CUDA
void cuda_ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess)
    return;
  fprintf(stderr, "e2e: CUDA error in %s: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
  exit(2);
}
#endif

void *target_copy(const Target *t, const void *host, size_t bytes) {
#if W4A16_WITH_CUDA
  if (t->gpu) {
    void *d = NULL;
    CUDA_OK(cudaMalloc(&d, bytes ? bytes : 1));
    CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    /* a pageable copy may return before its DMA lands, and the calls' stream does not wait for the legacy one */
    CUDA_OK(cudaDeviceSynchronize());
    return d;
  }
#endif
  (void)t, (void)bytes;
  return (void *)host;
}

void target_free_copy(const Target *t, void *p) {
#if W4A16_WITH_CUDA
  if (t->gpu && p)
    CUDA_OK(cudaFree(p));
#endif
  (void)t, (void)p;
}

void target_sync(const Target *t) {
#if W4A16_WITH_CUDA
  if (t->gpu)
    CUDA_OK(cudaStreamSynchronize((cudaStream_t)t->stream));
#endif
  (void)t;
}

const uint16_t *result_data(const Target *t, const Memref2 *r, int64_t n, uint16_t *buf) {
#if W4A16_WITH_CUDA
  if (t->gpu) {
    CUDA_OK(cudaMemcpy(buf, r->aligned + r->offset, (size_t)n * 2, cudaMemcpyDeviceToHost));
    return buf;
  }
#endif
  (void)t, (void)n, (void)buf;
  return r->aligned + r->offset;
}

void gpu_start(Target *t) {
#if W4A16_WITH_CUDA
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    fprintf(stderr, "e2e: --gpu-target needs a GPU, and there is none usable here (cudaGetDeviceCount: %s)\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    exit(2);
  }
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  t->gpu = true;
  t->stream = s;
#else
  (void)t;
#endif
}

void gpu_stop(Target *t) {
#if W4A16_WITH_CUDA
  if (t->gpu)
    CUDA_OK(cudaStreamDestroy((cudaStream_t)t->stream));
#endif
  t->stream = NULL;
}

double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#if W4A16_WITH_CUDA
static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
/* The median of n sorted values. */
static double median_sorted(const double *v, int n) { return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]); }
#endif

int graph_check(void *fn, const Target *t, AnyMemref *args, const Example *ex, int64_t M, const uint16_t *want,
                int64_t n, uint16_t *buf, double min_time, double *ms, int *replays) {
  *ms = -1, *replays = 0;
#if W4A16_WITH_CUDA
  cudaStream_t s = (cudaStream_t)t->stream;
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  Memref2 captured = {0};
  const int32_t status = call_entry(fn, t, &captured, args, ex);
  const cudaError_t ended = cudaStreamEndCapture(s, &graph);
  if (!call_ok(status, "w4a16c_run captured in a CUDA graph", "test", M)) {
    if (graph)
      cudaGraphDestroy(graph);
    cudaGetLastError(); /* a capture the failed call invalidated: not a CUDA error of the driver's */
    return 1;
  }
  CUDA_OK(ended);
  if (captured.sizes[0] * captured.sizes[1] != n) {
    fprintf(stderr, "e2e: M=%lld: the captured call's result is %lldx%lld\n", (long long)M,
            (long long)captured.sizes[0], (long long)captured.sizes[1]);
    cudaGraphDestroy(graph);
    return 1;
  }
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  int errors = 0;
  for (int r = 0; r < 2; ++r) {
    CUDA_OK(cudaGraphLaunch(exec, s));
    CUDA_OK(cudaStreamSynchronize(s));
  }
  if (memcmp(result_data(t, &captured, n, buf), want, (size_t)n * 2) != 0) {
    fprintf(stderr, "e2e: M=%lld: the CUDA graph's replay differs from the eager call\n", (long long)M);
    ++errors;
  }
  double times[50], total = 0;
  int k = 0;
  while (k < 50 && (k < 5 || total < min_time)) {
    const double t0 = now_s();
    CUDA_OK(cudaGraphLaunch(exec, s));
    CUDA_OK(cudaStreamSynchronize(s));
    times[k] = now_s() - t0;
    total += times[k++];
  }
  /* the timed replays too: a replay that reads stale or racing data shows up as different bits */
  if (!errors && memcmp(result_data(t, &captured, n, buf), want, (size_t)n * 2) != 0) {
    fprintf(stderr, "e2e: M=%lld: the CUDA graph's result changed over %d replays\n", (long long)M, k + 2);
    ++errors;
  }
  qsort(times, (size_t)k, sizeof times[0], cmp_double);
  *ms = 1e3 * median_sorted(times, k);
  *replays = k;
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  return errors;
#else
  (void)fn, (void)t, (void)args, (void)ex, (void)M, (void)want, (void)n, (void)buf, (void)min_time;
  return 1;
#endif
}

int cold_graph_time(void *fn, const Target *t, AnyMemref (*args)[kMaxArgs], int copies, const Example *ex,
                    int64_t M, int reps, double st[3]) {
#if W4A16_WITH_CUDA
  cudaStream_t s = (cudaStream_t)t->stream;
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  int32_t status = 0;
  for (int c = 0; c < copies && status == 0; ++c) {
    Memref2 out = {0};
    status = call_entry(fn, t, &out, args[c], ex);
  }
  const cudaError_t ended = cudaStreamEndCapture(s, &graph);
  if (!call_ok(status, "w4a16c_run captured for the L2-cold timing", "test", M)) {
    if (graph)
      cudaGraphDestroy(graph);
    cudaGetLastError();
    return 1;
  }
  CUDA_OK(ended);
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t ev[101];
  reps = reps > 100 ? 100 : reps;
  for (int i = 0; i <= reps; ++i)
    CUDA_OK(cudaEventCreate(&ev[i]));
  for (int w = 0; w < 5; ++w) /* warm-up: clocks, the graph's first upload */
    CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaEventRecord(ev[0], s));
  for (int r = 0; r < reps; ++r) {
    CUDA_OK(cudaGraphLaunch(exec, s));
    CUDA_OK(cudaEventRecord(ev[r + 1], s));
  }
  CUDA_OK(cudaEventSynchronize(ev[reps]));
  double us[100];
  for (int r = 0; r < reps; ++r) {
    float ms;
    CUDA_OK(cudaEventElapsedTime(&ms, ev[r], ev[r + 1]));
    us[r] = 1e3 * ms / copies;
  }
  for (int i = 0; i <= reps; ++i)
    CUDA_OK(cudaEventDestroy(ev[i]));
  qsort(us, (size_t)reps, sizeof us[0], cmp_double);
  st[0] = median_sorted(us, reps), st[1] = us[0], st[2] = us[reps - 1];
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  return 0;
#else
  (void)fn, (void)t, (void)args, (void)copies, (void)ex, (void)M, (void)reps, (void)st;
  return 1;
#endif
}
