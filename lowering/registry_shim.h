/* The C side of registry_shim.cpp, the project's one C++ file: pass and pipeline registration by name, and
 * listing. register_all.c wraps them into the public API of w4a16/lowering.h. */
#ifndef W4A16_REGISTRY_SHIM_H
#define W4A16_REGISTRY_SHIM_H

#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the pass create() makes under its argument (create is called once now, and once per use). */
void w4a16ShimRegisterPass(MlirPass (*create)(void));

/* Registers a pass pipeline named argument: build adds its passes to the pass manager it is given. */
void w4a16ShimRegisterPipeline(const char *argument, const char *description,
                               MlirLogicalResult (*build)(MlirOpPassManager));

/* Prints the registered passes (mlir::printRegisteredPasses), then the named pass pipelines. */
void w4a16ShimPrintRegisteredPasses(const char *const *pipelines, size_t numPipelines);

#ifdef __cplusplus
}
#endif
#endif
