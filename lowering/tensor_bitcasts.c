/* w4a16-tensor-bitcasts: tensor.bitcast (a same-width reinterpretation of every element: torch-mlir's lowering of
 * `Tensor.view(dtype)`, e.g. an FP8 checkpoint's uint8 weights viewed as float8_e4m3fn, or bf16 bits as int16)
 * becomes the elementwise arith.bitcast on the whole tensor, which convert-elementwise-to-linalg then makes a
 * linalg body and bufferization takes. Why: nothing upstream bufferizes tensor.bitcast ("op was not bufferized").
 * Signed or unsigned integer element types, which arith.bitcast does not take, are left as they are. */
#include "call_template.h"
#include "ir_build.h"
#include "ir_query.h"
#include "stateless_pass.h"
#include "w4a16/lowering.h"

#include "mlir-c/BuiltinTypes.h"

/* An integer element type with signedness (si8, ui8): not arith's. */
static bool hasSignedness(MlirType t) {
  return mlirTypeIsAInteger(t) && !mlirIntegerTypeIsSignless(t);
}

static bool isElementwiseBitcast(MlirOperation op, void *unused) {
  (void)unused;
  if (!opIs(op, "tensor.bitcast"))
    return false;
  MlirType from = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType to = mlirValueGetType(mlirOperationGetResult(op, 0));
  return mlirTypeIsARankedTensor(from) && mlirTypeIsARankedTensor(to) &&
         !hasSignedness(mlirShapedTypeGetElementType(from)) && !hasSignedness(mlirShapedTypeGetElementType(to));
}

static bool rewrite(MlirOperation root, MlirOperation op, int index) {
  (void)root, (void)index;
  MlirValue source = mlirOperationGetOperand(op, 0), result = mlirOperationGetResult(op, 0);
  MlirType type = mlirValueGetType(result);
  MlirOperation cast = buildOp("arith.bitcast", mlirOperationGetLocation(op), 1, &source, 1, &type, 0, NULL, NULL);
  mlirValueReplaceAllUsesOfWith(result, insertBefore(op, cast));
  mlirOperationDestroy(op);
  return true;
}

static void run(MlirOperation root, MlirExternalPass pass) { rewriteEach(root, pass, isElementwiseBitcast, rewrite); }

static _Alignas(8) char passId;
static const StatelessPassSpec kTensorBitcastsPass = {
    &passId, "W4a16TensorBitcasts", "w4a16-tensor-bitcasts",
    "tensor.bitcast -> arith.bitcast on the whole tensor (elementwise), which bufferizes", "", NULL, run, NULL};

MlirPass w4a16CreateTensorBitcastsPass(void) { return createStatelessPass(&kTensorBitcastsPass); }
