/* The runtime of GPU-target compiled code (runtime_abi.h, "GPU target"): the mgpu* module and launch
 * functions MLIR's gpu-to-LLVM lowering calls (Debian ships no library with them), per-stream device
 * arenas for intermediate buffers, device copies of dense constants, and the device-call bracket.
 *
 * The CUDA driver API is reached through cudaGetDriverEntryPoint, so nothing links libcuda.so: a program
 * built with this library starts (and its global constructors run) on a machine without a GPU or driver. */
#include "rt_status.h"
#include "w4a16/runtime_abi.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if W4A16_WITH_CUDA
#include <cuda.h> /* types only: every driver function is called through a pointer from the entry point */
#include <cuda_runtime.h>
#endif

static atomic_int_least64_t g_allocations;

int64_t w4a16_rt_device_allocations(void) { return atomic_load(&g_allocations); }

void w4a16_rt_device_free(void *ptr) { (void)ptr; }

void *mgpuStreamCreate(void) { return w4a16_rt_stream(); }

void mgpuStreamSynchronize(void *stream) { (void)stream; }

void mgpuStreamDestroy(void *stream) { (void)stream; }

#if W4A16_WITH_CUDA

/* --- driver entry points --------------------------------------------------------------------------- */

typedef CUresult (*PFN_ModuleLoadDataEx)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
typedef CUresult (*PFN_ModuleUnload)(CUmodule);
typedef CUresult (*PFN_ModuleGetFunction)(CUfunction *, CUmodule, const char *);
typedef CUresult (*PFN_LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, CUstream, void **, void **);
typedef CUresult (*PFN_FuncSetAttribute)(CUfunction, CUfunction_attribute, int);
typedef CUresult (*PFN_GetErrorName)(CUresult, const char **);
typedef CUresult (*PFN_CtxGetCurrent)(CUcontext *);
typedef CUresult (*PFN_LaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);

static struct {
  PFN_ModuleLoadDataEx moduleLoadDataEx;
  PFN_ModuleUnload moduleUnload;
  PFN_ModuleGetFunction moduleGetFunction;
  PFN_LaunchKernel launchKernel;
  PFN_FuncSetAttribute funcSetAttribute;
  PFN_GetErrorName getErrorName;
  PFN_CtxGetCurrent ctxGetCurrent;
  PFN_LaunchKernelEx launchKernelEx; /* NULL: dependent launches fall back to plain ones */
  char error[160]; /* why they are missing; "" when all were found */
} g_drv;
static pthread_once_t g_drvOnce = PTHREAD_ONCE_INIT;

static bool entryPoint(const char *symbol, void **fn) {
  enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  /* 12.0: the ABI of these functions' declarations in cuda.h since 12.0 (a newer driver keeps it) */
  cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, fn, 12000, cudaEnableDefault, &found);
#else
  cudaError_t e = cudaGetDriverEntryPoint(symbol, fn, cudaEnableDefault, &found);
#endif
  if (e == cudaSuccess && found == cudaDriverEntryPointSuccess && *fn)
    return true;
  if (!g_drv.error[0])
    snprintf(g_drv.error, sizeof g_drv.error, "no CUDA driver entry point %s (%s)", symbol,
             e != cudaSuccess ? cudaGetErrorString(e) : "not found");
  cudaGetLastError();
  *fn = NULL;
  return false;
}

