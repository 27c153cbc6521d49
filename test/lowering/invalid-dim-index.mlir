// A dim op with a constant index outside the rank is a located error on both targets: the verifier accepts it,
// and MLIR 22's canonicalisation of memref.dim crashed on it in the GPU pipeline (found by the mutation test).
// RUN: w4a16-opt --w4a16-pipeline --verify-diagnostics %s -o /dev/null
// RUN: w4a16-opt --w4a16-gpu-pipeline --verify-diagnostics %s -o /dev/null
func.func @negative(%x: tensor<?x256xf16>) -> index {
  %c = arith.constant -8 : index
  // expected-error @+1 {{dimension -8 of a rank-2 value does not exist (indices run 0..1)}}
  %m = tensor.dim %x, %c : tensor<?x256xf16>
  %e = tensor.empty(%m) : tensor<?x16xf16>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %e, %c0 : tensor<?x16xf16>
  return %d : index
}
