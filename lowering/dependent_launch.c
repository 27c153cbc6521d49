/* w4a16-gpu-dependent-launch: on the GPU target for sm_90 and up, every generated kernel starts with
 *
 *   nvvm.griddepcontrol wait                -- the grids this one depends on have finished, their writes visible
 *   nvvm.griddepcontrol launch_dependents   -- the next kernel on the stream may start launching
 *
 * so that the runtime can launch it as a programmatic dependent (PDL, runtime/abi/gpu_target.c): its launch and
 * the next kernel's launch overlap the tail of the kernel before, like the fused kernels' launches already do
 * (their own wait comes before they read x). A kernel without the wait would read its inputs too early, which
 * is why the runtime launches this way only the kernels of modules whose PTX waits (and, until measured on the
 * device, only with W4A16_GPU_PDL=1; in a plain launch the wait returns at once). Runs after
 * gpu-kernel-outlining. */
#include "gpu_passes.h"
#include "ir_build.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/Dialect/NVVM.h"

#include <stdlib.h>

static bool isKernel(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "gpu.func") && !mlirAttributeIsNull(attr(op, "gpu.kernel"));
}

static void run(MlirOperation module, MlirExternalPass pass) {
  (void)pass;
  MlirContext ctx = mlirOperationGetContext(module);
  MlirAttribute wait = mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString("#nvvm<grid_dep_action wait>"));
  MlirAttribute launch =
      mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString("#nvvm<grid_dep_action launch_dependents>"));
  OpList kernels = collectOps(module, isKernel, NULL, MlirWalkPreOrder);
  for (int i = 0; i < kernels.count; ++i) {
    MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernels.ops[i], 0));
    MlirLocation loc = mlirOperationGetLocation(kernels.ops[i]);
    MlirNamedAttribute kinds[2] = {namedAttr(ctx, "kind", wait), namedAttr(ctx, "kind", launch)};
    MlirOperation first = mlirBlockGetFirstOperation(entry);
    for (int k = 0; k < 2; ++k)
      mlirBlockInsertOwnedOperationBefore(entry, first,
                                          buildOp("nvvm.griddepcontrol", loc, 0, NULL, 0, NULL, 1, &kinds[k], NULL));
  }
  free(kernels.ops);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kDependentLaunchPass = {
    &passId, "W4a16GpuDependentLaunch", "w4a16-gpu-dependent-launch",
    "GPU target (sm_90+), after gpu-kernel-outlining: every generated kernel waits for the grids it depends on "
    "and lets the next one launch, so that the runtime launches it as a programmatic dependent",
    "builtin.module", NULL, run, mlirGetDialectHandle__nvvm__};

MlirPass w4a16CreateDependentLaunchPass(void) { return createStatelessPass(&kDependentLaunchPass); }
