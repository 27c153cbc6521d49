// gelu_tanh epilogues (docs/contract.md §1/§4): 0.5 v (1 + tanh(0.7978845608028654 (v + 0.044715 v^3))) via math.tanh,
// with v^3 as v*v*v, math.powf(v, 3.0) or math.fpowi(v, 3); in f16 (constants rounded to f16) or in f32
// between extf/truncf; different but equivalent associations of the products.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// f16 body, v^3 = (v * v) * v, (0.5 * v) * (1 + t). GPTQ weight, dynamic M, K = N = 4096.

// CHECK-LABEL: func.func @gelu_tanh_f16_cube_by_mul(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x4096xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<512x4096xi32>, tensor<32x4096xf16>) -> tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     math.tanh
// CHECK:         return %[[R]] : tensor<?x4096xf16>
func.func @gelu_tanh_f16_cube_by_mul(%x: tensor<?x4096xf16>, %qweight: tensor<512x4096xi32>, %scales: tensor<32x4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %half = arith.constant 5.000000e-01 : f16
  %one = arith.constant 1.000000e+00 : f16
  %kappa = arith.constant 4.471500e-02 : f16
  %beta = arith.constant 0.7978845608028654 : f16
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
  %ge = tensor.empty(%m) : tensor<?x4096xf16>
  %gelu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x4096xf16>) outs(%ge : tensor<?x4096xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.mulf %in, %in : f16
    %1 = arith.mulf %0, %in : f16
    %2 = arith.mulf %1, %kappa : f16
    %3 = arith.addf %in, %2 : f16
    %4 = arith.mulf %3, %beta : f16
    %5 = math.tanh %4 : f16
    %6 = arith.addf %5, %one : f16
    %7 = arith.mulf %in, %half : f16
    %8 = arith.mulf %7, %6 : f16
    linalg.yield %8 : f16
  } -> tensor<?x4096xf16>
  return %gelu : tensor<?x4096xf16>
}

// -----

// torch-mlir's aten.gelu(approximate="tanh") in f32: math.powf(v, 3.0), beta * (v + kappa * v^3),
// 0.5 * (v * (1 + t)), extf/truncf around. [K/128, 128, N] weight, M = 32, K = 4096, N = 16384.

// CHECK-LABEL: func.func @gelu_tanh_f32_powf(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x128x16384xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x16384xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<32x128x16384xi4> into tensor<4096x16384xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<32x4096xf16>, tensor<4096x16384xi4>, tensor<32x16384xf16>) -> tensor<32x16384xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<32x16384xf16>
func.func @gelu_tanh_f32_powf(%x: tensor<32x4096xf16>, %w: tensor<32x128x16384xi4>, %s: tensor<32x16384xf16>) -> tensor<32x16384xf16> {
  %de3 = tensor.empty() : tensor<32x128x16384xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x16384xi4>, tensor<32x16384xf16>) outs(%de3 : tensor<32x128x16384xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<32x128x16384xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x16384xf16> into tensor<4096x16384xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<32x16384xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<32x16384xf16>) -> tensor<32x16384xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<32x4096xf16>, tensor<4096x16384xf16>) outs(%acc : tensor<32x16384xf16>) -> tensor<32x16384xf16>
  %ge = tensor.empty() : tensor<32x16384xf16>
  %gelu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<32x16384xf16>) outs(%ge : tensor<32x16384xf16>) {
  ^bb0(%in: f16, %out: f16):
    %cst = arith.constant 3.000000e+00 : f32
    %cst_0 = arith.constant 4.471500e-02 : f32
    %cst_1 = arith.constant 0.797884583 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %0 = arith.extf %in : f16 to f32
    %1 = math.powf %0, %cst : f32
    %2 = arith.mulf %cst_0, %1 : f32
    %3 = arith.addf %0, %2 : f32
    %4 = arith.mulf %cst_1, %3 : f32
    %5 = math.tanh %4 : f32
    %6 = arith.addf %cst_2, %5 : f32
    %7 = arith.mulf %0, %6 : f32
    %8 = arith.mulf %cst_3, %7 : f32
    %9 = arith.truncf %8 : f32 to f16
    linalg.yield %9 : f16
  } -> tensor<32x16384xf16>
  return %gelu : tensor<32x16384xf16>
}

