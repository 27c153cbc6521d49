/* w4a16-verify: the C verifier of the w4a16 ops (dialect/verify.c) as a pass, so a pipeline checks
 * what IRDL cannot after every step that creates or changes those ops. */
#include "w4a16/dialect.h"
#include "w4a16/passes.h"

static void verifyRun(MlirOperation root, MlirExternalPass pass, void *userData) {
  (void)userData;
  if (mlirLogicalResultIsFailure(w4a16VerifyOps(root)))
    mlirExternalPassSignalFailure(pass);
}

static MlirLogicalResult verifyInitialize(MlirContext ctx, void *userData) {
  (void)userData;
  return w4a16LoadDialect(ctx);
}

static void noop(void *userData) { (void)userData; }
static void *sameData(void *userData) { return userData; }

static _Alignas(8) char verifyPassId;

MlirPass w4a16CreateVerifyPass(void) {
  MlirExternalPassCallbacks callbacks = {noop, noop, verifyInitialize, sameData, verifyRun};
  return mlirCreateExternalPass(mlirTypeIDCreate(&verifyPassId), mlirStringRefCreateFromCString("W4a16Verify"),
                                mlirStringRefCreateFromCString("w4a16-verify"),
                                mlirStringRefCreateFromCString("Check shapes and element types of w4a16 ops"),
                                mlirStringRefCreateFromCString(""), 0, NULL, callbacks, NULL);
}
