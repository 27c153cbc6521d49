/* --w4a16-pipeline: inline -> fuse (W4A16, int8 prep) -> verify -> lower both -> upstream passes to the LLVM dialect
 * -> the status-returning entry points. Between our lowering and the entry points everything is upstream
 * MLIR (docs/dialect.md, "Lowering", lists it). */
#include "w4a16/lowering.h"

#include "check_dims.h"
#include "check_lowered.h"
#include "dynamic_reshapes.h"
#include "gpu_passes.h"
#include "read_only_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *w4a16UpstreamLoweringPipeline(void) {
  return "inline,"
         "w4a16-decompose-aggregates," /* linalg.softmax: no lowering pass takes it whole */
         "w4a16-tensor-bitcasts," /* tensor.bitcast, which nothing bufferizes, as an elementwise arith.bitcast */
         "func.func(convert-elementwise-to-linalg)," /* arith / math on whole tensors: one-shot-bufferize takes none */
         "w4a16-expand-f8,inline," /* FP8 conversions, which no upstream pass lowers, as calls, then inlined */
         /* a loop that yields a new tensor (scf.for building a result step by step) gets its own buffer */
         "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map "
         "allow-return-allocs-from-loops},"
         "w4a16-strided-copies-to-loops," /* no memrefCopy calls: compiled code does not link runner-utils */
         "convert-linalg-to-loops,"
         "buffer-deallocation-pipeline,"
         "convert-bufferization-to-memref," /* bufferization.clone of a returned in-place argument */
         "convert-complex-to-standard," /* complex exp, div, abs (RoPE in complex form) as arith and math */
         "convert-math-to-funcs," /* math.fpowi / ipowi (RMSNorm's pow(x, 2)): no libm call, no LLVM lowering */
         "math-expand-ops{ops=rsqrt}," /* RMSNorm's rsqrt: convert-math-to-libm would call rsqrtf, not in libm */
         "convert-scf-to-cf,"
         "expand-strided-metadata,"
         "lower-affine,"
         /* the math ops LLVM has intrinsics for (copysign, isnan, absi, sincos, ...) first: convert-math-to-libm
          * fails on those it has no call for; what is left (erf, tanh, atan, ...) becomes libm calls */
         "convert-math-to-llvm,"
         "convert-math-to-libm,"
         "convert-to-llvm,"
         "reconcile-unrealized-casts";
}

static void printError(MlirStringRef message, void *userData) {
  (void)userData;
  fprintf(stderr, "%.*s", (int)message.length, message.data);
}

/* The GPU target, in upstream stretches around its own passes. Buffers are deallocated before the loops
 * exist (the deallocation pipeline does not look into gpu.launch). Loops: every linalg op becomes scf.parallel
 * (reductions a sequential scf.for inside), tiled 1 x 256 so that a 2-D (M, N) loop runs a 256-thread block
 * per row tile, mapped onto blocks and threads. */
static const char kGpuBufferize[] =
    "w4a16-tensor-bitcasts,"
    "func.func(convert-elementwise-to-linalg),"
    "w4a16-expand-f8,inline,"
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops},"
    "buffer-deallocation-pipeline,"
    "convert-bufferization-to-memref,"
    "convert-complex-to-standard,"
    /* math.fpowi (RMSNorm's pow(x, 2), often with an i64 exponent) as a generated function, which outlining
     * copies into each kernel module: convert-gpu-to-nvvm would call libdevice's __nv_powif(float, int) with
     * the exponent as it is, and an i64 is not an int -- the linked call reads a wrong exponent. After the
     * deallocation pipeline, which takes no unstructured control flow. */
    "convert-math-to-funcs";
static const char kGpuLoops[] =
    "convert-linalg-to-parallel-loops,"
    "w4a16-gpu-serial-kernels," /* a 0-d reduction or fill has no parallel loop: a one-thread kernel */
    "func.func(scf-parallel-loop-tiling{parallel-loop-tile-sizes=1,256 no-min-max-bounds=true},"
    "gpu-map-parallel-loops,convert-parallel-loops-to-gpu)";
static const char kGpuOutline[] = "lower-affine,gpu-kernel-outlining";
/* Kernels to NVVM and PTX (embedded in a gpu.binary, JIT-loaded once per process by the runtime); host code
 * to LLVM with buffers from the runtime's allocation functions (w4a16-device-memory renames them). */
