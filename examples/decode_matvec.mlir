// One decode step of a quantised projection, as exporters emit it once unit dims are folded (torch-mlir
// and IREE fold M = 1 away): x is a (K) vector, not (1, K); the product is a linalg.vecmat into an (N)
// vector accumulated in f32 (x and the dequantised weight widened, as f16 Linear layers export); bias
// and silu in f32 in one generic, truncated to f16; the residual stream (N) added last in f16. The weight
// is GPTQ-packed (K/8, N) i32 with f16 group scales (K/128, N), unpacked in a generic. K = N = 4096.
//
// Expected: one fused chain (dequant packed_k8_n/g_n -> matmul -> bias -> silu -> residual) run as M = 1;
// the (N)-shaped bias and residual are told apart by where they enter the formula.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>

func.func @decode_matvec(%x: tensor<4096xf16>, %qweight: tensor<512x4096xi32>, %scales: tensor<32x4096xf16>,
                         %bias: tensor<4096xf16>, %residual: tensor<4096xf16>) -> tensor<4096xf16> {
  %de = tensor.empty() : tensor<4096x4096xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x4096xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x4096xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<32x4096xf16>
    %wv = arith.mulf %cz, %sc : f16
    %wv32 = arith.extf %wv : f16 to f32
    linalg.yield %wv32 : f32
  } -> tensor<4096x4096xf32>
  %ex0 = tensor.empty() : tensor<4096xf32>
  %x32 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<4096xf16>) outs(%ex0 : tensor<4096xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<4096xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %y = linalg.vecmat ins(%x32, %w : tensor<4096xf32>, tensor<4096x4096xf32>) outs(%acc : tensor<4096xf32>) -> tensor<4096xf32>
  %e2 = tensor.empty() : tensor<4096xf16>
  %act = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%y, %bias : tensor<4096xf32>, tensor<4096xf16>) outs(%e2 : tensor<4096xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %one = arith.constant 1.000000e+00 : f32
    %b32 = arith.extf %b : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %neg = arith.negf %t : f32
    %ex = math.exp %neg : f32
    %den = arith.addf %one, %ex : f32
    %s = arith.divf %t, %den : f32
    %s16 = arith.truncf %s : f32 to f16
    linalg.yield %s16 : f16
  } -> tensor<4096xf16>
  %e3 = tensor.empty() : tensor<4096xf16>
  %out = linalg.add ins(%act, %residual : tensor<4096xf16>, tensor<4096xf16>) outs(%e3 : tensor<4096xf16>) -> tensor<4096xf16>
  return %out : tensor<4096xf16>
}
