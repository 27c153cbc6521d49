// A LLaMA decoder step as exporters write it: RMSNorm (torch's pow(x, 2) becomes math.fpowi, which LLVM
// cannot lower: the pipeline turns it into a generated function), then a GPTQ projection of the normed
// activations ((K/8, N) i32 words, f16 scales (K/128, N)) accumulating in f32, truncated to f16 and added
// to the block's input (the residual stream). K = N = 2048, dynamic M.
//
// Expected: the norm stays host code; one fused chain dequant(packed_k8_n, g_n) -> matmul -> residual,
// whose residual is the function's own x.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @llama_rmsnorm_proj(%x: tensor<?x2048xf16>, %norm_weight: tensor<2048xf16>, %qweight: tensor<256x2048xi32>,
                              %scales: tensor<16x2048xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  // RMSNorm: x * rsqrt(mean(x^2) + eps) * weight
  %e = tensor.empty(%m) : tensor<?x2048xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x2048xf16>) outs(%e : tensor<?x2048xf32>) {
  ^bb0(%in: f16, %out: f32):
    %c2 = arith.constant 2 : i64
    %f = arith.extf %in : f16 to f32
    %p = math.fpowi %f, %c2 : f32, i64
    linalg.yield %p : f32
  } -> tensor<?x2048xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty(%m) : tensor<?xf32>
  %acc0 = linalg.fill ins(%z : f32) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sq : tensor<?x2048xf32>) outs(%acc0 : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %e3 = tensor.empty(%m) : tensor<?x2048xf16>
  %normed = linalg.generic {indexing_maps = [#id2, #row, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %norm_weight : tensor<?x2048xf16>, tensor<?xf32>, tensor<2048xf16>) outs(%e3 : tensor<?x2048xf16>) {
  ^bb0(%in: f16, %s: f32, %g: f16, %out: f16):
    %n = arith.constant 2048.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %v : f32
    %xf = arith.extf %in : f16 to f32
    %y = arith.mulf %xf, %rs : f32
    %yt = arith.truncf %y : f32 to f16
    %o = arith.mulf %yt, %g : f16
    linalg.yield %o : f16
  } -> tensor<?x2048xf16>
  // The projection: GPTQ dequant in f16, product in f32.
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
    %word = tensor.extract %qweight[%kw, %n] : tensor<256x2048xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<16x2048xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<2048x2048xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %e4 = tensor.empty(%m) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e4 : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %prod = linalg.matmul ins(%normed, %w : tensor<?x2048xf16>, tensor<2048x2048xf16>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %e5 = tensor.empty(%m) : tensor<?x2048xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%prod, %x : tensor<?x2048xf32>, tensor<?x2048xf16>) outs(%e5 : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %r: f16, %o: f16):
    %t = arith.truncf %a : f32 to f16
    %s = arith.addf %t, %r : f16
    linalg.yield %s : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
