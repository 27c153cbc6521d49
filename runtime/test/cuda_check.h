/* CK(call): abort a GPU test or benchmark program with file:line and CUDA's message when a CUDA runtime
 * call fails; ck_put: an upload the tests' streams can rely on. Shared by runtime/test/gpu_test*.c and bench/bench.c (both reach this folder through
 * w4a16_test_support's include path) and the probes in bench/probes (by relative path). */
#ifndef W4A16_CUDA_CHECK_H
#define W4A16_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                                                     \
  do {                                                                                               \
    cudaError_t e_ = (call);                                                                         \
    if (e_ != cudaSuccess) {                                                                         \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));         \
      exit(3);                                                                                       \
    }                                                                                                \
  } while (0)

/* Host-to-device copy that has landed when this returns: a pageable cudaMemcpy may return before its last bytes
 * reach the device, and the tests' non-blocking streams are not ordered after the legacy stream that carries it. */
static inline void ck_put(void *device, const void *host, size_t bytes) {
  CK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  CK(cudaStreamSynchronize(cudaStreamLegacy));
}

#endif
