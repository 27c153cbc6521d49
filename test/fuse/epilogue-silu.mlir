// silu epilogues (docs/contract.md §4): silu(v) = v * sigmoid(v), sigmoid via arith.negf, math.exp, arith.addf 1,
// arith.divf 1 / d; in f16, in f32 between extf/truncf, as one generic or as torch-mlir's separate sigmoid
// generic followed by a multiply generic, with commuted operands.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// One f16 generic: v * (1 / (1 + exp(-v))). GPTQ weight, dynamic M, K = 4096, N = 11008.

// CHECK-LABEL: func.func @silu_f16_one_generic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x11008xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<512x11008xi32>, tensor<32x11008xf16>) -> tensor<?x11008xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     math.exp
// CHECK:         return %[[R]] : tensor<?x11008xf16>
func.func @silu_f16_one_generic(%x: tensor<?x4096xf16>, %qweight: tensor<512x11008xi32>, %scales: tensor<32x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.000000e+00 : f16
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
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
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %se = tensor.empty(%m) : tensor<?x11008xf16>
  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x11008xf16>) outs(%se : tensor<?x11008xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<?x11008xf16>
  return %silu : tensor<?x11008xf16>
}

// -----

// One generic computing in f32: extf, sigmoid(v) * v with the constant 1 on the left of the addf,
// truncf. [K/128, 128, N] weight, M = 16, K = 4096, N = 14336.

// CHECK-LABEL: func.func @silu_f32_one_generic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<16x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x128x14336xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x14336xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<32x128x14336xi4> into tensor<4096x14336xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<16x4096xf16>, tensor<4096x14336xi4>, tensor<32x14336xf16>) -> tensor<16x14336xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<16x14336xf16>
func.func @silu_f32_one_generic(%x: tensor<16x4096xf16>, %w: tensor<32x128x14336xi4>, %s: tensor<32x14336xf16>) -> tensor<16x14336xf16> {
  %de3 = tensor.empty() : tensor<32x128x14336xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x14336xi4>, tensor<32x14336xf16>) outs(%de3 : tensor<32x128x14336xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<32x128x14336xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x14336xf16> into tensor<4096x14336xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<16x14336xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<16x14336xf16>) -> tensor<16x14336xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<16x4096xf16>, tensor<4096x14336xf16>) outs(%acc : tensor<16x14336xf16>) -> tensor<16x14336xf16>
  %se = tensor.empty() : tensor<16x14336xf16>
  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<16x14336xf16>) outs(%se : tensor<16x14336xf16>) {
  ^bb0(%in: f16, %out: f16):
    %cst = arith.constant 1.000000e+00 : f32
    %0 = arith.extf %in : f16 to f32
    %1 = arith.negf %0 : f32
    %2 = math.exp %1 : f32
    %3 = arith.addf %cst, %2 : f32
    %4 = arith.divf %cst, %3 : f32
    %5 = arith.mulf %4, %0 : f32
    %6 = arith.truncf %5 : f32 to f16
    linalg.yield %6 : f16
  } -> tensor<16x14336xf16>
  return %silu : tensor<16x14336xf16>
}

// -----

// torch-mlir: aten.silu decomposed into a sigmoid generic and a multiply generic (v * sigmoid(v)).
// nn.Linear (N, K) storage, transposed-B matmul, dynamic M, K = 4096, N = 4096.

// CHECK-LABEL: func.func @silu_torch_sigmoid_then_mul(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<4096x32x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4096x32xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<4096x32x128xi4> into tensor<4096x4096xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<4096x4096xi4>, tensor<4096x32xf16>) -> tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x4096xf16>
func.func @silu_torch_sigmoid_then_mul(%x: tensor<?x4096xf16>, %w: tensor<4096x32x128xi4>, %s: tensor<4096x32xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %cst_1 = arith.constant 1.000000e+00 : f16
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de3 = tensor.empty() : tensor<4096x32x128xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x32x128xi4>, tensor<4096x32xf16>) outs(%de3 : tensor<4096x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<4096x32x128xf16>
  %deq = tensor.collapse_shape %deq3 [[0], [1, 2]] : tensor<4096x32x128xf16> into tensor<4096x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %0 = tensor.empty(%m) : tensor<?x4096xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x4096xf16>) outs(%0 : tensor<?x4096xf16>) {
  ^bb0(%in: f16, %out: f16):
    %4 = arith.negf %in : f16
    %5 = math.exp %4 : f16
    %6 = arith.addf %5, %cst_1 : f16
    %7 = arith.divf %cst_1, %6 : f16
    linalg.yield %7 : f16
  } -> tensor<?x4096xf16>
  %2 = tensor.empty(%m) : tensor<?x4096xf16>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %1 : tensor<?x4096xf16>, tensor<?x4096xf16>) outs(%2 : tensor<?x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %4 = arith.mulf %in, %in_0 : f16
    linalg.yield %4 : f16
  } -> tensor<?x4096xf16>
  return %3 : tensor<?x4096xf16>
}

// -----

// Separate sigmoid and multiply generics with the sigmoid first in the multiply (sigmoid(v) * v); the
// multiply is the named linalg.mul. Small shape K = 256, N = 64, M = 5.

