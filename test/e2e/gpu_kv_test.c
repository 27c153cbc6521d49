/* GPU target: a decode step's KV-cache append at a position held in a 0-d device tensor (torch-mlir's form of HF's
 * cache_position; test/e2e/Inputs/kv_append.mlir compiled with `w4a16-compile --target=gpu`). The copy kernel
 * reads the position itself (w4a16-gpu-host-code), so the call can be captured in a CUDA graph and each replay
 * writes at the position it finds, as a serving engine's decode graph needs. double_rows_before's host loop needs
 * the position on the host: the runtime reads it (w4a16_rt_device_read), which is refused inside a capture.
 *
 * Without a GPU (CI) a call returns a status with a message. With one (the device run):
 *   1. kv_append eager: the result's row pos is k, every other row the cache's;
 *   2. kv_append captured with pos = 3, replayed after the position tensor is set to 5, then 9;
 *   3. double_rows_before eager: rows 0 .. pos - 1 doubled; inside a capture: W4A16_ERR_BAD_ARGUMENT. */
#include "kv_append_gpu.h"
#include "w4a16/runtime.h"
#include "w4a16/runtime_abi.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#if W4A16_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

enum { kHeads = 2, kRows = 16, kDim = 8 };
static int fails = 0;
#define CHECK(c)                                                                                                 \
  do {                                                                                                           \
    if (!(c)) {                                                                                                  \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                              \
      ++fails;                                                                                                   \
    }                                                                                                            \
  } while (0)

static w4a16c_memref3d_f16 cacheRef(uint16_t *p, int64_t rows) {
  return (w4a16c_memref3d_f16){p, p, 0, {kHeads, rows, kDim}, {rows * kDim, kDim, 1}};
}

static void withoutGpu(void) {
  static uint16_t cache[kHeads * kRows * kDim], k[kHeads * kDim];
  static int64_t pos = 3;
  w4a16c_memref3d_f16 ret = {0}, mc = cacheRef(cache, kRows), mk = cacheRef(k, 1);
  w4a16c_memref0d_i64 mp = {&pos, &pos, 0};
  const int32_t status = w4a16c_run_kv_append(NULL, &ret, &mc, &mk, &mp);
  printf("gpu-kv: without a GPU: %s: %s\n", w4a16_status_name((w4a16_status)status), w4a16_rt_last_error());
  CHECK(status != 0 && w4a16_rt_last_error()[0]);
}

#if W4A16_WITH_CUDA
#define CK(call) CHECK((call) == cudaSuccess)

/* Row r of head h of the result: k where r == pos, else the cache's (cache element value: h * 100 + r). */
static bool appendedAt(const uint16_t *out, int64_t pos) {
  for (int h = 0; h < kHeads; ++h)
    for (int r = 0; r < kRows; ++r)
      for (int d = 0; d < kDim; ++d) {
        const uint16_t want = r == pos ? (uint16_t)(0x7000 + h * kDim + d) : (uint16_t)(h * 100 + r);
        if (out[(h * kRows + r) * kDim + d] != want) {
          fprintf(stderr, "gpu-kv: pos %lld: [%d][%d][%d] = %#x, expected %#x\n", (long long)pos, h, r, d,
                  out[(h * kRows + r) * kDim + d], want);
          return false;
        }
      }
  return true;
}

