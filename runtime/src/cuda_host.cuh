// Host-side helpers the CUDA backend's translation units share (cuda_backend.cu, act_order_cuda.cu): error
// statuses from CUDA calls, device allocation, the programmatic-dependent-launch attribute and its switch.
#ifndef W4A16_CUDA_HOST_CUH
#define W4A16_CUDA_HOST_CUH

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

namespace w4a16 {

inline w4a16_status cuda_fail(cudaError_t e, const char *what) {
  cudaGetLastError();  // clear a sticky launch error so later calls are judged on their own
  return w4a16_fail(W4A16_ERR_CUDA, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

// cudaMalloc for `where` (the API call, "plan_create(cuda)" say): out of memory is W4A16_ERR_OUT_OF_MEMORY
// naming `what`, any other failure W4A16_ERR_CUDA; *ptr is null after a failure.
inline w4a16_status device_alloc(void **ptr, size_t bytes, const char *where, const char *what) {
  const cudaError_t e = cudaMalloc(ptr, bytes);
  if (e == cudaSuccess) return W4A16_OK;
  *ptr = nullptr;
  if (e != cudaErrorMemoryAllocation) {
    char call[64];
    snprintf(call, sizeof call, "%s: cudaMalloc", where);
    return cuda_fail(e, call);
  }
  cudaGetLastError();
  return w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of %s", where, bytes, what);
}

inline int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : dflt;
}

// Whether launches use programmatic dependent launch (sm_90 and later; W4A16_NO_PDL=1 turns it off).
inline bool pdl_enabled(int cc_major) { return cc_major >= 9 && env_int("W4A16_NO_PDL", 0) != 1; }

// Programmatic dependent launch, appended to cfg (attrs: room for every attribute appended, outliving the launch):
// the kernel may start before the previous kernel in the stream has finished, and waits for it itself
// (griddepcontrol.wait).
inline void add_pdl(cudaLaunchConfig_t &cfg, cudaLaunchAttribute *attrs) {
  cudaLaunchAttribute &a = attrs[cfg.numAttrs++];
  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attrs;
}

}  // namespace w4a16

#endif