static void loadDriver(void) {
  bool ok = entryPoint("cuModuleLoadDataEx", (void **)&g_drv.moduleLoadDataEx);
  ok = entryPoint("cuModuleUnload", (void **)&g_drv.moduleUnload) && ok;
  ok = entryPoint("cuModuleGetFunction", (void **)&g_drv.moduleGetFunction) && ok;
  ok = entryPoint("cuLaunchKernel", (void **)&g_drv.launchKernel) && ok;
  ok = entryPoint("cuFuncSetAttribute", (void **)&g_drv.funcSetAttribute) && ok;
  ok = entryPoint("cuGetErrorName", (void **)&g_drv.getErrorName) && ok;
  ok = entryPoint("cuCtxGetCurrent", (void **)&g_drv.ctxGetCurrent) && ok;
  (void)ok;
  enum cudaDriverEntryPointQueryResult found; /* optional: not an error when missing */
#if CUDART_VERSION >= 12050
  if (cudaGetDriverEntryPointByVersion("cuLaunchKernelEx", (void **)&g_drv.launchKernelEx, 12000, cudaEnableDefault,
                                       &found) != cudaSuccess || found != cudaDriverEntryPointSuccess)
#else
  if (cudaGetDriverEntryPoint("cuLaunchKernelEx", (void **)&g_drv.launchKernelEx, cudaEnableDefault, &found) !=
          cudaSuccess || found != cudaDriverEntryPointSuccess)
#endif
    g_drv.launchKernelEx = NULL;
  cudaGetLastError();
}

/* The driver functions, or false with the failure recorded (W4A16_ERR_NO_DEVICE). */
static bool haveDriver(void) {
  pthread_once(&g_drvOnce, loadDriver);
  if (!g_drv.error[0])
    return true;
  w4a16_rt_fail(W4A16_ERR_NO_DEVICE, "GPU-target code needs a CUDA driver and GPU: %s", g_drv.error);
  return false;
}

static const char *driverErrorName(CUresult r) {
  const char *name = NULL;
  if (!g_drv.getErrorName || g_drv.getErrorName(r, &name) != CUDA_SUCCESS || !name)
    return "unknown CUDA driver error";
  return name;
}

/* Records a CUDA runtime failure e in `what` with the status its kind calls for; returns false. */
static bool runtimeFail(cudaError_t e, const char *what) {
  cudaGetLastError(); /* not sticky: the next call must not see it */
  w4a16_status s = W4A16_ERR_CUDA;
  if (e == cudaErrorMemoryAllocation)
    s = W4A16_ERR_OUT_OF_MEMORY;
  else if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInitializationError)
    s = W4A16_ERR_NO_DEVICE;
  w4a16_rt_fail(s, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
  return false;
}

/* cudaMalloc and cudaFree are "unsafe" while any thread captures in global mode: switching this thread to
 * relaxed mode lets them run (they enqueue nothing on the capturing stream), as CUDA's docs advise for
 * allocators. */
static enum cudaStreamCaptureMode relaxCapture(void) {
  enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  return mode;
}

static void restoreCapture(enum cudaStreamCaptureMode mode) { cudaThreadExchangeStreamCaptureMode(&mode); }

static bool isCapturing(void *stream) {
  enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing((cudaStream_t)stream, &cs);
  if (e != cudaSuccess)
    cudaGetLastError(); /* no GPU: not capturing; the legacy stream beside a capture: treat as capturing */
  return e == cudaErrorStreamCaptureImplicit || cs != cudaStreamCaptureStatusNone;
}

/* --- modules ------------------------------------------------------------------------------------------ */

typedef struct Kernel {
  char *name;
  CUfunction function;
} Kernel;

/* Kernels that may be launched as programmatic dependents (PDL): those of a PTX module whose code waits for
 * the grids it depends on (griddepcontrol.wait, first thing in every kernel the GPU target generates for
 * sm_90 and up: lowering/dependent_launch.c), on a device of compute capability 9 or more. Such a launch may
 * start while the previous kernel on the stream finishes. On by default: on the H200 it took llama_block's graph
 * replay from 55 to 52-53 us at M = 1 and llama_rmsnorm_proj's from 23 to 21-22 us, results and replays unchanged
 * (bench/RESULTS.md, session 14, run 7). W4A16_NO_PDL=1 or W4A16_GPU_PDL=0 launch every kernel plainly. */
