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
         (hasUnitAttr(op, "zero_point_offset_wraps") ? W4A16_ZP_WRAPS : 0) |
         (hasUnitAttr(op, "offsets_subtracted") ? W4A16_ZP_SUBTRACTED : 0) |
         (hasUnitAttr(op, "zero_points_signed") ? W4A16_ZP_SIGNED : 0);
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

/* What a plan is made from -- weight, scales and zero points -- reaches the runtime as it is stored, also when
 * it is a window of a larger buffer (w4a16-split-chunked-glu slices a gate_up projection's columns): a strided
 * memref, whose offset and strides the runtime reads. An identity-layout memref would make bufferization copy
 * such a window into a fresh buffer on every call, and the runtime finds a weight's plan by its address. */
static const char kWindow[] = ", strided<[?, ?], offset: ?>";
static bool isPlanOperand(int operand) { return operand == kWeight || operand == kScales || operand == kZeroPoints; }

/* The runtime entry point: w4a16_rt_matmul_<w> for the symmetric form, w4a16_rt_matmul_zp_<w>_<z> with
 * zero points (a tensor of element type z, or a constant other than 8, passed with an empty f16 tensor) or
 * a g_idx (act-order), and w4a16_rt_matmul_typed_<io>_<s>_<w>_<z> when x/bias/residual/out (io) or the
 * scales (s) are bf16: the zero-point signature with those element types (z = f16, empty, when there is no
 * tensor; g_idx empty when there is none). */
static void appendRuntimeSignature(Text *t, const char *io, const char *s, const char *w, const char *z) {
  append(t, "(memref<?x?x%s>, memref<?x?x%s%s>, memref<?x?x%s%s>, memref<?x%s>, memref<?x?x%s>, ", io, w, kWindow, s,
         kWindow, io, io);
  if (z)
    append(t, "memref<?x?x%s%s>, memref<?xi32>, ", z, kWindow);
  append(t, "memref<?x?x%s>, i32, i32, i32, i32, i32%s) -> i32", io, z ? ", i32, i32, i32, f64, i32" : "");
}

/* The projections an op computes: one for w4a16.fused_matmul; for w4a16.merged_matmul one per member, whose
 * calls the runtime runs as one launch (w4a16_rt_merged, then the members' calls in order). */
typedef struct Projections {
  int count;
  bool glu;
  FusedOperands member[W4A16_MAX_MERGED];
} Projections;

static Projections projectionsOf(MlirOperation op) {
  Projections p = {1, false, {{{{NULL}}, {false}}}};
  if (!w4a16IsMergedMatmul(op)) {
    p.member[0] = operandsOf(op);
    return p;
  }
  W4a16MergedSlots slots;
  w4a16MergedSlots(op, &slots); /* the verifier has checked the op */
  const int n = slots.members;
  const bool zeroPoints = slots.zeroPoints != 0, biases = slots.biases != 0;
  MlirAttribute combine = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("combine"));
  p.count = n;
  p.glu = mlirStringRefEqual(mlirStringAttrGetValue(combine), mlirStringRefCreateFromCString("glu"));
  for (int i = 0; i < n; ++i) {
    FusedOperands *m = &p.member[i];
    *m = (FusedOperands){{{NULL}}, {true, true, true, biases, false, zeroPoints, false}};
    m->value[kX] = mlirOperationGetOperand(op, 0);
    m->value[kWeight] = mlirOperationGetOperand(op, 1 + i);
    m->value[kScales] = mlirOperationGetOperand(op, 1 + n + i);
    if (zeroPoints)
      m->value[kZeroPoints] = mlirOperationGetOperand(op, 1 + 2 * n + i);
    if (biases)
      m->value[kBias] = mlirOperationGetOperand(op, 1 + (zeroPoints ? 3 : 2) * n + i);
  }
  return p;
}

static const char *const kOperandNames[] = {"x", "weight", "scales", "bias", "residual", "zero_points", "g_idx"};

/* The SSA name of operand i of member m in the template: x is shared; with several members the others
 * carry the member's index. */
static void operandName(char *buf, size_t size, const Projections *p, int i, int m) {
  if (i == kX || p->count == 1)
    snprintf(buf, size, "%s", kOperandNames[i]);
  else
    snprintf(buf, size, "%s_%d", kOperandNames[i], m);
}

/* The function's parameters, in the op's operand order: a fused op's present operands; a merged op's x,
 * weights, scales, zero points and biases, member by member within each group. */
static void appendParameters(Text *t, const Projections *p) {
  static const int mergedOrder[] = {kWeight, kScales, kZeroPoints, kBias};
  char param[32];
  append(t, "%%x: ");
  appendType(t, mlirValueGetType(p->member[0].value[kX]));
  for (int g = 0; g < (p->count == 1 ? kNumOperands - 1 : 4); ++g) {
    const int i = p->count == 1 ? g + 1 : mergedOrder[g];
    for (int m = 0; m < p->count; ++m)
      if (p->member[m].present[i]) {
        operandName(param, sizeof param, p, i, m);
        append(t, ", %%%s: ", param);
        appendType(t, mlirValueGetType(p->member[m].value[i]));
      }
  }
}

