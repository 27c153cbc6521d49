// Residual epilogues (docs/contract.md §1: out = act(...) + residual[m, n]): an elementwise add of an (M, N) f16 tensor
// as a generic (either operand order), as the named linalg.add, or in f32 on the accumulator.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// y + residual, generic. GPTQ weight, M = 16, K = N = 4096.

// CHECK-LABEL: func.func @residual_generic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<16x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x4096xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<16x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[RES]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<16x4096xf16>, tensor<512x4096xi32>, tensor<32x4096xf16>, tensor<16x4096xf16>) -> tensor<16x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<16x4096xf16>
func.func @residual_generic(%x: tensor<16x4096xf16>, %qweight: tensor<512x4096xi32>, %scales: tensor<32x4096xf16>, %residual: tensor<16x4096xf16>) -> tensor<16x4096xf16> {
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
  %acc_e = tensor.empty() : tensor<16x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<16x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<16x4096xf16>) -> tensor<16x4096xf16>
  %re = tensor.empty() : tensor<16x4096xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %residual : tensor<16x4096xf16>, tensor<16x4096xf16>) outs(%re : tensor<16x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %o: f16):
    %0 = arith.addf %in, %in_0 : f16
    linalg.yield %0 : f16
  } -> tensor<16x4096xf16>
  return %out : tensor<16x4096xf16>
}

// -----

// residual + y (commuted); nn.Linear storage with transposed-B matmul, dynamic M, K = 11008, N = 4096
// (llama down projection).

// CHECK-LABEL: func.func @residual_commuted(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x11008xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<4096x86x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4096x86xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<4096x86x128xi4> into tensor<4096x11008xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]], %[[RES]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<?x11008xf16>, tensor<4096x11008xi4>, tensor<4096x86xf16>, tensor<?x4096xf16>) -> tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x4096xf16>
func.func @residual_commuted(%x: tensor<?x11008xf16>, %w: tensor<4096x86x128xi4>, %s: tensor<4096x86xf16>, %residual: tensor<?x4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x11008xf16>
  %de3 = tensor.empty() : tensor<4096x86x128xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x86x128xi4>, tensor<4096x86xf16>) outs(%de3 : tensor<4096x86x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<4096x86x128xf16>
  %deq = tensor.collapse_shape %deq3 [[0], [1, 2]] : tensor<4096x86x128xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %deq : tensor<?x11008xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %re = tensor.empty(%m) : tensor<?x4096xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%residual, %mm : tensor<?x4096xf16>, tensor<?x4096xf16>) outs(%re : tensor<?x4096xf16>) {
  ^bb0(%r: f16, %v: f16, %o: f16):
    %0 = arith.addf %r, %v : f16
    linalg.yield %0 : f16
  } -> tensor<?x4096xf16>
  return %out : tensor<?x4096xf16>
}

// -----

// Named linalg.add(y, residual); [K/128, 128, N] weight, small shape K = 256, N = 64, M = 2.

// CHECK-LABEL: func.func @residual_named_add(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x256xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<2x128x64xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]]
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]], %[[RES]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<2x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<2x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<2x64xf16>
func.func @residual_named_add(%x: tensor<2x256xf16>, %w: tensor<2x128x64xi4>, %s: tensor<2x64xf16>, %residual: tensor<2x64xf16>) -> tensor<2x64xf16> {
  %de3 = tensor.empty() : tensor<2x128x64xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<2x128x64xi4>, tensor<2x64xf16>) outs(%de3 : tensor<2x128x64xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<2x128x64xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<2x128x64xf16> into tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<2x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<2x64xf16>) -> tensor<2x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<2x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<2x64xf16>) -> tensor<2x64xf16>
  %re = tensor.empty() : tensor<2x64xf16>
  %out = linalg.add ins(%mm, %residual : tensor<2x64xf16>, tensor<2x64xf16>) outs(%re : tensor<2x64xf16>) -> tensor<2x64xf16>
  return %out : tensor<2x64xf16>
}

// -----

// Residual added in f32 to the f32 accumulator, truncated once. GPTQ weight, dynamic M, K = N = 2048.

// CHECK-LABEL: func.func @residual_on_f32_accumulator(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x2048xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<256x2048xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<16x2048xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<?x2048xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[RES]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x2048xf16>, tensor<256x2048xi32>, tensor<16x2048xf16>, tensor<?x2048xf16>) -> tensor<?x2048xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x2048xf16>
func.func @residual_on_f32_accumulator(%x: tensor<?x2048xf16>, %qweight: tensor<256x2048xi32>, %scales: tensor<16x2048xf16>, %residual: tensor<?x2048xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %de = tensor.empty() : tensor<2048x2048xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<256x2048xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<16x2048xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<2048x2048xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %acc_e = tensor.empty(%m) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc_e : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x2048xf16>, tensor<2048x2048xf16>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %re = tensor.empty(%m) : tensor<?x2048xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %residual : tensor<?x2048xf32>, tensor<?x2048xf16>) outs(%re : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %r: f16, %o: f16):
    %0 = arith.extf %r : f16 to f32
    %1 = arith.addf %a, %0 : f32
    %2 = arith.truncf %1 : f32 to f16
    linalg.yield %2 : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