static pthread_mutex_t g_dependentLock = PTHREAD_MUTEX_INITIALIZER;
static CUfunction g_dependent[256];
static int g_numDependent;
static atomic_bool g_anyDependent; /* lets every launch skip the lock while no kernel is a dependent (the default) */

static bool moduleWaitsForDependencies(const void *ptx, int optLevel) {
  if (optLevel < 0 || !ptx || !strstr((const char *)ptx, "griddepcontrol.wait"))
    return false;
  const char *on = getenv("W4A16_GPU_PDL"), *off = getenv("W4A16_NO_PDL");
  if ((on && strcmp(on, "0") == 0) || (off && strcmp(off, "1") == 0))
    return false;
  int device = 0, major = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 9;
}

static void markDependent(CUfunction f) {
  pthread_mutex_lock(&g_dependentLock);
  bool known = false;
  for (int i = 0; i < g_numDependent && !known; ++i)
    known = g_dependent[i] == f;
  if (!known && g_numDependent < (int)(sizeof g_dependent / sizeof g_dependent[0]))
    g_dependent[g_numDependent++] = f; /* past 256 kernels: plain launches, still correct */
  atomic_store(&g_anyDependent, g_numDependent > 0);
  pthread_mutex_unlock(&g_dependentLock);
}

static bool isDependent(CUfunction f) {
  if (!atomic_load(&g_anyDependent))
    return false;
  pthread_mutex_lock(&g_dependentLock);
  bool found = false;
  for (int i = 0; i < g_numDependent && !found; ++i)
    found = g_dependent[i] == f;
  pthread_mutex_unlock(&g_dependentLock);
  return found;
}

typedef struct Module {
  const void *image; /* static data of the compiled code: not copied */
  int optLevel;      /* -1: a cubin / fatbin image, no JIT options */
  pthread_mutex_t lock;
  CUmodule module; /* NULL until the first mgpuModuleGetFunction */
  bool dependent;  /* its kernels may launch as programmatic dependents (moduleWaitsForDependencies) */
  Kernel *kernels;
  int nKernels, capKernels;
} Module;

/* Set at process exit before the CUDA runtime's own teardown (registered after it, so run before it):
 * mgpuModuleUnload from a global destructor then makes no driver call into a torn-down driver. */
static atomic_bool g_exiting;
static pthread_once_t g_atexitOnce = PTHREAD_ONCE_INIT;
static void markExiting(void) { atomic_store(&g_exiting, true); }
static void registerAtExit(void) { atexit(markExiting); }

static Module *newModule(const void *image, int optLevel) {
  Module *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->image = image;
  m->optLevel = optLevel;
  pthread_mutex_init(&m->lock, NULL);
  return m;
}

void *mgpuModuleLoadJIT(void *ptx, int32_t optLevel) {
  return newModule(ptx, optLevel < 0 ? 0 : optLevel > 4 ? 4 : optLevel);
}

void *mgpuModuleLoad(void *data, int64_t size) {
  (void)size; /* a cubin or fatbin carries its own size */
  return newModule(data, -1);
}

