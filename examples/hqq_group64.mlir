// An HQQ-style projection with group size 64: codes in an (N, K) i8 container (nn.Linear's orientation), the
// code being the element's low nibble (masked, as HQQ's unpacking masks its nibbles),
// f16 scales and f16 float zero points (not integers: HQQ optimises them) per (column, group of 64), both
// (N, K/64); W = (q - z) * s computed in f16, the product accumulating in f32, truncated to f16.
// K = N = 2048, dynamic M.
//
// Expected: one fused chain with group_size = 64 and an f16 zero-point tensor (dequant n_k/n_g,
// zero points n_g -> matmul). The CUDA kernels run it in their affine form (W = (code - zi) * s + o per
// group of 64, the zero points' fractional parts folded into o).

#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @hqq_group64(%x: tensor<?x2048xf16>, %weight: tensor<2048x2048xi8>, %scales: tensor<2048x32xf16>,
                       %zeros: tensor<2048x32xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %de = tensor.empty() : tensor<2048x2048xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf16>) {
  ^bb0(%out: f16):
    %c64 = arith.constant 64 : index
    %n = linalg.index 0 : index
    %k = linalg.index 1 : index
    %q = tensor.extract %weight[%n, %k] : tensor<2048x2048xi8>
    %nibble = arith.constant 15 : i8
    %q4 = arith.andi %q, %nibble : i8
    %qf = arith.uitofp %q4 : i8 to f16
    %g = arith.divui %k, %c64 : index
    %s = tensor.extract %scales[%n, %g] : tensor<2048x32xf16>
    %z = tensor.extract %zeros[%n, %g] : tensor<2048x32xf16>
    %c = arith.subf %qf, %z : f16
    %wv = arith.mulf %c, %s : f16
    linalg.yield %wv : f16
  } -> tensor<2048x2048xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
                                      affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %w : tensor<?x2048xf16>, tensor<2048x2048xf16>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %e2 = tensor.empty(%m) : tensor<?x2048xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x2048xf32>) outs(%e2 : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
