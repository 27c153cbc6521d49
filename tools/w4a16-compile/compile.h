/* w4a16-compile's parts: the options (w4a16-compile.c), the C header (header.c) and native code (emit.c). */
#ifndef W4A16_COMPILE_H
#define W4A16_COMPILE_H

#include "diagnostics.h"
#include "strbuf.h"

#include "mlir-c/IR.h"

#include <stdbool.h>

typedef enum OutputKind { OUT_OBJECT, OUT_SHARED, OUT_MLIR, OUT_LLVM } OutputKind;

typedef struct Options {
  const char *input;
  const char *output;
  const char *header;
  bool fuse;
  bool no_merge; /* --no-merge: sibling projections stay separate calls */
  bool explain;
  bool emit_mlir;
  bool emit_llvm;
  const char *mcpu;
  int opt_level;
  bool quiet;
  bool gpu;             /* --target=gpu */
  const char *gpu_chip; /* --gpu-chip=sm_XX (GPU target), default sm_90 */
} Options;

OutputKind output_kind(const Options *o);

/* Builds the C header declaring _mlir_ciface_<fn> for every public function with a body of module, from the
 * signatures as written (gpu: the GPU target's entry points, which take a stream first); argument names come from src. False (after an error message) for a signature C
 * cannot express. */
bool generate_header(const Source *src, MlirModule module, const char *header_path, bool gpu, StrBuf *out);

/* Whether LLVM can generate code for the host triple and o->mcpu; false after an error naming the CPU. */
bool check_target_cpu(const Options *o);

/* Translates the LLVM-dialect module to LLVM IR, optimises it and writes o->output: LLVM IR text, an object
 * file, or a shared library linked with $CC. False after an error message. */
bool emit_native(const Options *o, MlirModule module);

#endif