/* Loads m into the current context; m->lock held. */
static bool loadModule(Module *m) {
  char log[4096] = "";
  CUjit_option options[3] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_OPTIMIZATION_LEVEL};
  void *values[3] = {log, (void *)(uintptr_t)sizeof log, (void *)(uintptr_t)(m->optLevel < 0 ? 0 : m->optLevel)};
  CUresult r = g_drv.moduleLoadDataEx(&m->module, m->image, m->optLevel < 0 ? 2 : 3, options, values);
  if (r == CUDA_SUCCESS) {
    m->dependent = moduleWaitsForDependencies(m->image, m->optLevel);
    return true;
  }
  m->module = NULL;
  log[sizeof log - 1] = '\0';
  w4a16_rt_fail(r == CUDA_ERROR_NO_DEVICE ? W4A16_ERR_NO_DEVICE : W4A16_ERR_CUDA,
                "loading the compiled code's GPU module: %s%s%s", driverErrorName(r), log[0] ? ": " : "", log);
  return false;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Module *m = module;
  if (!m || !name) {
    w4a16_rt_fail(W4A16_ERR_NULL_POINTER, "GPU module %s is NULL (out of memory at load?)", m ? "kernel name" : "handle");
    return NULL;
  }
  if (!haveDriver())
    return NULL;
  /* The runtime makes its primary context current per thread on its first call; a thread whose first CUDA
   * call is ours has none yet. */
  CUcontext ctx = NULL;
  if (g_drv.ctxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
    cudaError_t e = cudaFree(NULL);
    if (e != cudaSuccess) {
      runtimeFail(e, "GPU-target code needs a GPU: initialising CUDA");
      return NULL;
    }
  }
  CUfunction f = NULL;
  pthread_mutex_lock(&m->lock);
  if (!m->module) {
    pthread_once(&g_atexitOnce, registerAtExit); /* after cudaFree above: cudart's teardown is registered */
    if (!loadModule(m))
      goto done;
  }
  for (int i = 0; i < m->nKernels; ++i)
    if (strcmp(m->kernels[i].name, name) == 0) {
      f = m->kernels[i].function;
      goto done;
    }
  CUresult r = g_drv.moduleGetFunction(&f, m->module, name);
  if (r != CUDA_SUCCESS) {
    w4a16_rt_fail(W4A16_ERR_CUDA, "kernel %s of the compiled code's GPU module: %s", name, driverErrorName(r));
    f = NULL;
    goto done;
  }
  if (m->dependent)
    markDependent(f);
  if (m->nKernels == m->capKernels) {
    int cap = m->capKernels ? 2 * m->capKernels : 8;
    Kernel *k = realloc(m->kernels, (size_t)cap * sizeof *k);
    if (!k)
      goto done; /* uncached but valid */
    m->kernels = k;
    m->capKernels = cap;
  }
  size_t len = strlen(name) + 1;
  char *copy = malloc(len);
  if (copy)
    m->kernels[m->nKernels++] = (Kernel){memcpy(copy, name, len), f};
done:
  pthread_mutex_unlock(&m->lock);
  return f;
}

void mgpuModuleUnload(void *module) {
  Module *m = module;
  if (!m)
    return;
  if (m->module && !atomic_load(&g_exiting))
    g_drv.moduleUnload(m->module); /* errors ignored: the context may be gone */
  for (int i = 0; i < m->nKernels; ++i)
    free(m->kernels[i].name);
  free(m->kernels);
  pthread_mutex_destroy(&m->lock);
  free(m);
}

void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY, int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smemBytes, void *stream, void **params, void **extra,
                      int64_t paramsCount) {
  (void)paramsCount;
  if (!function || (w4a16_rt_device_call() && w4a16_rt_status() != 0))
    return;
  /* An empty grid is no work (a loop over M = 0 rows: prepare with an empty batch); the driver would call
   * it an invalid value. */
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0 || blockX <= 0 || blockY <= 0 || blockZ <= 0)
    return;
  if (!stream)
    stream = w4a16_rt_stream();
  CUresult r = CUDA_SUCCESS;
  /* above 48 KiB dynamic shared memory must be opted into per function */
  if (smemBytes > 48 * 1024)
    r = g_drv.funcSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smemBytes);
  if (r == CUDA_SUCCESS && g_drv.launchKernelEx && isDependent(function)) {
    CUlaunchAttribute dependent = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                                   .value = {.programmaticStreamSerializationAllowed = 1}};
    CUlaunchConfig config = {.gridDimX = (unsigned)gridX, .gridDimY = (unsigned)gridY, .gridDimZ = (unsigned)gridZ,
                             .blockDimX = (unsigned)blockX, .blockDimY = (unsigned)blockY,
                             .blockDimZ = (unsigned)blockZ, .sharedMemBytes = (unsigned)smemBytes,
                             .hStream = stream, .attrs = &dependent, .numAttrs = 1};
    r = g_drv.launchKernelEx(&config, function, params, extra);
  } else if (r == CUDA_SUCCESS) {
    r = g_drv.launchKernel(function, (unsigned)gridX, (unsigned)gridY, (unsigned)gridZ, (unsigned)blockX,
                           (unsigned)blockY, (unsigned)blockZ, (unsigned)smemBytes, stream, params, extra);
  }
  if (r != CUDA_SUCCESS)
    w4a16_rt_fail(W4A16_ERR_CUDA, "launching a generated kernel: %s", driverErrorName(r));
}

