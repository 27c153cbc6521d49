/* w4a16-lower-to-runtime: each w4a16.fused_matmul becomes a call of a small private function that
 * passes its operands to the runtime as memrefs:
 *
 *   bufferization.to_buffer (read-only) for every operand, memref.alloc for the result,
 *   memref.cast to fully dynamic shapes (one runtime entry point serves every shape),
 *   func.call @w4a16_rt_matmul_<weight type>(...) -> i32,
 *   bufferization.to_tensor restrict of the result.
 *
 * The returned status is not checked here: nothing compiled may abort, and a failing entry point has
 * recorded it on the thread's compiled-code status already, which the generated w4a16c_run_<f> /
 * w4a16c_prepare_<f> return (entry_points.c). Later calls still run; the first failure is what f reports.
 *
 * The function is written as IR text and parsed: the template reads like the IR it produces. Upstream
 * one-shot bufferization then treats it like any other code, and inlining removes the call. */
#include "call_template.h"
#include "w4a16/contract.h"
#include "w4a16/dialect.h"
#include "w4a16/lowering.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/Tensor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The contract value an enum attribute names (contract.h's table); the verifier has checked it. */
static int enumAttr(MlirOperation op, const char *name, const char *(*names)(int)) {
  MlirStringRef s = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name)));
  return w4a16_value_of(names, s.data, s.length);
}
static bool hasUnitAttr(MlirOperation op, const char *name) {
  return !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name)));
}
static int activationCode(MlirOperation op) { return enumAttr(op, "activation", w4a16_activation_name); }
static int weightLayoutCode(MlirOperation op) {
  return enumAttr(op, "weight_layout", w4a16_weight_layout_name) |
         (hasUnitAttr(op, "signed_codes") ? W4A16_WEIGHT_SIGNED_CODES : 0);
}
static int scalesLayoutCode(MlirOperation op) { return enumAttr(op, "scales_layout", w4a16_scales_layout_name); }
static int zeroPointLayoutCode(MlirOperation op) {
  return enumAttr(op, "zero_point_layout", w4a16_zero_point_layout_name) |
         (hasUnitAttr(op, "zero_points_are_offsets") ? W4A16_ZP_OFFSETS : 0) |
         (hasUnitAttr(op, "zero_point_offset_wraps") ? W4A16_ZP_WRAPS : 0);
}

/* --- the template ------------------------------------------------------------------------------- */

enum { kX, kWeight, kScales, kBias, kResidual, kZeroPoints, kGroupIndex, kNumOperands };

typedef struct FusedOperands {
  MlirValue value[kNumOperands];
  bool present[kNumOperands];
} FusedOperands;

static FusedOperands operandsOf(MlirOperation op) {
  FusedOperands f = {{{NULL}}, {true, true, true, false, false, false, false}};
  MlirAttribute seg = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  for (int i = kBias; i < kNumOperands; ++i)
    f.present[i] = mlirDenseI32ArrayGetElement(seg, i) != 0;
  intptr_t next = 0;
  for (int i = 0; i < kNumOperands; ++i)
    if (f.present[i])
      f.value[i] = mlirOperationGetOperand(op, next++);
  return f;
}

static const char *elementSuffix(MlirType tensor) {
  MlirType e = mlirShapedTypeGetElementType(tensor);
  if (mlirTypeIsAF16(e))
    return "f16";
  if (mlirTypeIsABF16(e))
    return "bf16";
  if (mlirTypeIsAF32(e))
    return "f32";
  unsigned width = mlirIntegerTypeGetWidth(e);
  return width == 32 ? "i32" : width == 8 ? "i8" : "i4";
}

/* The zero point as the op states it: the zero_points operand, or the constant zero_point (8 by default). */
static double constantZeroPoint(MlirOperation op) {
  MlirAttribute z = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("zero_point"));
  return mlirAttributeIsNull(z) ? W4A16_ZERO_POINT : mlirFloatAttrGetValueDouble(z);
}
static int64_t zeroPointOffset(MlirOperation op) {
  MlirAttribute o = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("zero_point_offset"));
  return mlirAttributeIsNull(o) ? 0 : mlirIntegerAttrGetValueInt(o);
}

