// Does compute-sanitizer racecheck understand bulk copies that complete on an mbarrier?
//
// Kernel v2 (replaced by v3; commit ffc7063 has it) drew racecheck hazards between the cp.async.bulk
// that fills a pipeline stage and the shared-memory loads of that stage after its full-barrier wait
// (bench/RESULTS.md). This probe is that pattern and nothing else, built from the same primitives
// (runtime/src/sm90.cuh): a 2-stage ring, thread 0 producing (wait "empty",
// arrive.expect_tx on "full", bulk copy), every warp consuming (wait "full", LDS, one arrive per warp on
// "empty"). This is the ordering CUTLASS's TMA pipelines rely on (consumer release = a plain arrive): if
// racecheck still reports hazards here, such reports say nothing about the kernel. v3 fills its x
// stages with TMA tensor copies completing on mbarriers in the same way. The result is checked against
// the host sum either way.
//
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o racecheck_bulk_copy racecheck_bulk_copy.cu
//   compute-sanitizer --tool racecheck ./racecheck_bulk_copy
#include "../../runtime/src/sm90.cuh"

#include <cstdio>
#include <vector>

using namespace w4a16::sm90;

constexpr int kThreads = 128, kStages = 2, kIters = 16, kStageFloats = 1024;

__global__ void ring(const float *src, float *out) {
  __shared__ __align__(128) float buf[kStages][kStageFloats];
  __shared__ __align__(8) uint64_t full[kStages], empty[kStages];
  const int tid = threadIdx.x, lane = tid & 31;
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(smem_u32(&full[s]), 1);
      mbar_init(smem_u32(&empty[s]), kThreads / 32);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  auto produce = [&](int j) {
    const int s = j % kStages, n = j / kStages;
    if (n > 0) mbar_wait(smem_u32(&empty[s]), (n - 1) & 1);
    mbar_expect_tx(smem_u32(&full[s]), kStageFloats * 4);
    bulk_g2s(smem_u32(buf[s]), src + (size_t)j * kStageFloats, kStageFloats * 4, smem_u32(&full[s]));
  };
  if (tid == 0) produce(0);
  float sum = 0.f;
  for (int i = 0; i < kIters; ++i) {
    if (tid == 0 && i + 1 < kIters) produce(i + 1);
    const int s = i % kStages;
    mbar_wait(smem_u32(&full[s]), (i / kStages) & 1);
    for (int e = tid; e < kStageFloats; e += kThreads) sum += buf[s][e];
    __syncwarp();
    if (lane == 0) mbar_arrive(smem_u32(&empty[s]));
  }
  out[tid] = sum;
}

int main() {
  std::vector<float> h((size_t)kIters * kStageFloats);
  for (size_t i = 0; i < h.size(); ++i) h[i] = (float)(i % 7);
  float *src, *out;
  cudaMalloc(&src, h.size() * 4);
  cudaMalloc(&out, kThreads * 4);
  cudaMemcpy(src, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  ring<<<1, kThreads>>>(src, out);
  std::vector<float> o(kThreads);
  cudaError_t e = cudaMemcpy(o.data(), out, kThreads * 4, cudaMemcpyDeviceToHost);
  double got = 0, want = 0;
  for (float v : o) got += v;
  for (float v : h) want += v;
  printf("bulk-copy ring: %s, sum %.0f (want %.0f): %s\n", cudaGetErrorString(e), got, want,
         e == cudaSuccess && got == want ? "PASS" : "FAIL");
  return e == cudaSuccess && got == want ? 0 : 1;
}
