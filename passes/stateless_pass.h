/* A pass without state, in the C API's external-pass form: MLIR asks for five callbacks (construct,
 * destruct, initialize, clone, run); a pass that keeps nothing between runs needs only its run function
 * and, optionally, an initializer (loading the w4a16 dialect, say). Shared by the passes and the lowering. */
#ifndef W4A16_STATELESS_PASS_H
#define W4A16_STATELESS_PASS_H

#include "mlir-c/Pass.h"

typedef struct StatelessPassSpec {
  void *typeId;                            /* a static char's address, one per pass */
  const char *name, *argument, *description;
  const char *opName;                      /* the op the pass anchors on; "" = any */
  MlirLogicalResult (*initialize)(MlirContext ctx); /* may be NULL */
  void (*run)(MlirOperation root, MlirExternalPass pass);
  MlirDialectHandle (*dependentDialect)(void); /* may be NULL */
} StatelessPassSpec;

/* spec must outlive the pass (a static). */
MlirPass createStatelessPass(const StatelessPassSpec *spec);

#endif