/* The runtime entry point: w4a16_rt_matmul_<w> for the symmetric form, w4a16_rt_matmul_zp_<w>_<z> with
 * zero points (a tensor of element type z, or a constant other than 8, passed with an empty f16 tensor) or
 * a g_idx (act-order), and w4a16_rt_matmul_typed_<io>_<s>_<w>_<z> when x/bias/residual/out (io) or the
 * scales (s) are bf16: the zero-point signature with those element types (z = f16, empty, when there is no
 * tensor; g_idx empty when there is none). */
static void appendRuntimeSignature(Text *t, const char *io, const char *s, const char *w, const char *z) {
  append(t, "(memref<?x?x%s>, memref<?x?x%s>, memref<?x?x%s>, memref<?x%s>, memref<?x?x%s>, ", io, w, s, io, io);
  if (z)
    append(t, "memref<?x?x%s>, memref<?xi32>, ", z);
  append(t, "memref<?x?x%s>, i32, i32, i32, i32, i32%s) -> i32", io, z ? ", i32, i32, i32, f64, i32" : "");
}

/* The runtime declaration and one private function performing the call for `op`. */
static void writeCallFunction(Text *t, MlirOperation op, const char *name) {
  FusedOperands f = operandsOf(op);
  static const char *const names[] = {"x", "weight", "scales", "bias", "residual", "zero_points", "g_idx"};
  MlirType outType = mlirValueGetType(mlirOperationGetResult(op, 0));
  const char *w = elementSuffix(mlirValueGetType(f.value[kWeight]));
  const char *io = elementSuffix(mlirValueGetType(f.value[kX])), *s = elementSuffix(mlirValueGetType(f.value[kScales]));
  const bool typed = strcmp(io, "f16") != 0 || strcmp(s, "f16") != 0;
  const bool zeroPoints =
      typed || f.present[kZeroPoints] || f.present[kGroupIndex] || constantZeroPoint(op) != W4A16_ZERO_POINT;
  const char *z = !zeroPoints ? NULL : f.present[kZeroPoints] ? elementSuffix(mlirValueGetType(f.value[kZeroPoints])) : "f16";
  char callee[80];
  if (typed)
    snprintf(callee, sizeof callee, "w4a16_rt_matmul_typed_%s_%s_%s_%s", io, s, w, z);
  else if (z)
    snprintf(callee, sizeof callee, "w4a16_rt_matmul_zp_%s_%s", w, z);
  else
    snprintf(callee, sizeof callee, "w4a16_rt_matmul_%s", w);

  append(t, "func.func private @%s", callee);
  appendRuntimeSignature(t, io, s, w, z);
  append(t, " attributes {llvm.emit_c_interface}\n");

  append(t, "func.func private @%s(", name);
  for (int i = 0, first = 1; i < kNumOperands; ++i)
    if (f.present[i]) {
      append(t, "%s%%%s: ", first ? "" : ", ", names[i]);
      appendType(t, mlirValueGetType(f.value[i]));
      first = 0;
    }
  append(t, ") -> ");
  appendType(t, outType);
  append(t, " {\n  %%c0 = arith.constant 0 : index\n");

  /* Operands: read-only buffers, cast to the runtime's dynamic shapes; absent optional ones are empty
   * buffers whose has_* flag says to ignore them. */
  for (int i = 0; i < (z ? kNumOperands : kZeroPoints); ++i) {
    MlirType type = f.present[i] ? mlirValueGetType(f.value[i]) : (MlirType){NULL};
    Text dynamic = {NULL, 0, 0};
    const char *elem = i == kWeight ? w : i == kZeroPoints ? z : i == kScales ? s : i == kGroupIndex ? "i32" : io;
    const bool oneDim = i == kBias || i == kGroupIndex;
    append(&dynamic, oneDim ? "memref<?x%s>" : "memref<?x?x%s>", elem);
    if (f.present[i]) {
      append(t, "  %%%s_buf = bufferization.to_buffer %%%s read_only : ", names[i], names[i]);
      appendType(t, type);
      append(t, " to ");
      appendMemrefOf(t, type);
      append(t, "\n  %%%s_arg = memref.cast %%%s_buf : ", names[i], names[i]);
      appendMemrefOf(t, type);
      append(t, " to %s\n", dynamic.buf);
    } else {
      Text empty = {NULL, 0, 0};
      append(&empty, oneDim ? "memref<0x%s>" : "memref<0x0x%s>", elem);
      append(t, "  %%%s_buf = memref.alloca() : %s\n", names[i], empty.buf);
      append(t, "  %%%s_arg = memref.cast %%%s_buf : %s to %s\n", names[i], names[i], empty.buf, dynamic.buf);
      free(empty.buf);
    }
    free(dynamic.buf);
  }

  /* Result: a fresh buffer of the op's shape (M may be dynamic: take it from x). */
  bool dynamicM = mlirShapedTypeIsDynamicDim(outType, 0);
  if (dynamicM) {
    append(t, "  %%m = tensor.dim %%x, %%c0 : ");
    appendType(t, mlirValueGetType(f.value[kX]));
    append(t, "\n");
  }
  append(t, "  %%out_buf = memref.alloc(%s) : ", dynamicM ? "%m" : "");
  appendMemrefOf(t, outType);
  append(t, "\n  %%out_arg = memref.cast %%out_buf : ");
  appendMemrefOf(t, outType);
  append(t, " to memref<?x?x%s>\n", io);

  int flags[] = {activationCode(op),      weightLayoutCode(op),
                 scalesLayoutCode(op),    f.present[kBias],
                 f.present[kResidual],    f.present[kZeroPoints],
                 f.present[kZeroPoints] ? zeroPointLayoutCode(op) : 0,
                 (int)zeroPointOffset(op), f.present[kGroupIndex]};
  static const char *const flagNames[] = {"activation",      "weight_layout",     "scales_layout",
                                          "has_bias",        "has_residual",      "has_zero_points",
                                          "zero_point_layout", "zero_point_offset", "has_g_idx"};
  const int numFlags = z ? 9 : 5;
  for (int i = 0; i < numFlags; ++i)
    append(t, "  %%%s = arith.constant %d : i32\n", flagNames[i], flags[i]);
  if (z)
    append(t, "  %%zero_point = arith.constant %.17e : f64\n", constantZeroPoint(op));
  append(t, "  %%status = func.call @%s(%%x_arg, %%weight_arg, %%scales_arg, %%bias_arg, %%residual_arg, ", callee);
  if (z)
    append(t, "%%zero_points_arg, %%g_idx_arg, ");
  append(t, "%%out_arg, %%activation, %%weight_layout, %%scales_layout, %%has_bias, %%has_residual");
  if (z)
    append(t, ", %%has_zero_points, %%zero_point_layout, %%zero_point_offset, %%zero_point, %%has_g_idx");
  append(t, ") : ");
  appendRuntimeSignature(t, io, s, w, z);
  append(t, "\n  %%out = bufferization.to_tensor %%out_buf restrict writable : ");
  appendMemrefOf(t, outType);
  append(t, " to ");
  appendType(t, outType);
  append(t, "\n  return %%out : ");
  appendType(t, outType);
  append(t, "\n}\n");
}

/* --- the pass ----------------------------------------------------------------------------------- */

static _Alignas(8) char lowerPassId;

static const TemplateLoweringSpec kLowerToRuntime = {
    &lowerPassId, "W4a16LowerToRuntime", "w4a16-lower-to-runtime",
    "Lower w4a16.fused_matmul to calls into the w4a16 runtime", W4A16_FUSED_MATMUL_OP, "__w4a16_fused_matmul",
    writeCallFunction,
    {mlirGetDialectHandle__arith__, mlirGetDialectHandle__bufferization__, mlirGetDialectHandle__func__,
     mlirGetDialectHandle__memref__, mlirGetDialectHandle__tensor__}};

MlirPass w4a16CreateLowerToRuntimePass(void) { return createTemplateLoweringPass(&kLowerToRuntime); }

void w4a16AddLowerToRuntimePass(MlirOpPassManager pm) {
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateLowerToRuntimePass());
}
