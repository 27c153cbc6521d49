/* The GPU target's runtime (runtime/abi/gpu_target.c). Everywhere: the module handle made by a global
 * constructor (as MLIR's lowering does) survives a machine without a GPU, failures are recorded with
 * W4A16_ERR_NO_DEVICE and NULL, the device-call bracket works, release is idempotent. With a GPU (the device
 * machine): a hand-written PTX kernel JIT-loaded and launched through mgpuLaunchKernel, the arena's steady
 * state (same addresses, no allocation), and a captured CUDA graph replayed twice. */
#include "w4a16/runtime_abi.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if W4A16_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

static int fails = 0;

#define CHECK(cond)                                                                                    \
  do {                                                                                                 \
    if (!(cond)) {                                                                                     \
      printf("FAIL %s:%d: %s (status %d: \"%s\")\n", __FILE__, __LINE__, #cond, (int)w4a16_rt_status(), \
             w4a16_rt_last_error());                                                                   \
      ++fails;                                                                                         \
    }                                                                                                  \
  } while (0)

/* p[i] += 1.0f for i < n. */
static const char kPtx[] = ".version 7.0\n"
                           ".target sm_80\n"
                           ".address_size 64\n"
                           ".visible .entry add_one(.param .u64 p, .param .u32 n) {\n"
                           "  .reg .pred %q;\n"
                           "  .reg .b32 %r<6>;\n"
                           "  .reg .f32 %f<3>;\n"
                           "  .reg .b64 %rd<5>;\n"
                           "  ld.param.u64 %rd1, [p];\n"
                           "  ld.param.u32 %r1, [n];\n"
                           "  mov.u32 %r2, %ctaid.x;\n"
                           "  mov.u32 %r3, %ntid.x;\n"
                           "  mov.u32 %r4, %tid.x;\n"
                           "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
                           "  setp.ge.s32 %q, %r5, %r1;\n"
                           "  @%q bra DONE;\n"
                           "  cvta.to.global.u64 %rd2, %rd1;\n"
                           "  mul.wide.s32 %rd3, %r5, 4;\n"
                           "  add.s64 %rd4, %rd2, %rd3;\n"
                           "  ld.global.f32 %f1, [%rd4];\n"
                           "  add.f32 %f2, %f1, 0f3F800000;\n"
                           "  st.global.f32 [%rd4], %f2;\n"
                           "DONE:\n"
                           "  ret;\n"
                           "}\n";

/* What MLIR's gpu-module-to-binary + gpu-to-llvm emit: load in a global constructor, unload in a destructor. */
static void *g_module;
__attribute__((constructor)) static void loadAtStart(void) { g_module = mgpuModuleLoadJIT((void *)kPtx, 2); }
__attribute__((destructor)) static void unloadAtExit(void) { mgpuModuleUnload(g_module); }

static int hasName(const w4a16_rt_symbol *s, int n, const char *name) {
  for (int i = 0; i < n; ++i)
    if (strcmp(s[i].name, name) == 0 && s[i].address)
      return 1;
  return 0;
}

static void everywhere(void) {
  int n = 0;
  const w4a16_rt_symbol *s = w4a16_rt_device_symbols(&n);
  CHECK(n == 18);
  const char *names[] = {"w4a16_rt_enter_device", "w4a16_rt_stream", "w4a16_rt_device_call", "mgpuModuleLoadJIT",
                         "mgpuModuleLoad", "mgpuModuleUnload", "mgpuModuleGetFunction", "mgpuLaunchKernel",
                         "mgpuStreamCreate", "mgpuStreamSynchronize", "mgpuStreamDestroy", "w4a16_rt_device_alloc",
                         "w4a16_rt_device_aligned_alloc", "w4a16_rt_device_free", "w4a16_rt_device_allocations",
                         "w4a16_rt_device_constant", "w4a16_rt_release_device", "w4a16_rt_device_read"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    CHECK(hasName(s, n, names[i]));

  /* the bracket: enter_device starts a device call, leave ends it, plain enter is no device call */
  CHECK(!w4a16_rt_device_call());
  w4a16_rt_enter_device("f", 0, NULL);
  CHECK(w4a16_rt_device_call() && w4a16_rt_stream() == NULL && w4a16_rt_status() == 0);
  CHECK(mgpuStreamCreate() == w4a16_rt_stream());
  mgpuStreamSynchronize(NULL);
  mgpuStreamDestroy(NULL);
  mgpuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL, 0); /* NULL function: nothing */
  CHECK(w4a16_rt_leave() == 0 && !w4a16_rt_device_call());
  w4a16_rt_enter_device("g", 1, NULL);
  w4a16_rt_enter("h", 0);
  CHECK(!w4a16_rt_device_call());
  w4a16_rt_leave();
  w4a16_rt_device_free(NULL);
}

