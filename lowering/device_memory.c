/* w4a16-device-memory: on the GPU target (a module marked w4a16.target = "gpu"), after the conversion to the
 * LLVM dialect, the memory host code hands out is device memory:
 *
 *  - buffers: finalize-memref-to-llvm{use-generic-functions} allocates through _mlir_memref_to_llvm_alloc,
 *    _aligned_alloc and _free; they are renamed w4a16_rt_device_alloc, _aligned_alloc and _free, the
 *    runtime's per-stream arena (no allocation once the arena has grown to a call's needs);
 *  - constants listed in w4a16.device_constants (w4a16-gpu-host-code): each address the host takes of one
 *    becomes a call of __w4a16_devptr_<name>(), which returns w4a16_rt_device_constant(&name, bytes), a
 *    device copy the runtime makes once (at prepare). */
#include "call_template.h"
#include "gpu_passes.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool renameFunction(MlirOperation module, MlirSymbolTable symbols, const char *from, const char *to) {
  MlirOperation fn = mlirSymbolTableLookup(symbols, mlirStringRefCreateFromCString(from));
  if (mlirOperationIsNull(fn))
    return true;
  if (!mlirOperationIsNull(mlirSymbolTableLookup(symbols, mlirStringRefCreateFromCString(to)))) {
    mlirEmitError(mlirOperationGetLocation(fn), "w4a16-device-memory: the module defines a runtime symbol itself");
    return false;
  }
  MlirStringRef toRef = mlirStringRefCreateFromCString(to);
  if (mlirLogicalResultIsFailure(
          mlirSymbolTableReplaceAllSymbolUses(mlirStringRefCreateFromCString(from), toRef, module)))
    return false;
  mlirOperationSetAttributeByName(fn, mlirSymbolTableGetSymbolAttributeName(),
                                  mlirStringAttrGet(mlirOperationGetContext(module), toRef));
  return true;
}

typedef struct AddressOf {
  MlirStringRef global, skipIn; /* the global; the function not to rewrite (the one reading it) */
} AddressOf;

static bool isHostAddressOf(MlirOperation op, void *data) {
  const AddressOf *want = data;
  if (!opIs(op, "llvm.mlir.addressof") ||
      !mlirStringRefEqual(mlirFlatSymbolRefAttrGetValue(attr(op, "global_name")), want->global))
    return false;
  MlirOperation fn = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(fn) && !opIs(fn, "llvm.func"))
    fn = mlirOperationGetParentOperation(fn);
  MlirAttribute fnName = mlirOperationIsNull(fn) ? mlirAttributeGetNull() : attr(fn, "sym_name");
  return !mlirAttributeIsNull(fnName) && !mlirStringRefEqual(mlirStringAttrGetValue(fnName), want->skipIn);
}

/* Host uses of the constant `name` (bytes long) read its device copy. */
static bool useDeviceCopy(MlirOperation module, MlirSymbolTable symbols, MlirStringRef name, int64_t bytes) {
  MlirOperation global = mlirSymbolTableLookup(symbols, name);
  if (mlirOperationIsNull(global))
    return true; /* folded away */
  Text text = {NULL, 0, 0};
  const int n = (int)name.length;
  append(&text, "llvm.mlir.global external constant @%.*s() {addr_space = 0 : i32} : ", n, name.data);
  appendType(&text, mlirTypeAttrGetValue(attr(global, "global_type")));
  append(&text,
         "\nllvm.func @w4a16_rt_device_constant(!llvm.ptr, i64) -> !llvm.ptr\n"
         "llvm.func private @__w4a16_devptr_%.*s() -> !llvm.ptr {\n"
         "  %%host = llvm.mlir.addressof @%.*s : !llvm.ptr\n"
         "  %%bytes = llvm.mlir.constant(%lld : i64) : i64\n"
         "  %%device = llvm.call @w4a16_rt_device_constant(%%host, %%bytes) : (!llvm.ptr, i64) -> !llvm.ptr\n"
         "  llvm.return %%device : !llvm.ptr\n}\n"
         "llvm.func private @__w4a16_devuse_%.*s() -> !llvm.ptr {\n"
         "  %%device = llvm.call @__w4a16_devptr_%.*s() : () -> !llvm.ptr\n"
         "  llvm.return %%device : !llvm.ptr\n}\n",
         n, name.data, n, name.data, (long long)bytes, n, name.data, n, name.data);
  MlirModule parsed = parseTemplate(mlirOperationGetContext(module), text.buf, mlirOperationGetLocation(global),
                                    "w4a16-device-memory: could not build a device constant's accessor");
  free(text.buf);
  if (mlirModuleIsNull(parsed))
    return false;
  /* The call to clone at every use, from the template's second function; the rest joins the module. */
  MlirOperation useFn = mlirOperationGetNextInBlock(mlirOperationGetNextInBlock(mlirOperationGetNextInBlock(
      mlirBlockGetFirstOperation(mlirModuleGetBody(parsed)))));
  MlirOperation call = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(useFn, 0)));
  char accessor[512];
  snprintf(accessor, sizeof accessor, "__w4a16_devptr_%.*s", n, name.data);
  AddressOf want = {name, mlirStringRefCreateFromCString(accessor)};
  OpList uses = collectOps(module, isHostAddressOf, &want, MlirWalkPreOrder);
  for (int i = 0; i < uses.count; ++i) {
    MlirOperation clone = mlirOperationClone(call);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(uses.ops[i]), uses.ops[i], clone);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(uses.ops[i], 0), mlirOperationGetResult(clone, 0));
    mlirOperationDestroy(uses.ops[i]);
  }
  free(uses.ops);
  mlirOperationDestroy(useFn);
  moveSymbols(parsed, module);
  mlirModuleDestroy(parsed);
  return true;
}

static void run(MlirOperation module, MlirExternalPass pass) {
  MlirAttribute target = attr(module, kTargetAttr);
  if (mlirAttributeIsNull(target) || !mlirAttributeIsAString(target) ||
      !mlirStringRefEqual(mlirStringAttrGetValue(target), mlirStringRefCreateFromCString("gpu")))
    return;
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  bool ok = renameFunction(module, symbols, "_mlir_memref_to_llvm_alloc", "w4a16_rt_device_alloc") &&
            renameFunction(module, symbols, "_mlir_memref_to_llvm_aligned_alloc", "w4a16_rt_device_aligned_alloc") &&
            renameFunction(module, symbols, "_mlir_memref_to_llvm_free", "w4a16_rt_device_free");
  MlirAttribute constants = attr(module, kDeviceConstantsAttr);
  for (intptr_t i = 0; ok && !mlirAttributeIsNull(constants) && i < mlirDictionaryAttrGetNumElements(constants); ++i) {
    MlirNamedAttribute entry = mlirDictionaryAttrGetElement(constants, i);
    ok = useDeviceCopy(module, symbols, mlirIdentifierStr(entry.name), mlirIntegerAttrGetValueInt(entry.attribute));
  }
  mlirSymbolTableDestroy(symbols);
  if (!ok)
    mlirExternalPassSignalFailure(pass);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kDeviceMemoryPass = {
    &passId, "W4a16DeviceMemory", "w4a16-device-memory",
    "GPU target, on the LLVM dialect: host code allocates from the runtime's device arena and reads constants "
    "through device copies made once",
    "builtin.module", NULL, run, mlirGetDialectHandle__llvm__};

MlirPass w4a16CreateDeviceMemoryPass(void) { return createStatelessPass(&kDeviceMemoryPass); }
