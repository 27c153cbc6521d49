// torchao's int4 weight-only form in a bf16 model (ZeroPointDomain.FLOAT): W = (q - 8) * s + z with bf16
// scales s and bf16 float zero points z, one per (column, group of 128), codes q in the low nibble of an
// (N, K) i8 container (masked: a u8 read whole could hold more than 4 bits, and does not fuse). The dequant computes in f32 and rounds W to bf16; the bf16 x @ bf16 W^T product accumulates
// in f32 and is truncated to bf16. K = N = 2048, dynamic M.
//
// Expected: one fused chain, the offset form with bf16 x/out, bf16 scales and bf16 offsets (dequant n_k/n_g
// -> matmul). The CUDA kernels run it in their bf16 affine form (W = (code - zi) * s + o).

#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @torchao_bf16(%x: tensor<?x2048xbf16>, %weight: tensor<2048x2048xi8>, %scales: tensor<2048x16xbf16>,
                        %zeros: tensor<2048x16xbf16>) -> tensor<?x2048xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xbf16>
  %de = tensor.empty() : tensor<2048x2048xbf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xbf16>) {
  ^bb0(%out: bf16):
    %c128 = arith.constant 128 : index
    %mid = arith.constant 8.000000e+00 : f32
    %n = linalg.index 0 : index
    %k = linalg.index 1 : index
    %q = tensor.extract %weight[%n, %k] : tensor<2048x2048xi8>
    %c15 = arith.constant 15 : i8
    %qm = arith.andi %q, %c15 : i8
    %qf = arith.uitofp %qm : i8 to f32
    %g = arith.divui %k, %c128 : index
    %s = tensor.extract %scales[%n, %g] : tensor<2048x16xbf16>
    %z = tensor.extract %zeros[%n, %g] : tensor<2048x16xbf16>
    %s32 = arith.extf %s : bf16 to f32
    %z32 = arith.extf %z : bf16 to f32
    %c = arith.subf %qf, %mid : f32
    %cs = arith.mulf %c, %s32 : f32
    %wv = arith.addf %cs, %z32 : f32
    %wb = arith.truncf %wv : f32 to bf16
    linalg.yield %wb : bf16
  } -> tensor<2048x2048xbf16>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
                                      affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %w : tensor<?x2048xbf16>, tensor<2048x2048xbf16>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %e2 = tensor.empty(%m) : tensor<?x2048xbf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x2048xf32>) outs(%e2 : tensor<?x2048xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x2048xbf16>
  return %out : tensor<?x2048xbf16>
}
