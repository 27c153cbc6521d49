// f32 accumulation (docs/contract.md §4 matmul): linalg.matmul with f16 inputs and an f32 init followed by an
// arith.truncf generic, or arith.extf generics on both inputs and an f32 matmul, or a contraction whose
// truncf is folded into the epilogue generic. All fuse; the extf/truncf generics are erased with the chain.
// An f32 activation that an explicit arith.truncf turns into f16 is a valid x (the truncf stays).
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// linalg.matmul ins(f16, f16) outs(f32 fill 0) then a truncf generic. Dynamic M, K = 4096, N = 11008.

// CHECK-LABEL: func.func @matmul_f32_init_truncf(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x11008xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<512x11008xi32>, tensor<32x11008xf16>) -> tensor<?x11008xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[R]] : tensor<?x11008xf16>
func.func @matmul_f32_init_truncf(%x: tensor<?x4096xf16>, %qweight: tensor<512x11008xi32>, %scales: tensor<32x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %de = tensor.empty() : tensor<4096x11008xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x11008xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x11008xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<32x11008xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<4096x11008xf16>
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %acc_e = tensor.empty(%m) : tensor<?x11008xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%acc_e : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  %he = tensor.empty(%m) : tensor<?x11008xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x11008xf32>) outs(%he : tensor<?x11008xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x11008xf16>
  return %h : tensor<?x11008xf16>
}

// -----

// arith.extf generics on x and on the dequantised weight, an all-f32 linalg.matmul and a truncf generic.
// [K/128, 128, N] i4 weight collapsed to (K, N); static M = 32, K = 4096, N = 4096.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#grp = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul_extf_inputs(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x128x4096xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<32x128x4096xi4> into tensor<4096x4096xi4>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<32x4096xf16>, tensor<4096x4096xi4>, tensor<32x4096xf16>) -> tensor<32x4096xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[R]] : tensor<32x4096xf16>
func.func @matmul_extf_inputs(%arg0: tensor<32x4096xf16>, %arg1: tensor<32x128x4096xi4>, %arg2: tensor<32x4096xf16>) -> tensor<32x4096xf16> {
  %cst = arith.constant 8.000000e+00 : f16
  %cst_0 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<32x128x4096xf16>
  %1 = linalg.generic {indexing_maps = [#id3, #grp, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg2 : tensor<32x128x4096xi4>, tensor<32x4096xf16>) outs(%0 : tensor<32x128x4096xf16>) {
  ^bb0(%in: i4, %in_1: f16, %out: f16):
    %12 = arith.extui %in : i4 to i32
    %13 = arith.uitofp %12 : i32 to f16
    %14 = arith.subf %13, %cst : f16
    %15 = arith.mulf %14, %in_1 : f16
    linalg.yield %15 : f16
  } -> tensor<32x128x4096xf16>
  %collapsed = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<32x128x4096xf16> into tensor<4096x4096xf16>
  %2 = tensor.empty() : tensor<32x4096xf32>
  %3 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x4096xf16>) outs(%2 : tensor<32x4096xf32>) {
  ^bb0(%in: f16, %out: f32):
    %12 = arith.extf %in : f16 to f32
    linalg.yield %12 : f32
  } -> tensor<32x4096xf32>
  %4 = tensor.empty() : tensor<4096x4096xf32>
  %5 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<4096x4096xf16>) outs(%4 : tensor<4096x4096xf32>) {
  ^bb0(%in: f16, %out: f32):
    %12 = arith.extf %in : f16 to f32
    linalg.yield %12 : f32
  } -> tensor<4096x4096xf32>
  %6 = tensor.empty() : tensor<32x4096xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  %8 = linalg.matmul ins(%3, %5 : tensor<32x4096xf32>, tensor<4096x4096xf32>) outs(%7 : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  %9 = tensor.empty() : tensor<32x4096xf16>
  %10 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<32x4096xf32>) outs(%9 : tensor<32x4096xf16>) {
  ^bb0(%in: f32, %out: f16):
    %12 = arith.truncf %in : f32 to f16
    linalg.yield %12 : f16
  } -> tensor<32x4096xf16>
  return %10 : tensor<32x4096xf16>
}

