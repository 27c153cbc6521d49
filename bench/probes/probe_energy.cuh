// Energy per call for the probes (energy.cu, mma_energy.cu). From M = 16 the benchmark's sustained
// runs hold the H200 at its power cap (bench/RESULTS.md, session 6), so there a call's time is its
// energy over the cap, and a change pays off only if it saves energy. NVML is loaded at run time
// from the driver (libnvidia-ml.so.1); without it only times are reported.
#pragma once

#include "cuda_check.h"

#include <dlfcn.h>

#include <algorithm>
#include <vector>

namespace probe {

// The few NVML entry points used, by their C signatures (nvml.h is not needed to build).
struct Nvml {
  void *device = nullptr;
  int (*energy)(void *, unsigned long long *) = nullptr;  // nvmlDeviceGetTotalEnergyConsumption, mJ
  int (*clock)(void *, int, unsigned *) = nullptr;         // nvmlDeviceGetClockInfo, MHz
  bool ok = false;

  Nvml() {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) return;
    auto init = (int (*)())dlsym(lib, "nvmlInit_v2");
    auto handle = (int (*)(unsigned, void **))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    energy = (int (*)(void *, unsigned long long *))dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
    clock = (int (*)(void *, int, unsigned *))dlsym(lib, "nvmlDeviceGetClockInfo");
    ok = init && handle && energy && clock && init() == 0 && handle(0, &device) == 0;
  }
  unsigned long long millijoules() const {
    unsigned long long e = 0;
    return ok && energy(device, &e) == 0 ? e : 0;
  }
  unsigned sm_mhz() const {
    unsigned c = 0;
    return ok && clock(device, 1 /* NVML_CLOCK_SM */, &c) == 0 ? c : 0;
  }
};

struct Sustained {
  double first_us;    // per call, first ~50 ms window (before the power controller reacts)
  double median_us;   // per call, median window of the second half
  double mj_per_call; // board energy over the second half / its calls (0 without NVML)
  double watts;       // mean board power over the second half
  unsigned mhz;       // SM clock at the start of the second half
};

// Back-to-back calls call(0), call(1), ... for `seconds`, in ~50 ms windows. The energy counter
// updates every 20-100 ms, so only the second half (~seconds/2) is used for energy.
template <class F> Sustained sustained(const Nvml &nvml, F call, double seconds) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  float ms;
  CK(cudaEventRecord(e0));
  for (int i = 0; i < 64; ++i) call(i);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  CK(cudaEventElapsedTime(&ms, e0, e1));
  const int per_window = std::max(64, (int)(50.0 / (ms / 64)));
  const int windows = std::max(4, (int)(seconds * 1000 / 50));
  std::vector<double> us(windows);
  unsigned long long mj_half = 0;
  Sustained r{};
  long long n = 0;
  double half_us = 0;
  for (int w = 0; w < windows; ++w) {
    if (w == windows / 2) mj_half = nvml.millijoules(), r.mhz = nvml.sm_mhz();
    CK(cudaEventRecord(e0));
    for (int i = 0; i < per_window; ++i) call(n++);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    us[w] = ms * 1000.0 / per_window;
    if (w >= windows / 2) half_us += ms * 1000.0;
  }
  const unsigned long long mj_end = nvml.millijoules();
  CK(cudaGetLastError());
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  r.first_us = us[0];
  std::vector<double> tail(us.begin() + windows / 2, us.end());
  std::sort(tail.begin(), tail.end());
  r.median_us = tail[tail.size() / 2];
  if (nvml.ok && mj_end > mj_half) {
    r.mj_per_call = (double)(mj_end - mj_half) / ((double)(windows - windows / 2) * per_window);
    r.watts = (double)(mj_end - mj_half) / half_us * 1e3;
  }
  return r;
}

inline void print_sustained(const Sustained &s) {
  printf("first %.2f us/call, sustained median %.2f us/call", s.first_us, s.median_us);
  if (s.mj_per_call > 0) printf(", %.3f mJ/call, %.0f W, SM %u MHz", s.mj_per_call, s.watts, s.mhz);
  printf("\n");
}

}  // namespace probe
