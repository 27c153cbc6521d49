/* Lowering of w4a16.fused_matmul to calls into the runtime, and the full pipeline down to the LLVM
 * dialect. The runtime entry points the lowered code calls are declared in w4a16/runtime_abi.h. */
#ifndef W4A16_LOWERING_H
#define W4A16_LOWERING_H

#include "mlir-c/Pass.h"
#include "w4a16/passes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* w4a16-lower-to-runtime: each w4a16.fused_matmul becomes a call to w4a16_rt_matmul_<weight type>
 * through the memref C ABI (llvm.emit_c_interface), wrapped in bufferization.to_buffer/to_tensor so
 * the rest of the function bufferizes normally. Public functions get llvm.emit_c_interface so that
 * compiled code exports them as _mlir_ciface_<name>. Runs on builtin.module. */
MlirPass w4a16CreateLowerToRuntimePass(void);
void w4a16AddLowerToRuntimePass(MlirOpPassManager pm);

/* w4a16-lower-int8-prep: each w4a16.int8_prep becomes a call to w4a16_rt_int8_prep (runtime/int8prep,
 * w4a16/int8prep.h) through the memref C ABI, skipped when L = 0 (statically: no call is emitted). Sets
 * llvm.emit_c_interface on public functions like w4a16-lower-to-runtime. Runs on builtin.module. */
MlirPass w4a16CreateLowerInt8PrepPass(void);
void w4a16AddLowerInt8PrepPass(MlirOpPassManager pm);

/* w4a16-entry-points: for every _mlir_ciface_<f> of an LLVM-dialect module, exported functions
 * `int32_t w4a16c_run_<f>(...)` and `int32_t w4a16c_prepare_<f>(...)` taking the same arguments (a T that
 * _mlir_ciface_<f> returns by value goes through a T * passed first) and returning the compiled-code status
 * (w4a16/runtime_abi.h: w4a16_rt_enter / w4a16_rt_leave around the call). A module that calls no runtime
 * entry point gets entry points that return 0 and reference nothing. Runs on builtin.module, last. */
MlirPass w4a16CreateEntryPointsPass(void);

/* Where compiled code runs. HOST: every tensor in host memory, fused calls stage through the runtime's
 * backend. GPU: every tensor in device memory; fused ops call the runtime on device pointers, everything
 * else becomes kernels (upstream GPU codegen, PTX for gpuChip embedded in the module), all launched on the
 * caller's stream; the entry points take that stream first (docs/dialect.md, "The GPU target"). */
typedef enum W4a16Target { W4A16_TARGET_HOST = 0, W4A16_TARGET_GPU = 1 } W4a16Target;

typedef struct W4a16PipelineOptions {
  bool fuse;                 /* false: upstream lowering only (the unfused reference build) */
  W4a16FuseOptions fuseOptions;
  W4a16Target target;
  const char *gpuChip;       /* GPU target: the sm_XX the PTX is generated for; NULL: sm_90 */
  bool noMergeSiblings;      /* true: no w4a16-split-chunked-glu, no w4a16-merge-siblings (each fused chain its own call) */
} W4a16PipelineOptions;

/* The upstream part of the pipeline, as a textual pass pipeline on builtin.module. */
const char *w4a16UpstreamLoweringPipeline(void);
/* The GPU target's passes (w4a16-gpu-split-reductions, w4a16-copies-to-kernels, w4a16-gpu-host-code,
 * w4a16-gpu-dependent-launch, w4a16-caller-stream, w4a16-device-memory): in the pipeline
 * that target = GPU builds; exposed for lit tests and embedders that compose their own. */
MlirPass w4a16CreateSplitReductionsPass(void);
MlirPass w4a16CreateCopiesToKernelsPass(void);
MlirPass w4a16CreateSerialKernelsPass(void);
/* The host target's: copies from or to strided views become host loops (no memrefCopy call). */
MlirPass w4a16CreateStridedCopiesToLoopsPass(void);
MlirPass w4a16CreateDependentLaunchPass(void);
MlirPass w4a16CreateGpuHostCodePass(void);
MlirPass w4a16CreateCallerStreamPass(void);
MlirPass w4a16CreateDeviceMemoryPass(void);
/* Both targets, after convert-elementwise-to-linalg: FP8 (f8E4M3FN, f8E5M2) extf / truncf as integer arithmetic. */
MlirPass w4a16CreateExpandF8Pass(void);
/* Both targets, before convert-elementwise-to-linalg: tensor.bitcast as arith.bitcast on the whole tensor. */
MlirPass w4a16CreateTensorBitcastsPass(void);

/* What runs before fusion: upstream's inliner, so that a dequantisation in a called function (one per quantised
 * Linear, as some exporters emit it) is in the matmul's function, where the matcher sees it. Tools that fuse a
 * module outside w4a16AddPipeline (w4a16-compile counts the chains on a clone) add it too. */
MlirLogicalResult w4a16AddPreFusionPasses(MlirOpPassManager pm);

/* inline (w4a16AddPreFusionPasses) -> fuse (W4A16, then the int8 prep) -> verify -> lower-to-runtime ->
 * lower-int8-prep -> upstream bufferization and conversion to the LLVM dialect -> entry-points.
 * pm must be anchored on builtin.module, and the context it runs in must have had w4a16RegisterAll (without
 * the upstream interface models the bufferization fails, e.g. "op was not bufferized"). Returns failure if
 * the upstream pipeline does not parse. */
MlirLogicalResult w4a16AddPipeline(MlirOpPassManager pm, W4a16PipelineOptions options);

/* ---- registration ---- */

/* The one call an embedder needs before parsing IR for the w4a16 pipeline: registers in ctx every upstream
 * dialect with the interface models and extensions upstream passes rely on (mlirRegisterAllDialects), the
 * LLVM IR translations (mlirTranslateModuleToLLVMIR) and the w4a16 dialect (w4a16RegisterDialects); and, once
 * per process, the passes by name (w4a16RegisterPasses). w4a16RegisterDialects alone is enough to run the
 * fuse passes, not the pipeline. */
void w4a16RegisterAll(MlirContext ctx);

/* Registers every upstream pass (mlirRegisterAllPasses) and the w4a16 passes under the names of
 * w4a16PassInfos, so that textual pipelines name them: mlirParsePassPipeline, mlirOpPassManagerAddPipeline
 * and w4a16-opt --pass-pipeline, e.g. "builtin.module(func.func(canonicalize,w4a16-fuse),w4a16-verify)".
 * w4a16-explain, w4a16-explain-int8-prep (remarks on stderr) and w4a16-pipeline are registered as pass
 * pipelines. Process-wide, idempotent, thread-safe; w4a16RegisterAll calls it. */
void w4a16RegisterPasses(void);

/* What MLIR's C API cannot list (w4a16-opt --list-passes / --show-dialects): every registered pass with its
 * description, printed to stdout as `mlir-opt --list-passes` does, then the w4a16 pass pipelines; and the name
 * of every dialect ctx can load or has loaded, sorted, one call of callback each. */
void w4a16PrintRegisteredPasses(void);
void w4a16GetDialectNames(MlirContext ctx, MlirStringCallback callback, void *userData);

#ifdef __cplusplus
}
#endif
#endif
