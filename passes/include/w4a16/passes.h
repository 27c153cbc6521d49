/* w4a16 passes, to add to any MlirOpPassManager. Each add-function creates a fresh external pass. */
#ifndef W4A16_PASSES_H
#define W4A16_PASSES_H

#include "mlir-c/Pass.h"
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct W4a16FuseOptions {
  /* Report, for every matmul fed by a dequantised weight, "fused as ..." or the first reason it was
   * not, as located remarks written to explain_stream (stderr if NULL). */
  bool explain;
  FILE *explain_stream;
} W4a16FuseOptions;

/* Registers the w4a16 dialect and the dialects the passes create ops of (linalg, tensor, arith, ...)
 * in ctx. Call once per context before parsing IR that uses them. */
void w4a16RegisterDialects(MlirContext ctx);

/* w4a16-fuse: rewrites dequant -> matmul -> bias -> activation -> residual chains into one
 * w4a16.fused_matmul each. Runs on any op (normally builtin.module). */
MlirPass w4a16CreateFusePass(W4a16FuseOptions options);
void w4a16AddFusePass(MlirOpPassManager pm, W4a16FuseOptions options);

/* w4a16-split-chunked-glu (run after w4a16-fuse, before w4a16-merge-siblings): a fused gate_up projection whose
 * result is chunked into gate = columns [0, I) and up = [I, 2I) feeding act(gate) * up (Phi-3's gate_up_proj)
 * becomes two fused ops on column windows of its weight, scales and zero points, which w4a16-merge-siblings then
 * merges into one GLU. With explain on, a chunked fused op that stays gets a remark naming the rule. */
MlirPass w4a16CreateSplitChunkedGluPass(W4a16FuseOptions options);
void w4a16AddSplitChunkedGluPass(MlirOpPassManager pm, W4a16FuseOptions options);

/* w4a16-merge-siblings (run after w4a16-fuse and w4a16-split-chunked-glu): fused matmuls that read the same x become one
 * w4a16.merged_matmul, one kernel launch: gate and up whose product is all that uses them become one GLU
 * result (act(x Wg) * (x Wu)); other siblings with the same activation and form keep a result each (QKV).
 * With explain on, each sibling gets a remark: what it merged with, or why not. */
MlirPass w4a16CreateMergeSiblingsPass(W4a16FuseOptions options);
void w4a16AddMergeSiblingsPass(MlirOpPassManager pm, W4a16FuseOptions options);

/* w4a16-fuse-int8-prep: rewrites the LLM.int8 correction-operand preparation feeding a matmul
 * (A[:, cols] and f16(CB[:, cols] * SCB[:, None] * 1/127).t(), bit for bit) into one w4a16.int8_prep with
 * two results; the matmul stays. Explain remarks are prefixed "w4a16-int8-prep:". Runs on any op. */
MlirPass w4a16CreateFuseInt8PrepPass(W4a16FuseOptions options);
void w4a16AddFuseInt8PrepPass(MlirOpPassManager pm, W4a16FuseOptions options);

/* w4a16-verify: runs the C verifier of the w4a16 ops (w4a16VerifyOps) as a pass. */
MlirPass w4a16CreateVerifyPass(void);

/* Names and one-line descriptions of the passes above, for --help texts. */
typedef struct W4a16PassInfo {
  const char *argument;
  const char *description;
} W4a16PassInfo;
const W4a16PassInfo *w4a16PassInfos(size_t *count);

#ifdef __cplusplus
}
#endif
#endif
