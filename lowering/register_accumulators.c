/* w4a16-gpu-register-accumulators: on the GPU target, a reduction loop as linalg lowers it reads and writes
 * its accumulator in memory at every step,
 *
 *   scf.for %j { %a = memref.load %out[%i]; ...; memref.store %new, %out[%i] }
 *
 * and LLVM cannot keep it in a register (it cannot prove the loop's other loads do not alias %out), so each
 * step waits for a store and a load to round-trip through memory (~0.4 us a step on the H200). The loop
 * becomes
 *
 *   %a0 = memref.load %out[%i]; %r = scf.for %j iter_args(%a = %a0) { ...; scf.yield %new }; store %r
 *
 * when that is the same computation: the body's only write is that store, its only access to %out that load,
 * both at loop-invariant indices, %out is a buffer the function allocated, and no other load of the body
 * reads from that allocation. Runs on buffers, after convert-linalg-to-parallel-loops. */
#include "gpu_passes.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/SCF.h"

#include <stdlib.h>
#include <string.h>

/* The allocation a memref value is a view of (through casts and views), or a null op. */
static MlirOperation rootAllocation(MlirValue v) {
  for (MlirOperation def = producer(v); !mlirOperationIsNull(def); def = producer(v)) {
    if (opIs(def, "memref.alloc") || opIs(def, "memref.alloca"))
      return def;
    if (!(opIs(def, "memref.cast") || opIs(def, "memref.subview") || opIs(def, "memref.reinterpret_cast") ||
          opIs(def, "memref.collapse_shape") || opIs(def, "memref.expand_shape")))
      return (MlirOperation){NULL};
    v = mlirOperationGetOperand(def, 0);
  }
  return (MlirOperation){NULL};
}

static bool definedOutside(MlirValue v, MlirOperation loop) {
  MlirOperation def = producer(v);
  MlirBlock owner = mlirOperationIsNull(def) ? mlirBlockArgumentGetOwner(v) : mlirOperationGetBlock(def);
  for (MlirOperation p = mlirBlockGetParentOperation(owner); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p))
    if (opEq(p, loop))
      return false;
  return true;
}

static bool sameIndices(MlirOperation load, MlirOperation store) {
  /* load: memref, indices...; store: value, memref, indices... */
  intptr_t n = mlirOperationGetNumOperands(load);
  if (mlirOperationGetNumOperands(store) != n + 1)
    return false;
  for (intptr_t i = 0; i < n; ++i)
    if (!valueEq(mlirOperationGetOperand(load, i), mlirOperationGetOperand(store, i + 1)))
      return false;
  return true;
}

/* math.fpowi and friends as convert-math-to-funcs generates them: pure. */
static bool opIsPureGenerated(MlirOperation call) {
  MlirAttribute callee = attr(call, "callee");
  if (mlirAttributeIsNull(callee))
    return false;
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(callee);
  static const char kPrefix[] = "__mlir_math_";
  return name.length > sizeof kPrefix - 1 && memcmp(name.data, kPrefix, sizeof kPrefix - 1) == 0;
}

typedef struct Accumulator {
  MlirOperation load, store;
} Accumulator;

/* The body's accumulator, when the loop matches the rule above. */
static bool findAccumulator(MlirOperation loop, Accumulator *acc) {
  if (!opIs(loop, "scf.for") || mlirOperationGetNumResults(loop) != 0)
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  acc->store = (MlirOperation){NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationGetNumRegions(op) > 0)
      return false;
    if (opIs(op, "memref.store")) {
      if (!mlirOperationIsNull(acc->store))
        return false;
      acc->store = op;
    } else if (!(opInDialect(op, "arith") || opInDialect(op, "math") || opIs(op, "memref.load") ||
                 opIs(op, "scf.yield") || opIs(op, "func.call"))) {
      return false;
    } else if (opIs(op, "func.call") && !opIsPureGenerated(op)) {
      return false;
    }
  }
  if (mlirOperationIsNull(acc->store))
    return false;
  MlirValue out = mlirOperationGetOperand(acc->store, 1);
  MlirOperation root = rootAllocation(out);
  if (mlirOperationIsNull(root))
    return false;
  for (intptr_t i = 1; i < mlirOperationGetNumOperands(acc->store); ++i)
    if (!definedOutside(mlirOperationGetOperand(acc->store, i), loop))
      return false;
  acc->load = (MlirOperation){NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!opIs(op, "memref.load"))
      continue;
    MlirValue from = mlirOperationGetOperand(op, 0);
    if (valueEq(from, out) && sameIndices(op, acc->store) && mlirOperationIsNull(acc->load)) {
      acc->load = op;
      continue;
    }
    MlirOperation fromRoot = rootAllocation(from);
    if (!mlirOperationIsNull(fromRoot) && opEq(fromRoot, root))
      return false; /* another read of the accumulator's buffer */
  }
  return !mlirOperationIsNull(acc->load);
}

