/* w4a16-gpu-dependent-launch: on the GPU target for sm_90 and up, every generated kernel starts with
 *
 *   nvvm.griddepcontrol wait     -- the grids this one depends on have finished, their writes visible
 *
 * so that the runtime can launch it as a programmatic dependent (PDL, runtime/abi/gpu_target.c): its launch
 * overlaps the tail of the kernel before, like the fused kernels' launches already do (their own wait comes
 * before they read x). A kernel without the wait would read its inputs too early, which is why the runtime
 * launches this way only the kernels of modules whose PTX waits (W4A16_NO_PDL=1 turns it off; in a plain launch
 * the wait returns at once). The kernels do not trigger their dependents
 * early (no launch_dependents): what follows them starts as it did before. Runs after gpu-kernel-outlining. */
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
  MlirNamedAttribute wait = namedAttr(
      ctx, "kind", mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString("#nvvm<grid_dep_action wait>")));
  OpList kernels = collectOps(module, isKernel, NULL, MlirWalkPreOrder);
  for (int i = 0; i < kernels.count; ++i) {
    MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernels.ops[i], 0));
    MlirLocation loc = mlirOperationGetLocation(kernels.ops[i]);
    mlirBlockInsertOwnedOperationBefore(entry, mlirBlockGetFirstOperation(entry),
                                        buildOp("nvvm.griddepcontrol", loc, 0, NULL, 0, NULL, 1, &wait, NULL));
  }
  free(kernels.ops);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kDependentLaunchPass = {
    &passId, "W4a16GpuDependentLaunch", "w4a16-gpu-dependent-launch",
    "GPU target (sm_90+), after gpu-kernel-outlining: every generated kernel first waits for the grids it "
    "depends on, so that the runtime may launch it as a programmatic dependent",
    "builtin.module", NULL, run, mlirGetDialectHandle__nvvm__};

MlirPass w4a16CreateDependentLaunchPass(void) { return createStatelessPass(&kDependentLaunchPass); }
