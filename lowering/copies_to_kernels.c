/* w4a16-copies-to-kernels: on the GPU target, a memref.copy between tensors' buffers (bufferization copies a
 * read-only argument before writing it; buffer deallocation clones results) becomes linalg.copy, so that
 * convert-linalg-to-parallel-loops turns it into a loop that maps onto the GPU like any other. Left as it is,
 * the LLVM lowering would make it a host memcpy of device pointers. Runs right after bufferization.
 *
 * w4a16-strided-copies-to-loops, the host target's: only copies from or to a strided view (a result written
 * into a column slice of a wider tensor: tensor.insert_slice, as an attention layer concatenating q | k | v
 * does). The LLVM lowering makes those a call of memrefCopy, a function of MLIR's runner-utils library that
 * compiled code does not link (undefined symbol at load time); as linalg.copy they become the host loops
 * convert-linalg-to-loops makes. Contiguous copies stay memcpy. */
#include "gpu_passes.h"
#include "ir_build.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdlib.h>

static bool isCopy(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "memref.copy");
}

static bool isStrided(MlirValue memref) {
  MlirType t = mlirValueGetType(memref);
  return mlirTypeIsAMemRef(t) && !mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(t));
}

static bool isStridedCopy(MlirOperation op, void *unused) {
  return isCopy(op, unused) && (isStrided(mlirOperationGetOperand(op, 0)) || isStrided(mlirOperationGetOperand(op, 1)));
}

static void copiesToLinalg(MlirOperation module, bool (*which)(MlirOperation, void *)) {
  MlirContext ctx = mlirOperationGetContext(module);
  OpList copies = collectOps(module, which, NULL, MlirWalkPreOrder);
  for (int i = 0; i < copies.count; ++i) {
    MlirOperation copy = copies.ops[i];
    MlirValue operands[2] = {mlirOperationGetOperand(copy, 0), mlirOperationGetOperand(copy, 1)};
    const int32_t segments[2] = {1, 1}; /* ins(source) outs(target) */
    MlirNamedAttribute segmentSizes = namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, segments));
    MlirRegion body = mlirRegionCreate();
    MlirOperation linalgCopy =
        buildOp("linalg.copy", mlirOperationGetLocation(copy), 2, operands, 0, NULL, 1, &segmentSizes, &body);
    mlirLinalgFillBuiltinNamedOpRegion(linalgCopy);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(copy), copy, linalgCopy);
    mlirOperationDestroy(copy);
  }
  free(copies.ops);
}

static void run(MlirOperation module, MlirExternalPass pass) {
  (void)pass;
  copiesToLinalg(module, isCopy);
}

static void runStrided(MlirOperation module, MlirExternalPass pass) {
  (void)pass;
  copiesToLinalg(module, isStridedCopy);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kCopiesToKernelsPass = {
    &passId, "W4a16CopiesToKernels", "w4a16-copies-to-kernels",
    "GPU target, after bufferization: memref.copy becomes linalg.copy, so that it runs as a GPU kernel",
    "builtin.module", NULL, run, mlirGetDialectHandle__linalg__};

MlirPass w4a16CreateCopiesToKernelsPass(void) { return createStatelessPass(&kCopiesToKernelsPass); }

static _Alignas(8) char stridedPassId;
static const StatelessPassSpec kStridedCopiesToLoopsPass = {
    &stridedPassId, "W4a16StridedCopiesToLoops", "w4a16-strided-copies-to-loops",
    "Host target, after bufferization: memref.copy from or to a strided view becomes linalg.copy (host loops), not "
    "a call of the runner-utils memrefCopy",
    "builtin.module", NULL, runStrided, mlirGetDialectHandle__linalg__};

MlirPass w4a16CreateStridedCopiesToLoopsPass(void) { return createStatelessPass(&kStridedCopiesToLoopsPass); }
