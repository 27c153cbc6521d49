// An attention block's output projection as upstream's linalg-fuse-elementwise-ops leaves it: the attention
// output [H, S, D] (one sequence, S dynamic; 8 heads of 128) is transposed to [S, H, D] and collapsed to (S, H * D)
// in the model, and the fusion folds that transpose into the contraction's indexing map, so the contraction reads
// x[h, s, d] for row s and k = h * 128 + d. The GPTQ weight ((K/8, N) words, (K/G, N) f16 scales, G = 128) is
// unpacked in the contraction's body, as the same fusion leaves it; the product accumulates in f32, and the block's
// input is added as the residual before the sum is rounded to f16. K = N = 1024.
//
// Expected: one fused chain (dequant packed_k8_n/g_n -> matmul -> residual), x transposed to [S, H, D] by a
// linalg.generic before the fused op (the only copy: the op reads x as a row-major (M, K) tensor).

#x_heads = affine_map<(s, n, h, d) -> (h, s, d)>
#out = affine_map<(s, n, h, d) -> (s, n)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @attn_o_proj_heads(%attn: tensor<8x?x128xf16>, %qweight: tensor<128x1024xi32>, %scales: tensor<8x1024xf16>,
                             %residual: tensor<?x1024xf16>) -> tensor<?x1024xf16> {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %eight = arith.constant 8.0 : f16
  %zero = arith.constant 0.0 : f32
  %s = tensor.dim %attn, %c1 : tensor<8x?x128xf16>
  %e = tensor.empty(%s) : tensor<?x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %y = linalg.generic {indexing_maps = [#x_heads, #out],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%attn : tensor<8x?x128xf16>) outs(%acc : tensor<?x1024xf32>) {
  ^bb0(%xv: f16, %sum: f32):
    %n = linalg.index 1 : index
    %h = linalg.index 2 : index
    %d = linalg.index 3 : index
    %hk = arith.muli %h, %c128 : index
    %k = arith.addi %hk, %d : index
    %word_row = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%word_row, %n] : tensor<128x1024xi32>
    %nibble = arith.remui %k, %c8 : index
    %nibble_i32 = arith.index_cast %nibble : index to i32
    %shift = arith.muli %nibble_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %group = arith.divui %k, %c128 : index
    %scale = tensor.extract %scales[%group, %n] : tensor<8x1024xf16>
    %code_f = arith.uitofp %code : i32 to f16
    %centred = arith.subf %code_f, %eight : f16
    %w = arith.mulf %centred, %scale : f16
    %x32 = arith.extf %xv : f16 to f32
    %w32 = arith.extf %w : f16 to f32
    %p = arith.mulf %x32, %w32 : f32
    %next = arith.addf %sum, %p : f32
    linalg.yield %next : f32
  } -> tensor<?x1024xf32>
  %e2 = tensor.empty(%s) : tensor<?x1024xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%residual, %y : tensor<?x1024xf16>, tensor<?x1024xf32>) outs(%e2 : tensor<?x1024xf16>) {
  ^bb0(%r: f16, %v: f32, %o: f16):
    %r32 = arith.extf %r : f16 to f32
    %t = arith.addf %r32, %v : f32
    %t16 = arith.truncf %t : f32 to f16
    linalg.yield %t16 : f16
  } -> tensor<?x1024xf16>
  return %out : tensor<?x1024xf16>
}
