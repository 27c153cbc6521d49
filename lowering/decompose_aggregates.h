/* Internal to the pipeline (pipeline.c): see decompose_aggregates.c. */
#ifndef W4A16_DECOMPOSE_AGGREGATES_H
#define W4A16_DECOMPOSE_AGGREGATES_H

#include "mlir-c/Pass.h"

MlirPass w4a16CreateDecomposeAggregatesPass(void);

#endif
