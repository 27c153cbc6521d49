/* w4a16-entry-points: for every function f that an LLVM-dialect module exports through MLIR's C interface
 * (_mlir_ciface_<f>), two entry points that return the compiled-code status (w4a16/runtime_abi.h):
 *
 *   i32 w4a16c_run_<f>(<the arguments of _mlir_ciface_<f>>)       w4a16_rt_enter("<f>", 0); f; w4a16_rt_leave()
 *   i32 w4a16c_prepare_<f>(<the same>)                            w4a16_rt_enter("<f>", 1); f; w4a16_rt_leave()
 *
 * Where _mlir_ciface_<f> returns a T by value, a pointer to store it through comes first. On the GPU target
 * (module attribute w4a16.target = "gpu") the caller's stream comes before everything, and the entry points
 * call w4a16_rt_enter_device("<f>", prepare, stream) instead of w4a16_rt_enter. A module that
 * calls no runtime entry point cannot fail that way: its entry points return 0 without calling the runtime,
 * so that it still links without it. Written as IR text and parsed, like the lowering templates. */
#include "call_template.h"
#include "stateless_pass.h"
#include "w4a16/lowering.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/LLVM.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kCiface[] = "_mlir_ciface_";
static const char kRuntimeCiface[] = "_mlir_ciface_w4a16_rt_"; /* the runtime's entry points, declared */

static bool startsWith(MlirStringRef s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.length >= n && memcmp(s.data, prefix, n) == 0;
}

static MlirStringRef symbolNameOf(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirSymbolTableGetSymbolAttributeName());
  return mlirAttributeIsNull(a) || !mlirAttributeIsAString(a) ? (MlirStringRef){NULL, 0} : mlirStringAttrGetValue(a);
}

static bool isLLVMFunc(MlirOperation op) {
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), mlirStringRefCreateFromCString("llvm.func"));
}

/* Names are written into symbol references and a C string: keep to what needs no escaping. */
static bool plainName(MlirStringRef s) {
  for (size_t i = 0; i < s.length; ++i)
    if (!isalnum((unsigned char)s.data[i]) && s.data[i] != '_' && s.data[i] != '.' && s.data[i] != '$')
      return false;
  return s.length > 0;
}

/* --- the text --------------------------------------------------------------------------------------------- */

static void appendTypeList(Text *t, MlirType fnType) {
  for (intptr_t i = 0; i < mlirLLVMFunctionTypeGetNumInputs(fnType); ++i) {
    append(t, "%s", i ? ", " : "");
    appendType(t, mlirLLVMFunctionTypeGetInput(fnType, i));
  }
}

/* One entry point: `kind` is "run" or "prepare". On the GPU target the caller's stream comes first. */
static void writeEntryPoint(Text *t, const char *kind, MlirStringRef f, MlirType fnType, bool callsRuntime,
                            bool gpu) {
  MlirType result = mlirLLVMFunctionTypeGetReturnType(fnType);
  bool byValue = !mlirTypeEqual(result, mlirLLVMVoidTypeGet(mlirTypeGetContext(fnType)));
  intptr_t n = mlirLLVMFunctionTypeGetNumInputs(fnType);
  append(t, "llvm.func @w4a16c_%s_%.*s(%s%s%s", kind, (int)f.length, f.data, gpu ? "%stream: !llvm.ptr" : "",
         gpu && byValue ? ", " : "", byValue ? "%ret: !llvm.ptr" : "");
  for (intptr_t i = 0; i < n; ++i) {
    append(t, "%s%%a%ld: ", i || byValue || gpu ? ", " : "", (long)i);
    appendType(t, mlirLLVMFunctionTypeGetInput(fnType, i));
  }
  append(t, ") -> i32 {\n");
  if (callsRuntime)
    append(t, "  %%name = llvm.mlir.addressof @__w4a16_name_%.*s : !llvm.ptr\n"
              "  %%prepare = llvm.mlir.constant(%d : i32) : i32\n",
           (int)f.length, f.data, strcmp(kind, "prepare") == 0);
  if (callsRuntime)
    append(t, gpu ? "  llvm.call @w4a16_rt_enter_device(%%name, %%prepare, %%stream) : (!llvm.ptr, i32, !llvm.ptr) -> ()\n"
                  : "  llvm.call @w4a16_rt_enter(%%name, %%prepare) : (!llvm.ptr, i32) -> ()\n");
  append(t, "  %s", byValue ? "%r = " : "");
  append(t, "llvm.call @%s%.*s(", kCiface, (int)f.length, f.data);
  for (intptr_t i = 0; i < n; ++i)
    append(t, "%s%%a%ld", i ? ", " : "", (long)i);
  append(t, ") : (");
  appendTypeList(t, fnType);
  append(t, ") -> ");
  if (byValue) {
    appendType(t, result);
    append(t, "\n  llvm.store %%r, %%ret : ");
    appendType(t, result);
    append(t, ", !llvm.ptr\n");
  } else {
    append(t, "()\n");
  }
  append(t, callsRuntime ? "  %%status = llvm.call @w4a16_rt_leave() : () -> i32\n"
                         : "  %%status = llvm.mlir.constant(0 : i32) : i32\n");
  append(t, "  llvm.return %%status : i32\n}\n");
}

