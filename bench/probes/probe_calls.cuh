// Back-to-back calls through the runtime on one shape, as bench.c makes them (energy.cu): bench.c-like
// data on the device, enough plans of the same weight to rotate over 4 x 60 MB (L2-cold), and the fused
// op silu(x W + bias) + residual.
#pragma once

#include "cuda_check.h"
#include "probe_data.cuh"
#include "w4a16/runtime.h"

#include <cuda_fp16.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace probe {

struct Calls {
  int K, N, M;
  std::vector<w4a16_plan *> plans;
  uint16_t *x = nullptr, *bias = nullptr, *res = nullptr, *out = nullptr;
  w4a16_activation act = W4A16_ACT_SILU;
  bool use_bias = true, use_residual = true;

  Calls(int K_, int N_, int M_) : K(K_), N(N_), M(M_) {
    const size_t qbytes = (size_t)K / 8 * N * 4, sbytes = (size_t)K / 128 * N * 2;
    uint32_t *qw;
    uint16_t *sc;
    CK(cudaMalloc(&qw, qbytes));
    CK(cudaMalloc(&sc, sbytes));
    CK(cudaMalloc(&x, (size_t)M * K * 2));
    CK(cudaMalloc(&bias, (size_t)N * 2));
    CK(cudaMalloc(&res, (size_t)M * N * 2));
    CK(cudaMalloc(&out, (size_t)M * N * 2));
    fill_random<<<1024, 256>>>(qw, qbytes / 4, 1);
    fill_half<<<1024, 256>>>(sc, sbytes / 2, 0.001f, 0.03f, 2);
    fill_half<<<1024, 256>>>(x, (size_t)M * K, -2.f, 2.f, 3);
    fill_half<<<64, 256>>>(bias, N, -1.f, 1.f, 4);
    fill_half<<<1024, 256>>>(res, (size_t)M * N, -1.f, 1.f, 5);
    CK(cudaDeviceSynchronize());
    plans.resize((size_t)(4.0 * 60 * 1024 * 1024 / (double)(qbytes + sbytes)) + 2);
    for (auto &p : plans)
      if (w4a16_plan_create(W4A16_BACKEND_CUDA, (const int32_t *)qw, sc, K, N, 128, &p) != W4A16_OK) {
        fprintf(stderr, "plan_create: %s\n", w4a16_last_error());
        exit(1);
      }
    CK(cudaFree(qw));  // the plans hold their own repacked copies
    CK(cudaFree(sc));
  }
  ~Calls() {
    for (auto p : plans) w4a16_plan_destroy(p);
    cudaFree(x), cudaFree(bias), cudaFree(res), cudaFree(out);
  }
  int rotated() const { return (int)plans.size(); }
  void describe(char *buf, int len) const { w4a16_plan_describe(plans[0], M, buf, len); }
  void run(long long i) const {
    if (w4a16_plan_run(plans[(size_t)(i % (long long)plans.size())], x, M, use_bias ? bias : nullptr,
                       use_residual ? res : nullptr, act, out, nullptr) != W4A16_OK) {
      fprintf(stderr, "plan_run: %s\n", w4a16_last_error());
      exit(1);
    }
  }
};

}  // namespace probe