static const char kGpuToLLVMFormat[] =
    "nvvm-attach-target{chip=%s features=+ptx80 O=3},"
    "convert-scf-to-cf,"
    "gpu.module(convert-gpu-to-nvvm,canonicalize,cse,reconcile-unrealized-casts),"
    "expand-strided-metadata,"
    "lower-affine,"
    "finalize-memref-to-llvm{use-generic-functions=true},"
    "convert-func-to-llvm,"
    "gpu-to-llvm,"
    "convert-to-llvm,"
    "reconcile-unrealized-casts,"
    "gpu-module-to-binary{format=isa toolkit=%s},"
    "canonicalize,"
    "reconcile-unrealized-casts";

static MlirLogicalResult addText(MlirOpPassManager pm, const char *text) {
  return mlirOpPassManagerAddPipeline(pm, mlirStringRefCreateFromCString(text), printError, NULL);
}

/* "sm_90a" -> 90; 0 when it is not such a name. */
static int chipNumber(const char *chip) {
  return strncmp(chip, "sm_", 3) == 0 ? atoi(chip + 3) : 0;
}

static MlirLogicalResult addGpuLowering(MlirOpPassManager pm, const char *chip) {
  char toLLVM[sizeof kGpuToLLVMFormat + 1024];
  const char *toolkit = w4a16CudaToolkitPath(); /* none: w4a16-gpu-host-code stops with an error first */
  snprintf(toLLVM, sizeof toLLVM, kGpuToLLVMFormat, chip ? chip : "sm_90", toolkit ? toolkit : "/usr/local/cuda");
  /* a softmax decomposed before the reductions are split: its row max and sum get split too */
  if (mlirLogicalResultIsFailure(addText(pm, "inline,w4a16-decompose-aggregates")))
    return mlirLogicalResultFailure();
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateSplitReductionsPass());
  if (mlirLogicalResultIsFailure(addText(pm, kGpuBufferize)))
    return mlirLogicalResultFailure();
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateCopiesToKernelsPass());
  if (mlirLogicalResultIsFailure(addText(pm, kGpuLoops)))
    return mlirLogicalResultFailure();
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateGpuHostCodePass());
  if (mlirLogicalResultIsFailure(addText(pm, kGpuOutline)))
    return mlirLogicalResultFailure();
  if (chipNumber(chip ? chip : "sm_90") >= 90) /* griddepcontrol is PTX for sm_90 and up */
    mlirOpPassManagerAddOwnedPass(pm, w4a16CreateDependentLaunchPass());
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateCallerStreamPass());
  if (mlirLogicalResultIsFailure(addText(pm, toLLVM)))
    return mlirLogicalResultFailure();
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateDeviceMemoryPass());
  return mlirLogicalResultSuccess();
}

/* The lowering below inlines anyway, so inlining first changes only what fuses. */
MlirLogicalResult w4a16AddPreFusionPasses(MlirOpPassManager pm) {
  w4a16RegisterPasses();
  return addText(pm, "inline");
}

MlirLogicalResult w4a16AddPipeline(MlirOpPassManager pm, W4a16PipelineOptions options) {
  w4a16RegisterPasses(); /* the textual part names upstream passes */
  if (options.fuse) {
    if (mlirLogicalResultIsFailure(w4a16AddPreFusionPasses(pm)))
      return mlirLogicalResultFailure();
    w4a16AddFusePass(pm, options.fuseOptions);
    if (!options.noMergeSiblings) { /* a gate_up projection's halves, then every sibling group */
      w4a16AddSplitChunkedGluPass(pm, options.fuseOptions);
      w4a16AddMergeSiblingsPass(pm, options.fuseOptions);
    }
    w4a16AddFuseInt8PrepPass(pm, options.fuseOptions);
    mlirOpPassManagerAddOwnedPass(pm, w4a16CreateVerifyPass());
  }
  w4a16AddLowerToRuntimePass(pm);
  w4a16AddLowerInt8PrepPass(pm);
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateDynamicReshapesPass()); /* an upstream crash, see the file */
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateReadOnlyArgsPass());     /* inputs are never written */
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateCheckDimsPass());        /* an upstream crash, see the file */
  MlirLogicalResult r = options.target == W4A16_TARGET_GPU ? addGpuLowering(pm, options.gpuChip)
                                                            : addText(pm, w4a16UpstreamLoweringPipeline());
  if (mlirLogicalResultIsSuccess(r)) {
    mlirOpPassManagerAddOwnedPass(pm, w4a16CreateEntryPointsPass());
    mlirOpPassManagerAddOwnedPass(pm, w4a16CreateCheckLoweredPass()); /* an op nothing lowered: a located error */
  }
  return r;
}
