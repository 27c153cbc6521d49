/* w4a16-gpu-host-code: on the GPU target, what stays outside gpu.launch after the parallel loops are mapped
 * runs on the host, where every tensor is device memory. This pass, run right after
 * convert-parallel-loops-to-gpu, makes that safe or says why not:
 *
 *  - a host op that reads or writes tensor data (memref.load/store/copy and the like on anything but a
 *    host stack buffer) is an error at its location: it would dereference a device pointer on the CPU;
 *  - a constant global that host code hands out (a constant g_idx table passed to a fused call, a table a
 *    kernel reads through an argument) is renamed __w4a16_dev_<name> and listed with its size in the module
 *    attribute w4a16.device_constants: w4a16-device-memory later replaces the host's address of it with a
 *    device copy made once (w4a16_rt_device_constant);
 *  - the module is marked w4a16.target = "gpu" so that w4a16-entry-points writes the stream-taking entry
 *    points. */
#include "gpu_passes.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char kDeviceConstantPrefix[] = "__w4a16_dev_";
const char kDeviceConstantsAttr[] = "w4a16.device_constants";
const char kTargetAttr[] = "w4a16.target";

static bool hasLibdevice(const char *toolkit) {
  char path[1024];
  snprintf(path, sizeof path, "%s/nvvm/libdevice/libdevice.10.bc", toolkit);
  return access(path, R_OK) == 0;
}

const char *w4a16CudaToolkitPath(void) {
  const char *only = getenv("W4A16_CUDA_TOOLKIT");
  if (only)
    return only[0] && strlen(only) < 900 && !strpbrk(only, " ,{}\"") && hasLibdevice(only) ? only : NULL;
  const char *candidates[] = {getenv("CUDA_ROOT"), getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda",
                              "/usr/lib/cuda"};
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; ++i)
    if (candidates[i] && candidates[i][0] && strlen(candidates[i]) < 900 && !strpbrk(candidates[i], " ,{}\"") &&
        hasLibdevice(candidates[i]))
      return candidates[i];
  return NULL;
}

/* Inside a gpu.launch body (device code), or in a function of a gpu.module. */
static bool onDevice(MlirOperation op) {
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p))
    if (opIs(p, "gpu.launch") || opIs(p, "gpu.module"))
      return true;
  return false;
}

bool isHostStackBuffer(MlirValue v) {
  MlirOperation def = producer(v);
  while (!mlirOperationIsNull(def) && (opIs(def, "memref.cast") || opIs(def, "memref.subview") ||
                                       opIs(def, "memref.reinterpret_cast") || opIs(def, "memref.collapse_shape") ||
                                       opIs(def, "memref.expand_shape"))) {
    v = mlirOperationGetOperand(def, 0);
    def = producer(v);
  }
  return !mlirOperationIsNull(def) && opIs(def, "memref.alloca");
}

/* Ops whose memref operands are dereferenced where the op runs. Shape queries (memref.dim) and views
 * only read the descriptor and stay legal on the host. */
static bool touchesData(MlirOperation op) {
  static const char *const kData[] = {"memref.load",          "memref.store",          "memref.copy",
                                      "memref.atomic_rmw",    "memref.generic_atomic_rmw", "vector.load",
                                      "vector.store",         "vector.transfer_read",  "vector.transfer_write"};
  for (size_t i = 0; i < sizeof kData / sizeof kData[0]; ++i)
    if (opIs(op, kData[i]))
      return true;
  return opInDialect(op, "linalg"); /* a structured op left on buffers would become host loops */
}

/* The int8 prep's runtime (w4a16/int8prep.h) reads host memory. */
static bool callsHostOnlyRuntime(MlirOperation op) {
  MlirAttribute callee = attr(op, "callee");
  return opIs(op, "func.call") && !mlirAttributeIsNull(callee) &&
         mlirStringRefEqual(mlirFlatSymbolRefAttrGetValue(callee), mlirStringRefCreateFromCString("w4a16_rt_int8_prep"));
}

static bool isHostDataAccess(MlirOperation op, void *unused) {
  (void)unused;
  if (callsHostOnlyRuntime(op))
    return true;
  if (!touchesData(op) || onDevice(op))
    return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (mlirTypeIsAMemRef(mlirValueGetType(v)) && !isHostStackBuffer(v))
      return true;
  }
  return false;
}

static bool isHostGetGlobal(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "memref.get_global") && !onDevice(op);
}

/* Bytes of a statically shaped memref as the LLVM lowering stores it (sub-byte integers take a byte). */
static int64_t storageBytes(MlirType memref) {
  MlirType element = mlirShapedTypeGetElementType(memref);
  int64_t bits = mlirTypeIsAFloat(element) ? (int64_t)mlirFloatTypeGetWidth(element) : intWidth(element);
  if (bits <= 0 || !mlirShapedTypeHasStaticShape(memref))
    return -1;
  int64_t bytes = (bits + 7) / 8;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(memref); ++d)
    bytes *= mlirShapedTypeGetDimSize(memref, d);
  return bytes;
}

