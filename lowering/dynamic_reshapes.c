/* w4a16-dynamic-reshapes: a tensor.expand_shape that splits one dim into two or more dynamic dims (torch-mlir
 * writes one after every Linear on [B, S, K] activations with dynamic B and S) becomes a call of a private
 * function that builds the expanded tensor element by element (a linalg.generic reading the source at the
 * linearised index; `inline` then removes the call). Why: MLIR 22's expand-strided-metadata, in the upstream
 * lowering, crashes on the memref.expand_shape such an op bufferizes to (`mlir-opt
 * --one-shot-bufferize=bufferize-function-boundaries --expand-strided-metadata` reproduces it), and
 * tensor.reshape's memref.reshape is left unconverted by convert-to-llvm. It costs one copy of an
 * activation-sized tensor. Other expand_shapes are left alone. */
#include "dynamic_reshapes.h"

#include "call_template.h"
#include "ir_build.h"
#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>

enum { kMaxCopyRank = 16 };

/* Whether a reassociation group of this expand_shape holds two or more dynamic result dims. */
static bool splitsIntoDynamicDims(MlirOperation op) {
  MlirType result = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirAttribute groups = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("reassociation"));
  if (mlirAttributeIsNull(groups) || !mlirTypeIsARankedTensor(result))
    return false;
  for (intptr_t g = 0; g < mlirArrayAttrGetNumElements(groups); ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    int dynamic = 0;
    for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(group); ++i)
      dynamic += mlirShapedTypeIsDynamicDim(result, mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(group, i)));
    if (dynamic >= 2)
      return true;
  }
  return false;
}

/* The function replacing expand_shape `op`: (source, each dynamic result size) -> the expanded tensor. */
static void writeExpandFunction(Text *t, MlirOperation op, const char *name) {
  MlirValue src = mlirOperationGetOperand(op, 0);
  MlirType srcType = mlirValueGetType(src), resType = mlirValueGetType(mlirOperationGetResult(op, 0));
  const intptr_t rank = mlirShapedTypeGetRank(resType);
  MlirAttribute groups = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("reassociation"));
  append(t, "func.func private @%s(%%src: ", name);
  appendType(t, srcType);
  int numDynamic = 0;
  for (intptr_t d = 0; d < rank; ++d)
    if (mlirShapedTypeIsDynamicDim(resType, d))
      append(t, ", %%s%d: index", numDynamic++);
  append(t, ") -> ");
  appendType(t, resType);
  append(t, " {\n  %%e = tensor.empty(");
  for (int i = 0; i < numDynamic; ++i)
    append(t, "%s%%s%d", i ? ", " : "", i);
  append(t, ") : ");
  appendType(t, resType);
  append(t, "\n  %%r = linalg.generic {indexing_maps = [affine_map<(");
  for (intptr_t d = 0; d < rank; ++d)
    append(t, "%sd%ld", d ? ", " : "", (long)d);
  append(t, ") -> (");
  for (intptr_t d = 0; d < rank; ++d)
    append(t, "%sd%ld", d ? ", " : "", (long)d);
  append(t, ")>], iterator_types = [");
  for (intptr_t d = 0; d < rank; ++d)
    append(t, "%s\"parallel\"", d ? ", " : "");
  append(t, "]} outs(%%e : ");
  appendType(t, resType);
  append(t, ") {\n  ^bb0(%%out: ");
  appendType(t, mlirShapedTypeGetElementType(resType));
  append(t, "):\n");
  /* Indices of the result dims, then each source index: its group's result indices, linearised with the
   * result sizes (%sK for the K-th dynamic dim, a constant otherwise). */
  char sizeName[kMaxCopyRank][24];
  for (intptr_t d = 0, dyn = 0; d < rank && d < kMaxCopyRank; ++d) {
    if (mlirShapedTypeIsDynamicDim(resType, d)) {
      snprintf(sizeName[d], sizeof sizeName[d], "%%s%d", (int)dyn++);
    } else {
      snprintf(sizeName[d], sizeof sizeName[d], "%%size%d", (int)d);
      append(t, "    %s = arith.constant %lld : index\n", sizeName[d], (long long)mlirShapedTypeGetDimSize(resType, d));
    }
    append(t, "    %%i%ld = linalg.index %ld : index\n", (long)d, (long)d);
  }
  const intptr_t numGroups = mlirArrayAttrGetNumElements(groups);
  char index[kMaxCopyRank][24];
  for (intptr_t g = 0; g < numGroups; ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    const intptr_t n = mlirArrayAttrGetNumElements(group);
    const int64_t first = mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(group, 0));
    snprintf(index[g], sizeof index[g], "%%i%d", (int)first);
    for (intptr_t j = 1; j < n; ++j) {
      const int64_t d = first + j;
      append(t, "    %%m%ld_%ld = arith.muli %s, %s : index\n    %%lin%ld_%ld = arith.addi %%m%ld_%ld, %%i%lld : index\n",
             (long)g, (long)j, index[g], sizeName[d], (long)g, (long)j, (long)g, (long)j, (long long)d);
      snprintf(index[g], sizeof index[g], "%%lin%d_%d", (int)g, (int)j);
    }
  }
  append(t, "    %%v = tensor.extract %%src[");
  for (intptr_t g = 0; g < numGroups; ++g)
    append(t, "%s%s", g ? ", " : "", index[g]);
  append(t, "] : ");
  appendType(t, srcType);
  append(t, "\n    linalg.yield %%v : ");
  appendType(t, mlirShapedTypeGetElementType(resType));
  append(t, "\n  } -> ");
  appendType(t, resType);
  append(t, "\n  return %%r : ");
  appendType(t, resType);
  append(t, "\n}\n");
}

/* Replaces expand_shape `op` by a call of its copy function (number n in the module). */
static bool rewrite(MlirOperation module, MlirOperation op, int n) {
  if (mlirOperationGetNumOperands(op) > kMaxCopyRank + 1)
    return false;
  char name[64];
  snprintf(name, sizeof name, "w4a16_expand_%d", n);
  Text t = {NULL, 0, 0};
  writeExpandFunction(&t, op, name);
  const bool replaced = replaceWithTemplateCall(module, op, name, t.buf, "w4a16-dynamic-reshapes");
  free(t.buf);
  return replaced;
}

static bool isDynamicSplit(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "tensor.expand_shape") && splitsIntoDynamicDims(op);
}

static void run(MlirOperation root, MlirExternalPass pass) { rewriteEach(root, pass, isDynamicSplit, rewrite); }

static _Alignas(8) char passId;
static const StatelessPassSpec kDynamicReshapesPass = {
    &passId, "W4a16DynamicReshapes", "w4a16-dynamic-reshapes",
    "tensor.expand_shape into several dynamic dims -> tensor.reshape", "", NULL, run, NULL};

MlirPass w4a16CreateDynamicReshapesPass(void) { return createStatelessPass(&kDynamicReshapesPass); }
