// --w4a16-explain: signed i4 codes (arith.extsi + arith.sitofp) with no -8 offset, IREE [N, K/128, 128] layout:
// two's-complement values, W = s * scale, fuse with signed_codes (issue #17; until then this test expected
// "not fused: signed i4 ..."). The remark, located at the matmul, says so.
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @f(
// IR:        "w4a16.fused_matmul"
// IR-SAME:     signed_codes
func.func @f(%x: tensor<?x4096xf16>, %w: tensor<11008x32x128xi4>, %s: tensor<11008x32xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f16
  %dim = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [%dim, 32, 128] : tensor<?x4096xf16> into tensor<?x32x128xf16>
  %0 = tensor.empty() : tensor<11008x32x128xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<11008x32x128xi4>, tensor<11008x32xf16>) outs(%0 : tensor<11008x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extsi %in : i4 to i32
    %6 = arith.sitofp %5 : i32 to f16
    %7 = arith.mulf %6, %in_0 : f16
    linalg.yield %7 : f16
  } -> tensor<11008x32x128xf16>
  %2 = tensor.empty(%dim) : tensor<?x11008xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  // CHECK: {{.*}}signed-i4.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(n_k, scales n_g, signed codes) -> matmul
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<?x32x128xf16>, tensor<11008x32x128xf16>) outs(%3 : tensor<?x11008xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<?x11008xf16>
  return %4 : tensor<?x11008xf16>
}
// CHECK-NOT: remark:
