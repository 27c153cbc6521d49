// GGUF Q4_1 on rank-3 activations, in the form of sharktank's mmt_block_scaled_offset_q4 kernel template
// (nod-ai/SHARK-Platform, sharktank/sharktank/kernels/templates/mmt_block_scaled_offset_q4_unsigned.mlir),
// made small: x [B, S, K] with B and S both dynamic, i4 codes q [N, K/32, 32], block scales d and minimums
// m [N, K/32, 1] f16, W = d * q + m computed in f16, the contraction over (block, in-block) with y[b, s, n]
// accumulating in f32, then copied to f16. K = 256, N = 64. The matcher takes (b, s) as the rows of
// M = B * S (they are x's and y's leading dims, in the same order), so this fuses to one call on the
// collapsed (B * S, K) x, the result expanded back to [B, S, N] with B and S read from x.
func.func @q4_1_rows(%x: tensor<?x?x256xf16>, %d: tensor<64x8x1xf16>, %q: tensor<64x8x32xi4>,
                     %m: tensor<64x8x1xf16>) -> tensor<?x?x64xf16> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = tensor.dim %x, %c0 : tensor<?x?x256xf16>
  %seq = tensor.dim %x, %c1 : tensor<?x?x256xf16>
  %blocks = tensor.empty() : tensor<64x8x32xf16>
  %w = linalg.generic {
      indexing_maps = [affine_map<(n, b, i) -> (n, b, 0)>, affine_map<(n, b, i) -> (n, b, 0)>,
                       affine_map<(n, b, i) -> (n, b, i)>, affine_map<(n, b, i) -> (n, b, i)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%d, %m, %q : tensor<64x8x1xf16>, tensor<64x8x1xf16>, tensor<64x8x32xi4>) outs(%blocks : tensor<64x8x32xf16>) {
  ^bb0(%scale: f16, %min: f16, %code: i4, %out: f16):
    %wide = arith.extui %code : i4 to i32
    %qf = arith.uitofp %wide : i32 to f16
    %scaled = arith.mulf %qf, %scale : f16
    %v = arith.addf %scaled, %min : f16
    linalg.yield %v : f16
  } -> tensor<64x8x32xf16>
  %xb = tensor.expand_shape %x [[0], [1], [2, 3]] output_shape [%batch, %seq, 8, 32]
      : tensor<?x?x256xf16> into tensor<?x?x8x32xf16>
  %acc0 = tensor.empty(%batch, %seq) : tensor<?x?x64xf32>
  %acc1 = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %acc = linalg.generic {
      indexing_maps = [affine_map<(b, s, n, g, i) -> (b, s, g, i)>, affine_map<(b, s, n, g, i) -> (n, g, i)>,
                       affine_map<(b, s, n, g, i) -> (b, s, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%xb, %w : tensor<?x?x8x32xf16>, tensor<64x8x32xf16>) outs(%acc1 : tensor<?x?x64xf32>) {
  ^bb0(%xe: f16, %we: f16, %o: f32):
    %xf = arith.extf %xe : f16 to f32
    %wf = arith.extf %we : f16 to f32
    %p = arith.mulf %xf, %wf : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<?x?x64xf32>
  %h0 = tensor.empty(%batch, %seq) : tensor<?x?x64xf16>
  %h = linalg.copy ins(%acc : tensor<?x?x64xf32>) outs(%h0 : tensor<?x?x64xf16>) -> tensor<?x?x64xf16>
  return %h : tensor<?x?x64xf16>
}
