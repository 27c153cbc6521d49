/* w4a16-decompose-aggregates: linalg.softmax becomes the linalg ops it is made of -- the row maximum,
 * exp(x - max), the row sum and the division -- before bufferization. Exports that keep attention's softmax whole
 * (IREE's torch and ONNX input, hand-written linalg) otherwise stop the host and GPU lowerings: no upstream
 * lowering pass takes the op itself, and the pipeline ended with it half-converted. The decomposition is
 * upstream's own (the op's AggregatedOpInterface), applied through the transform dialect's
 * structured.decompose_interface: the C API reaches it only through the transform interpreter. */
#include "decompose_aggregates.h"

#include "ir_query.h"
#include "stateless_pass.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Transform.h"
#include "mlir-c/Dialect/Transform/Interpreter.h"

#include <stdlib.h>

static const char kScript[] =
    "module attributes {transform.with_named_sequence} {\n"
    "  transform.named_sequence @decompose(%root: !transform.any_op {transform.readonly}) {\n"
    "    %ops = transform.structured.match ops{[\"linalg.softmax\"]} in %root\n"
    "        : (!transform.any_op) -> !transform.any_op\n"
    "    %parts = transform.structured.decompose_interface %ops : (!transform.any_op) -> !transform.any_op\n"
    "    transform.yield\n"
    "  }\n"
    "}\n";

static bool isAggregate(MlirOperation op, void *unused) {
  (void)unused;
  return opIs(op, "linalg.softmax");
}

static void run(MlirOperation module, MlirExternalPass pass) {
  OpList found = collectOps(module, isAggregate, NULL, MlirWalkPreOrder);
  const MlirLocation first = found.count ? mlirOperationGetLocation(found.ops[0]) : mlirOperationGetLocation(module);
  free(found.ops);
  if (!found.count)
    return;
  MlirModule script = mlirModuleCreateParse(mlirOperationGetContext(module), mlirStringRefCreateFromCString(kScript));
  if (mlirModuleIsNull(script)) {
    mlirEmitError(first, "linalg.softmax is decomposed with the transform dialect's linalg extension, which this "
                         "context does not have registered (mlirRegisterAllDialects registers it)");
    mlirExternalPassSignalFailure(pass);
    return;
  }
  MlirOperation scriptOp = mlirModuleGetOperation(script);
  MlirOperation sequence = mlirBlockGetFirstOperation(mlirModuleGetBody(script));
  MlirTransformOptions options = mlirTransformOptionsCreate();
  if (mlirLogicalResultIsFailure(mlirTransformApplyNamedSequence(module, sequence, scriptOp, options)))
    mlirExternalPassSignalFailure(pass); /* the interpreter has reported where */
  mlirTransformOptionsDestroy(options);
  mlirModuleDestroy(script);
}

static _Alignas(8) char passId;
static const StatelessPassSpec kDecomposeAggregatesPass = {
    &passId, "W4a16DecomposeAggregates", "w4a16-decompose-aggregates",
    "Before bufferization: linalg.softmax becomes its max, exp, sum and divide linalg ops (upstream's decomposition), "
    "which the host and GPU lowerings take",
    "builtin.module", NULL, run, mlirGetDialectHandle__transform__};

MlirPass w4a16CreateDecomposeAggregatesPass(void) { return createStatelessPass(&kDecomposeAggregatesPass); }
