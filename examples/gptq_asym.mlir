// An asymmetric GPTQ projection (GPTQModel's TorchQuantLinear, sym=False, checkpoint format v1): (K/8, N)
// i32 words, f16 scales (K/128, N) and zero points packed like qzeros, (K/128, N/8) i32 with nibble n % 8 of
// word [g, n/8] holding z - 1 (v1 stores z - 1; the dequantisation adds 1 back):
//   W[k, n] = (code(k, n) - (((qzeros[k/128, n/8] >> 4 (n % 8)) & 15) + 1)) * scales[k/128, n].
// The product accumulates in f32, then bias and gelu_tanh in f32, truncated to f16. K = N = 2048, dynamic M.
//
// Expected: one fused chain with zero points packed_g_n8 + 1 (dequant -> matmul -> bias -> gelu_tanh). Its
// zero points reach 16, so the CUDA kernels run it in their affine form (W = (code - zi) * s + o).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

func.func @gptq_asym(%x: tensor<?x2048xf16>, %qweight: tensor<256x2048xi32>, %scales: tensor<16x2048xf16>,
                     %qzeros: tensor<16x256xi32>, %bias: tensor<2048xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %de = tensor.empty() : tensor<2048x2048xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<256x2048xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %g = arith.divui %k, %c128 : index
    %nw = arith.divui %n, %c8 : index
    %zword = tensor.extract %qzeros[%g, %nw] : tensor<16x256xi32>
    %nl = arith.remui %n, %c8 : index
    %nl32 = arith.index_cast %nl : index to i32
    %zsh = arith.muli %nl32, %c4 : i32
    %zv = arith.shrui %zword, %zsh : i32
    %zm1 = arith.andi %zv, %c15 : i32
    %z = arith.addi %zm1, %one : i32
    %zi = arith.subi %code, %z : i32
    %cz = arith.sitofp %zi : i32 to f16
    %sc = tensor.extract %scales[%g, %n] : tensor<16x2048xf16>
    %wv = arith.mulf %cz, %sc : f16
    %wv32 = arith.extf %wv : f16 to f32
    linalg.yield %wv32 : f32
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
  %out = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<?x2048xf32>, tensor<2048xf16>) outs(%e2 : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c0g = arith.constant 0.7978845608028654 : f32
    %c1g = arith.constant 0.044715 : f32
    %b32 = arith.extf %b : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %t3 = arith.mulf %t, %t : f32
    %t3b = arith.mulf %t3, %t : f32
    %u0 = arith.mulf %t3b, %c1g : f32
    %u1 = arith.addf %t, %u0 : f32
    %u = arith.mulf %u1, %c0g : f32
    %th = math.tanh %u : f32
    %p = arith.addf %one, %th : f32
    %h = arith.mulf %t, %half : f32
    %r = arith.mulf %h, %p : f32
    %r16 = arith.truncf %r : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
