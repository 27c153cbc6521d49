// [B, S, K] -> (B*S, K) -> [B, S, K] with dynamic B and S, as torch-mlir wraps every Linear on rank-3
// activations. The expand_shape into two dynamic dims crashes MLIR 22's expand-strided-metadata; the
// pipeline replaces it by a copy (lowering/dynamic_reshapes.c). The function adds 1 so that a copy that
// reads the wrong element, or nothing, shows.
func.func @dynamic_expand(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x64xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x64xf32>
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x64xf32> into tensor<?x64xf32>
  %rows = tensor.dim %flat, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%rows) : tensor<?x64xf32>
  %one = arith.constant 1.0 : f32
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%flat : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %one : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %out = tensor.expand_shape %y [[0, 1], [2]] output_shape [%b, %s, 64] : tensor<?x64xf32> into tensor<?x?x64xf32>
  return %out : tensor<?x?x64xf32>
}