/* Both entry points of f, with the declarations they refer to (so that the text parses on its own). */
static void writeEntryPoints(Text *t, MlirStringRef f, MlirType fnType, bool callsRuntime, bool gpu) {
  if (callsRuntime)
    append(t, "%s"
              "llvm.func @w4a16_rt_leave() -> i32\n"
              "llvm.mlir.global private constant @__w4a16_name_%.*s(\"%.*s\\00\") {addr_space = 0 : i32} "
              ": !llvm.array<%zu x i8>\n",
           gpu ? "llvm.func @w4a16_rt_enter_device(!llvm.ptr, i32, !llvm.ptr)\n" : "llvm.func @w4a16_rt_enter(!llvm.ptr, i32)\n",
           (int)f.length, f.data, (int)f.length, f.data, f.length + 1);
  append(t, "llvm.func @%s%.*s(", kCiface, (int)f.length, f.data);
  appendTypeList(t, fnType);
  append(t, ")");
  MlirType result = mlirLLVMFunctionTypeGetReturnType(fnType);
  if (!mlirTypeEqual(result, mlirLLVMVoidTypeGet(mlirTypeGetContext(fnType)))) {
    append(t, " -> ");
    appendType(t, result);
  }
  append(t, "\n");
  writeEntryPoint(t, "run", f, fnType, callsRuntime, gpu);
  writeEntryPoint(t, "prepare", f, fnType, callsRuntime, gpu);
}

/* --- the pass --------------------------------------------------------------------------------------------- */

static bool hasName(MlirOperation module, const char *prefix, MlirStringRef f) {
  char name[512];
  snprintf(name, sizeof name, "%s%.*s", prefix, (int)f.length, f.data);
  return hasSymbol(module, mlirStringRefCreateFromCString(name));
}

static bool addEntryPoints(MlirOperation module, MlirOperation ciface, bool callsRuntime, bool gpu) {
  MlirStringRef f = symbolNameOf(ciface);
  f.data += strlen(kCiface);
  f.length -= strlen(kCiface);
  MlirLocation loc = mlirOperationGetLocation(ciface);
  if (!plainName(f) || f.length > 400) {
    mlirEmitError(loc, "w4a16-entry-points: the function name needs escaping; no w4a16c_run_/w4a16c_prepare_ "
                       "entry points can be written for it");
    return false;
  }
  if (hasName(module, "w4a16c_run_", f) || hasName(module, "w4a16c_prepare_", f) ||
      hasName(module, "__w4a16_name_", f)) {
    mlirEmitError(loc, "w4a16-entry-points: the module already defines w4a16c_run_, w4a16c_prepare_ or "
                       "__w4a16_name_ for this function");
    return false;
  }
  MlirType fnType = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(ciface, mlirStringRefCreateFromCString("function_type")));
  Text text = {NULL, 0, 0};
  writeEntryPoints(&text, f, fnType, callsRuntime, gpu);
  MlirModule parsed =
      parseTemplate(mlirOperationGetContext(module), text.buf, loc, "w4a16-entry-points: could not build the entry points");
  free(text.buf);
  if (mlirModuleIsNull(parsed))
    return false;
  moveSymbols(parsed, module);
  mlirModuleDestroy(parsed);
  return true;
}

/* Functions exported through the C interface: _mlir_ciface_<f> with a body, next to f itself. */
static bool isExported(MlirOperation module, MlirOperation op) {
  MlirStringRef name = symbolNameOf(op);
  if (!isLLVMFunc(op) || !startsWith(name, kCiface) || startsWith(name, kRuntimeCiface) ||
      mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
    return false;
  MlirStringRef f = {name.data + strlen(kCiface), name.length - strlen(kCiface)};
  return hasSymbol(module, f);
}

/* Marked by w4a16-gpu-host-code: the entry points take the caller's stream and always enter the runtime
 * (it holds the stream, the device arena and the generated kernels' status). */
static bool isGpuTarget(MlirOperation module) {
  MlirAttribute target = mlirOperationGetAttributeByName(module, mlirStringRefCreateFromCString("w4a16.target"));
  return !mlirAttributeIsNull(target) && mlirAttributeIsAString(target) &&
         mlirStringRefEqual(mlirStringAttrGetValue(target), mlirStringRefCreateFromCString("gpu"));
}

static void entryPointsRun(MlirOperation module, MlirExternalPass pass) {
  const bool gpu = isGpuTarget(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  bool callsRuntime = false;
  int count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    callsRuntime |= isLLVMFunc(op) && startsWith(symbolNameOf(op), kRuntimeCiface);
    count += isExported(module, op);
  }
  /* Collected first: the ops added below must not be visited. */
  MlirOperation *exported = calloc((size_t)count + 1, sizeof *exported);
  int n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (isExported(module, op))
      exported[n++] = op;
  for (int i = 0; i < n; ++i)
    if (!addEntryPoints(module, exported[i], callsRuntime || gpu, gpu)) {
      mlirExternalPassSignalFailure(pass);
      break;
    }
  free(exported);
}

static _Alignas(8) char entryPointsPassId;
static const StatelessPassSpec kEntryPointsPass = {
    &entryPointsPassId, "W4a16EntryPoints", "w4a16-entry-points",
    "Add status-returning w4a16c_run_<f> and w4a16c_prepare_<f> for every _mlir_ciface_<f> of an LLVM-dialect "
    "module",
    "builtin.module", NULL, entryPointsRun, mlirGetDialectHandle__llvm__};

MlirPass w4a16CreateEntryPointsPass(void) { return createStatelessPass(&kEntryPointsPass); }
