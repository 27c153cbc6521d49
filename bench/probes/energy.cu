// Energy per call (issue #5). From M = 16 the benchmark's sustained runs hold the H200 at its power
// cap (bench/RESULTS.md, session 6: 8192x28672 M = 32 takes 47 us per call in a 300-call burst and
// 52.7 as the median of 11 x 512 calls), so there a call's time is its energy over the cap, and a
// change pays off only if it saves energy. This probe makes back-to-back L2-cold calls through the
// runtime (probe_calls.cuh) for `seconds` per M, in ~50 ms windows, and prints per M: the first
// window's time per call (before the cap engages), the median window time of the second half, the
// SM clock then, and mJ per call and mean watts from NVML's board energy counter over the second
// half (the counter updates every 20-100 ms, so only long spans are meaningful). NVML is loaded at
// run time from the driver (libnvidia-ml.so.1); without it only the times are printed.
//
// Written at the end of session 6, after the device budget was spent: compile-checked, not yet run.
//
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Iruntime/include -o build-pre/bin/energy \
//        bench/probes/energy.cu build-pre/lib/libw4a16_runtime.a -lcuda -ldl
//   build-pre/bin/energy K N M[,M...] [seconds per M, default 2]
#include "probe_calls.cuh"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace {

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

}  // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s K N M[,M...] [seconds per M]\n", argv[0]);
    return 2;
  }
  const int K = atoi(argv[1]), N = atoi(argv[2]);
  const double seconds = argc > 4 ? atof(argv[4]) : 2.0;
  const Nvml nvml;
  if (!nvml.ok) printf("NVML not available: times only\n");
  for (char *m = strtok(argv[3], ","); m; m = strtok(nullptr, ",")) {
    const int M = atoi(m);
    probe::Calls cs(K, N, M);
    char desc[256];
    cs.describe(desc, sizeof desc);
    for (int i = 0; i < 2 * cs.rotated() + 10; ++i) cs.run(i);
    CK(cudaDeviceSynchronize());
    usleep(500000);  // let the clocks recover from the previous M

    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    // Window size from one timed window of 64 calls.
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 64; ++i) cs.run(i);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const int per_window = std::max(64, (int)(50.0 / (ms / 64)));
    const int windows = std::max(4, (int)(seconds * 1000 / 50));

    std::vector<double> us(windows);
    unsigned long long mj_half = 0, mj_end = 0;
    unsigned mhz_half = 0;
    long long call = 0;
    for (int w = 0; w < windows; ++w) {
      if (w == windows / 2) mj_half = nvml.millijoules(), mhz_half = nvml.sm_mhz();
      CK(cudaEventRecord(e0));
      for (int i = 0; i < per_window; ++i) cs.run(call++);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      us[w] = ms * 1000.0 / per_window;
    }
    mj_end = nvml.millijoules();
    double second_half_us = 0;
    for (int w = windows / 2; w < windows; ++w) second_half_us += us[w] * per_window;
    const long long second_half_calls = (long long)(windows - windows / 2) * per_window;
    std::vector<double> tail(us.begin() + windows / 2, us.end());
    std::sort(tail.begin(), tail.end());
    printf("energy K=%d N=%d M=%d (%s): first window %.2f us/call, second half median %.2f us/call "
           "(%d windows of %d calls)",
           K, N, M, desc, us[0], tail[tail.size() / 2], windows, per_window);
    if (nvml.ok && mj_end > mj_half)
      printf("; second half %.3f mJ/call, %.0f W, SM clock %u MHz at its start",
             (double)(mj_end - mj_half) / (double)second_half_calls, (double)(mj_end - mj_half) / second_half_us * 1e3,
             mhz_half);
    printf("\n");
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
  }
  return 0;
}
