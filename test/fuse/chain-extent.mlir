// Chain extent (docs/contract.md §4): the pass fuses the longest valid chain. A value inside the chain with another
// user is the last value of the chain (the prefix up to it fuses, the rest stays and reads the fused
// result); an activation other than silu/gelu_tanh (relu, erf-gelu, quick-gelu, bare sigmoid) ends the chain;
// epilogue steps in the wrong order (residual before the activation, bias after it) end it too.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// The bias-added value is also returned (2 users): dequant + matmul + bias fuse (activation none); the silu
// generic stays and reads the fused result, which is also returned.

// CHECK-LABEL: func.func @bias_value_has_two_users(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x1024xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<128x512xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x512xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<512xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<8x1024xf16>, tensor<128x512xi32>, tensor<8x512xf16>, tensor<512xf16>) -> tensor<8x512xf16>
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<8x512xf16>)
// CHECK:           math.exp
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         return %[[A]], %[[R]] : tensor<8x512xf16>, tensor<8x512xf16>
func.func @bias_value_has_two_users(%x: tensor<8x1024xf16>, %qweight: tensor<128x512xi32>, %scales: tensor<8x512xf16>, %bias: tensor<512xf16>) -> (tensor<8x512xf16>, tensor<8x512xf16>) {
  %de = tensor.empty() : tensor<1024x512xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x512xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x512xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x512xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x512xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<8x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<8x512xf16>) -> tensor<8x512xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<8x1024xf16>, tensor<1024x512xf16>) outs(%acc : tensor<8x512xf16>) -> tensor<8x512xf16>
  %be = tensor.empty() : tensor<8x512xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<8x512xf16>, tensor<512xf16>) outs(%be : tensor<8x512xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<8x512xf16>
  %ae = tensor.empty() : tensor<8x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<8x512xf16>) outs(%ae : tensor<8x512xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<8x512xf16>
  return %act, %yb : tensor<8x512xf16>, tensor<8x512xf16>
}

// -----

// The matmul result itself has a second user (returned): only dequant + matmul fuse; the bias generic and
// the silu generic stay, the bias generic now reading the fused result.

// CHECK-LABEL: func.func @matmul_result_has_two_users(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x1024xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<128x512xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x512xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<512xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x1024xf16>, tensor<128x512xi32>, tensor<8x512xf16>) -> tensor<?x512xf16>
// CHECK:         %[[YB:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]], %[[B]] : tensor<?x512xf16>, tensor<512xf16>)
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[YB]] : tensor<?x512xf16>)
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         return %[[A]], %[[R]] : tensor<?x512xf16>, tensor<?x512xf16>
func.func @matmul_result_has_two_users(%x: tensor<?x1024xf16>, %qweight: tensor<128x512xi32>, %scales: tensor<8x512xf16>, %bias: tensor<512xf16>) -> (tensor<?x512xf16>, tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x1024xf16>
  %de = tensor.empty() : tensor<1024x512xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x512xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x512xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x512xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x512xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x512xf16>) -> tensor<?x512xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x1024xf16>, tensor<1024x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  %be = tensor.empty(%m) : tensor<?x512xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x512xf16>, tensor<512xf16>) outs(%be : tensor<?x512xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<?x512xf16>
  %ae = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<?x512xf16>) outs(%ae : tensor<?x512xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<?x512xf16>
  return %act, %mm : tensor<?x512xf16>, tensor<?x512xf16>
}

// -----

// relu (arith.maximumf with 0) after the bias: not a supported activation, the chain ends at the bias.