/* Points the host's get_global at __w4a16_dev_<name> (a clone of the global made once) and records its
 * size. False, with an error, for what cannot be copied to the device. */
static bool redirectToDeviceCopy(MlirOperation getGlobal, MlirOperation module, MlirSymbolTable symbols,
                                 intptr_t *numSizes, MlirNamedAttribute *entries) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(attr(getGlobal, "name"));
  MlirOperation global = mlirSymbolTableLookup(symbols, name);
  MlirLocation loc = mlirOperationGetLocation(getGlobal);
  int64_t bytes = storageBytes(mlirValueGetType(mlirOperationGetResult(getGlobal, 0)));
  if (mlirOperationIsNull(global) || mlirAttributeIsNull(attr(global, "constant")) || bytes < 0) {
    mlirEmitError(loc, "w4a16 GPU target: host code uses a global that is not a statically shaped constant; "
                       "only constants can be copied to the device once");
    return false;
  }
  char renamed[512];
  snprintf(renamed, sizeof renamed, "%s%.*s", kDeviceConstantPrefix, (int)name.length, name.data);
  MlirStringRef renamedRef = mlirStringRefCreateFromCString(renamed);
  if (mlirOperationIsNull(mlirSymbolTableLookup(symbols, renamedRef))) {
    MlirOperation copy = mlirOperationClone(global);
    mlirOperationSetAttributeByName(copy, mlirSymbolTableGetSymbolAttributeName(),
                                    mlirStringAttrGet(ctx, renamedRef));
    mlirOperationSetAttributeByName(copy, mlirStringRefCreateFromCString("sym_visibility"),
                                    mlirStringAttrGet(ctx, mlirStringRefCreateFromCString("private")));
    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(global), global, copy);
    mlirSymbolTableInsert(symbols, copy);
    MlirAttribute size = mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), bytes);
    entries[(*numSizes)++] = mlirNamedAttributeGet(mlirIdentifierGet(ctx, renamedRef), size);
  }
  mlirOperationSetAttributeByName(getGlobal, mlirStringRefCreateFromCString("name"),
                                  mlirFlatSymbolRefAttrGet(ctx, renamedRef));
  return true;
}

static void run(MlirOperation module, MlirExternalPass pass) {
  MlirContext ctx = mlirOperationGetContext(module);
  bool ok = true;
  if (!w4a16CudaToolkitPath()) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "w4a16 GPU target: CUDA's libdevice (nvvm/libdevice/libdevice.10.bc) was not found under "
                  "$W4A16_CUDA_TOOLKIT, or else $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, /usr/lib/cuda; "
                  "PTX generation links it (install the CUDA toolkit or set W4A16_CUDA_TOOLKIT)");
    mlirExternalPassSignalFailure(pass);
    return;
  }
  OpList access = collectOps(module, isHostDataAccess, NULL, MlirWalkPreOrder);
  for (int i = 0; i < access.count; ++i) {
    char name[64];
    char message[256];
    if (callsHostOnlyRuntime(access.ops[i]))
      snprintf(message, sizeof message, "w4a16 GPU target: w4a16.int8_prep runs on the host target only (its "
                                        "runtime reads host memory)");
    else
      snprintf(message, sizeof message,
               "w4a16 GPU target: %s would run on the host and dereference device memory (it is not inside a "
               "parallel loop that maps to the GPU)",
               opName(access.ops[i], name, sizeof name));
    mlirEmitError(mlirOperationGetLocation(access.ops[i]), message);
    ok = false;
  }
  free(access.ops);

  OpList globals = collectOps(module, isHostGetGlobal, NULL, MlirWalkPreOrder);
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  MlirNamedAttribute *entries = calloc((size_t)globals.count + 1, sizeof *entries);
  intptr_t numSizes = 0;
  for (int i = 0; i < globals.count && ok; ++i)
    ok = redirectToDeviceCopy(globals.ops[i], module, symbols, &numSizes, entries);
  if (ok && numSizes > 0)
    mlirOperationSetAttributeByName(module, mlirStringRefCreateFromCString(kDeviceConstantsAttr),
                                    mlirDictionaryAttrGet(ctx, numSizes, entries));
  mlirSymbolTableDestroy(symbols);
  free(entries);
  free(globals.ops);
  mlirOperationSetAttributeByName(module, mlirStringRefCreateFromCString(kTargetAttr),
                                  mlirStringAttrGet(ctx, mlirStringRefCreateFromCString("gpu")));
  if (!ok)
    mlirExternalPassSignalFailure(pass);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kGpuHostCodePass = {
    &passId, "W4a16GpuHostCode", "w4a16-gpu-host-code",
    "GPU target, after convert-parallel-loops-to-gpu: reject host code that touches tensor data, route host uses "
    "of constant globals to device copies, mark the module w4a16.target = \"gpu\"",
    "builtin.module", NULL, run, NULL};

MlirPass w4a16CreateGpuHostCodePass(void) { return createStatelessPass(&kGpuHostCodePass); }
