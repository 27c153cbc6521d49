// 35 (adversarial look-alike, must not fuse): zero point 8 except 9 in columns 100..199, the band indicator
// (n / 100) * (1 - n / 200) in integer index arithmetic (no comparison), added to the code subtraction.
func.func @band_zp(%x: tensor<4x1024xf16>, %q: tensor<1024x256xi4>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c8 = arith.constant 8 : i32
  %c0 = arith.constant 0.0 : f16
  %i1 = arith.constant 1 : index
  %i100 = arith.constant 100 : index
  %i200 = arith.constant 200 : index
  %e = tensor.empty() : tensor<1024x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<1024x256xi4>, tensor<8x256xf16>) outs(%e : tensor<1024x256xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %n = linalg.index 1 : index
    %a = arith.divui %n, %i100 : index
    %b = arith.divui %n, %i200 : index
    %nb = arith.subi %i1, %b : index
    %band = arith.muli %a, %nb : index
    %band32 = arith.index_cast %band : index to i32
    %z = arith.addi %c8, %band32 : i32
    %ci = arith.extui %c : i4 to i32
    %d = arith.subi %ci, %z : i32
    %f = arith.sitofp %d : i32 to f16
    %r = arith.mulf %f, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x256xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  %y = linalg.matmul ins(%x, %w : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}
