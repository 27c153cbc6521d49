/* w4a16-read-only-args: marks every tensor argument of every function bufferization.writable = false, so
 * that one-shot-bufferize never writes into a caller's buffer: an argument used as the `outs` of a linalg op
 * (a residual accumulated into, say) gets a copy instead. The compiled-code ABI promises that inputs are
 * never written (tools/w4a16-compile/header.c); bufferization's default takes function arguments as
 * writable, and compiled code then modified its caller's tensors, fused or not (test/e2e/read_only_args_test.c). */
#include "read_only_args.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Func.h"

#include <stdlib.h>

static bool isFunction(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "func.func") && mlirOperationGetNumRegions(op) == 1 &&
         !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
}

static void run(MlirOperation root, MlirExternalPass pass) {
  (void)pass;
  OpList functions = collectOps(root, isFunction, NULL, MlirWalkPreOrder);
  for (int f = 0; f < functions.count; ++f) {
    MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(functions.ops[f], 0));
    MlirAttribute no = mlirBoolAttrGet(mlirOperationGetContext(functions.ops[f]), 0);
    for (intptr_t a = 0, n = mlirBlockGetNumArguments(entry); a < n; ++a)
      if (mlirTypeIsARankedTensor(mlirValueGetType(mlirBlockGetArgument(entry, a))))
        mlirFuncSetArgAttr(functions.ops[f], a, mlirStringRefCreateFromCString("bufferization.writable"), no);
  }
  free(functions.ops);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kReadOnlyArgsPass = {&passId, "W4a16ReadOnlyArgs", "w4a16-read-only-args",
                                                    "function tensor arguments: bufferization.writable = false", "",
                                                    NULL, run, NULL};

MlirPass w4a16CreateReadOnlyArgsPass(void) { return createStatelessPass(&kReadOnlyArgsPass); }
