// Bias epilogues (docs/contract.md §4 epilogue): y + bias[n] as a broadcasting generic, commuted (bias + y), torch-mlir's
// broadcast generic followed by an elementwise add generic, and the named linalg.broadcast + linalg.add.
// The bias operand of the fused op is always the 1-D (N,) tensor.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// y + bias in one broadcasting generic; GPTQ weight, dynamic M.

// CHECK-LABEL: func.func @bias_y_plus_b(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x4096xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<512x4096xi32>, tensor<32x4096xf16>, tensor<4096xf16>) -> tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x4096xf16>
func.func @bias_y_plus_b(%x: tensor<?x4096xf16>, %qweight: tensor<512x4096xi32>, %scales: tensor<32x4096xf16>, %bias: tensor<4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de = tensor.empty() : tensor<4096x4096xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x4096xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x4096xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<32x4096xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<4096x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %be = tensor.empty(%m) : tensor<?x4096xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x4096xf16>, tensor<4096xf16>) outs(%be : tensor<?x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %s = arith.addf %in, %in_0 : f16
    linalg.yield %s : f16
  } -> tensor<?x4096xf16>
  return %y : tensor<?x4096xf16>
}

// -----

// bias + y (commuted operands, bias first in ins and in the addf); [K/128, 128, N] weight, M = 8.

// CHECK-LABEL: func.func @bias_b_plus_y(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x1024xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<8x128x2048xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x2048xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<2048xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<8x128x2048xi4> into tensor<1024x2048xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<8x1024xf16>, tensor<1024x2048xi4>, tensor<8x2048xf16>, tensor<2048xf16>) -> tensor<8x2048xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<8x2048xf16>
func.func @bias_b_plus_y(%x: tensor<8x1024xf16>, %w: tensor<8x128x2048xi4>, %s: tensor<8x2048xf16>, %bias: tensor<2048xf16>) -> tensor<8x2048xf16> {
  %de3 = tensor.empty() : tensor<8x128x2048xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<8x128x2048xi4>, tensor<8x2048xf16>) outs(%de3 : tensor<8x128x2048xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<8x128x2048xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<8x128x2048xf16> into tensor<1024x2048xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<8x2048xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<8x2048xf16>) -> tensor<8x2048xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<8x1024xf16>, tensor<1024x2048xf16>) outs(%acc : tensor<8x2048xf16>) -> tensor<8x2048xf16>
  %be = tensor.empty() : tensor<8x2048xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias, %mm : tensor<2048xf16>, tensor<8x2048xf16>) outs(%be : tensor<8x2048xf16>) {
  ^bb0(%b: f16, %v: f16, %out: f16):
    %s1 = arith.addf %b, %v : f16
    linalg.yield %s1 : f16
  } -> tensor<8x2048xf16>
  return %y : tensor<8x2048xf16>
}

// -----

// Named ops: linalg.broadcast of the bias to (M, N), then linalg.add; nn.Linear (N, K) storage with a
// transposed-B linalg.matmul; dynamic M, K = 4096, N = 11008.

