// 45: row-parallel / split-K spelling: y = x[:, :512] @ W[:512] + x[:, 512:] @ W[512:], the dequantised
// weight sliced by rows (tensor.extract_slice of the dequant result, windows of whole groups) and x by columns;
// the second matmul accumulates into the first's result (upstream fold-add-into-dest form).
func.func @split_k(%x: tensor<4x1024xf16>, %q: tensor<1024x256xi4>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c8 = arith.constant 8.0 : f16
  %c0 = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1024x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<1024x256xi4>, tensor<8x256xf16>) outs(%e : tensor<1024x256xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x256xf16>
  %w0 = tensor.extract_slice %w[0, 0] [512, 256] [1, 1] : tensor<1024x256xf16> to tensor<512x256xf16>
  %w1 = tensor.extract_slice %w[512, 0] [512, 256] [1, 1] : tensor<1024x256xf16> to tensor<512x256xf16>
  %x0 = tensor.extract_slice %x[0, 0] [4, 512] [1, 1] : tensor<4x1024xf16> to tensor<4x512xf16>
  %x1 = tensor.extract_slice %x[0, 512] [4, 512] [1, 1] : tensor<4x1024xf16> to tensor<4x512xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  %y0 = linalg.matmul ins(%x0, %w0 : tensor<4x512xf16>, tensor<512x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  %y = linalg.matmul ins(%x1, %w1 : tensor<4x512xf16>, tensor<512x256xf16>) outs(%y0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}
