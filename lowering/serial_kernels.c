/* w4a16-gpu-serial-kernels: on the GPU target, a linalg op with no parallel loop -- a full reduction into a 0-d
 * tensor (the RMSNorm of a decode step once unit dims are folded: tensor<4096xf16> -> tensor<f32>), a 0-d fill --
 * becomes a loop nest (or a single store) with no scf.parallel in it, which no GPU mapping takes: the host would
 * dereference device memory, and w4a16-gpu-host-code rejected it. Right after convert-linalg-to-parallel-loops,
 * this wraps each such run of a host function's statements (0-d loads, scalar arithmetic, stores, loops) in a
 * one-iteration scf.parallel, so that it runs as a one-thread kernel on the caller's stream like every other op.
 * Only runs that define nothing used after them, hold no parallel loop (a host loop around kernels stays on the
 * host, and the runs in its body are wrapped in turn) and touch no host stack buffer; the rest is left to
 * w4a16-gpu-host-code's located error. A one-thread loop
 * is slow, but such ops are small: a long reduction is split into 256 coalesced partial sums first
 * (w4a16-gpu-split-reductions) and only their combine runs here. */
#include "gpu_passes.h"
#include "ir_build.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/SCF.h"

#include <stdlib.h>

typedef struct Scan {
  bool touchesBuffer, blocked;
} Scan;

static MlirWalkResult scanOp(MlirOperation op, void *userData) {
  Scan *s = userData;
  if (opIs(op, "scf.parallel") || opIs(op, "gpu.launch") || opIs(op, "func.call")) {
    s->blocked = true; /* kernels or calls inside: not one thread's work */
    return MlirWalkResultInterrupt;
  }
  if (opIs(op, "memref.load") || opIs(op, "memref.store"))
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
      MlirValue v = mlirOperationGetOperand(op, i);
      if (!mlirTypeIsAMemRef(mlirValueGetType(v)))
        continue;
      if (isHostStackBuffer(v)) {
        s->blocked = true;
        return MlirWalkResultInterrupt;
      }
      s->touchesBuffer = true;
    }
  return MlirWalkResultAdvance;
}

/* Ops a one-thread kernel can take from a host function's top level: buffer reads and writes, scalar arithmetic, and
 * loops and conditionals yielding nothing (arith.constant stays where it is: kernels take constants along). */
static bool isMovable(MlirOperation op) {
  if (opIs(op, "memref.load") || opIs(op, "memref.store") ||
      ((opInDialect(op, "arith") || opInDialect(op, "math")) && !opIs(op, "arith.constant")))
    return true;
  return mlirOperationGetNumResults(op) == 0 && (opIs(op, "scf.for") || opIs(op, "scf.if"));
}

static bool inRun(MlirOperation op, MlirOperation *run, int n) {
  for (int i = 0; i < n; ++i)
    if (mlirOperationEqual(op, run[i]))
      return true;
  return false;
}

enum { kMaxRun = 256 };

/* Moves run[0, n) into `scf.parallel (%i) = (0) to (1) step (1)` built just before run[n - 1]. */
static void wrapInUnitParallel(MlirOperation *run, int n) {
  MlirOperation last = run[n - 1];
  MlirContext ctx = mlirOperationGetContext(last);
  MlirLocation loc = mlirOperationGetLocation(last);
  MlirType index = mlirIndexTypeGet(ctx);
  MlirValue bounds[2];
  for (int i = 0; i < 2; ++i)
    bounds[i] = buildConstant(index, i, last, loc);
  MlirRegion body = mlirRegionCreate();
  MlirBlock block = mlirBlockCreate(1, &index, &loc);
  mlirRegionAppendOwnedBlock(body, block);
  const int32_t segments[4] = {1, 1, 1, 0}; /* lower bounds, upper bounds, steps, init values */
  MlirNamedAttribute segmentSizes = namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, segments));
  const MlirValue operands[3] = {bounds[0], bounds[1], bounds[1]};
  MlirOperation parallel = buildOp("scf.parallel", loc, 3, operands, 0, NULL, 1, &segmentSizes, &body);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(last), last, parallel);
  MlirOperation reduce = buildOp("scf.reduce", loc, 0, NULL, 0, NULL, 0, NULL, NULL);
  mlirBlockAppendOwnedOperation(block, reduce);
  for (int i = 0; i < n; ++i)
    mlirOperationMoveBefore(run[i], reduce);
}

