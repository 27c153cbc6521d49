/* Building ops through the C API's generic OperationState, for the lowering passes that create IR op by op
 * (the GPU target's) rather than from template text. */
#ifndef W4A16_IR_BUILD_H
#define W4A16_IR_BUILD_H

#include "mlir-c/IR.h"

/* An op named `name` at loc with the given operands, result types and attributes (inherent ones such as
 * operandSegmentSizes included), owning `body` when it is not NULL. Not inserted anywhere. */
MlirOperation buildOp(const char *name, MlirLocation loc, intptr_t numOperands, const MlirValue *operands,
                      intptr_t numResults, const MlirType *results, intptr_t numAttributes,
                      const MlirNamedAttribute *attributes, MlirRegion *body);

MlirNamedAttribute namedAttr(MlirContext ctx, const char *name, MlirAttribute value);

#endif
