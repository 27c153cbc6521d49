// UNFUSED: bias kept in f32 (added to the f32 accumulator before truncf): 'bias is f32, expected f16'. Command: w4a16-compile 04-unfused-f32-bias.mlir -o out.so --explain
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id1 = affine_map<(d0) -> (d0)>

func.func @f32_bias(%x: tensor<?x128xf16>, %q_qw: tensor<16x128xi32>, %q_sc: tensor<1x128xf16>, %bias: tensor<128xf32>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x128xf16>

  %q_we = tensor.empty() : tensor<128x128xf16>
  %q_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%q_we : tensor<128x128xf16>) {
  ^bb0(%dq_out: f16):
    %dq_c8 = arith.constant 8 : index
    %dq_c128 = arith.constant 128 : index
    %dq_c4 = arith.constant 4 : i32
    %dq_c15 = arith.constant 15 : i32
    %dq_zp = arith.constant 8.000000e+00 : f16
    %dq_k = linalg.index 0 : index
    %dq_n = linalg.index 1 : index
    %dq_kw = arith.divui %dq_k, %dq_c8 : index
    %dq_word = tensor.extract %q_qw[%dq_kw, %dq_n] : tensor<16x128xi32>
    %dq_lane = arith.remui %dq_k, %dq_c8 : index
    %dq_lane32 = arith.index_cast %dq_lane : index to i32
    %dq_sh = arith.muli %dq_lane32, %dq_c4 : i32
    %dq_v = arith.shrui %dq_word, %dq_sh : i32
    %dq_code = arith.andi %dq_v, %dq_c15 : i32
    %dq_cf = arith.uitofp %dq_code : i32 to f16
    %dq_cz = arith.subf %dq_cf, %dq_zp : f16
    %dq_g = arith.divui %dq_k, %dq_c128 : index
    %dq_sc = tensor.extract %q_sc[%dq_g, %dq_n] : tensor<1x128xf16>
    %dq_wv = arith.mulf %dq_cz, %dq_sc : f16
    linalg.yield %dq_wv : f16
  } -> tensor<128x128xf16>

  %q_ae = tensor.empty(%m) : tensor<?x128xf32>
  %q_zero = arith.constant 0.0 : f32
  %q_acc = linalg.fill ins(%q_zero : f32) outs(%q_ae : tensor<?x128xf32>) -> tensor<?x128xf32>
  %q_mm = linalg.matmul ins(%x, %q_w : tensor<?x128xf16>, tensor<128x128xf16>) outs(%q_acc : tensor<?x128xf32>) -> tensor<?x128xf32>

  %e = tensor.empty(%m) : tensor<?x128xf16>
  %out = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%q_mm, %bias : tensor<?x128xf32>, tensor<128xf32>) outs(%e : tensor<?x128xf16>) {
  ^bb0(%a: f32, %b: f32, %o: f16):
    %t = arith.addf %a, %b : f32
    %t16 = arith.truncf %t : f32 to f16
    linalg.yield %t16 : f16
  } -> tensor<?x128xf16>
  return %out : tensor<?x128xf16>
}
