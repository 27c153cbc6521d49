// GGML Q4_0 as llama.cpp's block_q4_0 holds it (dequantize_row_q4_0: qs[j] & 15 is element j of the block,
// qs[j] >> 4 element j + 16), here as a [N, K/32, 16] byte tensor: per output row n, blocks of 32 k of 16
// bytes each, byte j of a block holding k = 32b + j in its low nibble and k = 32b + 16 + j in its high
// nibble, and one f16 scale d per block: W[k, n] = (q - 8) * d[n, k / 32]. The dequantisation and the product run in f32,
// truncated to f16. K = N = 2048, dynamic M.
//
// Expected: one fused chain, weight_layout q4_0_blocks, group size 32, scales n_g (dequant -> matmul). The
// runtime repacks the blocks once at prepare time; the CUDA kernels run it in their affine form (G = 32).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @gguf_q4_0(%x: tensor<?x2048xf16>, %q: tensor<2048x64x16xi8>, %scales: tensor<2048x64xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %de = tensor.empty() : tensor<2048x2048xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf32>) {
  ^bb0(%out: f32):
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cg = arith.constant 32 : index
    %c4b = arith.constant 4 : i8
    %c15b = arith.constant 15 : i8
    %c8f = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %blk = arith.divui %k, %c32 : index
    %j = arith.remui %k, %c16 : index
    %byte = tensor.extract %q[%n, %blk, %j] : tensor<2048x64x16xi8>
    %kin = arith.remui %k, %c32 : index
    %half = arith.divui %kin, %c16 : index
    %half8 = arith.index_cast %half : index to i8
    %sh = arith.muli %half8, %c4b : i8
    %v = arith.shrui %byte, %sh : i8
    %code = arith.andi %v, %c15b : i8
    %cf = arith.uitofp %code : i8 to f32
    %cz = arith.subf %cf, %c8f : f32
    %g = arith.divui %k, %cg : index
    %s = tensor.extract %scales[%n, %g] : tensor<2048x64xf16>
    %s32 = arith.extf %s : f16 to f32
    %wv = arith.mulf %cz, %s32 : f32
    linalg.yield %wv : f32
  } -> tensor<2048x2048xf32>
  %ex = tensor.empty(%m) : tensor<?x2048xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x2048xf16>) outs(%ex : tensor<?x2048xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x2048xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x2048xf32>, tensor<2048x2048xf32>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %e2 = tensor.empty(%m) : tensor<?x2048xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x2048xf32>) outs(%e2 : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