/* %<name>_arg: tensor parameter %<name> as a read-only buffer (strided: any window, see kWindow), cast to the
 * runtime's dynamic shape. */
static void appendReadOnlyArg(Text *t, const char *name, MlirType tensor, const char *dynamic, bool strided) {
  void (*const memrefOf)(Text *, MlirType) = strided ? appendStridedMemrefOf : appendMemrefOf;
  append(t, "  %%%s_buf = bufferization.to_buffer %%%s read_only : ", name, name);
  appendType(t, tensor);
  append(t, " to ");
  memrefOf(t, tensor);
  append(t, "\n  %%%s_arg = memref.cast %%%s_buf : ", name, name);
  memrefOf(t, tensor);
  append(t, " to %s\n", dynamic);
}

/* The runtime declaration and one private function performing the call(s) for `op`. */
static void writeCallFunction(Text *t, MlirOperation op, const char *name) {
  const Projections p = projectionsOf(op);
  const FusedOperands *f = &p.member[0];
  const char *w = elementSuffix(mlirValueGetType(f->value[kWeight]));
  const char *io = elementSuffix(mlirValueGetType(f->value[kX])), *s = elementSuffix(mlirValueGetType(f->value[kScales]));
  const bool typed = strcmp(io, "f16") != 0 || strcmp(s, "f16") != 0;
  const bool zeroPoints =
      typed || f->present[kZeroPoints] || f->present[kGroupIndex] || constantZeroPoint(op) != W4A16_ZERO_POINT;
  const char *z = !zeroPoints ? NULL : f->present[kZeroPoints] ? elementSuffix(mlirValueGetType(f->value[kZeroPoints])) : "f16";
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
  const intptr_t numResults = mlirOperationGetNumResults(op);
  if (p.count > 1)
    append(t, "func.func private @w4a16_rt_merged(i32, i32) -> i32 attributes {llvm.emit_c_interface}\n");

  append(t, "func.func private @%s(", name);
  appendParameters(t, &p);
  append(t, ") -> %s", numResults > 1 ? "(" : "");
  for (intptr_t r = 0; r < numResults; ++r) {
    append(t, r ? ", " : "");
    appendType(t, mlirValueGetType(mlirOperationGetResult(op, r)));
  }
  append(t, "%s {\n  %%c0 = arith.constant 0 : index\n", numResults > 1 ? ")" : "");
  MlirType xType = mlirValueGetType(f->value[kX]);
  char xDynamic[32];
  snprintf(xDynamic, sizeof xDynamic, "memref<?x?x%s>", io);
  appendReadOnlyArg(t, "x", xType, xDynamic, false);
  if (p.count > 1) /* the members' calls that follow run as one launch */
    append(t, "  %%merged = arith.constant %d : i32\n  %%glu = arith.constant %d : i32\n"
              "  %%merge_status = func.call @w4a16_rt_merged(%%merged, %%glu) : (i32, i32) -> i32\n",
           p.count, p.glu);

  for (int m = 0; m < p.count; ++m) {
    const FusedOperands *mf = &p.member[m];
    char nm[kNumOperands][32];
    for (int i = 0; i < kNumOperands; ++i)
      operandName(nm[i], sizeof nm[i], &p, i, m);
    /* Operands: read-only buffers, cast to the runtime's dynamic shapes; absent optional ones are empty
     * buffers whose has_* flag says to ignore them. */
    for (int i = kWeight; i < (z ? kNumOperands : kZeroPoints); ++i) {
      MlirType type = mf->present[i] ? mlirValueGetType(mf->value[i]) : (MlirType){NULL};
      Text dynamic = {NULL, 0, 0};
      const char *elem = i == kWeight ? w : i == kZeroPoints ? z : i == kScales ? s : i == kGroupIndex ? "i32" : io;
      const bool oneDim = i == kBias || i == kGroupIndex;
      if (oneDim)
        append(&dynamic, "memref<?x%s>", elem);
      else
        append(&dynamic, "memref<?x?x%s%s>", elem, isPlanOperand(i) ? kWindow : "");
      if (mf->present[i]) {
        appendReadOnlyArg(t, nm[i], type, dynamic.buf, isPlanOperand(i));
      } else {
        Text empty = {NULL, 0, 0};
        append(&empty, oneDim ? "memref<0x%s>" : "memref<0x0x%s>", elem);
        append(t, "  %%%s_buf = memref.alloca() : %s\n", nm[i], empty.buf);
        append(t, "  %%%s_arg = memref.cast %%%s_buf : %s to %s\n", nm[i], nm[i], empty.buf, dynamic.buf);
        free(empty.buf);
      }
      free(dynamic.buf);
    }

    /* Result: a fresh buffer of its shape; a GLU's two members write one result, which the second call's
     * launch computes. */
    const int r = p.glu ? 0 : m;
    MlirType outType = mlirValueGetType(mlirOperationGetResult(op, r));
    if (m == 0 && mlirShapedTypeIsDynamicDim(xType, 0)) { /* M may be dynamic: the results take it from x */
      append(t, "  %%m = tensor.dim %%x, %%c0 : ");
      appendType(t, xType);
      append(t, "\n");
    }
    if (!p.glu || m == 0) {
      append(t, "  %%out_buf_%d = memref.alloc(%s) : ", r, mlirShapedTypeIsDynamicDim(outType, 0) ? "%m" : "");
      appendMemrefOf(t, outType);
      append(t, "\n  %%out_arg_%d = memref.cast %%out_buf_%d : ", r, r);
      appendMemrefOf(t, outType);
      append(t, " to memref<?x?x%s>\n", io);
    }

    const int activation = p.glu && m == 1 ? W4A16_ACT_NONE : activationCode(op); /* a glu's up: none */
    int flags[] = {activation,               weightLayoutCode(op),
                   scalesLayoutCode(op),     mf->present[kBias],
                   mf->present[kResidual],   mf->present[kZeroPoints],
                   mf->present[kZeroPoints] ? zeroPointLayoutCode(op) : 0,
                   (int)zeroPointOffset(op), mf->present[kGroupIndex]};
    static const char *const flagNames[] = {"activation",        "weight_layout",     "scales_layout",
                                            "has_bias",          "has_residual",      "has_zero_points",
                                            "zero_point_layout", "zero_point_offset", "has_g_idx"};
    const int numFlags = z ? 9 : 5;
    for (int i = 0; i < numFlags; ++i)
      append(t, "  %%%s_%d = arith.constant %d : i32\n", flagNames[i], m, flags[i]);
    if (z)
      append(t, "  %%zero_point_%d = arith.constant %.17e : f64\n", m, constantZeroPoint(op));
    append(t, "  %%status_%d = func.call @%s(%%x_arg, %%%s_arg, %%%s_arg, %%%s_arg, %%%s_arg, ", m, callee, nm[kWeight],
           nm[kScales], nm[kBias], nm[kResidual]);
    if (z)
      append(t, "%%%s_arg, %%%s_arg, ", nm[kZeroPoints], nm[kGroupIndex]);
    append(t, "%%out_arg_%d", r);
    for (int i = 0; i < (z ? numFlags - 1 : numFlags); ++i)
      append(t, ", %%%s_%d", flagNames[i], m);
    if (z) /* the constant zero point comes before has_g_idx */
      append(t, ", %%zero_point_%d, %%has_g_idx_%d", m, m);
    append(t, ") : ");
    appendRuntimeSignature(t, io, s, w, z);
    append(t, "\n");
  }

  for (intptr_t r = 0; r < numResults; ++r) {
    MlirType outType = mlirValueGetType(mlirOperationGetResult(op, r));
    append(t, "  %%out_%d = bufferization.to_tensor %%out_buf_%d restrict writable : ", (int)r, (int)r);
    appendMemrefOf(t, outType);
    append(t, " to ");
    appendType(t, outType);
    append(t, "\n");
  }
  append(t, "  return");
  for (intptr_t r = 0; r < numResults; ++r)
    append(t, "%s %%out_%d", r ? "," : "", (int)r);
  append(t, " : ");
  for (intptr_t r = 0; r < numResults; ++r) {
    append(t, r ? ", " : "");
    appendType(t, mlirValueGetType(mlirOperationGetResult(op, r)));
  }
  append(t, "\n}\n");
}

/* --- the pass ----------------------------------------------------------------------------------- */

static _Alignas(8) char lowerPassId;

static const TemplateLoweringSpec kLowerToRuntime = {
    &lowerPassId, "W4a16LowerToRuntime", "w4a16-lower-to-runtime",
    "Lower w4a16.fused_matmul and w4a16.merged_matmul to calls into the w4a16 runtime",
    {W4A16_FUSED_MATMUL_OP, W4A16_MERGED_MATMUL_OP}, "__w4a16_fused_matmul",
    writeCallFunction,
    {mlirGetDialectHandle__arith__, mlirGetDialectHandle__bufferization__, mlirGetDialectHandle__func__,
     mlirGetDialectHandle__memref__, mlirGetDialectHandle__tensor__}};

MlirPass w4a16CreateLowerToRuntimePass(void) { return createTemplateLoweringPass(&kLowerToRuntime); }

void w4a16AddLowerToRuntimePass(MlirOpPassManager pm) {
  mlirOpPassManagerAddOwnedPass(pm, w4a16CreateLowerToRuntimePass());
}
