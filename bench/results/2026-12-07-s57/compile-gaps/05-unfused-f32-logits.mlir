// UNFUSED: quantised lm_head whose f32 result is returned untruncated (logits.float()): 'matmul result is f32 and never truncated'. Command: w4a16-compile 05-unfused-f32-logits.mlir -o out.so --explain
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id1 = affine_map<(d0) -> (d0)>

func.func @f32_logits(%x: tensor<1x128xf16>, %lm_qw: tensor<16x128xi32>, %lm_sc: tensor<1x128xf16>) -> tensor<1x128xf32> {

  %lm_we = tensor.empty() : tensor<128x128xf16>
  %lm_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%lm_we : tensor<128x128xf16>) {
  ^bb0(%dq_out: f16):
    %dq_c8 = arith.constant 8 : index
    %dq_c128 = arith.constant 128 : index
    %dq_c4 = arith.constant 4 : i32
    %dq_c15 = arith.constant 15 : i32
    %dq_zp = arith.constant 8.000000e+00 : f16
    %dq_k = linalg.index 0 : index
    %dq_n = linalg.index 1 : index
    %dq_kw = arith.divui %dq_k, %dq_c8 : index
    %dq_word = tensor.extract %lm_qw[%dq_kw, %dq_n] : tensor<16x128xi32>
    %dq_lane = arith.remui %dq_k, %dq_c8 : index
    %dq_lane32 = arith.index_cast %dq_lane : index to i32
    %dq_sh = arith.muli %dq_lane32, %dq_c4 : i32
    %dq_v = arith.shrui %dq_word, %dq_sh : i32
    %dq_code = arith.andi %dq_v, %dq_c15 : i32
    %dq_cf = arith.uitofp %dq_code : i32 to f16
    %dq_cz = arith.subf %dq_cf, %dq_zp : f16
    %dq_g = arith.divui %dq_k, %dq_c128 : index
    %dq_sc = tensor.extract %lm_sc[%dq_g, %dq_n] : tensor<1x128xf16>
    %dq_wv = arith.mulf %dq_cz, %dq_sc : f16
    linalg.yield %dq_wv : f16
  } -> tensor<128x128xf16>

  %lm_ae = tensor.empty() : tensor<1x128xf32>
  %lm_zero = arith.constant 0.0 : f32
  %lm_acc = linalg.fill ins(%lm_zero : f32) outs(%lm_ae : tensor<1x128xf32>) -> tensor<1x128xf32>
  %lm_mm = linalg.matmul ins(%x, %lm_w : tensor<1x128xf16>, tensor<128x128xf16>) outs(%lm_acc : tensor<1x128xf32>) -> tensor<1x128xf32>

  return %lm_mm : tensor<1x128xf32>
}