// CHECK-LABEL: func.func @silu_sigmoid_named_mul_commuted(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<5x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<5x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<5x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<5x64xf16>
func.func @silu_sigmoid_named_mul_commuted(%x: tensor<5x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<5x64xf16> {
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
  %acc_e = tensor.empty() : tensor<5x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<5x64xf16>) -> tensor<5x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<5x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<5x64xf16>) -> tensor<5x64xf16>
  %se = tensor.empty() : tensor<5x64xf16>
  %sig = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<5x64xf16>) outs(%se : tensor<5x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %n = arith.negf %in : f16
    %e = math.exp %n : f16
    %d = arith.addf %one, %e : f16
    %r = arith.divf %one, %d : f16
    linalg.yield %r : f16
  } -> tensor<5x64xf16>
  %me = tensor.empty() : tensor<5x64xf16>
  %silu = linalg.mul ins(%sig, %mm : tensor<5x64xf16>, tensor<5x64xf16>) outs(%me : tensor<5x64xf16>) -> tensor<5x64xf16>
  return %silu : tensor<5x64xf16>
}

// -----

// f32 accumulation (f16 x f16 -> f32 init) and silu computed on the f32 accumulator, the truncf at the
// end of the silu generic. GPTQ weight, M = 32, K = 4096, N = 11008.

// CHECK-LABEL: func.func @silu_on_f32_accumulator(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x11008xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<32x4096xf16>, tensor<512x11008xi32>, tensor<32x11008xf16>) -> tensor<32x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<32x11008xf16>
func.func @silu_on_f32_accumulator(%x: tensor<32x4096xf16>, %qweight: tensor<512x11008xi32>, %scales: tensor<32x11008xf16>) -> tensor<32x11008xf16> {
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
  %zero = arith.constant 0.000000e+00 : f32
  %acc_e = tensor.empty() : tensor<32x11008xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc_e : tensor<32x11008xf32>) -> tensor<32x11008xf32>
  %mm = linalg.matmul ins(%x, %deq : tensor<32x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<32x11008xf32>) -> tensor<32x11008xf32>
  %se = tensor.empty() : tensor<32x11008xf16>
  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<32x11008xf32>) outs(%se : tensor<32x11008xf16>) {
  ^bb0(%in: f32, %out: f16):
    %one = arith.constant 1.000000e+00 : f32
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %one, %d : f32
    %v = arith.mulf %in, %r : f32
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<32x11008xf16>
  return %silu : tensor<32x11008xf16>
}

// -----

// Two-reduction contraction, then a sigmoid generic in f32 (extf/truncf around) and a multiply generic
// in f16 (mul operands: sigmoid first). [N, K/128, 128] weight, M = 4.

// CHECK-LABEL: func.func @silu_contraction_sigmoid_f32(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x2048xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<5632x16x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<5632x16xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<5632x16x128xi4> into tensor<5632x2048xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<4x2048xf16>, tensor<5632x2048xi4>, tensor<5632x16xf16>) -> tensor<4x5632xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<4x5632xf16>
func.func @silu_contraction_sigmoid_f32(%x: tensor<4x2048xf16>, %w: tensor<5632x16x128xi4>, %s: tensor<5632x16xf16>) -> tensor<4x5632xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %xg = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 16, 128] : tensor<4x2048xf16> into tensor<4x16x128xf16>
  %de = tensor.empty() : tensor<5632x16x128xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<5632x16x128xi4>, tensor<5632x16xf16>) outs(%de : tensor<5632x16x128xf16>) {
  ^bb0(%q: i4, %sc: f16, %o: f16):
    %0 = arith.extui %q : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %zp : f16
    %3 = arith.mulf %2, %sc : f16
    linalg.yield %3 : f16
  } -> tensor<5632x16x128xf16>
  %ae = tensor.empty() : tensor<4x5632xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ae : tensor<4x5632xf16>) -> tensor<4x5632xf16>
  %mm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xg, %deq : tensor<4x16x128xf16>, tensor<5632x16x128xf16>) outs(%acc : tensor<4x5632xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %0 = arith.mulf %a, %b : f16
    %1 = arith.addf %0, %o : f16
    linalg.yield %1 : f16
  } -> tensor<4x5632xf16>
  %se = tensor.empty() : tensor<4x5632xf16>
  %sig = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x5632xf16>) outs(%se : tensor<4x5632xf16>) {
  ^bb0(%in: f16, %out: f16):
    %c1 = arith.constant 1.000000e+00 : f32
    %0 = arith.extf %in : f16 to f32
    %1 = arith.negf %0 : f32
    %2 = math.exp %1 : f32
    %3 = arith.addf %2, %c1 : f32
    %4 = arith.divf %c1, %3 : f32
    %5 = arith.truncf %4 : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<4x5632xf16>
  %pe = tensor.empty() : tensor<4x5632xf16>
  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sig, %mm : tensor<4x5632xf16>, tensor<4x5632xf16>) outs(%pe : tensor<4x5632xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %0 = arith.mulf %a, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x5632xf16>
  return %silu : tensor<4x5632xf16>
}
