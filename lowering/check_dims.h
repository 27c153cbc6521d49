/* Internal to the pipeline (pipeline.c): see check_dims.c for why this pass exists. */
#ifndef W4A16_CHECK_DIMS_H
#define W4A16_CHECK_DIMS_H

#include "mlir-c/Pass.h"

MlirPass w4a16CreateCheckDimsPass(void);

#endif
