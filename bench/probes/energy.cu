// Energy per call through the runtime (issue #5): back-to-back L2-cold calls (probe_calls.cuh) for
// `seconds` per M; prints the first window's time per call (before the power cap engages), the
// sustained median, and mJ per call, watts and SM clock over the second half (probe_energy.cuh).
//
//   bench/probes/build.sh BUILD_DIR   (links BUILD_DIR/lib/libw4a16_runtime.a; binary in BUILD_DIR/bin)
//   BUILD_DIR/bin/energy K N M[,M...] [seconds per M, default 2]
#include "probe_calls.cuh"
#include "probe_energy.cuh"

#include <unistd.h>

#include <cstring>

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s K N M[,M...] [seconds per M]\n", argv[0]);
    return 2;
  }
  const int K = atoi(argv[1]), N = atoi(argv[2]);
  const double seconds = argc > 4 ? atof(argv[4]) : 2.0;
  const probe::Nvml nvml;
  if (!nvml.ok) printf("NVML not available: times only\n");
  for (char *m = strtok(argv[3], ","); m; m = strtok(nullptr, ",")) {
    const int M = atoi(m);
    probe::Calls cs(K, N, M);
    char desc[256];
    cs.describe(desc, sizeof desc);
    for (int i = 0; i < 2 * cs.rotated() + 10; ++i) cs.run(i);
    CK(cudaDeviceSynchronize());
    usleep(500000);  // let the clocks recover from the previous M

    const probe::Sustained r = probe::sustained(nvml, [&](long long i) { cs.run(i); }, seconds);
    printf("energy K=%d N=%d M=%d (%s): ", K, N, M, desc);
    probe::print_sustained(r);
  }
  return 0;
}
