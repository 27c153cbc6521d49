// Input of verify-diagnostics.mlir: a pass error, verified.
func.func @f() -> tensor<4xf32> {
  // expected-error @+1 {{op was not bufferized}}
  %0 = "unknown.producer"() : () -> tensor<4xf32>
  %1 = tensor.empty() : tensor<4xf32>
  %2 = linalg.copy ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
