// A GPTQ projection with group size 32 and K = 96 (three groups): K is not a multiple of 128, the step
// the CUDA kernels walk K in, so compiled code with the CUDA backend selected prepares this weight on the
// CPU reference and reports it (w4a16_rt_cpu_fallbacks). (K/8, N) i32 words, f16 scales (K/32, N), f32
// accumulation, truncated to f16. N = 64, dynamic M.
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @group32_k96(%x: tensor<?x96xf16>, %qweight: tensor<12x64xi32>, %scales: tensor<3x64xf16>)
    -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x96xf16>
  %de = tensor.empty() : tensor<96x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<96x64xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<12x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %cz = arith.subf %cf, %zp : f32
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<3x64xf16>
    %sc32 = arith.extf %sc : f16 to f32
    %wv = arith.mulf %cz, %sc32 : f32
    linalg.yield %wv : f32
  } -> tensor<96x64xf32>
  %ex = tensor.empty(%m) : tensor<?x96xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x96xf16>) outs(%ex : tensor<?x96xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x96xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x96xf32>, tensor<96x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %r16 = arith.truncf %a : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<?x64xf16>
  return %out : tensor<?x64xf16>
}
