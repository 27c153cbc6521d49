/* w4a16-check-lowered: the pipeline's last step. Every op left must be the LLVM dialect's (or, on the GPU target, a
 * gpu.binary holding the kernels and the gpu.launch_func ops that launch them): anything else is an op no pass of the pipeline lowers -- a tensor.reshape with a
 * runtime shape, f8 conversions, a dialect the input brought along -- and translating it to LLVM IR failed later
 * with "LLVM Translation failed for operation: builtin.unrealized_conversion_cast", located at the function or
 * at nothing, or, from w4a16-opt, not at all. This names the op and where the input has it. */
#include "check_lowered.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool isLowered(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return (name.length > 5 && strncmp(name.data, "llvm.", 5) == 0) || opIs(op, "builtin.module") ||
         opIs(op, "gpu.binary") || opIs(op, "gpu.launch_func"); /* the GPU target's: LLVM IR translation takes both */
}

static bool isLeftOver(MlirOperation op, void *unused) {
  (void)unused;
  return !isLowered(op) && !opIs(op, "builtin.unrealized_conversion_cast");
}

/* A conversion cast the pipeline could not resolve: its operand's type is what no pass lowered. */
static bool isUnresolvedCast(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "builtin.unrealized_conversion_cast");
}

static void run(MlirOperation module, MlirExternalPass pass) {
  OpList left = collectOps(module, isLeftOver, NULL, MlirWalkPreOrder);
  for (int i = 0; i < left.count; ++i) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(left.ops[i]));
    char message[256];
    snprintf(message, sizeof message,
             "'%.*s' is left after the lowering to the LLVM dialect: no pass of the pipeline lowers it", (int)name.length,
             name.data);
    mlirEmitError(mlirOperationGetLocation(left.ops[i]), message);
  }
  /* Casts are reported only where no op is: each left op leaves casts around it. */
  OpList casts = left.count ? (OpList){0} : collectOps(module, isUnresolvedCast, NULL, MlirWalkPreOrder);
  for (int i = 0; i < casts.count && i < 4; ++i) {
    char type[96] = "";
    if (mlirOperationGetNumOperands(casts.ops[i]) > 0) {
      MlirType t = mlirValueGetType(mlirOperationGetOperand(casts.ops[i], 0));
      typeName(t, type, sizeof type);
    }
    char message[256];
    snprintf(message, sizeof message,
             "a value of type %s is left unconverted after the lowering to the LLVM dialect: no pass of the pipeline "
             "lowers what uses it",
             type);
    mlirEmitError(mlirOperationGetLocation(casts.ops[i]), message);
  }
  if (left.count || casts.count)
    mlirExternalPassSignalFailure(pass);
  free(left.ops), free(casts.ops);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kCheckLoweredPass = {
    &passId, "W4a16CheckLowered", "w4a16-check-lowered",
    "Last: every op left is the LLVM dialect's (or the GPU target's gpu.binary and gpu.launch_func); anything else is "
    "a located error naming the op",
    "builtin.module", NULL, run, NULL};

MlirPass w4a16CreateCheckLoweredPass(void) { return createStatelessPass(&kCheckLoweredPass); }