/* --- arenas ----------------------------------------------------------------------------------------------- */

enum { kMinAlign = 256 };
static const size_t kMinChunk = (size_t)2 << 20;

typedef struct Chunk {
  char *base;
  size_t size;
} Chunk;

typedef struct Arena {
  void *stream;
  Chunk *chunks;
  int nChunks, capChunks;
  int cur;          /* the chunk the current call allocates from */
  size_t offset;    /* in chunks[cur] */
  size_t need;      /* what the current call would need in one chunk (worst-case alignment padding) */
  size_t highWater; /* the largest need of any call */
  bool captured;    /* used in a capture: a graph may hold these addresses, so chunks are never freed */
  struct Arena *next;
} Arena;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* arena list and constants */
static Arena *g_arenas;
static _Thread_local Arena *t_arena; /* the current device call's */

static Arena *arenaOf(void *stream) {
  pthread_mutex_lock(&g_lock);
  Arena *a = g_arenas;
  while (a && a->stream != stream)
    a = a->next;
  if (!a && (a = calloc(1, sizeof *a))) {
    a->stream = stream;
    a->next = g_arenas;
    g_arenas = a;
  }
  pthread_mutex_unlock(&g_lock);
  return a;
}

static void freeChunks(Arena *a) {
  enum cudaStreamCaptureMode mode = relaxCapture();
  for (int i = 0; i < a->nChunks; ++i)
    cudaFree(a->chunks[i].base); /* errors ignored: nothing left to do about them */
  restoreCapture(mode);
  cudaGetLastError();
  a->nChunks = 0;
  a->cur = 0;
  a->offset = 0;
}

/* Appends a chunk of at least size bytes; false with the failure recorded. */
static bool addChunk(Arena *a, size_t size) {
  if (a->nChunks == a->capChunks) {
    int cap = a->capChunks ? 2 * a->capChunks : 4;
    Chunk *c = realloc(a->chunks, (size_t)cap * sizeof *c);
    if (!c) {
      w4a16_rt_fail(W4A16_ERR_OUT_OF_MEMORY, "device arena: out of host memory");
      return false;
    }
    a->chunks = c;
    a->capChunks = cap;
  }
  size = (size + kMinChunk - 1) / kMinChunk * kMinChunk;
  void *p = NULL;
  enum cudaStreamCaptureMode mode = relaxCapture();
  cudaError_t e = cudaMalloc(&p, size);
  restoreCapture(mode);
  atomic_fetch_add(&g_allocations, 1);
  if (e != cudaSuccess)
    return runtimeFail(e, "device arena: cudaMalloc");
  a->chunks[a->nChunks++] = (Chunk){p, size};
  return true;
}

void w4a16_rt_enter_device(const char *function, int32_t prepare, void *stream) {
  w4a16_rt_enter(function, prepare);
  w4a16_rt_begin_device_call(stream);
  Arena *a = t_arena = arenaOf(stream);
  if (!a)
    return; /* allocations will say so */
  bool capturing = isCapturing(stream);
  a->captured |= capturing;
  /* Steady state is one chunk: a call that needed several makes the next one outside capture replace
   * them with one of the high-water size (the sync: the previous call's kernels may still use them). */
  if (a->nChunks > 1 && !a->captured) {
    cudaStreamSynchronize((cudaStream_t)stream);
    freeChunks(a);
    if (!addChunk(a, a->highWater))
      w4a16_rt_clear_status(); /* not this call's failure yet: its first allocation will retry */
  }
  a->cur = 0;
  a->offset = 0;
  a->need = 0;
}