/* From `first`, the movable ops (constants skipped) up to the last one that yields nothing and after which nothing
 * outside uses what they define; wrapped when they touch a buffer and no host stack buffer. Returns the op to go on
 * from. */
static MlirOperation wrapRunFrom(MlirOperation first) {
  MlirBlock block = mlirOperationGetBlock(first);
  MlirOperation run[kMaxRun];
  int n = 0, take = 0;
  MlirOperation op = first;
  for (; !mlirOperationIsNull(op) && n < kMaxRun && (isMovable(op) || opIs(op, "arith.constant"));
       op = mlirOperationGetNextInBlock(op)) {
    if (opIs(op, "arith.constant"))
      continue;
    run[n++] = op;
    if (mlirOperationGetNumResults(op) != 0)
      continue;
    bool closed = true; /* every result of run[0, n) used inside it */
    for (int i = 0; closed && i < n; ++i)
      for (intptr_t r = 0; closed && r < mlirOperationGetNumResults(run[i]); ++r)
        for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(run[i], r)); closed && !mlirOpOperandIsNull(u);
             u = mlirOpOperandGetNextUse(u))
          closed = inRun(ancestorIn(mlirOpOperandGetOwner(u), block), run, n);
    if (closed)
      take = n;
  }
  if (take == 0)
    return mlirOperationGetNextInBlock(first);
  Scan s = {false, false};
  for (int i = 0; i < take && !s.blocked; ++i)
    mlirOperationWalk(run[i], scanOp, &s, MlirWalkPreOrder);
  MlirOperation next = mlirOperationGetNextInBlock(run[take - 1]);
  if (s.touchesBuffer && !s.blocked)
    wrapInUnitParallel(run, take);
  return next;
}

static bool isFunction(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "func.func") && mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)).ptr != NULL;
}

static void wrapRunsIn(MlirRegion region) {
  for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
    for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op);)
      op = isMovable(op) ? wrapRunFrom(op) : mlirOperationGetNextInBlock(op);
}

/* Host control flow around such statements (an scf.for of a top-k by repeated argmax, an scf.if of torch.cond, an
 * scf.while carrying a 0-d tensor): still host code, outside every parallel loop and kernel. */
static bool isHostControlFlow(MlirOperation op, void *unused) {
  (void)unused;
  if (!opInDialect(op, "scf") || mlirOperationGetNumRegions(op) == 0 || opIs(op, "scf.parallel"))
    return false;
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p) && !opIs(p, "func.func");
       p = mlirOperationGetParentOperation(p))
    if (opIs(p, "scf.parallel") || opIs(p, "gpu.launch"))
      return false;
  return true;
}

static void run(MlirOperation module, MlirExternalPass pass) {
  (void)pass;
  OpList functions = collectOps(module, isFunction, NULL, MlirWalkPreOrder);
  for (int f = 0; f < functions.count; ++f) {
    wrapRunsIn(mlirOperationGetRegion(functions.ops[f], 0));
    /* then the bodies of the host loops and conditionals left (outermost first: a body wrapped whole with its loop
     * is inside a parallel loop by the time its own turn comes, and is skipped) */
    OpList control = collectOps(functions.ops[f], isHostControlFlow, NULL, MlirWalkPreOrder);
    for (int i = 0; i < control.count; ++i)
      if (isHostControlFlow(control.ops[i], NULL))
        for (intptr_t r = 0; r < mlirOperationGetNumRegions(control.ops[i]); ++r)
          wrapRunsIn(mlirOperationGetRegion(control.ops[i], r));
    free(control.ops);
  }
  free(functions.ops);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kSerialKernelsPass = {
    &passId, "W4a16GpuSerialKernels", "w4a16-gpu-serial-kernels",
    "GPU target, after convert-linalg-to-parallel-loops: a host statement with no parallel loop that reads or writes "
    "a buffer (a reduction into a 0-d tensor) becomes a one-thread kernel",
    "builtin.module", NULL, run, mlirGetDialectHandle__scf__};

MlirPass w4a16CreateSerialKernelsPass(void) { return createStatelessPass(&kSerialKernelsPass); }
