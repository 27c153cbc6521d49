// Probe: does a kernel's parameter-block size change its time per call? (Issue #21: plain w4a16_plan_run calls
// became 1-5 % slower when v3's parameters grew from 232 to 296 bytes with the outputs map; the cause was not
// isolated.) Kernels shaped like v3's launch -- a __grid_constant__ CUtensorMap (128 B) then a struct, PDL
// (launch_dependents early, griddepcontrol.wait before touching memory), 132 CTAs -- whose total parameter size
// steps over 232..320 bytes; each CTA streams `bytes` from a buffer far larger than L2, one window per launch, so
// every call reads cold memory like a layer of a model. Timed as CUDA-graph replays of 64 launches (the way
// serving engines run decode) and as back-to-back stream launches.
//   param_size [--reps R] (bench/probes/build.sh)   prints one row per (work size, parameter size)
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#include "cuda_check.h"  // CK

template <int Q> struct Args {
  const float4 *src;
  float *dst;
  long long window;           // float4s per CTA
  long long pad[Q];           // the size under test (never read)
};

template <int Q> __global__ void __launch_bounds__(256) probe(const __grid_constant__ CUtensorMap map, const Args<Q> a) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const float4 *p = a.src + blockIdx.x * a.window;
  float s = 0.f;
  for (long long i = threadIdx.x; i < a.window; i += blockDim.x) {
    float4 v = __ldcs(p + i);
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.f) a.dst[blockIdx.x] = s;  // keeps the loads; never true for the zero-filled buffer
}

static const int kLaunches = 64, kCtas = 132;

template <int Q> static void run(const float4 *buf, size_t buf_f4, float *dst, long long window, int reps,
                                 cudaStream_t s) {
  CUtensorMap map;
  memset(&map, 0, sizeof map);
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(kCtas), cfg.blockDim = dim3(256), cfg.stream = s, cfg.attrs = &attr, cfg.numAttrs = 1;
  const size_t per_launch = (size_t)kCtas * window;
  const size_t windows = buf_f4 / per_launch;
  auto enqueue = [&](int base) {
    for (int l = 0; l < kLaunches; ++l) {
      Args<Q> a = {};
      a.src = buf + ((size_t)(base + l) % windows) * per_launch, a.dst = dst, a.window = window;
      CK(cudaLaunchKernelEx(&cfg, probe<Q>, map, a));
    }
  };
  cudaGraph_t g;
  cudaGraphExec_t ex;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  enqueue(0);
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&ex, g, 0));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> tg, te;
  for (int r = 0; r < reps + 3; ++r) {  // graph replay, then the same launches from the stream
    CK(cudaEventRecord(e0, s));
    CK(cudaGraphLaunch(ex, s));
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 3) tg.push_back(ms * 1e3 / kLaunches);
    CK(cudaEventRecord(e0, s));
    enqueue(kLaunches * (r + 1));
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 3) te.push_back(ms * 1e3 / kLaunches);
  }
  std::sort(tg.begin(), tg.end());
  std::sort(te.begin(), te.end());
  printf("%8lld KB  %4zu B   graph %7.3f us (min %7.3f max %7.3f)   stream %7.3f us (min %7.3f max %7.3f)\n",
         window * 16 * kCtas / 1024, sizeof(CUtensorMap) + sizeof(Args<Q>), tg[tg.size() / 2], tg.front(),
         tg.back(), te[te.size() / 2], te.front(), te.back());
  CK(cudaGraphExecDestroy(ex));
  CK(cudaGraphDestroy(g));
}

int main(int argc, char **argv) {
  int reps = 30;
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], "--reps")) reps = atoi(argv[++i]);
  const size_t bytes = (size_t)1 << 30;  // 1 GiB: each graph replay reads fresh windows
  float4 *buf;
  float *dst;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMemset(buf, 0, bytes));
  CK(cudaMalloc(&dst, kCtas * sizeof(float)));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  printf("param-size probe: %d CTAs x 256 threads, PDL, %d launches per graph, median of %d replays\n", kCtas,
         kLaunches, reps);
  printf("%11s  %6s\n", "bytes/call", "params");
  for (long long window : {64LL, 1024LL, 4096LL}) {  // 132 KB (launch-bound), 2 MB, 8.4 MB (a 4096x4096 int4 weight)
    run<10>(buf, bytes / 16, dst, window, reps, s);    // 232 B: v3 before the outputs map
    run<12>(buf, bytes / 16, dst, window, reps, s);    // 248
    run<13>(buf, bytes / 16, dst, window, reps, s);    // 256
    run<14>(buf, bytes / 16, dst, window, reps, s);    // 264
    run<16>(buf, bytes / 16, dst, window, reps, s);    // 280
    run<18>(buf, bytes / 16, dst, window, reps, s);    // 296: v3 with the map
    run<20>(buf, bytes / 16, dst, window, reps, s);    // 312
    run<10>(buf, bytes / 16, dst, window, reps, s);    // 232 again: drift
  }
  return 0;
}