void *w4a16_rt_device_aligned_alloc(int64_t alignment, int64_t bytes) {
  if (bytes < 0 || alignment < 0 || alignment > ((int64_t)1 << 30)) {
    w4a16_rt_fail(W4A16_ERR_BAD_ARGUMENT, "device allocation of %lld bytes aligned to %lld", (long long)bytes,
                  (long long)alignment);
    return NULL;
  }
  size_t align = kMinAlign;
  while (align < (size_t)alignment)
    align *= 2;
  size_t size = bytes ? (size_t)bytes : 1;
  /* t_arena is NULL after w4a16_rt_release_device; outside a device call the stream is NULL */
  Arena *a = w4a16_rt_device_call() && t_arena ? t_arena : arenaOf(w4a16_rt_stream());
  if (!a) {
    w4a16_rt_fail(W4A16_ERR_OUT_OF_MEMORY, "device arena: out of host memory");
    return NULL;
  }
  /* cudaMalloc aligns to 256: a larger alignment may cost up to align - 256 bytes of padding in one chunk */
  a->need += (size + kMinAlign - 1) / kMinAlign * kMinAlign + (align - kMinAlign);
  if (a->need > a->highWater)
    a->highWater = a->need;
  for (int i = a->cur; i <= a->nChunks; ++i) {
    if (i == a->nChunks) {
      size_t last = a->nChunks ? a->chunks[a->nChunks - 1].size : 0;
      if (!addChunk(a, size + align > 2 * last ? size + align : 2 * last))
        return NULL;
    }
    uintptr_t base = (uintptr_t)a->chunks[i].base, from = base + (i == a->cur ? a->offset : 0);
    uintptr_t p = (from + align - 1) & ~(uintptr_t)(align - 1);
    if (p + size <= base + a->chunks[i].size) {
      a->cur = i;
      a->offset = p + size - base;
      return (void *)p;
    }
  }
  return NULL; /* unreachable: a new chunk always fits */
}

void *w4a16_rt_device_alloc(int64_t bytes) { return w4a16_rt_device_aligned_alloc(kMinAlign, bytes); }

/* --- constants ---------------------------------------------------------------------------------------- */

typedef struct Constant {
  const void *host;
  size_t bytes;
  void *device;
} Constant;

static Constant *g_constants; /* open addressing on host, capacity a power of two; g_lock */
static size_t g_nConstants, g_capConstants;
static cudaStream_t g_uploadStream;

static size_t slotOf(const void *host, size_t bytes, size_t cap) {
  uint64_t h = ((uint64_t)(uintptr_t)host ^ bytes) * 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 32) & (cap - 1);
  while (g_constants[i].host && (g_constants[i].host != host || g_constants[i].bytes != bytes))
    i = (i + 1) & (cap - 1);
  return i;
}

static bool growConstants(void) {
  size_t cap = g_capConstants ? 2 * g_capConstants : 64;
  Constant *old = g_constants, *fresh = calloc(cap, sizeof *fresh);
  if (!fresh)
    return false;
  g_constants = fresh;
  for (size_t i = 0; i < g_capConstants; ++i)
    if (old[i].host)
      g_constants[slotOf(old[i].host, old[i].bytes, cap)] = old[i];
  free(old);
  g_capConstants = cap;
  return true;
}

/* A device copy of host; g_lock held. A private non-blocking stream keeps the upload off the legacy stream,
 * which would synchronise with (and so invalidate) a capture in progress on a blocking stream. */
