/* Internal to the pipeline (pipeline.c): see check_lowered.c. */
#ifndef W4A16_CHECK_LOWERED_H
#define W4A16_CHECK_LOWERED_H

#include "mlir-c/Pass.h"

MlirPass w4a16CreateCheckLoweredPass(void);

#endif
