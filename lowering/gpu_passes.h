/* The GPU target's own passes (docs/dialect.md, "The GPU target"): the rest of that pipeline is upstream. */
#ifndef W4A16_GPU_PASSES_H
#define W4A16_GPU_PASSES_H

#include "w4a16/lowering.h"

/* Module attributes the passes hand on: w4a16.target = "gpu" (entry points take a stream) and
 * w4a16.device_constants = {__w4a16_dev_<name> = <bytes>} (constants host code reads on the device). */
extern const char kTargetAttr[];
extern const char kDeviceConstantsAttr[];
extern const char kDeviceConstantPrefix[];

/* The CUDA toolkit whose nvvm/libdevice/libdevice.10.bc PTX generation links (the math of generated kernels:
 * rsqrt, powi, exp ...): $W4A16_CUDA_TOOLKIT when set (and only it), else the first of $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, /usr/lib/cuda that
 * has it, or NULL. The pipeline hands it to gpu-module-to-binary; w4a16-gpu-host-code reports its absence. */
const char *w4a16CudaToolkitPath(void);

/* A memref.alloca, or a cast or view of one: the host's own stack buffer (w4a16-gpu-host-code lets host code touch
 * it; w4a16-gpu-serial-kernels keeps code that does on the host). */
bool isHostStackBuffer(MlirValue v);

/* The passes themselves are declared in w4a16/lowering.h. */

#endif
