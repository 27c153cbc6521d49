// IREE's i4 generic form with two's-complement signed weights: the i4 values s are sign-extended
// (arith.extsi, arith.sitofp) and multiplied by the group scale, W = s * scale, no zero point subtracted
// (the zero-point fill is left unused). Weight i4 [N, K/128, 128], scales [N, K/128], K = N = 2048, dynamic M, f32
// accumulation.
//
// Expected: one fused chain with signed_codes (dequant n_k/n_g -> matmul).

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#grp = affine_map<(d0, d1, d2) -> (d0, d1)>
#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @iree_signed_i4(%x: tensor<?x2048xf16>, %weight: tensor<2048x16x128xi4>, %scales: tensor<2048x16xf16>)
    -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %cst_zp = arith.constant 8.000000e+00 : f16
  %dim = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %zps_init = tensor.empty() : tensor<2048x16xf16>
  %zps = linalg.fill ins(%cst_zp : f16) outs(%zps_init : tensor<2048x16xf16>) -> tensor<2048x16xf16>
  %expanded = tensor.expand_shape %x [[0], [1, 2]] output_shape [%dim, 16, 128]
      : tensor<?x2048xf16> into tensor<?x16x128xf16>
  %0 = tensor.empty() : tensor<2048x16x128xf16>
  %1 = linalg.generic {indexing_maps = [#id3, #grp, #grp, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%weight, %scales, %zps : tensor<2048x16x128xi4>, tensor<2048x16xf16>, tensor<2048x16xf16>)
      outs(%0 : tensor<2048x16x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %in_1: f16, %out: f16):
    %6 = arith.extsi %in : i4 to i32
    %7 = arith.sitofp %6 : i32 to f16
    %9 = arith.mulf %7, %in_0 : f16
    linalg.yield %9 : f16
  } -> tensor<2048x16x128xf16>
  %2 = tensor.empty(%dim) : tensor<?x2048xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %4 = linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%expanded, %1 : tensor<?x16x128xf16>, tensor<2048x16x128xf16>) outs(%3 : tensor<?x2048xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %6 = arith.extf %in : f16 to f32
    %7 = arith.extf %in_0 : f16 to f32
    %8 = arith.mulf %6, %7 : f32
    %9 = arith.addf %out, %8 : f32
    linalg.yield %9 : f32
  } -> tensor<?x2048xf32>
  %5 = tensor.empty(%dim) : tensor<?x2048xf16>
  %6 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%4 : tensor<?x2048xf32>) outs(%5 : tensor<?x2048xf16>) {
  ^bb0(%in: f32, %out: f16):
    %7 = arith.truncf %in : f32 to f16
    linalg.yield %7 : f16
  } -> tensor<?x2048xf16>
  return %6 : tensor<?x2048xf16>
}
