/* w4a16-gpu-host-code: on the GPU target, what stays outside gpu.launch after the parallel loops are mapped
 * runs on the host, where every tensor is device memory. This pass, run right after
 * convert-parallel-loops-to-gpu, makes that safe or says why not:
 *
 *  - a kernel (gpu.launch) that uses a value computed on the host from a scalar of device memory -- a KV-cache
 *    window at an offset read from a 0-d position tensor, as torch-mlir passes HF's cache_position -- computes
 *    it itself: the load, its index arithmetic and the views built from it are copied into the kernel, so that
 *    no host read is left and the call stays capturable in a CUDA graph (the value is read when the kernel runs);
 *  - a host memref.load of one scalar from device memory still needed on the host (a loop bound, a size, a
 *    returned scalar) becomes a call of w4a16_rt_device_read, which copies it to the host after the work queued
 *    on the caller's stream (and refuses to run inside a CUDA graph capture);
 *  - any other host op that reads or writes tensor data (memref.load/store/copy and the like on anything but
 *    a host stack buffer) is an error at its location: it would dereference a device pointer on the CPU;
 *  - a constant global that host code hands out (a constant g_idx table passed to a fused call, a table a
 *    kernel reads through an argument) is renamed __w4a16_dev_<name> and listed with its size in the module
 *    attribute w4a16.device_constants: w4a16-device-memory later replaces the host's address of it with a
 *    device copy made once (w4a16_rt_device_constant);
 *  - the module is marked w4a16.target = "gpu" so that w4a16-entry-points writes the stream-taking entry
 *    points. */
#include "call_template.h"
#include "gpu_passes.h"
#include "ir_build.h"

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

/* --- host reads of one scalar ---------------------------------------------------------------------- */

/* Bytes of a scalar w4a16_rt_device_read can fetch (integers of whole bytes up to 64 bits, index, i1 as its
 * byte, f16/bf16/f32/f64); 0 for anything else. */
static int64_t scalarBytes(MlirType t) {
  if (mlirTypeIsAIndex(t))
    return 8;
  const int64_t bits = mlirTypeIsAFloat(t) ? (int64_t)mlirFloatTypeGetWidth(t) : intWidth(t);
  return bits == 1 ? 1 : (bits == 8 || bits == 16 || bits == 32 || bits == 64) ? bits / 8 : 0;
}

static bool isHostScalarLoad(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "memref.load") && !onDevice(op) && !isHostStackBuffer(mlirOperationGetOperand(op, 0)) &&
         scalarBytes(mlirValueGetType(mlirOperationGetResult(op, 0))) > 0;
}

static MlirValue binary(const char *name, MlirValue a, MlirValue b, MlirOperation before, MlirLocation loc) {
  MlirValue operands[2] = {a, b};
  MlirType type = mlirValueGetType(a);
  return insertBefore(before, buildOp(name, loc, 2, operands, 1, &type, 0, NULL, NULL));
}

static MlirValue cast(const char *name, MlirValue v, MlirType to, MlirOperation before, MlirLocation loc) {
  return insertBefore(before, buildOp(name, loc, 1, &v, 1, &to, 0, NULL, NULL));
}

/* load = memref.load %buf[%i..] -> w4a16_rt_device_read(aligned pointer + (offset + sum i * stride) * bytes,
 * bytes), its low bytes as the loaded type. */
static void readThroughRuntime(MlirOperation load) {
  MlirContext ctx = mlirOperationGetContext(load);
  MlirLocation loc = mlirOperationGetLocation(load);
  MlirValue buffer = mlirOperationGetOperand(load, 0), result = mlirOperationGetResult(load, 0);
  MlirType memref = mlirValueGetType(buffer), element = mlirValueGetType(result);
  MlirType index = mlirIndexTypeGet(ctx), i64 = mlirIntegerTypeGet(ctx, 64);
  const intptr_t rank = mlirShapedTypeGetRank(memref);
  const int64_t bytes = scalarBytes(element);

  /* base buffer, offset, sizes, strides */
  MlirType metaTypes[2 + 2 * 8];
  int64_t noShape = 0;
  metaTypes[0] = mlirMemRefTypeContiguousGet(element, 0, &noShape, mlirMemRefTypeGetMemorySpace(memref));
  for (intptr_t i = 1; i < 2 + 2 * rank; ++i)
    metaTypes[i] = index;
  MlirOperation meta = buildOp("memref.extract_strided_metadata", loc, 1, &buffer, 2 + 2 * rank, metaTypes, 0, NULL,
                               NULL);
  insertBefore(load, meta);
  MlirValue linear = mlirOperationGetResult(meta, 1);
  for (intptr_t d = 0; d < rank; ++d)
    linear = binary("arith.addi", linear,
                    binary("arith.muli", mlirOperationGetOperand(load, 1 + d),
                           mlirOperationGetResult(meta, 2 + rank + d), load, loc),
                    load, loc);
  MlirValue base = cast("memref.extract_aligned_pointer_as_index", buffer, index, load, loc);
  MlirValue address = binary("arith.addi", base, binary("arith.muli", linear, buildConstant(index, bytes, load, loc),
                                                        load, loc), load, loc);
  MlirValue args[2] = {cast("arith.index_cast", address, i64, load, loc), buildConstant(i64, bytes, load, loc)};
  MlirNamedAttribute callee =
      namedAttr(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, mlirStringRefCreateFromCString("w4a16_rt_device_read")));
  MlirValue raw = insertBefore(load, buildOp("func.call", loc, 2, args, 1, &i64, 1, &callee, NULL));
  MlirValue value;
  if (mlirTypeIsAIndex(element))
    value = cast("arith.index_cast", raw, index, load, loc);
  else if (mlirTypeIsAFloat(element)) {
    MlirType bits = mlirIntegerTypeGet(ctx, (unsigned)(8 * bytes));
    value = cast("arith.bitcast", bytes == 8 ? raw : cast("arith.trunci", raw, bits, load, loc), element, load, loc);
  } else
    value = intWidth(element) == 64 ? raw : cast("arith.trunci", raw, element, load, loc);
  mlirValueReplaceAllUsesOfWith(result, value);
  mlirOperationDestroy(load);
}

/* --- device scalars computed in the kernels that use them ------------------------------------------------ */

enum { kMaxSunk = 64 };

typedef struct Sink {
  MlirOperation launch;
  MlirOperation from[kMaxSunk], to[kMaxSunk]; /* host ops and their copies in the kernel */
  int count;
  MlirOperation before; /* where copies go: the kernel body's first op */
} Sink;

static bool isInside(MlirOperation op, MlirOperation ancestor) {
  for (MlirOperation p = op; !mlirOperationIsNull(p); p = mlirOperationGetParentOperation(p))
    if (opEq(p, ancestor))
      return true;
  return false;
}

/* Ops a kernel can compute for itself: scalar index arithmetic, a scalar load of device memory, and views. */
static bool isSinkable(MlirOperation op) {
  if (mlirOperationGetNumRegions(op) != 0 || mlirOperationGetNumResults(op) != 1)
    return false;
  if (opIs(op, "memref.load"))
    return !isHostStackBuffer(mlirOperationGetOperand(op, 0));
  return opInDialect(op, "arith") || opIs(op, "memref.subview") || opIs(op, "memref.cast") ||
         opIs(op, "memref.reinterpret_cast") || opIs(op, "memref.expand_shape") || opIs(op, "memref.collapse_shape");
}

/* Whether host value v is computed, through sinkable ops, from a scalar load of device memory. */
static bool readsDeviceScalar(MlirValue v, int depth) {
  MlirOperation def = producer(v);
  if (mlirOperationIsNull(def) || depth > 16 || !isSinkable(def))
    return false;
  if (opIs(def, "memref.load"))
    return true;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(def); ++i)
    if (readsDeviceScalar(mlirOperationGetOperand(def, i), depth + 1))
      return true;
  return false;
}

/* v's copy in the kernel: its producer copied (after its operands' copies) where it reads a device scalar, or v
 * itself, captured as the kernel captures any host value. Null when the copies would be too many. */
