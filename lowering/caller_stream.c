/* w4a16-caller-stream: every gpu.launch_func of host code launches on the stream the caller handed to the
 * GPU-target entry point (w4a16_rt_stream()), instead of the default lowering's stream created, synchronised
 * and destroyed around each launch -- a call that synchronises cannot be captured in a CUDA graph, and one
 * stream keeps the generated kernels ordered with the runtime's fused calls.
 *
 * gpu-to-llvm takes a launch's stream from its first async dependency (an asyncObject given before it is
 * dropped), so each launch becomes `gpu.launch_func async [%token]`, %token being the stream seen as a
 * !gpu.async.token (an unrealized cast that the LLVM lowering folds away). Runs after gpu-kernel-outlining. */
#include "call_template.h"
#include "gpu_passes.h"
#include "ir_build.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdlib.h>

static bool isSyncLaunch(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "gpu.launch_func") && mlirOperationGetNumResults(op) == 0;
}

/* The launch again, async on the caller's stream: its operand segments gain one async dependency. */
static void launchOnCallerStream(MlirOperation launch) {
  MlirContext ctx = mlirOperationGetContext(launch);
  MlirLocation loc = mlirOperationGetLocation(launch);
  MlirBlock block = mlirOperationGetBlock(launch);
  MlirType ptr = mlirLLVMPointerTypeGet(ctx, 0), token = mlirGPUAsyncTokenTypeGet(ctx);

  MlirNamedAttribute callee =
      namedAttr(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, mlirStringRefCreateFromCString("w4a16_rt_stream")));
  MlirOperation stream = buildOp("func.call", loc, 0, NULL, 1, &ptr, 1, &callee, NULL);
  mlirBlockInsertOwnedOperationBefore(block, launch, stream);
  MlirValue streamValue = mlirOperationGetResult(stream, 0);
  MlirOperation asToken =
      buildOp("builtin.unrealized_conversion_cast", loc, 1, &streamValue, 1, &token, 0, NULL, NULL);
  mlirBlockInsertOwnedOperationBefore(block, launch, asToken);

  intptr_t n = mlirOperationGetNumOperands(launch);
  MlirValue *operands = malloc((size_t)(n + 1) * sizeof *operands);
  operands[0] = mlirOperationGetResult(asToken, 0);
  for (intptr_t i = 0; i < n; ++i)
    operands[i + 1] = mlirOperationGetOperand(launch, i);
  /* The first segment counts the async dependencies (none before). */
  MlirAttribute oldSegments = attr(launch, "operandSegmentSizes");
  intptr_t numSegments = mlirDenseArrayGetNumElements(oldSegments);
  int32_t segments[16];
  for (intptr_t i = 0; i < numSegments && i < 16; ++i)
    segments[i] = mlirDenseI32ArrayGetElement(oldSegments, i);
  segments[0] += 1;
  MlirNamedAttribute attributes[2] = {
      namedAttr(ctx, "kernel", attr(launch, "kernel")),
      namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, numSegments, segments))};
  MlirOperation async = buildOp("gpu.launch_func", loc, n + 1, operands, 1, &token, 2, attributes, NULL);
  mlirBlockInsertOwnedOperationBefore(block, launch, async);
  mlirOperationDestroy(launch);
  free(operands);
}

static void run(MlirOperation module, MlirExternalPass pass) {
  OpList launches = collectOps(module, isSyncLaunch, NULL, MlirWalkPreOrder);
  if (launches.count > 0) {
    MlirModule decl = parseTemplate(mlirOperationGetContext(module),
                                    "func.func private @w4a16_rt_stream() -> !llvm.ptr\n",
                                    mlirOperationGetLocation(module), "w4a16-caller-stream");
    if (mlirModuleIsNull(decl)) {
      mlirExternalPassSignalFailure(pass);
      free(launches.ops);
      return;
    }
    moveSymbols(decl, module);
    mlirModuleDestroy(decl);
  }
  for (int i = 0; i < launches.count; ++i)
    launchOnCallerStream(launches.ops[i]);
  free(launches.ops);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kCallerStreamPass = {
    &passId, "W4a16CallerStream", "w4a16-caller-stream",
    "GPU target, after gpu-kernel-outlining: launch every gpu.launch_func on the caller's stream "
    "(w4a16_rt_stream()), never on a stream created and synchronised per launch",
    "builtin.module", NULL, run, mlirGetDialectHandle__llvm__};

MlirPass w4a16CreateCallerStreamPass(void) { return createStatelessPass(&kCallerStreamPass); }
