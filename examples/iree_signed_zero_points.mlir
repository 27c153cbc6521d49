// Two's-complement i4 weights with two's-complement i4 zero points, the dequantisation of IREE's GPU tensor-alloc
// test (iree-org/iree, compiler/src/iree/compiler/Codegen/Common/GPU/test/gpu_tensor_alloc.mlir,
// @weight_dequant_matmul: W = (extsi(q) - extsi(z)) * scale over [K/G, G, N] codes, the contraction a
// linalg.generic over (m, n, group, in-group) with x read as [M, K/G, G]), in f16 with an f32 accumulator where the
// test is f32 throughout, M dynamic (x arrives as (M, K) and is expanded to [M, K/G, G]). K = N = 512, G = 128.
//
// Expected: one fused chain, weight layout k_n (the [K/G, G, N] codes collapsed), signed codes and zero points g_n
// read as signed nibbles (W = (s - s_z) * scale: both flipped to offset binary when the runtime prepares the weight).

func.func @iree_signed_zero_points(%x: tensor<?x512xf16>, %q: tensor<4x128x512xi4>, %s: tensor<4x512xf16>,
                                   %z: tensor<4x512xi4>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %e = tensor.empty() : tensor<4x128x512xf16>
  %w = linalg.generic {
      indexing_maps = [affine_map<(g, i, n) -> (g, i, n)>, affine_map<(g, i, n) -> (g, n)>,
                       affine_map<(g, i, n) -> (g, n)>, affine_map<(g, i, n) -> (g, i, n)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %s, %z : tensor<4x128x512xi4>, tensor<4x512xf16>, tensor<4x512xi4>) outs(%e : tensor<4x128x512xf16>) {
  ^bb0(%code: i4, %scale: f16, %zero: i4, %out: f16):
    %c = arith.extsi %code : i4 to i32
    %zz = arith.extsi %zero : i4 to i32
    %d = arith.subi %c, %zz : i32
    %df = arith.sitofp %d : i32 to f16
    %r = arith.mulf %df, %scale : f16
    linalg.yield %r : f16
  } -> tensor<4x128x512xf16>
  %xg = tensor.expand_shape %x [[0], [1, 2]] output_shape [%m, 4, 128] : tensor<?x512xf16> into tensor<?x4x128xf16>
  %cst = arith.constant 0.000000e+00 : f32
  %init = tensor.empty(%m) : tensor<?x512xf32>
  %fill = linalg.fill ins(%cst : f32) outs(%init : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(m, n, g, i) -> (m, g, i)>, affine_map<(m, n, g, i) -> (g, i, n)>,
                       affine_map<(m, n, g, i) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%xg, %w : tensor<?x4x128xf16>, tensor<4x128x512xf16>) outs(%fill : tensor<?x512xf32>) {
  ^bb0(%xe: f16, %we: f16, %o: f32):
    %xf = arith.extf %xe : f16 to f32
    %wf = arith.extf %we : f16 to f32
    %p = arith.mulf %xf, %wf : f32
    %a = arith.addf %o, %p : f32
    linalg.yield %a : f32
  } -> tensor<?x512xf32>
  %eo = tensor.empty(%m) : tensor<?x512xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x512xf32>) outs(%eo : tensor<?x512xf16>) {
  ^bb0(%a: f32, %o: f16):
    %h = arith.truncf %a : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x512xf16>
  return %out : tensor<?x512xf16>
}
