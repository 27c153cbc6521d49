// x in f32, every element a widened bf16: the RMSNorm's weight multiply in bf16 and its widening for an f32 matmul
// are one generic after upstream's elementwise fusion (IREE leaves the same), so no widening cast of a bf16 tensor
// is left to read through. The producer's body yields arith.extf of a bf16 value: the fused op takes x narrowed back
// to bf16 (exact), as it does where the contraction's own body narrows an f32 x.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK-LABEL: func.func @x_widened(
// CHECK:         %[[H:.+]] = linalg.generic
// CHECK:           arith.extf %{{.+}} : bf16 to f32
// CHECK:         %[[HB:.+]] = arith.truncf %[[H]] : tensor<?x128xf32> to tensor<?x128xbf16>
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[HB]],
// CHECK-SAME:      -> tensor<?x128xbf16>
// CHECK:         return %[[Y]]
// EXPLAIN:       remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul [x bf16, scales f16]{{$}}

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

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

// -----

// Look-alike: the product is computed in f32 (its elements are no bf16 values), so x is a true f32 tensor.
// CHECK-LABEL: func.func @x_computed_in_f32(
// CHECK-NOT:     w4a16.fused_matmul
// EXPLAIN:       remark: w4a16: not fused: x is f32, computed by linalg.generic, which is not a reshape or a widening cast of an f16 or bf16 tensor

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @x_computed_in_f32(%x: tensor<?x128xbf16>, %nw: tensor<128xbf16>, %q_qw: tensor<16x128xi32>, %q_sc: tensor<1x128xf16>) -> tensor<?x128xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x128xbf16>
  %he = tensor.empty(%m) : tensor<?x128xf32>
  %h = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %nw : tensor<?x128xbf16>, tensor<128xbf16>) outs(%he : tensor<?x128xf32>) {
  ^bb0(%a: bf16, %g: bf16, %o: f32):
    %a32 = arith.extf %a : bf16 to f32
    %g32 = arith.extf %g : bf16 to f32
    %y32 = arith.mulf %a32, %g32 : f32
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

// -----

// explain/hidden-differences.mlir's bf16 x rounded to f16 and widened in one generic, with an f16 result: x is the
// f16 values that generic yields (bit-exact against the unfused build on the CPU).
// CHECK-LABEL: func.func @x_rounded_to_f16_then_widened(
// CHECK:         %[[XH:.+]] = arith.truncf %{{.+}} : tensor<?x256xf32> to tensor<?x256xf16>
// CHECK:         "w4a16.fused_matmul"(%[[XH]],
// EXPLAIN:       remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul [x f16, scales bf16]{{$}}

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @x_rounded_to_f16_then_widened(%x: tensor<?x256xbf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xbf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xbf16>
  %de = tensor.empty() : tensor<256x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %mid = arith.constant 8.0 : f32
    %zf = arith.constant 0.0 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xbf16>
    %s32 = arith.extf %sc : bf16 to f32
    %c = arith.subf %cf, %mid : f32
    %wv = arith.mulf %c, %s32 : f32
    %w2 = arith.addf %wv, %zf : f32
    linalg.yield %w2 : f32
  } -> tensor<256x64xf32>
  %ex = tensor.empty(%m) : tensor<?x256xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xbf16>) outs(%ex : tensor<?x256xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %a32 = arith.extf %a : bf16 to f32
    %xr = arith.truncf %a32 : f32 to f16
    %x2 = arith.extf %xr : f16 to f32
    linalg.yield %x2 : f32
  } -> tensor<?x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %r = arith.truncf %a : f32 to f16
    linalg.yield %r : f16
  } -> tensor<?x64xf16>
  return %out : tensor<?x64xf16>
}
