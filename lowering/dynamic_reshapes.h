/* Internal to the pipeline (pipeline.c): see dynamic_reshapes.c for why this pass exists. */
#ifndef W4A16_DYNAMIC_RESHAPES_H
#define W4A16_DYNAMIC_RESHAPES_H

#include "mlir-c/Pass.h"

MlirPass w4a16CreateDynamicReshapesPass(void);

#endif
