// One decode step of a LLaMA block's first half as IREE-style unit-dim folding leaves it: with M = 1 folded away,
// x is a (K) vector, and RMSNorm's mean of squares reduces it to a 0-d tensor (tensor<f32>); the rsqrt is
// elementwise on that 0-d tensor, then x * rsqrt * norm_weight is rounded to f16 and fed to a GPTQ-quantised
// projection (a linalg.vecmat accumulated in f32), whose result gets the residual x added in f16.
// K = N = 4096.
//
// Expected: one fused chain (dequant packed_k8_n/g_n -> matmul -> the (N) residual, which with no activation is
// the same formula as a bias, and is taken as one) run as M = 1; the norm stays ordinary linalg ops. On the GPU target the 0-d reduction and the 0-d rsqrt have no parallel loop: each runs as
// a one-thread kernel (w4a16-gpu-serial-kernels; the reduction is split into 256 partial sums first), where
// before the GPU target rejected them ("memref.store would run on the host", session 43's whole-model probe).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
#scalar = affine_map<() -> ()>

func.func @decode_rmsnorm(%x: tensor<4096xf16>, %norm_weight: tensor<4096xf16>, %qweight: tensor<512x4096xi32>,
                          %scales: tensor<32x4096xf16>) -> tensor<4096xf16> {
  // ---- RMSNorm on the folded (K) vector: sum of squares into a 0-d tensor, rsqrt(mean + eps) on it --------------
  %zero = arith.constant 0.000000e+00 : f32
  %se = tensor.empty() : tensor<f32>
  %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id1, #all], iterator_types = ["reduction"]}
      ins(%x : tensor<4096xf16>) outs(%s0 : tensor<f32>) {
  ^bb0(%a: f16, %acc: f32):
    %a32 = arith.extf %a : f16 to f32
    %sq = arith.mulf %a32, %a32 : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %re = tensor.empty() : tensor<f32>
  %rstd = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%sum : tensor<f32>) outs(%re : tensor<f32>) {
  ^bb0(%s: f32, %o: f32):
    %k = arith.constant 4.096000e+03 : f32
    %eps = arith.constant 9.99999974E-6 : f32
    %mean = arith.divf %s, %k : f32
    %v = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %v : f32
    linalg.yield %rs : f32
  } -> tensor<f32>
  %he = tensor.empty() : tensor<4096xf16>
  %h = linalg.generic {indexing_maps = [#id1, #all, #id1, #id1], iterator_types = ["parallel"]}
      ins(%x, %rstd, %norm_weight : tensor<4096xf16>, tensor<f32>, tensor<4096xf16>) outs(%he : tensor<4096xf16>) {
  ^bb0(%a: f16, %rs: f32, %w: f16, %o: f16):
    %a32 = arith.extf %a : f16 to f32
    %w32 = arith.extf %w : f16 to f32
    %n = arith.mulf %a32, %rs : f32
    %nw = arith.mulf %n, %w32 : f32
    %n16 = arith.truncf %nw : f32 to f16
    linalg.yield %n16 : f16
  } -> tensor<4096xf16>

  // ---- the projection: GPTQ dequant, vecmat in f32, rounded, + residual x ---------------------------------------
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
  %hx = tensor.empty() : tensor<4096xf32>
  %h32 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%h : tensor<4096xf16>) outs(%hx : tensor<4096xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<4096xf32>
  %e = tensor.empty() : tensor<4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %y = linalg.vecmat ins(%h32, %w : tensor<4096xf32>, tensor<4096x4096xf32>) outs(%acc : tensor<4096xf32>) -> tensor<4096xf32>
  %ye = tensor.empty() : tensor<4096xf16>
  %y16 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%y : tensor<4096xf32>) outs(%ye : tensor<4096xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4096xf16>
  %oe = tensor.empty() : tensor<4096xf16>
  %out = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%y16, %x : tensor<4096xf16>, tensor<4096xf16>) outs(%oe : tensor<4096xf16>) {
  ^bb0(%a: f16, %r: f16, %o: f16):
    %s = arith.addf %a, %r : f16
    linalg.yield %s : f16
  } -> tensor<4096xf16>
  return %out : tensor<4096xf16>
}