// CHECK-LABEL: func.func @relu_after_bias(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
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
// CHECK-SAME:      : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<4x64xf16>)
// CHECK:           arith.maximumf
// CHECK:         return %[[A]]
func.func @relu_after_bias(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<4x64xf16> {
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
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %be = tensor.empty() : tensor<4x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<4x64xf16>, tensor<64xf16>) outs(%be : tensor<4x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  %re = tensor.empty() : tensor<4x64xf16>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<4x64xf16>) outs(%re : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %z0 = arith.constant 0.000000e+00 : f16
    %0 = arith.maximumf %in, %z0 : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  return %relu : tensor<4x64xf16>
}

// -----

// erf-gelu (0.5 v (1 + erf(v / sqrt 2))) after the bias is NOT gelu_tanh: the chain ends at the bias and the
// erf generic stays. [K/128, 128, N] weight.

// CHECK-LABEL: func.func @erf_gelu_after_bias(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<16x1024xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<8x128x4096xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x4096xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]]
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<16x1024xf16>, tensor<1024x4096xi4>, tensor<8x4096xf16>, tensor<4096xf16>) -> tensor<16x4096xf16>
// CHECK:         %[[G:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<16x4096xf16>)
// CHECK:           math.erf
// CHECK:         return %[[G]]
func.func @erf_gelu_after_bias(%x: tensor<16x1024xf16>, %w: tensor<8x128x4096xi4>, %s: tensor<8x4096xf16>, %bias: tensor<4096xf16>) -> tensor<16x4096xf16> {
  %de3 = tensor.empty() : tensor<8x128x4096xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<8x128x4096xi4>, tensor<8x4096xf16>) outs(%de3 : tensor<8x128x4096xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<8x128x4096xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<8x128x4096xf16> into tensor<1024x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<16x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<16x1024xf16>, tensor<1024x4096xf16>) outs(%acc : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %be = tensor.empty() : tensor<16x4096xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<16x4096xf16>, tensor<4096xf16>) outs(%be : tensor<16x4096xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<16x4096xf16>
  %ge = tensor.empty() : tensor<16x4096xf16>
  %gelu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<16x4096xf16>) outs(%ge : tensor<16x4096xf16>) {
  ^bb0(%in: f16, %out: f16):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %rsqrt2 = arith.constant 0.707106769 : f32
    %0 = arith.extf %in : f16 to f32
    %1 = arith.mulf %0, %rsqrt2 : f32
    %2 = math.erf %1 : f32
    %3 = arith.addf %2, %one : f32
    %4 = arith.mulf %0, %half : f32
    %5 = arith.mulf %4, %3 : f32
    %6 = arith.truncf %5 : f32 to f16
    linalg.yield %6 : f16
  } -> tensor<16x4096xf16>
  return %gelu : tensor<16x4096xf16>
}

// -----

// quick-gelu v * sigmoid(1.702 v) looks like silu but is not: the chain ends at the matmul.

// CHECK-LABEL: func.func @quick_gelu_is_not_silu(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x512xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<64x256xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<2x512xf16>, tensor<64x256xi32>, tensor<4x256xf16>) -> tensor<2x256xf16>
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<2x256xf16>)
// CHECK:           math.exp
// CHECK:         return %[[A]]
func.func @quick_gelu_is_not_silu(%x: tensor<2x512xf16>, %qweight: tensor<64x256xi32>, %scales: tensor<4x256xf16>) -> tensor<2x256xf16> {
  %de = tensor.empty() : tensor<512x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<512x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<64x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<4x256xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<512x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<2x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<2x256xf16>) -> tensor<2x256xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<2x512xf16>, tensor<512x256xf16>) outs(%acc : tensor<2x256xf16>) -> tensor<2x256xf16>
  %qe = tensor.empty() : tensor<2x256xf16>
  %qg = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<2x256xf16>) outs(%qe : tensor<2x256xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %k = arith.constant 1.702000e+00 : f16
    %0 = arith.mulf %in, %k : f16
    %1 = arith.negf %0 : f16
    %2 = math.exp %1 : f16
    %3 = arith.addf %2, %one : f16
    %4 = arith.divf %one, %3 : f16
    %5 = arith.mulf %in, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<2x256xf16>
  return %qg : tensor<2x256xf16>
}

// -----

// An (M, N) add right after the matmul is a residual (out = y + r with no activation); the silu that follows
// cannot come after a residual, so the chain is dequant + matmul + residual and the silu generic stays.

// CHECK-LABEL: func.func @residual_before_silu(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<4x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[RES]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<4x64xf16>)
// CHECK:           math.exp
// CHECK:         return %[[A]]
func.func @residual_before_silu(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %residual: tensor<4x64xf16>) -> tensor<4x64xf16> {
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
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %re = tensor.empty() : tensor<4x64xf16>
  %yr = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %residual : tensor<4x64xf16>, tensor<4x64xf16>) outs(%re : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %0 = arith.addf %a, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  %ae = tensor.empty() : tensor<4x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yr : tensor<4x64xf16>) outs(%ae : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<4x64xf16>
  return %act : tensor<4x64xf16>
}

// -----

// A per-column (N,) add AFTER the activation is not a bias (bias comes before the activation) and not a
// residual (not (M, N)): the chain is dequant + matmul + silu, the add stays.