static MlirValue sunk(Sink *s, MlirValue v) {
  if (!readsDeviceScalar(v, 0))
    return v;
  MlirOperation def = producer(v);
  for (int i = 0; i < s->count; ++i)
    if (opEq(s->from[i], def))
      return mlirOperationGetResult(s->to[i], 0);
  const intptr_t n = mlirOperationGetNumOperands(def);
  MlirValue operands[16];
  if (s->count == kMaxSunk || n > 16)
    return (MlirValue){NULL};
  for (intptr_t i = 0; i < n; ++i)
    if (mlirValueIsNull(operands[i] = sunk(s, mlirOperationGetOperand(def, i))))
      return (MlirValue){NULL};
  MlirOperation copy = mlirOperationClone(def);
  for (intptr_t i = 0; i < n; ++i)
    mlirOperationSetOperand(copy, i, operands[i]);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(s->before), s->before, copy);
  s->from[s->count] = def, s->to[s->count++] = copy;
  return mlirOperationGetResult(copy, 0);
}

/* The host values the launch's body uses that read a device scalar, each replaced there by its copy. */
static MlirWalkResult sinkOperands(MlirOperation op, void *userData) {
  Sink *s = userData;
  if (opEq(op, s->launch)) /* its own operands (grid and block sizes) are the host's */
    return MlirWalkResultAdvance;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    MlirOperation def = producer(v);
    if (mlirOperationIsNull(def) || isInside(def, s->launch) || !readsDeviceScalar(v, 0))
      continue;
    MlirValue copy = sunk(s, v);
    if (!mlirValueIsNull(copy))
      mlirOperationSetOperand(op, i, copy);
  }
  return MlirWalkResultAdvance;
}

static bool isHostLaunch(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "gpu.launch") && !onDevice(op);
}

/* Erases host ops the copies left without a use (the loads included: reading is all they did). */
static void eraseUnused(MlirOperation *ops, int n) {
  for (bool erased = true; erased;) {
    erased = false;
    for (int i = 0; i < n; ++i)
      if (!mlirOperationIsNull(ops[i]) && userCount(mlirOperationGetResult(ops[i], 0)) == 0) {
        mlirOperationDestroy(ops[i]);
        ops[i] = (MlirOperation){NULL}, erased = true;
      }
  }
}

static void sinkDeviceScalars(MlirOperation module) {
  OpList launches = collectOps(module, isHostLaunch, NULL, MlirWalkPreOrder);
  MlirOperation *sunkFrom = NULL;
  int numSunk = 0;
  for (int i = 0; i < launches.count; ++i) {
    Sink s = {.launch = launches.ops[i], .count = 0};
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(s.launch, 0));
    s.before = mlirBlockGetFirstOperation(body);
    mlirOperationWalk(s.launch, sinkOperands, &s, MlirWalkPreOrder);
    if (s.count == 0)
      continue;
    MlirOperation *grown = realloc(sunkFrom, sizeof *sunkFrom * (size_t)(numSunk + s.count));
    if (!grown)
      break;
    sunkFrom = grown;
    for (int k = 0; k < s.count; ++k) {
      bool seen = false;
      for (int j = 0; j < numSunk; ++j)
        seen |= opEq(sunkFrom[j], s.from[k]);
      if (!seen)
        sunkFrom[numSunk++] = s.from[k];
    }
  }
  eraseUnused(sunkFrom, numSunk);
  free(sunkFrom);
  free(launches.ops);
}

static bool readHostScalars(MlirOperation module) {
  OpList loads = collectOps(module, isHostScalarLoad, NULL, MlirWalkPreOrder);
  bool ok = true;
  if (loads.count > 0) {
    MlirModule decl = parseTemplate(mlirOperationGetContext(module),
                                    "func.func private @w4a16_rt_device_read(i64, i64) -> i64\n",
                                    mlirOperationGetLocation(module), "w4a16-gpu-host-code");
    ok = !mlirModuleIsNull(decl);
    if (ok) {
      moveSymbols(decl, module);
      mlirModuleDestroy(decl);
    }
  }
  for (int i = 0; ok && i < loads.count; ++i)
    readThroughRuntime(loads.ops[i]);
  free(loads.ops);
  return ok;
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
  sinkDeviceScalars(module);
  if (!readHostScalars(module)) {
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
