/* w4a16-lower-int8-prep: each w4a16.int8_prep becomes a call of a small private function that allocates the
 * two results and hands everything to the runtime as memrefs:
 *
 *   memref.alloc for subA (M, L) and subB (L, N), bufferization.to_buffer (read-only) for A, CB, SCB, cols,
 *   memref.cast to fully dynamic shapes, and -- only when L != 0 --
 *   func.call @w4a16_rt_int8_prep(...) -> i32 (the status is recorded by the runtime for the generated
 *   entry points, not checked here: see lower_to_runtime.c); bufferization.to_tensor restrict of both results.
 *
 * L = 0 costs what the unfused code costs on that path: two empty result buffers (the unfused code allocates
 * its empty tensors too) and no call -- statically, no call is emitted at all; dynamically, an scf.if on L
 * skips it. The function is written as IR text and parsed, like lower_to_runtime.c does for
 * w4a16.fused_matmul; inlining then removes the call of the private function. */
#include "call_template.h"
#include "w4a16/dialect.h"
#include "w4a16/lowering.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t staticDim(MlirType t, int i) {
  int64_t d = mlirShapedTypeGetDimSize(t, i);
  return mlirShapedTypeIsDynamicSize(d) ? -1 : d;
}

/* --- the template ------------------------------------------------------------------------------- */

static const char *const kRuntimeSignature =
    "(memref<?x?xf16>, memref<?x?xi8>, memref<?xf32>, memref<?xi64>, memref<?x?xf16>, memref<?x?xf16>) -> i32";

static void writeCallFunction(Text *t, MlirOperation op, const char *name) {
  static const char *const names[] = {"a", "cb", "scb", "cols"};
  static const char *const dynamicTypes[] = {"memref<?x?xf16>", "memref<?x?xi8>", "memref<?xf32>", "memref<?xi64>"};
  MlirType in[4], subA = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirType subB = mlirValueGetType(mlirOperationGetResult(op, 1));
  for (int i = 0; i < 4; ++i)
    in[i] = mlirValueGetType(mlirOperationGetOperand(op, i));

  append(t, "func.func private @w4a16_rt_int8_prep%s attributes {llvm.emit_c_interface}\n", kRuntimeSignature);
  append(t, "func.func private @%s(", name);
  for (int i = 0; i < 4; ++i) {
    append(t, "%s%%%s: ", i ? ", " : "", names[i]);
    appendType(t, in[i]);
  }
  append(t, ") -> (");
  appendType(t, subA);
  append(t, ", ");
  appendType(t, subB);
  append(t, ") {\n  %%c0 = arith.constant 0 : index\n");

  /* Result sizes: M from A, L from cols, N from CB, each only where the result type leaves it dynamic. */
  int64_t M = staticDim(subA, 0), L = staticDim(subA, 1) >= 0 ? staticDim(subA, 1) : staticDim(subB, 0);
  int64_t N = staticDim(subB, 1);
  static const char *const dimNames[] = {"m", "l", "n"};
  const int dimSources[] = {0, 3, 1}; /* A, cols, CB */
  const bool dynamic[] = {M < 0, staticDim(subA, 1) < 0 || staticDim(subB, 0) < 0, N < 0};
  for (int d = 0; d < 3; ++d)
    if (dynamic[d]) {
      append(t, "  %%%s = tensor.dim %%%s, %%c0 : ", dimNames[d], names[dimSources[d]]);
      appendType(t, in[dimSources[d]]);
      append(t, "\n");
    }
  append(t, "  %%suba_buf = memref.alloc(%s%s%s) : ", M < 0 ? "%m" : "",
         M < 0 && staticDim(subA, 1) < 0 ? ", " : "", staticDim(subA, 1) < 0 ? "%l" : "");
  appendMemrefOf(t, subA);
  append(t, "\n  %%subb_buf = memref.alloc(%s%s%s) : ", staticDim(subB, 0) < 0 ? "%l" : "",
         staticDim(subB, 0) < 0 && N < 0 ? ", " : "", N < 0 ? "%n" : "");
  appendMemrefOf(t, subB);
  append(t, "\n");

  if (L != 0) { /* statically empty: no call at all */
    for (int i = 0; i < 4; ++i) {
      append(t, "  %%%s_buf = bufferization.to_buffer %%%s read_only : ", names[i], names[i]);
      appendType(t, in[i]);
      append(t, " to ");
      appendMemrefOf(t, in[i]);
      append(t, "\n  %%%s_arg = memref.cast %%%s_buf : ", names[i], names[i]);
      appendMemrefOf(t, in[i]);
      append(t, " to %s\n", dynamicTypes[i]);
    }
    append(t, "  %%suba_arg = memref.cast %%suba_buf : ");
    appendMemrefOf(t, subA);
    append(t, " to memref<?x?xf16>\n  %%subb_arg = memref.cast %%subb_buf : ");
    appendMemrefOf(t, subB);
    append(t, " to memref<?x?xf16>\n");
    const char *indent = "  ";
    if (L < 0) { /* empty at run time: skip the call */
      append(t, "  %%nonempty = arith.cmpi ne, %%l, %%c0 : index\n  scf.if %%nonempty {\n");
      indent = "    ";
    }
    append(t, "%s%%status = func.call @w4a16_rt_int8_prep(%%a_arg, %%cb_arg, %%scb_arg, %%cols_arg, %%suba_arg, "
              "%%subb_arg) : %s\n",
           indent, kRuntimeSignature);
    if (L < 0)
      append(t, "  }\n");
  }
  append(t, "  %%suba = bufferization.to_tensor %%suba_buf restrict writable : ");
  appendMemrefOf(t, subA);
  append(t, " to ");
  appendType(t, subA);
  append(t, "\n  %%subb = bufferization.to_tensor %%subb_buf restrict writable : ");
  appendMemrefOf(t, subB);
  append(t, " to ");
  appendType(t, subB);
  append(t, "\n  return %%suba, %%subb : ");
  appendType(t, subA);
  append(t, ", ");
  appendType(t, subB);
  append(t, "\n}\n");
}

/* --- the pass ----------------------------------------------------------------------------------- */

static _Alignas(8) char lowerInt8PrepPassId;

static const TemplateLoweringSpec kLowerInt8Prep = {
    &lowerInt8PrepPassId, "W4a16LowerInt8Prep", "w4a16-lower-int8-prep",
    "Lower w4a16.int8_prep to calls into the int8prep runtime", {W4A16_INT8_PREP_OP}, "__w4a16_int8_prep",
    writeCallFunction,
    {mlirGetDialectHandle__arith__, mlirGetDialectHandle__bufferization__, mlirGetDialectHandle__func__,
     mlirGetDialectHandle__memref__, mlirGetDialectHandle__scf__,
     mlirGetDialectHandle__tensor__}};

MlirPass w4a16CreateLowerInt8PrepPass(void) { return createTemplateLoweringPass(&kLowerInt8Prep); }

void w4a16AddLowerInt8PrepPass(MlirOpPassManager pm) { mlirOpPassManagerAddOwnedPass(pm, w4a16CreateLowerInt8PrepPass()); }
