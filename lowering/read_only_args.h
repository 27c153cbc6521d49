/* Internal to the pipeline (pipeline.c): see read_only_args.c for why this pass exists. */
#ifndef W4A16_READ_ONLY_ARGS_H
#define W4A16_READ_ONLY_ARGS_H

#include "mlir-c/Pass.h"

MlirPass w4a16CreateReadOnlyArgsPass(void);

#endif
