// 24: scanned layers (JAX lax.scan / torch.compile's stacked-weights loops): an scf.for over L layers slices
// layer i's codes and scales out of stacked [L, K, N] / [L, K/G, N] tensors with a DYNAMIC offset, dequantises
// and multiplies; x is the loop-carried value.
func.func @scan_layers(%x: tensor<4x512xf16>, %q: tensor<3x512x512xi4>, %s: tensor<3x4x512xf16>) -> tensor<4x512xf16> {
  %c8 = arith.constant 8.0 : f16
  %c0 = arith.constant 0.0 : f16
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i3 = arith.constant 3 : index
  %r = scf.for %l = %i0 to %i3 step %i1 iter_args(%h = %x) -> (tensor<4x512xf16>) {
    %ql = tensor.extract_slice %q[%l, 0, 0] [1, 512, 512] [1, 1, 1] : tensor<3x512x512xi4> to tensor<512x512xi4>
    %sl = tensor.extract_slice %s[%l, 0, 0] [1, 4, 512] [1, 1, 1] : tensor<3x4x512xf16> to tensor<4x512xf16>
    %e = tensor.empty() : tensor<512x512xf16>
    %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%ql, %sl : tensor<512x512xi4>, tensor<4x512xf16>) outs(%e : tensor<512x512xf16>) {
    ^bb0(%c: i4, %sc: f16, %o: f16):
      %i = arith.extui %c : i4 to i32
      %f = arith.uitofp %i : i32 to f16
      %z = arith.subf %f, %c8 : f16
      %rr = arith.mulf %z, %sc : f16
      linalg.yield %rr : f16
    } -> tensor<512x512xf16>
    %ey = tensor.empty() : tensor<4x512xf16>
    %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x512xf16>) -> tensor<4x512xf16>
    %y = linalg.matmul ins(%h, %w : tensor<4x512xf16>, tensor<512x512xf16>) outs(%f0 : tensor<4x512xf16>) -> tensor<4x512xf16>
    scf.yield %y : tensor<4x512xf16>
  }
  return %r : tensor<4x512xf16>
}