static bool isAccumulatingLoop(MlirOperation op, void *unused) {
  (void)unused;
  Accumulator acc;
  return findAccumulator(op, &acc);
}

/* load before, the value carried through iter_args, store after. */
static void carryInRegister(MlirOperation loop) {
  Accumulator acc;
  if (!findAccumulator(loop, &acc))
    return;
  MlirLocation loc = mlirOperationGetLocation(loop);
  MlirBlock parent = mlirOperationGetBlock(loop);
  MlirValue accValue = mlirOperationGetResult(acc.load, 0);
  MlirType type = mlirValueGetType(accValue);

  /* The initial value, read once before the loop (its indices are defined outside it). */
  MlirOperation initial = mlirOperationClone(acc.load);
  mlirBlockInsertOwnedOperationBefore(parent, loop, initial);

  MlirValue bounds[4] = {mlirOperationGetOperand(loop, 0), mlirOperationGetOperand(loop, 1),
                         mlirOperationGetOperand(loop, 2), mlirOperationGetResult(initial, 0)};
  MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString("scf.for"), loc);
  mlirOperationStateAddOperands(&state, 4, bounds);
  mlirOperationStateAddResults(&state, 1, &type);
  MlirRegion region = mlirRegionCreate();
  mlirRegionTakeBody(region, mlirOperationGetRegion(loop, 0));
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  MlirOperation carried = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationBefore(parent, loop, carried);

  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(carried, 0));
  MlirValue running = mlirBlockAddArgument(body, type, loc);
  mlirValueReplaceAllUsesOfWith(accValue, running);
  MlirValue next = mlirOperationGetOperand(acc.store, 0);
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirOperationState yieldState = mlirOperationStateGet(mlirStringRefCreateFromCString("scf.yield"), loc);
  mlirOperationStateAddOperands(&yieldState, 1, &next);
  mlirBlockInsertOwnedOperationBefore(body, yield, mlirOperationCreate(&yieldState));

  /* The final value, stored once after the loop where the body stored it at every step. */
  MlirOperation final = mlirOperationClone(acc.store);
  mlirOperationSetOperand(final, 0, mlirOperationGetResult(carried, 0));
  mlirBlockInsertOwnedOperationAfter(parent, carried, final);

  mlirOperationDestroy(yield);
  mlirOperationDestroy(acc.store);
  mlirOperationDestroy(acc.load);
  mlirOperationDestroy(loop);
}

static void run(MlirOperation module, MlirExternalPass pass) {
  (void)pass;
  /* Innermost loops first (post-order): an outer loop never matches, its body holds a loop. */
  OpList loops = collectOps(module, isAccumulatingLoop, NULL, MlirWalkPostOrder);
  for (int i = 0; i < loops.count; ++i)
    carryInRegister(loops.ops[i]);
  free(loops.ops);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kRegisterAccumulatorsPass = {
    &passId, "W4a16GpuRegisterAccumulators", "w4a16-gpu-register-accumulators",
    "GPU target, on buffers: a reduction loop carries its accumulator in a register (scf.for iter_args) instead "
    "of loading and storing it in memory at every step",
    "builtin.module", NULL, run, mlirGetDialectHandle__scf__};

MlirPass w4a16CreateRegisterAccumulatorsPass(void) { return createStatelessPass(&kRegisterAccumulatorsPass); }
