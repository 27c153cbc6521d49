/* Dialect registration and the pass catalogue for tools and embedding compilers. */
#include "w4a16/dialect.h"
#include "w4a16/passes.h"

#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/Tensor.h"

void w4a16RegisterDialects(MlirContext ctx) {
  MlirDialectHandle handles[] = {mlirGetDialectHandle__arith__(), mlirGetDialectHandle__func__(),
                                 mlirGetDialectHandle__linalg__(), mlirGetDialectHandle__math__(),
                                 mlirGetDialectHandle__tensor__()};
  for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i)
    mlirDialectHandleRegisterDialect(handles[i], ctx);
  w4a16LoadDialect(ctx);
}

static const W4a16PassInfo kPasses[] = {
    {"w4a16-fuse", "Fuse dequant -> matmul -> bias -> silu|gelu_tanh -> residual chains into w4a16.fused_matmul"},
    {"w4a16-split-chunked-glu", "Split a fused gate_up projection whose result is chunked into gate and up halves feeding act(gate) * up (Phi-3) into two fused ops on column windows of its weight, for w4a16-merge-siblings to make one GLU"},
    {"w4a16-merge-siblings", "Merge fused matmuls that read the same x into one w4a16.merged_matmul, one launch: QKV-style outputs, gate/up with their product as one GLU result"},
    {"w4a16-explain", "Like w4a16-fuse, w4a16-split-chunked-glu then w4a16-merge-siblings, and report for every dequantised matmul what it was fused and merged as or why not"},
    {"w4a16-fuse-int8-prep", "Fuse the LLM.int8 correction-operand preparation (gather, int8 row-scale dequant, transpose) into w4a16.int8_prep"},
    {"w4a16-explain-int8-prep", "Like w4a16-fuse-int8-prep, and report for every matmul fed by a column gather what it was fused as or why not"},
    {"w4a16-verify", "Check shapes and element types of w4a16 ops (what IRDL cannot express)"},
    {"w4a16-lower-to-runtime", "Lower w4a16.fused_matmul to calls into the w4a16 runtime (memref C interface)"},
    {"w4a16-lower-int8-prep", "Lower w4a16.int8_prep to calls into the int8prep runtime (w4a16-opt: part of --w4a16-lower-to-runtime)"},
    {"w4a16-entry-points", "Add status-returning w4a16c_run_<f> and w4a16c_prepare_<f> for every _mlir_ciface_<f> of an LLVM-dialect module"},
    {"w4a16-pipeline", "Inline, fuse, verify, lower to runtime calls, upstream bufferization and conversion to LLVM, then w4a16-entry-points"},
    {"w4a16-gpu-pipeline", "w4a16-pipeline for the GPU target: tensors in device memory, the rest of the function as upstream-generated GPU kernels (PTX, sm_90), launched on the caller's stream"},
    {"w4a16-decompose-aggregates", "Before bufferization: linalg.softmax becomes its max, exp, sum and divide linalg ops (upstream's decomposition), which the host and GPU lowerings take"},
    {"w4a16-tensor-bitcasts", "Both targets, before convert-elementwise-to-linalg: tensor.bitcast (Tensor.view(dtype), e.g. uint8 FP8 weights viewed as float8) becomes arith.bitcast on the whole tensor, which bufferizes; nothing upstream bufferizes tensor.bitcast"},
    {"w4a16-expand-f8", "Both targets, after convert-elementwise-to-linalg: arith.extf from and arith.truncf to f8E4M3FN and f8E5M2 (FP8 checkpoints, KV caches) become calls of integer-arithmetic functions (nearest even; e4m3 overflows to NaN, e5m2 to infinity), which nothing upstream lowers"},
    {"w4a16-gpu-split-reductions", "GPU target, on tensors: split long innermost sums, maxima and minima into up to 256 coalesced partial results per row and a combine, split again while long"},
    {"w4a16-gpu-serial-kernels", "GPU target, after convert-linalg-to-parallel-loops: a host statement with no parallel loop that reads or writes a buffer (a reduction into a 0-d tensor, a 0-d fill) becomes a one-thread kernel"},
    {"w4a16-copies-to-kernels", "GPU target, after bufferization: memref.copy becomes linalg.copy, so that it runs as a GPU kernel"},
    {"w4a16-strided-copies-to-loops", "Host target, after bufferization: memref.copy from or to a strided view becomes linalg.copy (host loops), not a call of the runner-utils memrefCopy that compiled code does not link"},
    {"w4a16-gpu-host-code", "GPU target: reject host code that touches tensor data, route host uses of constant globals to device copies"},
    {"w4a16-gpu-dependent-launch", "GPU target (sm_90+): every generated kernel first waits for the grids it depends on, so that the runtime may launch it as a programmatic dependent"},
    {"w4a16-caller-stream", "GPU target: launch every gpu.launch_func on the caller's stream (w4a16_rt_stream()), never a per-launch stream"},
    {"w4a16-device-memory", "GPU target, LLVM dialect: buffers from the runtime's device arena, constants through device copies made once"},
};

const W4a16PassInfo *w4a16PassInfos(size_t *count) {
  *count = sizeof kPasses / sizeof kPasses[0];
  return kPasses;
}
