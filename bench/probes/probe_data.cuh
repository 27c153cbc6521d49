// Device-side random test data for the probes (probe_calls.cuh): the power the
// tensor cores draw depends on the data, so energy measurements need bench.c-like values, not memset.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

namespace probe {

__global__ void fill_random(uint32_t *p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t v = (uint32_t)i * 2654435761u ^ seed;
    v ^= v >> 13, v *= 0x5bd1e995u, v ^= v >> 15;
    p[i] = v;
  }
}
// Uniform in [lo, hi) as f16, as bench.c's data (the power the tensor cores draw depends on it).
__global__ void fill_half(uint16_t *p, size_t n, float lo, float hi, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t v = (uint32_t)i * 2654435761u ^ seed;
    v ^= v >> 13, v *= 0x5bd1e995u, v ^= v >> 15;
    p[i] = __half_as_ushort(__float2half(lo + (hi - lo) * (float)(v >> 8) * (1.0f / 16777216.0f)));
  }
}

}  // namespace probe