// CHECK-LABEL: func.func @bias_after_silu(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]], %[[B]] : tensor<4x64xf16>, tensor<64xf16>)
// CHECK:           arith.addf
// CHECK:         return %[[A]]
func.func @bias_after_silu(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<4x64xf16> {
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
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %ae = tensor.empty() : tensor<4x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x64xf16>) outs(%ae : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<4x64xf16>
  %be = tensor.empty() : tensor<4x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%act, %bias : tensor<4x64xf16>, tensor<64xf16>) outs(%be : tensor<4x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  return %yb : tensor<4x64xf16>
}

// -----

// The activation's result has a second user: dequant + matmul + bias + silu fuse, the residual add stays.

// CHECK-LABEL: func.func @silu_value_has_two_users(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>, %[[RES:[a-zA-Z0-9_]+]]: tensor<4x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
// CHECK:         %[[O:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]], %[[RES]] : tensor<4x64xf16>, tensor<4x64xf16>)
// CHECK:         return %[[O]], %[[R]]
func.func @silu_value_has_two_users(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>, %residual: tensor<4x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
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
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %be = tensor.empty() : tensor<4x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<4x64xf16>, tensor<64xf16>) outs(%be : tensor<4x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  %ae = tensor.empty() : tensor<4x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<4x64xf16>) outs(%ae : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<4x64xf16>
  %oe = tensor.empty() : tensor<4x64xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%act, %residual : tensor<4x64xf16>, tensor<4x64xf16>) outs(%oe : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %0 = arith.addf %a, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  return %o, %act : tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// torch-style silu (sigmoid generic + multiply generic) where the pre-activation value has a THIRD user
// (returned): silu cannot be fused; dequant + matmul fuse and both silu generics stay.

// CHECK-LABEL: func.func @torch_silu_input_has_third_user(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
// CHECK:         %[[SIG:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<4x64xf16>)
// CHECK:         %[[MUL:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]], %[[SIG]] : tensor<4x64xf16>, tensor<4x64xf16>)
// CHECK:         return %[[MUL]], %[[R]]
func.func @torch_silu_input_has_third_user(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %one = arith.constant 1.000000e+00 : f16
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
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  %se = tensor.empty() : tensor<4x64xf16>
  %sig = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x64xf16>) outs(%se : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    linalg.yield %3 : f16
  } -> tensor<4x64xf16>
  %me = tensor.empty() : tensor<4x64xf16>
  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %sig : tensor<4x64xf16>, tensor<4x64xf16>) outs(%me : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %0 = arith.mulf %a, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  return %silu, %mm : tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// sigmoid(a) * b with a and b two different matmuls (a GLU, not silu): neither chain takes the sigmoid or
// the product; both matmuls fuse plain and the sigmoid and product generics stay.

// CHECK-LABEL: func.func @sigmoid_gate_times_other_matmul(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QA:[a-zA-Z0-9_]+]]: tensor<32x64xi32>, %[[SA:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[QB:[a-zA-Z0-9_]+]]: tensor<32x64xi32>, %[[SB:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-DAG:     %[[A:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QA]], %[[SA]]) {{.*}}activation = "none"{{.*}}array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-DAG:     %[[B:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QB]], %[[SB]]) {{.*}}activation = "none"{{.*}}array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-DAG:     %[[SIG:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x64xf16>)
// CHECK:         %[[P:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[SIG]], %[[B]] : tensor<4x64xf16>, tensor<4x64xf16>)
// CHECK:         return %[[P]]
func.func @sigmoid_gate_times_other_matmul(%x: tensor<4x256xf16>, %qa: tensor<32x64xi32>, %sa: tensor<2x64xf16>, %qb: tensor<32x64xi32>, %sb: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %one = arith.constant 1.000000e+00 : f16
  %de_a = tensor.empty() : tensor<256x64xf16>
  %wa = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_a : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_a_i = arith.constant 8 : index
    %c128_a_i = arith.constant 128 : index
    %c4_a_i32 = arith.constant 4 : i32
    %c15_a_i32 = arith.constant 15 : i32
    %zp_a = arith.constant 8.000000e+00 : f16
    %k_a = linalg.index 0 : index
    %n_a = linalg.index 1 : index
    %kw_a = arith.divui %k_a, %c8_a_i : index
    %word_a = tensor.extract %qa[%kw_a, %n_a] : tensor<32x64xi32>
    %lane_a = arith.remui %k_a, %c8_a_i : index
    %lane_a_i32 = arith.index_cast %lane_a : index to i32
    %sh_a = arith.muli %lane_a_i32, %c4_a_i32 : i32
    %v_a = arith.shrui %word_a, %sh_a : i32
    %code_a = arith.andi %v_a, %c15_a_i32 : i32
    %cf_a = arith.uitofp %code_a : i32 to f16
    %cz_a = arith.subf %cf_a, %zp_a : f16
    %g_a = arith.divui %k_a, %c128_a_i : index
    %sc_a = tensor.extract %sa[%g_a, %n_a] : tensor<2x64xf16>
    %w_a = arith.mulf %cz_a, %sc_a : f16
    linalg.yield %w_a : f16
  } -> tensor<256x64xf16>
  %zero_a = arith.constant 0.000000e+00 : f16
  %acc_e_a = tensor.empty() : tensor<4x64xf16>
  %acc_a = linalg.fill ins(%zero_a : f16) outs(%acc_e_a : tensor<4x64xf16>) -> tensor<4x64xf16>
  %ya = linalg.matmul ins(%x, %wa : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc_a : tensor<4x64xf16>) -> tensor<4x64xf16>
  %de_b = tensor.empty() : tensor<256x64xf16>
  %wb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_b : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_b_i = arith.constant 8 : index
    %c128_b_i = arith.constant 128 : index
    %c4_b_i32 = arith.constant 4 : i32
    %c15_b_i32 = arith.constant 15 : i32
    %zp_b = arith.constant 8.000000e+00 : f16
    %k_b = linalg.index 0 : index
    %n_b = linalg.index 1 : index
    %kw_b = arith.divui %k_b, %c8_b_i : index
    %word_b = tensor.extract %qb[%kw_b, %n_b] : tensor<32x64xi32>
    %lane_b = arith.remui %k_b, %c8_b_i : index
    %lane_b_i32 = arith.index_cast %lane_b : index to i32
    %sh_b = arith.muli %lane_b_i32, %c4_b_i32 : i32
    %v_b = arith.shrui %word_b, %sh_b : i32
    %code_b = arith.andi %v_b, %c15_b_i32 : i32
    %cf_b = arith.uitofp %code_b : i32 to f16
    %cz_b = arith.subf %cf_b, %zp_b : f16
    %g_b = arith.divui %k_b, %c128_b_i : index
    %sc_b = tensor.extract %sb[%g_b, %n_b] : tensor<2x64xf16>
    %w_b = arith.mulf %cz_b, %sc_b : f16
    linalg.yield %w_b : f16
  } -> tensor<256x64xf16>
  %zero_b = arith.constant 0.000000e+00 : f16
  %acc_e_b = tensor.empty() : tensor<4x64xf16>
  %acc_b = linalg.fill ins(%zero_b : f16) outs(%acc_e_b : tensor<4x64xf16>) -> tensor<4x64xf16>
  %yb = linalg.matmul ins(%x, %wb : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc_b : tensor<4x64xf16>) -> tensor<4x64xf16>
  %se = tensor.empty() : tensor<4x64xf16>
  %sig = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ya : tensor<4x64xf16>) outs(%se : tensor<4x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    linalg.yield %3 : f16
  } -> tensor<4x64xf16>
  %pe = tensor.empty() : tensor<4x64xf16>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sig, %yb : tensor<4x64xf16>, tensor<4x64xf16>) outs(%pe : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %0 = arith.mulf %a, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x64xf16>
  return %p : tensor<4x64xf16>
}

