// UNFUSED: matmul whose f32 result feeds exact (erf) GELU before truncation: the whole chain (even dequant->matmul) stays unfused. Command: w4a16-compile 02-unfused-gelu-erf-in-epilogue.mlir -o out.so --explain
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id1 = affine_map<(d0) -> (d0)>

func.func @gelu_erf(%x: tensor<?x128xf16>, %up_qw: tensor<16x128xi32>, %up_sc: tensor<1x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x128xf16>

  %up_we = tensor.empty() : tensor<128x128xf16>
  %up_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%up_we : tensor<128x128xf16>) {
  ^bb0(%dq_out: f16):
    %dq_c8 = arith.constant 8 : index
    %dq_c128 = arith.constant 128 : index
    %dq_c4 = arith.constant 4 : i32
    %dq_c15 = arith.constant 15 : i32
    %dq_zp = arith.constant 8.000000e+00 : f16
    %dq_k = linalg.index 0 : index
    %dq_n = linalg.index 1 : index
    %dq_kw = arith.divui %dq_k, %dq_c8 : index
    %dq_word = tensor.extract %up_qw[%dq_kw, %dq_n] : tensor<16x128xi32>
    %dq_lane = arith.remui %dq_k, %dq_c8 : index
    %dq_lane32 = arith.index_cast %dq_lane : index to i32
    %dq_sh = arith.muli %dq_lane32, %dq_c4 : i32
    %dq_v = arith.shrui %dq_word, %dq_sh : i32
    %dq_code = arith.andi %dq_v, %dq_c15 : i32
    %dq_cf = arith.uitofp %dq_code : i32 to f16
    %dq_cz = arith.subf %dq_cf, %dq_zp : f16
    %dq_g = arith.divui %dq_k, %dq_c128 : index
    %dq_sc = tensor.extract %up_sc[%dq_g, %dq_n] : tensor<1x128xf16>
    %dq_wv = arith.mulf %dq_cz, %dq_sc : f16
    linalg.yield %dq_wv : f16
  } -> tensor<128x128xf16>

  %up_ae = tensor.empty(%m) : tensor<?x128xf32>
  %up_zero = arith.constant 0.0 : f32
  %up_acc = linalg.fill ins(%up_zero : f32) outs(%up_ae : tensor<?x128xf32>) -> tensor<?x128xf32>
  %up_mm = linalg.matmul ins(%x, %up_w : tensor<?x128xf16>, tensor<128x128xf16>) outs(%up_acc : tensor<?x128xf32>) -> tensor<?x128xf32>

  %ge = tensor.empty(%m) : tensor<?x128xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%up_mm : tensor<?x128xf32>) outs(%ge : tensor<?x128xf16>) {
  ^bb0(%t: f32, %o: f16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rs2 = arith.constant 0.707106769 : f32
    %ts = arith.mulf %t, %rs2 : f32
    %e = math.erf %ts : f32
    %op = arith.addf %e, %one : f32
    %hx = arith.mulf %t, %half : f32
    %r = arith.mulf %hx, %op : f32
    %r16 = arith.truncf %r : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<?x128xf16>
  return %out : tensor<?x128xf16>
}
