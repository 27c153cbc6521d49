// One tensor-parallel rank's share of a GPTQ projection, as torch-mlir lowers a rank-3 aten.linear at decode:
// x is [B, 1, K] (one new token per sequence, B dynamic) collapsed to (B, K); the checkpoint's (K/8, 2N) words and
// (K/G, 2N) f16 scales are loaded whole and sliced to this rank's columns [N, 2N) (vLLM's ColumnParallelLinear);
// the product accumulates in f32 and is truncated to f16, expanded back to [B, 1, N], the block's input added
// there as the residual (N = K), and the sum flattened to (B, N) for the next op. K = N = 2048, G = 128.
//
// Expected: one fused chain (dequant packed_k8_n/g_n -> matmul -> residual) taking the slices as its weight and
// scales (windows the runtime reads through their strides) and x itself, collapsed to (B, N), as the residual.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func @tp_shard_rank3(%x3: tensor<?x1x2048xf16>, %qweight: tensor<256x4096xi32>, %scales: tensor<16x4096xf16>)
    -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x3, %c0 : tensor<?x1x2048xf16>
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<?x1x2048xf16> into tensor<?x2048xf16>
  %qw = tensor.extract_slice %qweight[0, 2048] [256, 2048] [1, 1] : tensor<256x4096xi32> to tensor<256x2048xi32>
  %s = tensor.extract_slice %scales[0, 2048] [16, 2048] [1, 1] : tensor<16x4096xf16> to tensor<16x2048xf16>
  %de = tensor.empty() : tensor<2048x2048xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<256x2048xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<16x2048xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<2048x2048xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%b) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x2048xf16>, tensor<2048x2048xf16>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %e16 = tensor.empty(%b) : tensor<?x2048xf16>
  %y16 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x2048xf32>) outs(%e16 : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x2048xf16>
  %y3 = tensor.expand_shape %y16 [[0, 1], [2]] output_shape [%b, 1, 2048] : tensor<?x2048xf16> into tensor<?x1x2048xf16>
  %e3 = tensor.empty(%b) : tensor<?x1x2048xf16>
  %sum = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y3, %x3 : tensor<?x1x2048xf16>, tensor<?x1x2048xf16>) outs(%e3 : tensor<?x1x2048xf16>) {
  ^bb0(%a: f16, %r: f16, %o: f16):
    %t = arith.addf %a, %r : f16
    linalg.yield %t : f16
  } -> tensor<?x1x2048xf16>
  %out = tensor.collapse_shape %sum [[0, 1], [2]] : tensor<?x1x2048xf16> into tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
