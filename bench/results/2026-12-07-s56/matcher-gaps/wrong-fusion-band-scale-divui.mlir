// 32 (adversarial look-alike, must not fuse): scale row = k/128 + [600 <= k < 700], the band indicator
// written with integer divisions ((k / 600) * (1 - k / 700)), no comparison: rows 600..699 read the NEXT
// group's scale. Everywhere outside the band it is the plain GPTQ-style k/128.
func.func @band_scale(%x: tensor<4x1024xf16>, %q: tensor<1024x256xi4>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c8 = arith.constant 8.0 : f16
  %c0 = arith.constant 0.0 : f16
  %i1 = arith.constant 1 : index
  %i128 = arith.constant 128 : index
  %i600 = arith.constant 600 : index
  %i700 = arith.constant 700 : index
  %e = tensor.empty() : tensor<1024x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<1024x256xi4>) outs(%e : tensor<1024x256xf16>) {
  ^bb0(%c: i4, %o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %g0 = arith.divui %k, %i128 : index
    %a = arith.divui %k, %i600 : index
    %b = arith.divui %k, %i700 : index
    %nb = arith.subi %i1, %b : index
    %band = arith.muli %a, %nb : index
    %g = arith.addi %g0, %band : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x256xf16>
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x256xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  %y = linalg.matmul ins(%x, %w : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}
