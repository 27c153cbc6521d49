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

// The same chain with K split over three contraction loops (super-block, block, element), in the loop structure
// of sharktank's mmt_super_block_scaled_offset_q4_unsigned template (GGUF's K-quants), with Q4_1's formula per
// 32-element block (hand-modified: the template's own block scales are Q4_K's 6-bit products, which the op does
// not take): q [64, 2, 4, 32], d and m [64, 2, 4, 1] -- the same bytes as above -- and f16 accumulation as the
// template writes it. Fused with K = 256 in x's row-major order.
func.func @q4_1_super_blocks(%a: tensor<?x?x256xf16>, %d: tensor<64x2x4x1xf16>, %m: tensor<64x2x4x1xf16>,
                             %qs: tensor<64x2x4x32xi4>) -> tensor<?x?x64xf16> {
  %zero = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = tensor.dim %a, %c0 : tensor<?x?x256xf16>
  %rows = tensor.dim %a, %c1 : tensor<?x?x256xf16>
  %b_grouped = tensor.empty() : tensor<64x2x4x32xf16>
  %b = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%qs, %d, %m : tensor<64x2x4x32xi4>, tensor<64x2x4x1xf16>, tensor<64x2x4x1xf16>)
      outs(%b_grouped : tensor<64x2x4x32xf16>) {
  ^bb0(%q: i4, %scale: f16, %min: f16, %out: f16):
    %q32 = arith.extui %q : i4 to i32
    %qf = arith.uitofp %q32 : i32 to f16
    %qs_scaled = arith.mulf %scale, %qf : f16
    %w = arith.addf %qs_scaled, %min : f16
    linalg.yield %w : f16
  } -> tensor<64x2x4x32xf16>
  %aexp = tensor.expand_shape %a [[0], [1], [2, 3, 4]] output_shape [%batch, %rows, 2, 4, 32]
      : tensor<?x?x256xf16> into tensor<?x?x2x4x32xf16>
  %empty = tensor.empty(%batch, %rows) : tensor<?x?x64xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%empty : tensor<?x?x64xf16>) -> tensor<?x?x64xf16>
  %result = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4, d5)>,
                       affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3, d4, d5)>,
                       affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%aexp, %b : tensor<?x?x2x4x32xf16>, tensor<64x2x4x32xf16>) outs(%fill : tensor<?x?x64xf16>) {
  ^bb0(%ae: f16, %be: f16, %out: f16):
    %p = arith.mulf %ae, %be : f16
    %s = arith.addf %p, %out : f16
    linalg.yield %s : f16
  } -> tensor<?x?x64xf16>
  return %result : tensor<?x?x64xf16>
}