// -----

// gelu on the f32 accumulator (f16 x f16 -> f32 init) with math.fpowi(v, 3) and (1 + t) * (0.5 * v);
// nn.Linear (N, K) storage with transposed-B matmul. Small shape K = 256, N = 64, dynamic M.

// CHECK-LABEL: func.func @gelu_tanh_f32_acc_fpowi(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x256xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<64x2x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<64x2xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<64x2x128xi4> into tensor<64x256xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<?x256xf16>, tensor<64x256xi4>, tensor<64x2xf16>) -> tensor<?x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x64xf16>
func.func @gelu_tanh_f32_acc_fpowi(%x: tensor<?x256xf16>, %w: tensor<64x2x128xi4>, %s: tensor<64x2xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de3 = tensor.empty() : tensor<64x2x128xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<64x2x128xi4>, tensor<64x2xf16>) outs(%de3 : tensor<64x2x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<64x2x128xf16>
  %deq = tensor.collapse_shape %deq3 [[0], [1, 2]] : tensor<64x2x128xf16> into tensor<64x256xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %acc_e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc_e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %deq : tensor<?x256xf16>, tensor<64x256xf16>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %ge = tensor.empty(%m) : tensor<?x64xf16>
  %gelu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x64xf32>) outs(%ge : tensor<?x64xf16>) {
  ^bb0(%v: f32, %out: f16):
    %c3_i32 = arith.constant 3 : i32
    %kappa = arith.constant 4.471500e-02 : f32
    %beta = arith.constant 0.7978845608028654 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %cube = math.fpowi %v, %c3_i32 : f32, i32
    %kc = arith.mulf %cube, %kappa : f32
    %inner = arith.addf %kc, %v : f32
    %scaled = arith.mulf %inner, %beta : f32
    %t = math.tanh %scaled : f32
    %onept = arith.addf %one, %t : f32
    %hv = arith.mulf %half, %v : f32
    %r = arith.mulf %onept, %hv : f32
    %rh = arith.truncf %r : f32 to f16
    linalg.yield %rh : f16
  } -> tensor<?x64xf16>
  return %gelu : tensor<?x64xf16>
}

// -----

// f16 gelu with v * v * v computed as v * (v * v) and the constants captured from outside the generic;
// realistic GPT-style up projection K = 1024, N = 4096, M = 8.

// CHECK-LABEL: func.func @gelu_tanh_f16_gpt_up(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x1024xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<128x4096xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<8x1024xf16>, tensor<128x4096xi32>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<8x4096xf16>
func.func @gelu_tanh_f16_gpt_up(%x: tensor<8x1024xf16>, %qweight: tensor<128x4096xi32>, %scales: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %cst = arith.constant 4.471500e-02 : f16
  %cst_0 = arith.constant 7.978520e-01 : f16
  %cst_1 = arith.constant 1.000000e+00 : f16
  %cst_2 = arith.constant 5.000000e-01 : f16
  %de = tensor.empty() : tensor<1024x4096xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x4096xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x4096xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x4096xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<8x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<8x1024xf16>, tensor<1024x4096xf16>) outs(%acc : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %0 = tensor.empty() : tensor<8x4096xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<8x4096xf16>) outs(%0 : tensor<8x4096xf16>) {
  ^bb0(%in: f16, %out: f16):
    %2 = arith.mulf %in, %in : f16
    %3 = arith.mulf %in, %2 : f16
    %4 = arith.mulf %cst, %3 : f16
    %5 = arith.addf %4, %in : f16
    %6 = arith.mulf %cst_0, %5 : f16
    %7 = math.tanh %6 : f16
    %8 = arith.addf %cst_1, %7 : f16
    %9 = arith.mulf %cst_2, %in : f16
    %10 = arith.mulf %9, %8 : f16
    linalg.yield %10 : f16
  } -> tensor<8x4096xf16>
  return %1 : tensor<8x4096xf16>
}
