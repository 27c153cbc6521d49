// UNFUSED: x is f32 produced by a generic whose body ends with extf(bf16) (widening folded into the norm by elementwise fusion): 'x is f32, computed by linalg.generic'. Command: w4a16-compile 03-unfused-x-widened-in-producer.mlir -o out.so --explain
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id1 = affine_map<(d0) -> (d0)>

func.func @x_widened(%x: tensor<?x128xbf16>, %nw: tensor<128xbf16>, %q_qw: tensor<16x128xi32>, %q_sc: tensor<1x128xf16>) -> tensor<?x128xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x128xbf16>
  %he = tensor.empty(%m) : tensor<?x128xf32>
  %h = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %nw : tensor<?x128xbf16>, tensor<128xbf16>) outs(%he : tensor<?x128xf32>) {
  ^bb0(%a: bf16, %g: bf16, %o: f32):
    %yw = arith.mulf %a, %g : bf16
    %y32 = arith.extf %yw : bf16 to f32
    linalg.yield %y32 : f32
  } -> tensor<?x128xf32>

  %q_we = tensor.empty() : tensor<128x128xf32>
  %q_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%q_we : tensor<128x128xf32>) {
  ^bb0(%dq_out: f32):
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
    %dq_wv32 = arith.extf %dq_wv : f16 to f32
    linalg.yield %dq_wv32 : f32
  } -> tensor<128x128xf32>

  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty(%m) : tensor<?x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x128xf32>) -> tensor<?x128xf32>
  %mm = linalg.matmul ins(%h, %q_w : tensor<?x128xf32>, tensor<128x128xf32>) outs(%acc : tensor<?x128xf32>) -> tensor<?x128xf32>

  %out_te = tensor.empty(%m) : tensor<?x128xbf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x128xf32>) outs(%out_te : tensor<?x128xbf16>) {
  ^bb0(%tr_a: f32, %tr_o: bf16):
    %tr_t = arith.truncf %tr_a : f32 to bf16
    linalg.yield %tr_t : bf16
  } -> tensor<?x128xbf16>

  return %out : tensor<?x128xbf16>
}
