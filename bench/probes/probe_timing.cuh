// Timing helpers shared by the throughput probes (mma_rate.cu, overlap.cu): the wall time of one launch
// after a warm-up launch, and the SM clock the kernel actually ran at (the H200's clock moves with its
// power cap, so converting with the nominal clock would mislead).
#pragma once

#include "../../runtime/test/cuda_check.h"

// Cycles and nanoseconds of block 0's timed region.
__device__ long long g_probe_clock[2];

struct ClockStamp {
  long long cycles;
  unsigned long long ns;
};
__device__ __forceinline__ ClockStamp clock_stamp() {
  ClockStamp s;
  s.cycles = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(s.ns));
  return s;
}
// Records the region since `start` (thread 0 of block 0).
__device__ __forceinline__ void clock_record(const ClockStamp &start) {
  const ClockStamp end = clock_stamp();
  if (blockIdx.x == 0 && threadIdx.x == 0)
    g_probe_clock[0] = end.cycles - start.cycles, g_probe_clock[1] = (long long)(end.ns - start.ns);
}
// The clock of the last recorded region in MHz (`fallback` if none was recorded).
inline double recorded_mhz(double fallback) {
  long long clk[2];
  CK(cudaMemcpyFromSymbol(clk, g_probe_clock, sizeof clk));
  return clk[1] > 0 ? (double)clk[0] * 1e3 / (double)clk[1] : fallback;
}

// Microseconds of the second of two back-to-back launch() calls (the first warms up).
template <class F> double time_second_launch_us(F launch) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  launch();
  CK(cudaEventRecord(e0));
  launch();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  CK(cudaGetLastError());
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return ms * 1000.0;
}
