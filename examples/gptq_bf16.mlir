// A GPTQ projection in a bf16 model (Llama-3, Qwen2 and Mistral run in bf16; GPTQ checkpoints keep their
// scales in f16): (K/8, N) i32 words, f16 scales (K/128, N), unpacked in a generic; x (bf16) and the
// dequantised weight are widened to f32 for the product, then bias (bf16) and silu in f32, truncated to
// bf16. K = N = 2048, dynamic M.
//
// Expected: one fused chain with bf16 x/bias/out and f16 scales (dequant packed_k8_n/g_n -> matmul -> bias
// -> silu). Under the CUDA backend compiled code runs it on the bf16 CUDA kernels.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

func.func @gptq_bf16(%x: tensor<?x2048xbf16>, %qweight: tensor<256x2048xi32>, %scales: tensor<16x2048xf16>,
                     %bias: tensor<2048xbf16>) -> tensor<?x2048xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xbf16>
  %de = tensor.empty() : tensor<2048x2048xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<256x2048xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %cz = arith.subf %cf, %zp : f32
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<16x2048xf16>
    %sc32 = arith.extf %sc : f16 to f32
    %wv = arith.mulf %cz, %sc32 : f32
    linalg.yield %wv : f32
  } -> tensor<2048x2048xf32>
  %ex = tensor.empty(%m) : tensor<?x2048xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x2048xbf16>) outs(%ex : tensor<?x2048xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %a32 = arith.extf %a : bf16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x2048xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x2048xf32>, tensor<2048x2048xf32>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %e2 = tensor.empty(%m) : tensor<?x2048xbf16>
  %out = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<?x2048xf32>, tensor<2048xbf16>) outs(%e2 : tensor<?x2048xbf16>) {
  ^bb0(%a: f32, %b: bf16, %o: bf16):
    %one = arith.constant 1.0 : f32
    %b32 = arith.extf %b : bf16 to f32
    %t = arith.addf %a, %b32 : f32
    %nt = arith.negf %t : f32
    %ex1 = math.exp %nt : f32
    %den = arith.addf %one, %ex1 : f32
    %r = arith.divf %t, %den : f32
    %r16 = arith.truncf %r : f32 to bf16
    linalg.yield %r16 : bf16
  } -> tensor<?x2048xbf16>
  return %out : tensor<?x2048xbf16>
}
