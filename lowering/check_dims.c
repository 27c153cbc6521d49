/* w4a16-check-dims: tensor.dim / memref.dim with a constant index outside [0, rank) is a located error before
 * the upstream lowering runs. The verifier accepts it (the index is an SSA value), and MLIR 22's
 * canonicalisation of memref.dim of an allocation then reads out of bounds and crashes (found by the mutation
 * test on the GPU pipeline: `tensor.dim %x, %c-8`). Such IR reads a dimension that does not exist: it has no
 * meaning to compile. */
#include "check_dims.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <stdlib.h>

/* The constant dim index of a dim op that is out of its source's range; false when in range or not constant. */
static bool outOfRange(MlirOperation op, int64_t *index, int64_t *rank) {
  if (!opIs(op, "tensor.dim") && !opIs(op, "memref.dim"))
    return false;
  MlirType source = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirOperation def = producer(mlirOperationGetOperand(op, 1));
  if (!mlirTypeIsAShaped(source) || !mlirShapedTypeHasRank(source) || mlirOperationIsNull(def) ||
      !opIs(def, "arith.constant") || !mlirAttributeIsAInteger(attr(def, "value")))
    return false;
  *index = mlirIntegerAttrGetValueInt(attr(def, "value"));
  *rank = mlirShapedTypeGetRank(source);
  return *index < 0 || *index >= *rank;
}

static bool isBadDim(MlirOperation op, void *unused) {
  (void)unused;
  int64_t index, rank;
  return outOfRange(op, &index, &rank);
}

static void run(MlirOperation module, MlirExternalPass pass) {
  OpList bad = collectOps(module, isBadDim, NULL, MlirWalkPreOrder);
  for (int i = 0; i < bad.count; ++i) {
    int64_t index, rank;
    outOfRange(bad.ops[i], &index, &rank);
    char message[160];
    snprintf(message, sizeof message, "dimension %lld of a rank-%lld value does not exist (indices run 0..%lld)",
             (long long)index, (long long)rank, (long long)rank - 1);
    mlirEmitError(mlirOperationGetLocation(bad.ops[i]), message);
  }
  if (bad.count)
    mlirExternalPassSignalFailure(pass);
  free(bad.ops);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kCheckDimsPass = {&passId,        "W4a16CheckDims", "w4a16-check-dims",
                                                 "tensor.dim / memref.dim with a constant index out of range: "
                                                 "a located error (upstream canonicalisation crashes on it)",
                                                 "",            NULL, run, NULL};

MlirPass w4a16CreateCheckDimsPass(void) { return createStatelessPass(&kCheckDimsPass); }
