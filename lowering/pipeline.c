/* --w4a16-pipeline: fuse (W4A16, int8 prep) -> verify -> lower both -> upstream passes to the LLVM dialect
 * -> the status-returning entry points. Between our lowering and the entry points everything is upstream
 * MLIR (docs/dialect.md, "Lowering", lists it). */
#include "w4a16/lowering.h"

#include "dynamic_reshapes.h"
#include "read_only_args.h"

#include <stdio.h>

const char *w4a16UpstreamLoweringPipeline(void) {
  return "inline,"
         "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
         "convert-linalg-to-loops,"
         "buffer-deallocation-pipeline,"
         "convert-bufferization-to-memref," /* bufferization.clone of a returned in-place argument */
         "convert-math-to-funcs," /* math.fpowi / ipowi (RMSNorm's pow(x, 2)): no libm call, no LLVM lowering */
         "math-expand-ops{ops=rsqrt}," /* RMSNorm's rsqrt: convert-math-to-libm would call rsqrtf, not in libm */
         "convert-scf-to-cf,"
         "expand-strided-metadata,"
         "lower-affine,"
         "convert-math-to-libm,"
         "convert-to-llvm,"
         "reconcile-unrealized-casts";
}

static void printError(MlirStringRef message, void *userData) {
  (void)userData;
  fprintf(stderr, "%.*s", (int)message.length, message.data);
}

MlirLogicalResult w4a16AddPipeline(MlirOpPassManager pm, W4a16PipelineOptions options) {
  w4a16RegisterPasses(); /* the textual part names upstream passes */
  if (options.fuse) {
    w4a16AddFusePass(pm, options.fuseOptions);
    w4a16AddFuseInt8PrepPass(pm, options.fuseOptions);
    mlirOpPassManagerAddOwnedPass(pm, w4a16CreateVerifyPass());
  }
  w4a16AddLowerToRuntimePass(pm);
  w4a16AddLowerInt8PrepPass(pm);
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateDynamicReshapesPass()); /* an upstream crash, see the file */
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateReadOnlyArgsPass());     /* inputs are never written */
  MlirLogicalResult r =
      mlirOpPassManagerAddPipeline(pm, mlirStringRefCreateFromCString(w4a16UpstreamLoweringPipeline()), printError, NULL);
  if (mlirLogicalResultIsSuccess(r))
    mlirOpPassManagerAddOwnedPass(pm, w4a16CreateEntryPointsPass());
  return r;
}