// CHECK-LABEL: func.func @bias_named_broadcast_add(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<11008x32x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<11008x32xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<11008x32x128xi4> into tensor<11008x4096xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<11008x4096xi4>, tensor<11008x32xf16>, tensor<11008xf16>) -> tensor<?x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x11008xf16>
func.func @bias_named_broadcast_add(%x: tensor<?x4096xf16>, %w: tensor<11008x32x128xi4>, %s: tensor<11008x32xf16>, %bias: tensor<11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de3 = tensor.empty() : tensor<11008x32x128xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<11008x32x128xi4>, tensor<11008x32xf16>) outs(%de3 : tensor<11008x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<11008x32x128xf16>
  %deq = tensor.collapse_shape %deq3 [[0], [1, 2]] : tensor<11008x32x128xf16> into tensor<11008x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %deq : tensor<?x4096xf16>, tensor<11008x4096xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %bcast_e = tensor.empty(%m) : tensor<?x11008xf16>
  %bcast = linalg.broadcast ins(%bias : tensor<11008xf16>) outs(%bcast_e : tensor<?x11008xf16>) dimensions = [0]
  %add_e = tensor.empty(%m) : tensor<?x11008xf16>
  %y = linalg.add ins(%mm, %bcast : tensor<?x11008xf16>, tensor<?x11008xf16>) outs(%add_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %y : tensor<?x11008xf16>
}

// -----

// torch-mlir: the bias is first broadcast by its own generic ((d1) -> (d0, d1)), then added by an
// elementwise generic. Small shape K = 256, N = 64, M = 3.

// CHECK-LABEL: func.func @bias_broadcast_generic_then_add(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<3x256xf16>
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
// CHECK-SAME:      : (tensor<3x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<3x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<3x64xf16>
func.func @bias_broadcast_generic_then_add(%x: tensor<3x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> tensor<3x64xf16> {
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
  %acc_e = tensor.empty() : tensor<3x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<3x64xf16>) -> tensor<3x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<3x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<3x64xf16>) -> tensor<3x64xf16>
  %0 = tensor.empty() : tensor<3x64xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<64xf16>) outs(%0 : tensor<3x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<3x64xf16>
  %2 = tensor.empty() : tensor<3x64xf16>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %1 : tensor<3x64xf16>, tensor<3x64xf16>) outs(%2 : tensor<3x64xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %4 = arith.addf %in, %in_0 : f16
    linalg.yield %4 : f16
  } -> tensor<3x64xf16>
  return %3 : tensor<3x64xf16>
}

// -----

// Named linalg.add with the broadcast bias as the first operand (bias + y); [K/128, 128, N] weight.

// CHECK-LABEL: func.func @bias_named_add_commuted(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<16x512xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<4x128x1024xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4x1024xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<1024xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]]
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<16x512xf16>, tensor<512x1024xi4>, tensor<4x1024xf16>, tensor<1024xf16>) -> tensor<16x1024xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<16x1024xf16>
func.func @bias_named_add_commuted(%x: tensor<16x512xf16>, %w: tensor<4x128x1024xi4>, %s: tensor<4x1024xf16>, %bias: tensor<1024xf16>) -> tensor<16x1024xf16> {
  %de3 = tensor.empty() : tensor<4x128x1024xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4x128x1024xi4>, tensor<4x1024xf16>) outs(%de3 : tensor<4x128x1024xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<4x128x1024xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<4x128x1024xf16> into tensor<512x1024xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<16x1024xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<16x1024xf16>) -> tensor<16x1024xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<16x512xf16>, tensor<512x1024xf16>) outs(%acc : tensor<16x1024xf16>) -> tensor<16x1024xf16>
  %be = tensor.empty() : tensor<16x1024xf16>
  %bb = linalg.broadcast ins(%bias : tensor<1024xf16>) outs(%be : tensor<16x1024xf16>) dimensions = [0]
  %ae = tensor.empty() : tensor<16x1024xf16>
  %y = linalg.add ins(%bb, %mm : tensor<16x1024xf16>, tensor<16x1024xf16>) outs(%ae : tensor<16x1024xf16>) -> tensor<16x1024xf16>
  return %y : tensor<16x1024xf16>
}

// -----

// Bias added in f32: the f16 matmul result and the bias are extended, added, truncated back in one
// generic. K = 4096, N = 4096, M = 1.

// CHECK-LABEL: func.func @bias_in_f32(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<1x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x4096xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<1x4096xf16>, tensor<512x4096xi32>, tensor<32x4096xf16>, tensor<4096xf16>) -> tensor<1x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<1x4096xf16>
func.func @bias_in_f32(%x: tensor<1x4096xf16>, %qweight: tensor<512x4096xi32>, %scales: tensor<32x4096xf16>, %bias: tensor<4096xf16>) -> tensor<1x4096xf16> {
  %de = tensor.empty() : tensor<4096x4096xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x4096xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x4096xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<32x4096xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<4096x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<1x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<1x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %be = tensor.empty() : tensor<1x4096xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<1x4096xf16>, tensor<4096xf16>) outs(%be : tensor<1x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %a = arith.extf %in : f16 to f32
    %b = arith.extf %in_0 : f16 to f32
    %s1 = arith.addf %b, %a : f32
    %t = arith.truncf %s1 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1x4096xf16>
  return %y : tensor<1x4096xf16>
}
