#include "stateless_pass.h"

static void nothing(void *spec) { (void)spec; }
static void *sameSpec(void *spec) { return spec; } /* a clone shares the static spec */
static MlirLogicalResult initializeSpec(MlirContext ctx, void *spec) {
  const StatelessPassSpec *s = spec;
  return s->initialize ? s->initialize(ctx) : mlirLogicalResultSuccess();
}
static void runSpec(MlirOperation root, MlirExternalPass pass, void *spec) {
  ((const StatelessPassSpec *)spec)->run(root, pass);
}

MlirPass createStatelessPass(const StatelessPassSpec *spec) {
  MlirExternalPassCallbacks callbacks = {nothing, nothing, initializeSpec, sameSpec, runSpec};
  MlirDialectHandle dialect = spec->dependentDialect ? spec->dependentDialect() : (MlirDialectHandle){NULL};
  return mlirCreateExternalPass(mlirTypeIDCreate(spec->typeId), mlirStringRefCreateFromCString(spec->name),
                                mlirStringRefCreateFromCString(spec->argument),
                                mlirStringRefCreateFromCString(spec->description),
                                mlirStringRefCreateFromCString(spec->opName), spec->dependentDialect ? 1 : 0,
                                &dialect, callbacks, (void *)spec);
}
