// One quantised projection in IREE's i4 "generic" style (as in IREE's quantized-matmul tests and what its
// torch frontend produces for int4 weight-only models): the weight is i4 [N, K/128, 128] with f16 scales
// [N, K/128] and per-group zero points given as a [N, K/128] tensor (here a linalg.fill of 8), x is expanded
// to [M, K/128, 128], and the matmul is a linalg.generic contraction with two reduction dimensions (group,
// in-group) accumulating in f32, followed by a truncf generic. Shape: llama gate/up projection, K = 4096,
// N = 11008, dynamic M. The weight is a function argument; LLVM stores each i4 code in one byte.
//
// Expected: one fused chain (dequant n_k/n_g -> matmul).

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#grp = affine_map<(d0, d1, d2) -> (d0, d1)>
#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @iree_i4(%x: tensor<?x4096xf16>, %weight: tensor<11008x32x128xi4>, %scales: tensor<11008x32xf16>)
    -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %cst_zp = arith.constant 8.000000e+00 : f16
  %dim = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %zps_init = tensor.empty() : tensor<11008x32xf16>
  %zps = linalg.fill ins(%cst_zp : f16) outs(%zps_init : tensor<11008x32xf16>) -> tensor<11008x32xf16>
  %expanded = tensor.expand_shape %x [[0], [1, 2]] output_shape [%dim, 32, 128]
      : tensor<?x4096xf16> into tensor<?x32x128xf16>
  %0 = tensor.empty() : tensor<11008x32x128xf16>
  %1 = linalg.generic {indexing_maps = [#id3, #grp, #grp, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%weight, %scales, %zps : tensor<11008x32x128xi4>, tensor<11008x32xf16>, tensor<11008x32xf16>)
      outs(%0 : tensor<11008x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %in_1: f16, %out: f16):
    %6 = arith.extui %in : i4 to i32
    %7 = arith.uitofp %6 : i32 to f16
    %8 = arith.subf %7, %in_1 : f16
    %9 = arith.mulf %8, %in_0 : f16
    linalg.yield %9 : f16
  } -> tensor<11008x32x128xf16>
  %2 = tensor.empty(%dim) : tensor<?x11008xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  %4 = linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%expanded, %1 : tensor<?x32x128xf16>, tensor<11008x32x128xf16>) outs(%3 : tensor<?x11008xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %6 = arith.extf %in : f16 to f32
    %7 = arith.extf %in_0 : f16 to f32
    %8 = arith.mulf %6, %7 : f32
    %9 = arith.addf %out, %8 : f32
    linalg.yield %9 : f32
  } -> tensor<?x11008xf32>
  %5 = tensor.empty(%dim) : tensor<?x11008xf16>
  %6 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%4 : tensor<?x11008xf32>) outs(%5 : tensor<?x11008xf16>) {
  ^bb0(%in: f32, %out: f16):
    %7 = arith.truncf %in : f32 to f16
    linalg.yield %7 : f16
  } -> tensor<?x11008xf16>
  return %6 : tensor<?x11008xf16>
}