static void *upload(const void *host, size_t bytes) {
  void *d = NULL;
  enum cudaStreamCaptureMode mode = relaxCapture();
  cudaError_t e = cudaSuccess;
  if (!g_uploadStream)
    e = cudaStreamCreateWithFlags(&g_uploadStream, cudaStreamNonBlocking);
  if (e == cudaSuccess)
    e = cudaMalloc(&d, bytes ? bytes : 1);
  if (e == cudaSuccess && bytes)
    e = cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, g_uploadStream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(g_uploadStream);
  if (e != cudaSuccess && d) {
    cudaFree(d);
    d = NULL;
  }
  restoreCapture(mode);
  if (e != cudaSuccess)
    runtimeFail(e, "copying a constant of the compiled code to the GPU");
  return d;
}

void *w4a16_rt_device_constant(const void *host, int64_t bytes) {
  if (!host || bytes < 0) {
    w4a16_rt_fail(W4A16_ERR_BAD_ARGUMENT, "device constant: host %p, %lld bytes", host, (long long)bytes);
    return NULL;
  }
  void *d = NULL;
  pthread_mutex_lock(&g_lock);
  if ((g_nConstants + 1) * 2 > g_capConstants && !growConstants()) {
    w4a16_rt_fail(W4A16_ERR_OUT_OF_MEMORY, "device constants: out of host memory");
    goto done;
  }
  size_t i = slotOf(host, (size_t)bytes, g_capConstants);
  if (!g_constants[i].host && (d = upload(host, (size_t)bytes))) {
    g_constants[i] = (Constant){host, (size_t)bytes, d};
    ++g_nConstants;
  }
  d = g_constants[i].device;
done:
  pthread_mutex_unlock(&g_lock);
  return d;
}

int64_t w4a16_rt_device_read(intptr_t address, int64_t bytes) {
  if (w4a16_rt_device_call() && w4a16_rt_status() != 0)
    return 0;
  if (!address || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)) {
    w4a16_rt_fail(W4A16_ERR_BAD_ARGUMENT, "device read: address %p, %lld bytes", (void *)address, (long long)bytes);
    return 0;
  }
  cudaStream_t stream = (cudaStream_t)w4a16_rt_stream();
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture != cudaStreamCaptureStatusNone) {
    w4a16_rt_fail(W4A16_ERR_BAD_ARGUMENT, "host code reads a value from device memory (a dynamic offset or size "
                                          "taken from a tensor): a CUDA graph would freeze it at capture; pass it "
                                          "as a scalar (index) argument to capture this function");
    return 0;
  }
  uint64_t value = 0; /* little-endian: the low bytes hold a narrower value */
  cudaError_t e = cudaMemcpyAsync(&value, (const void *)address, (size_t)bytes, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    w4a16_rt_fail(W4A16_ERR_CUDA, "device read of %lld bytes: %s", (long long)bytes, cudaGetErrorString(e));
    return 0;
  }
  return (int64_t)value;
}

void w4a16_rt_release_device(void) {
  pthread_mutex_lock(&g_lock);
  while (g_arenas) {
    Arena *a = g_arenas;
    g_arenas = a->next;
    freeChunks(a);
    free(a->chunks);
    free(a);
  }
  t_arena = NULL;
  for (size_t i = 0; i < g_capConstants; ++i)
    if (g_constants[i].host)
      cudaFree(g_constants[i].device);
  free(g_constants);
  g_constants = NULL;
  g_nConstants = g_capConstants = 0;
  if (g_uploadStream)
    cudaStreamDestroy(g_uploadStream);
  g_uploadStream = NULL;
  cudaGetLastError();
  pthread_mutex_unlock(&g_lock);
}

#else /* no CUDA in this build: the same functions, failing */

static const char kNoCuda[] = "this build of the w4a16 runtime has no CUDA backend: GPU-target code cannot run";