static void withGpu(void) {
  static uint16_t cache[kHeads * kRows * kDim], k[kHeads * kDim], out[kHeads * kRows * kDim];
  for (int h = 0; h < kHeads; ++h)
    for (int r = 0; r < kRows; ++r)
      for (int d = 0; d < kDim; ++d)
        cache[(h * kRows + r) * kDim + d] = (uint16_t)(h * 100 + r);
  for (int i = 0; i < kHeads * kDim; ++i)
    k[i] = (uint16_t)(0x7000 + i);
  uint16_t *dc = NULL, *dk = NULL;
  int64_t *dp = NULL;
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  CK(cudaMalloc((void **)&dc, sizeof cache));
  CK(cudaMalloc((void **)&dk, sizeof k));
  CK(cudaMalloc((void **)&dp, sizeof *dp));
  CK(cudaMemcpy(dc, cache, sizeof cache, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dk, k, sizeof k, cudaMemcpyHostToDevice));
  int64_t pos = 3;
  CK(cudaMemcpy(dp, &pos, sizeof pos, cudaMemcpyHostToDevice));
  w4a16c_memref3d_f16 ret = {0}, mc = cacheRef(dc, kRows), mk = cacheRef(dk, 1);
  w4a16c_memref0d_i64 mp = {dp, dp, 0};

  /* 1. eager */
  CHECK(w4a16c_prepare_kv_append(s, &ret, &mc, &mk, &mp) == 0);
  CHECK(w4a16c_run_kv_append(s, &ret, &mc, &mk, &mp) == 0);
  CK(cudaMemcpyAsync(out, ret.aligned, sizeof out, cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  CHECK(appendedAt(out, 3));

  /* 2. captured at pos = 3, replayed at 5 and 9 */
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  w4a16c_memref3d_f16 captured = {0};
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const int32_t status = w4a16c_run_kv_append(s, &captured, &mc, &mk, &mp);
  CK(cudaStreamEndCapture(s, &graph));
  CHECK(status == 0);
  if (status == 0) {
    CK(cudaGraphInstantiate(&exec, graph, 0));
    const int64_t positions[] = {5, 9};
    for (int i = 0; i < 2; ++i) {
      CK(cudaMemcpy(dp, &positions[i], sizeof pos, cudaMemcpyHostToDevice));
      CK(cudaGraphLaunch(exec, s));
      CK(cudaMemcpyAsync(out, captured.aligned, sizeof out, cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      CHECK(appendedAt(out, positions[i]));
    }
    cudaGraphExecDestroy(exec);
  } else {
    printf("gpu-kv: capture failed: %s\n", w4a16_rt_last_error());
  }
  cudaGraphDestroy(graph);

  /* 3. a host loop bounded by the position: eager, then refused inside a capture */
  static uint16_t x[kRows * kDim], doubled[kRows * kDim];
  for (int i = 0; i < kRows * kDim; ++i)
    x[i] = 0x3C00; /* 1.0 */
  uint16_t *dx = NULL;
  CK(cudaMalloc((void **)&dx, sizeof x));
  CK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
  pos = 4;
  CK(cudaMemcpy(dp, &pos, sizeof pos, cudaMemcpyHostToDevice));
  w4a16c_memref2d_f16 mx = {dx, dx, 0, {kRows, kDim}, {kDim, 1}}, rx = {0};
  CHECK(w4a16c_run_double_rows_before(s, &rx, &mx, &mp) == 0);
  CK(cudaMemcpyAsync(doubled, rx.aligned, sizeof doubled, cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  for (int r = 0; r < kRows; ++r)
    CHECK(doubled[r * kDim] == (r < pos ? 0x4000 : 0x3C00)); /* 2.0 before pos, 1.0 from it */
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const int32_t refused = w4a16c_run_double_rows_before(s, &rx, &mx, &mp);
  cudaStreamEndCapture(s, &graph); /* the capture may be invalid: only the status matters */
  cudaGetLastError();
  printf("gpu-kv: host read inside a capture: %s: %s\n", w4a16_status_name((w4a16_status)refused),
         w4a16_rt_last_error());
  CHECK(refused == W4A16_ERR_BAD_ARGUMENT && strstr(w4a16_rt_last_error(), "CUDA graph"));

  cudaFree(dx), cudaFree(dp), cudaFree(dk), cudaFree(dc);
  cudaStreamDestroy(s);
}
#endif

int main(void) {
  if (!w4a16_cuda_available())
    withoutGpu();
#if W4A16_WITH_CUDA
  else
    withGpu();
#endif
  printf("%s (%d failures)\n", fails ? "FAIL" : "PASS", fails);
  return fails != 0;
}
