// A chain whose result rows are x's column count (tensor.dim %x, 1 = 4096), not its row count: the IR is
// defined only for inputs with 4096 rows (linalg.matmul needs x's rows to equal the result's). Found by
// differential.py as a mutation of test/fuse/signed-codes.mlir: with 3 rows the upstream build wrote a 4096-row
// result and the fused build a 3-row one, and the harness reported the size difference as a mismatch. The
// reference now runs under upstream's runtime verification, which refuses such inputs.
func.func @rows_from_k(%x: tensor<?x4096xf16>, %w: tensor<32x128x11008xi4>, %s: tensor<32x11008xf16>) -> tensor<?x11008xf16> {
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c1 : tensor<?x4096xf16>
  %de = tensor.empty() : tensor<32x128x11008xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x11008xi4>, tensor<32x11008xf16>) outs(%de : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %0 = arith.sitofp %in : i4 to f16
    %1 = arith.mulf %0, %in_0 : f16
    linalg.yield %1 : f16
  } -> tensor<32x128x11008xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}