/* NULL modules: the failure is recorded where a status is read, at mgpuModuleGetFunction. */
void *mgpuModuleLoadJIT(void *ptx, int32_t optLevel) {
  (void)ptx, (void)optLevel;
  return NULL;
}

void *mgpuModuleLoad(void *data, int64_t size) {
  (void)data, (void)size;
  return NULL;
}

void mgpuModuleUnload(void *module) { (void)module; }

void *mgpuModuleGetFunction(void *module, const char *name) {
  (void)module, (void)name;
  w4a16_rt_fail(W4A16_ERR_NO_DEVICE, "%s", kNoCuda);
  return NULL;
}

void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY, int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smemBytes, void *stream, void **params, void **extra,
                      int64_t paramsCount) {
  (void)function, (void)gridX, (void)gridY, (void)gridZ, (void)blockX, (void)blockY, (void)blockZ;
  (void)smemBytes, (void)stream, (void)params, (void)extra, (void)paramsCount;
}

void w4a16_rt_enter_device(const char *function, int32_t prepare, void *stream) {
  w4a16_rt_enter(function, prepare);
  w4a16_rt_begin_device_call(stream);
}

void *w4a16_rt_device_aligned_alloc(int64_t alignment, int64_t bytes) {
  (void)alignment, (void)bytes;
  w4a16_rt_fail(W4A16_ERR_NO_DEVICE, "%s", kNoCuda);
  return NULL;
}

void *w4a16_rt_device_alloc(int64_t bytes) { return w4a16_rt_device_aligned_alloc(0, bytes); }

void *w4a16_rt_device_constant(const void *host, int64_t bytes) {
  (void)host, (void)bytes;
  w4a16_rt_fail(W4A16_ERR_NO_DEVICE, "%s", kNoCuda);
  return NULL;
}

int64_t w4a16_rt_device_read(intptr_t address, int64_t bytes) {
  (void)address, (void)bytes;
  w4a16_rt_fail(W4A16_ERR_NO_DEVICE, "%s", kNoCuda);
  return 0;
}

void w4a16_rt_release_device(void) {}

#endif

#define W4A16_DEVICE_SYMBOL(f) {#f, (void *)f},
static const w4a16_rt_symbol kDeviceSymbols[] = {
    W4A16_DEVICE_SYMBOL(w4a16_rt_enter_device)          W4A16_DEVICE_SYMBOL(w4a16_rt_stream)
    W4A16_DEVICE_SYMBOL(w4a16_rt_device_call)           W4A16_DEVICE_SYMBOL(mgpuModuleLoadJIT)
    W4A16_DEVICE_SYMBOL(mgpuModuleLoad)                 W4A16_DEVICE_SYMBOL(mgpuModuleUnload)
    W4A16_DEVICE_SYMBOL(mgpuModuleGetFunction)          W4A16_DEVICE_SYMBOL(mgpuLaunchKernel)
    W4A16_DEVICE_SYMBOL(mgpuStreamCreate)               W4A16_DEVICE_SYMBOL(mgpuStreamSynchronize)
    W4A16_DEVICE_SYMBOL(mgpuStreamDestroy)              W4A16_DEVICE_SYMBOL(w4a16_rt_device_alloc)
    W4A16_DEVICE_SYMBOL(w4a16_rt_device_aligned_alloc)  W4A16_DEVICE_SYMBOL(w4a16_rt_device_free)
    W4A16_DEVICE_SYMBOL(w4a16_rt_device_allocations)    W4A16_DEVICE_SYMBOL(w4a16_rt_device_constant)
    W4A16_DEVICE_SYMBOL(w4a16_rt_release_device)        W4A16_DEVICE_SYMBOL(w4a16_rt_device_read)};

const w4a16_rt_symbol *w4a16_rt_device_symbols(int *count) {
  *count = (int)(sizeof kDeviceSymbols / sizeof kDeviceSymbols[0]);
  return kDeviceSymbols;
}