// -----

// f32 accumulation whose truncf lives in the bias epilogue generic: (f32 acc + extf(bias)) -> truncf.
// Small shape K = 256, N = 64, M = 2.

// CHECK-LABEL: func.func @truncf_in_bias_epilogue(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<2x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<2x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<2x64xf16>
func.func @truncf_in_bias_epilogue(%x: tensor<2x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<2x64xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %acc_e = tensor.empty() : tensor<2x64xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%acc_e : tensor<2x64xf32>) -> tensor<2x64xf32>
  %mm = linalg.matmul ins(%x, %deq : tensor<2x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<2x64xf32>) -> tensor<2x64xf32>
  %oe = tensor.empty() : tensor<2x64xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<2x64xf32>, tensor<64xf16>) outs(%oe : tensor<2x64xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %sum = arith.addf %a, %bf : f32
    %t = arith.truncf %sum : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x64xf16>
  return %o : tensor<2x64xf16>
}

// -----

// The activations arrive in f32 but an explicit arith.truncf generic makes them f16 before the matmul:
// x of the fused op is that truncf's result, and the truncf generic stays.

// CHECK-LABEL: func.func @x_truncf_to_f16(
// CHECK-SAME:    %[[XF:[a-zA-Z0-9_]+]]: tensor<4x1024xf32>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<128x256xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x256xf16>
// CHECK:         %[[XH:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[XF]] : tensor<4x1024xf32>)
// CHECK:           arith.truncf
// CHECK:         } -> tensor<4x1024xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[XH]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<4x1024xf16>, tensor<128x256xi32>, tensor<8x256xf16>) -> tensor<4x256xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<4x256xf16>
func.func @x_truncf_to_f16(%xf: tensor<4x1024xf32>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %xe = tensor.empty() : tensor<4x1024xf16>
  %xh = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xf : tensor<4x1024xf32>) outs(%xe : tensor<4x1024xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x1024xf16>
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%cst : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  %mm = linalg.matmul ins(%xh, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

// IREE two-reduction contraction over a [K/128, 128, N] weight, accumulating into an f32 init (the body
// extends both inputs), truncf generic after. Dynamic M, K = 2048, N = 5632.

// CHECK-LABEL: func.func @contraction_f32_out_truncf(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x2048xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<16x128x5632xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<16x5632xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<16x128x5632xi4> into tensor<2048x5632xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<?x2048xf16>, tensor<2048x5632xi4>, tensor<16x5632xf16>) -> tensor<?x5632xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x5632xf16>
func.func @contraction_f32_out_truncf(%x: tensor<?x2048xf16>, %w: tensor<16x128x5632xi4>, %s: tensor<16x5632xf16>) -> tensor<?x5632xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %zp = arith.constant 8.000000e+00 : f16
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %xg = tensor.expand_shape %x [[0], [1, 2]] output_shape [%m, 16, 128] : tensor<?x2048xf16> into tensor<?x16x128xf16>
  %de = tensor.empty() : tensor<16x128x5632xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<16x128x5632xi4>, tensor<16x5632xf16>) outs(%de : tensor<16x128x5632xf16>) {
  ^bb0(%q: i4, %sc: f16, %o: f16):
    %0 = arith.extui %q : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %zp : f16
    %3 = arith.mulf %2, %sc : f16
    linalg.yield %3 : f16
  } -> tensor<16x128x5632xf16>
  %ae = tensor.empty(%m) : tensor<?x5632xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x5632xf32>) -> tensor<?x5632xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xg, %deq : tensor<?x16x128xf16>, tensor<16x128x5632xf16>) outs(%acc : tensor<?x5632xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %o : f32
    linalg.yield %3 : f32
  } -> tensor<?x5632xf32>
  %he = tensor.empty(%m) : tensor<?x5632xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x5632xf32>) outs(%he : tensor<?x5632xf16>) {
  ^bb0(%in: f32, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<?x5632xf16>
  return %h : tensor<?x5632xf16>
}