static void withoutGpu(void) {
#if W4A16_WITH_CUDA
  CHECK(g_module != NULL); /* the constructor made a handle without touching a GPU */
#endif
  w4a16_rt_enter_device("no_gpu", 0, NULL);
  CHECK(mgpuModuleGetFunction(g_module, "add_one") == NULL);
  CHECK(w4a16_rt_status() == W4A16_ERR_NO_DEVICE && strstr(w4a16_rt_last_error(), "no_gpu: "));
  CHECK(w4a16_rt_leave() == W4A16_ERR_NO_DEVICE && !w4a16_rt_device_call());
  printf("GetFunction without a GPU: \"%s\"\n", w4a16_rt_last_error());

  w4a16_rt_enter_device("no_gpu", 0, NULL);
  CHECK(w4a16_rt_status() == 0); /* enter cleared it */
  CHECK(w4a16_rt_device_alloc(1000) == NULL && w4a16_rt_status() == W4A16_ERR_NO_DEVICE);
  printf("alloc without a GPU: \"%s\"\n", w4a16_rt_last_error());
  w4a16_rt_leave();
  w4a16_rt_enter_device("no_gpu", 0, NULL);
  static const float kConstant[4] = {1, 2, 3, 4};
  CHECK(w4a16_rt_device_constant(kConstant, sizeof kConstant) == NULL && w4a16_rt_status() == W4A16_ERR_NO_DEVICE);
  w4a16_rt_leave();
  w4a16_rt_enter_device("no_gpu", 0, NULL);
  CHECK(w4a16_rt_device_read((intptr_t)kConstant, 4) == 0 && w4a16_rt_status() != 0);
  printf("device read without a GPU: \"%s\"\n", w4a16_rt_last_error());
  w4a16_rt_leave();
  w4a16_rt_release_device();
  w4a16_rt_release_device();
}

#if W4A16_WITH_CUDA
#define CK(call)                                                                                       \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));               \
      ++fails;                                                                                         \
      return;                                                                                          \
    }                                                                                                  \
  } while (0)

enum { kN = 1000 };

/* One "compiled call" on stream: a buffer from the arena filled from the constant, add_one launched on it
 * launches times, copied back to host (async). Returns the arena buffer. */
static float *call(void *stream, const float *constant, int launches, float *host, int *status) {
  w4a16_rt_enter_device("call", 0, stream);
  void *fn = mgpuModuleGetFunction(g_module, "add_one");
  float *buf = w4a16_rt_device_alloc(kN * sizeof(float));
  const float *dc = w4a16_rt_device_constant(constant, kN * sizeof(float));
  if (buf && dc)
    cudaMemcpyAsync(buf, dc, kN * sizeof(float), cudaMemcpyDeviceToDevice, (cudaStream_t)stream);
  int n = kN;
  void *params[] = {&buf, &n};
  for (int i = 0; i < launches; ++i)
    mgpuLaunchKernel(fn, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, i % 2 ? stream : NULL, params, NULL, 2);
  mgpuLaunchKernel(fn, 0, 1, 1, 128, 1, 1, 0, stream, params, NULL, 2); /* empty grid (M = 0): no work, no error */
  if (host && buf)
    cudaMemcpyAsync(host, buf, kN * sizeof(float), cudaMemcpyDeviceToHost, (cudaStream_t)stream);
  *status = w4a16_rt_leave();
  return buf;
}

static int allEqual(const float *h, const float *c, float add) {
  for (int i = 0; i < kN; ++i)
    if (h[i] != c[i] + add)
      return 0;
  return 1;
}

/* Replays exec on stream `times` times, each into a zeroed h, which must then hold c + add. False when a CUDA
 * call failed (recorded): the caller stops. */
static bool replaysGive(cudaGraphExec_t exec, cudaStream_t stream, int times, float *h, const float *c, float add) {
  for (int replay = 0; replay < times; ++replay) {
    memset(h, 0, kN * sizeof(float));
    cudaError_t e = cudaGraphLaunch(exec, stream);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
      printf("FAIL %s:%d: graph replay: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));
      ++fails;
      return false;
    }
    CHECK(allEqual(h, c, add));
  }
  return true;
}

