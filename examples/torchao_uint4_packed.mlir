// A bf16 projection whose uint4 codes are packed two per byte the way torchao packs them: along K of the
// (N, K) weight, the first (even) k of a pair in the high nibble (unpacked as byte >> 4 and byte & 15); bf16
// scales per (column, group of 128), zero point 8. x bf16, the product in f32, truncated to bf16. K = N = 2048,
// dynamic M.
//
// Expected: one fused chain, weight_layout packed_n_k2_hi (the nibble order read off the arithmetic), scales
// n_g, bf16 x/out and scales (dequant -> matmul).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @torchao_uint4_packed(%x: tensor<?x2048xbf16>, %q: tensor<2048x1024xi8>, %scales: tensor<2048x16xbf16>) -> tensor<?x2048xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xbf16>
  %de = tensor.empty() : tensor<2048x2048xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf32>) {
  ^bb0(%out: f32):
    %c2 = arith.constant 2 : index
    %cg = arith.constant 128 : index
    %c4b = arith.constant 4 : i8
    %c15b = arith.constant 15 : i8
    %c8f = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kb = arith.divui %k, %c2 : index
    %byte = tensor.extract %q[%n, %kb] : tensor<2048x1024xi8>
    %odd = arith.remui %k, %c2 : index
    %odd8 = arith.index_cast %odd : index to i8
    %one8 = arith.constant 1 : i8
    %even8 = arith.subi %one8, %odd8 : i8
    %sh = arith.muli %even8, %c4b : i8
    %v = arith.shrui %byte, %sh : i8
    %code = arith.andi %v, %c15b : i8
    %cf = arith.uitofp %code : i8 to f32
    %cz = arith.subf %cf, %c8f : f32
    %g = arith.divui %k, %cg : index
    %s = tensor.extract %scales[%n, %g] : tensor<2048x16xbf16>
    %s32 = arith.extf %s : bf16 to f32
    %wv = arith.mulf %cz, %s32 : f32
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
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x2048xf32>) outs(%e2 : tensor<?x2048xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x2048xbf16>
  return %out : tensor<?x2048xbf16>
}