// -----

// gelu_tanh with a wrong inner constant (0.5 instead of 0.7978845608) is not gelu_tanh: chain ends at the
// matmul and the generic stays.

// CHECK-LABEL: func.func @gelu_wrong_constant(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<2x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<2x64xf16>
// CHECK:         %[[G:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<2x64xf16>)
// CHECK:           math.tanh
// CHECK:         return %[[G]]
func.func @gelu_wrong_constant(%x: tensor<2x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<2x64xf16> {
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
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<2x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<2x64xf16>) -> tensor<2x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<2x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<2x64xf16>) -> tensor<2x64xf16>
  %ge = tensor.empty() : tensor<2x64xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<2x64xf16>) outs(%ge : tensor<2x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %half = arith.constant 5.000000e-01 : f16
    %one = arith.constant 1.000000e+00 : f16
    %kappa = arith.constant 4.471500e-02 : f16
    %0 = arith.mulf %in, %in : f16
    %1 = arith.mulf %0, %in : f16
    %2 = arith.mulf %1, %kappa : f16
    %3 = arith.addf %in, %2 : f16
    %4 = arith.mulf %3, %half : f16
    %5 = math.tanh %4 : f16
    %6 = arith.addf %5, %one : f16
    %7 = arith.mulf %in, %half : f16
    %8 = arith.mulf %7, %6 : f16
    linalg.yield %8 : f16
  } -> tensor<2x64xf16>
  return %g : tensor<2x64xf16>
}
