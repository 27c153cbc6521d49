/* w4a16-verify: the C verifier of the w4a16 ops (dialect/verify.c) as a pass, so a pipeline checks
 * what IRDL cannot after every step that creates or changes those ops. */
#include "stateless_pass.h"
#include "w4a16/dialect.h"
#include "w4a16/passes.h"

static void verifyRun(MlirOperation root, MlirExternalPass pass) {
  if (mlirLogicalResultIsFailure(w4a16VerifyOps(root)))
    mlirExternalPassSignalFailure(pass);
}

static _Alignas(8) char verifyPassId;
static const StatelessPassSpec kVerifyPass = {&verifyPassId, "W4a16Verify", "w4a16-verify",
                                              "Check shapes and element types of w4a16 ops", "", w4a16LoadDialect,
                                              verifyRun, NULL};

MlirPass w4a16CreateVerifyPass(void) { return createStatelessPass(&kVerifyPass); }