static void withGpu(void) {
  static float c1[kN], c2[kN], c3[kN];
  float *h = NULL;
  for (int i = 0; i < kN; ++i)
    c1[i] = (float)i, c2[i] = (float)(2 * i), c3[i] = (float)(-i);
  CK(cudaMallocHost((void **)&h, kN * sizeof(float)));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  int st = -1;

  /* JIT + launch (twice: alternately the explicit stream and NULL = the call's stream) */
  call(s, c1, 2, h, &st);
  CK(cudaStreamSynchronize(s));
  CHECK(st == 0 && allEqual(h, c1, 2.0f));
  w4a16_rt_enter_device("cache", 0, s);
  void *f1 = mgpuModuleGetFunction(g_module, "add_one"), *f2 = mgpuModuleGetFunction(g_module, "add_one");
  CHECK(f1 && f1 == f2);
  CHECK(mgpuModuleGetFunction(g_module, "missing") == NULL && w4a16_rt_status() == W4A16_ERR_CUDA);
  printf("unknown kernel: \"%s\"\n", w4a16_rt_last_error());
  w4a16_rt_leave();

  /* a JIT error carries the log */
  void *bad = mgpuModuleLoadJIT((void *)".version 7.0\n.target sm_80\n.address_size 64\nnot ptx;\n", 3);
  w4a16_rt_enter_device("bad_ptx", 0, s);
  CHECK(mgpuModuleGetFunction(bad, "add_one") == NULL && w4a16_rt_status() == W4A16_ERR_CUDA);
  printf("JIT error: \"%s\"\n", w4a16_rt_last_error());
  w4a16_rt_leave();
  mgpuModuleUnload(bad);

  /* arena: a call needing several chunks, then steady state: same addresses, no allocation */
  cudaStream_t sa;
  CK(cudaStreamCreate(&sa));
  void *p[3][4];
  int64_t allocs[3];
  for (int round = 0; round < 3; ++round) {
    w4a16_rt_enter_device("arena", 0, sa);
    p[round][0] = w4a16_rt_device_alloc(1000);
    p[round][1] = w4a16_rt_device_aligned_alloc(4096, 3 << 20);
    p[round][2] = w4a16_rt_device_alloc(10 << 20);
    p[round][3] = w4a16_rt_device_aligned_alloc(64, 0);
    CHECK(w4a16_rt_leave() == 0);
    allocs[round] = w4a16_rt_device_allocations();
    for (int i = 0; i < 4; ++i)
      CHECK(p[round][i] && (uintptr_t)p[round][i] % 256 == 0);
    CHECK((uintptr_t)p[round][1] % 4096 == 0);
    printf("arena round %d: %p %p %p %p, %lld allocations so far\n", round, p[round][0], p[round][1], p[round][2],
           p[round][3], (long long)allocs[round]);
  }
  CHECK(memcmp(p[1], p[2], sizeof p[1]) == 0 && allocs[2] == allocs[1]);
  CHECK(allocs[1] == allocs[0] + 1); /* round 1 merged round 0's chunks into one */

  /* capture on a warm stream: no allocation during capture; replayed twice */
  float *eager = call(s, c1, 1, NULL, &st);
  CK(cudaStreamSynchronize(s));
  int64_t before = w4a16_rt_device_allocations();
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  float *captured = call(s, c1, 1, h, &st);
  CK(cudaStreamEndCapture(s, &graph));
  CHECK(st == 0 && captured == eager && w4a16_rt_device_allocations() == before);
  CK(cudaGraphInstantiate(&exec, graph, 0));
  if (!replaysGive(exec, s, 2, h, c1, 1.0f))
    return;
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);

  /* capture on a fresh stream with an uncached constant: the arena's cudaMalloc and the constant's upload
   * happen during capture (relaxed mode); replayed twice; the arena's addresses are kept for the graph */
  cudaStream_t sc;
  CK(cudaStreamCreateWithFlags(&sc, cudaStreamNonBlocking));
  CK(cudaStreamBeginCapture(sc, cudaStreamCaptureModeGlobal));
  captured = call(sc, c2, 3, h, &st);
  cudaError_t ended = cudaStreamEndCapture(sc, &graph);
  CHECK(st == 0 && ended == cudaSuccess);
  if (st == 0 && ended == cudaSuccess) {
    CK(cudaGraphInstantiate(&exec, graph, 0));
    if (!replaysGive(exec, sc, 2, h, c2, 3.0f))
      return;
    /* an eager call of another size on the captured stream: the graph's buffer must survive it */
    w4a16_rt_enter_device("big", 0, sc);
    CHECK(w4a16_rt_device_alloc(64 << 20) != NULL);
    w4a16_rt_leave();
    w4a16_rt_enter_device("big", 0, sc);
    CHECK(w4a16_rt_device_alloc(1000) == captured); /* no merge on a captured stream's arena */
    w4a16_rt_leave();
    if (!replaysGive(exec, sc, 1, h, c2, 3.0f))
      return;
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  } else {
    printf("capture with allocation: \"%s\", %s\n", w4a16_rt_last_error(), cudaGetErrorString(ended));
    cudaGetLastError();
  }

  /* a host read of device memory sees the kernel launched before it on the call's stream (c1[5] + 1 = 6), each
   * width as its low bytes; refused while the stream is captured, and after a failure in the call */
  w4a16_rt_enter_device("read", 0, s);
  float *rb = w4a16_rt_device_alloc(kN * sizeof(float));
  void *add = mgpuModuleGetFunction(g_module, "add_one");
  cudaMemcpyAsync(rb, c1, kN * sizeof(float), cudaMemcpyHostToDevice, s);
  int rn = kN;
  void *rparams[] = {&rb, &rn};
  mgpuLaunchKernel(add, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, rparams, NULL, 2);
  const int64_t bits = w4a16_rt_device_read((intptr_t)(rb + 5), 4);
  float got;
  const uint32_t low = (uint32_t)bits;
  memcpy(&got, &low, sizeof got);
  CHECK(got == 6.0f && (bits >> 32) == 0);
  CHECK(w4a16_rt_device_read((intptr_t)(rb + 5), 2) == (bits & 0xffff));
  CHECK(w4a16_rt_device_read((intptr_t)(rb + 5), 3) == 0 && w4a16_rt_status() == W4A16_ERR_BAD_ARGUMENT);
  CHECK(w4a16_rt_device_read((intptr_t)(rb + 5), 4) == 0); /* after the failure: nothing read */
  w4a16_rt_leave();
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  w4a16_rt_enter_device("read_captured", 0, s);
  CHECK(w4a16_rt_device_read((intptr_t)(rb + 5), 4) == 0 && w4a16_rt_status() == W4A16_ERR_BAD_ARGUMENT);
  printf("device read in a capture: \"%s\"\n", w4a16_rt_last_error());
  w4a16_rt_leave();
  CK(cudaStreamEndCapture(s, &graph));
  cudaGraphDestroy(graph);

  /* a failure in a call stops its launches: the kernel must not run on the buffer */
  call(s, c3, 0, NULL, &st);
  w4a16_rt_enter_device("failed", 0, s);
  float *buf = w4a16_rt_device_alloc(kN * sizeof(float));
  void *fn = mgpuModuleGetFunction(g_module, "add_one");
  cudaMemcpyAsync(buf, c3, kN * sizeof(float), cudaMemcpyHostToDevice, s);
  CHECK(w4a16_rt_device_aligned_alloc(-1, 8) == NULL && w4a16_rt_status() == W4A16_ERR_BAD_ARGUMENT);
  int n = kN;
  void *params[] = {&buf, &n};
  mgpuLaunchKernel(fn, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL, 2);
  cudaMemcpyAsync(h, buf, kN * sizeof(float), cudaMemcpyDeviceToHost, s);
  CHECK(w4a16_rt_leave() == W4A16_ERR_BAD_ARGUMENT);
  CK(cudaStreamSynchronize(s));
  CHECK(allEqual(h, c3, 0.0f));

  w4a16_rt_release_device();
  w4a16_rt_release_device();
  /* usable again after release */
  call(s, c3, 1, h, &st);
  CK(cudaStreamSynchronize(s));
  CHECK(st == 0 && allEqual(h, c3, 1.0f));
  w4a16_rt_release_device();
  cudaStreamDestroy(sc);
  cudaStreamDestroy(sa);
  cudaStreamDestroy(s);
  cudaFreeHost(h);
}
#endif

int main(void) {
  everywhere();
  if (!w4a16_cuda_available()) {
    printf("no GPU: the GPU-only checks are skipped\n");
    withoutGpu();
  } else {
#if W4A16_WITH_CUDA
    withGpu();
#endif
  }
  printf("%s (%d failures)\n", fails ? "FAIL" : "PASS", fails);
  return fails != 0;
}
