// Full chains dequant -> matmul -> bias -> activation -> residual (docs/contract.md §1) written the ways frontends do:
// one generic per step, several steps in one generic, named linalg.broadcast/linalg.add, torch-mlir's
// sigmoid + multiply, f32 between extf/truncf, commuted operands. Each must become ONE fused op carrying
// bias and residual (operandSegmentSizes 1, 1, 1, 1, 1) with every intermediate erased.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// One generic per step (bias, silu, residual), all f16. GPTQ weight, dynamic M, K = 4096, N = 11008.

// CHECK-LABEL: func.func @bias_silu_residual_separate(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x11008xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<11008xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<?x11008xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     tensor.empty
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]], %[[RES]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<512x11008xi32>, tensor<32x11008xf16>, tensor<11008xf16>, tensor<?x11008xf16>) -> tensor<?x11008xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     tensor.empty
// CHECK-NOT:     math.exp
// CHECK:         return %[[R]] : tensor<?x11008xf16>
func.func @bias_silu_residual_separate(%x: tensor<?x4096xf16>, %qweight: tensor<512x11008xi32>, %scales: tensor<32x11008xf16>, %bias: tensor<11008xf16>, %residual: tensor<?x11008xf16>) -> tensor<?x11008xf16> {
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
  %e1 = tensor.empty(%m) : tensor<?x11008xf16>
  %biased = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x11008xf16>, tensor<11008xf16>) outs(%e1 : tensor<?x11008xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %0 = arith.addf %in, %in_0 : f16
    linalg.yield %0 : f16
  } -> tensor<?x11008xf16>
  %e2 = tensor.empty(%m) : tensor<?x11008xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<?x11008xf16>) outs(%e2 : tensor<?x11008xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<?x11008xf16>
  %e3 = tensor.empty(%m) : tensor<?x11008xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%act, %residual : tensor<?x11008xf16>, tensor<?x11008xf16>) outs(%e3 : tensor<?x11008xf16>) {
  ^bb0(%in: f16, %in_0: f16, %o: f16):
    %0 = arith.addf %in, %in_0 : f16
    linalg.yield %0 : f16
  } -> tensor<?x11008xf16>
  return %out : tensor<?x11008xf16>
}

// -----

// All three steps in one f16 generic reading (y, bias, residual). [K/128, 128, N] weight, M = 32.

// CHECK-LABEL: func.func @bias_silu_residual_one_generic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x128x11008xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<11008xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<32x128x11008xi4> into tensor<4096x11008xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]], %[[B]], %[[RES]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<32x4096xf16>, tensor<4096x11008xi4>, tensor<32x11008xf16>, tensor<11008xf16>, tensor<32x11008xf16>) -> tensor<32x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<32x11008xf16>
func.func @bias_silu_residual_one_generic(%x: tensor<32x4096xf16>, %w: tensor<32x128x11008xi4>, %s: tensor<32x11008xf16>, %bias: tensor<11008xf16>, %residual: tensor<32x11008xf16>) -> tensor<32x11008xf16> {
  %de3 = tensor.empty() : tensor<32x128x11008xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x11008xi4>, tensor<32x11008xf16>) outs(%de3 : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<32x128x11008xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<32x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<32x11008xf16>) -> tensor<32x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<32x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<32x11008xf16>) -> tensor<32x11008xf16>
  %oe = tensor.empty() : tensor<32x11008xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias, %residual : tensor<32x11008xf16>, tensor<11008xf16>, tensor<32x11008xf16>) outs(%oe : tensor<32x11008xf16>) {
  ^bb0(%y: f16, %b: f16, %r: f16, %o: f16):
    %one = arith.constant 1.000000e+00 : f16
    %0 = arith.addf %y, %b : f16
    %1 = arith.negf %0 : f16
    %2 = math.exp %1 : f16
    %3 = arith.addf %2, %one : f16
    %4 = arith.divf %one, %3 : f16
    %5 = arith.mulf %0, %4 : f16
    %6 = arith.addf %5, %r : f16
    linalg.yield %6 : f16
  } -> tensor<32x11008xf16>
  return %out : tensor<32x11008xf16>
}

// -----

// Named ops around torch-mlir's silu: linalg.broadcast + linalg.add for the bias, sigmoid generic, multiply
// generic, then linalg.add(residual, act) with the residual first. nn.Linear storage, dynamic M.

// CHECK-LABEL: func.func @bias_silu_residual_named(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<14336x32x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<14336x32xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<14336xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<?x14336xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<14336x32x128xi4> into tensor<14336x4096xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]], %[[B]], %[[RES]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<14336x4096xi4>, tensor<14336x32xf16>, tensor<14336xf16>, tensor<?x14336xf16>) -> tensor<?x14336xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x14336xf16>
func.func @bias_silu_residual_named(%x: tensor<?x4096xf16>, %w: tensor<14336x32x128xi4>, %s: tensor<14336x32xf16>, %bias: tensor<14336xf16>, %residual: tensor<?x14336xf16>) -> tensor<?x14336xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.000000e+00 : f16
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de3 = tensor.empty() : tensor<14336x32x128xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<14336x32x128xi4>, tensor<14336x32xf16>) outs(%de3 : tensor<14336x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<14336x32x128xf16>
  %deq = tensor.collapse_shape %deq3 [[0], [1, 2]] : tensor<14336x32x128xf16> into tensor<14336x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x14336xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x14336xf16>) -> tensor<?x14336xf16>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %deq : tensor<?x4096xf16>, tensor<14336x4096xf16>) outs(%acc : tensor<?x14336xf16>) -> tensor<?x14336xf16>
  %0 = tensor.empty(%m) : tensor<?x14336xf16>
  %broadcasted = linalg.broadcast ins(%bias : tensor<14336xf16>) outs(%0 : tensor<?x14336xf16>) dimensions = [0]
  %1 = tensor.empty(%m) : tensor<?x14336xf16>
  %2 = linalg.add ins(%mm, %broadcasted : tensor<?x14336xf16>, tensor<?x14336xf16>) outs(%1 : tensor<?x14336xf16>) -> tensor<?x14336xf16>
  %3 = tensor.empty(%m) : tensor<?x14336xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<?x14336xf16>) outs(%3 : tensor<?x14336xf16>) {
  ^bb0(%in: f16, %out: f16):
    %9 = arith.negf %in : f16
    %10 = math.exp %9 : f16
    %11 = arith.addf %10, %cst : f16
    %12 = arith.divf %cst, %11 : f16
    linalg.yield %12 : f16
  } -> tensor<?x14336xf16>
  %5 = tensor.empty(%m) : tensor<?x14336xf16>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2, %4 : tensor<?x14336xf16>, tensor<?x14336xf16>) outs(%5 : tensor<?x14336xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %9 = arith.mulf %in, %in_0 : f16
    linalg.yield %9 : f16
  } -> tensor<?x14336xf16>
  %7 = tensor.empty(%m) : tensor<?x14336xf16>
  %8 = linalg.add ins(%residual, %6 : tensor<?x14336xf16>, tensor<?x14336xf16>) outs(%7 : tensor<?x14336xf16>) -> tensor<?x14336xf16>
  return %8 : tensor<?x14336xf16>
}

// -----

// Everything after the f32 accumulator in one f32 generic: bias (extf), gelu_tanh with x*x*x, residual
// (extf), single truncf. GPTQ weight, M = 8, K = 768, N = 3072 (GPT-2 MLP up projection).

// CHECK-LABEL: func.func @bias_gelu_residual_one_generic_f32(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x768xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<96x3072xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<6x3072xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<3072xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<8x3072xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]], %[[RES]])
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<8x768xf16>, tensor<96x3072xi32>, tensor<6x3072xf16>, tensor<3072xf16>, tensor<8x3072xf16>) -> tensor<8x3072xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     math.tanh
// CHECK:         return %[[R]] : tensor<8x3072xf16>
func.func @bias_gelu_residual_one_generic_f32(%x: tensor<8x768xf16>, %qweight: tensor<96x3072xi32>, %scales: tensor<6x3072xf16>, %bias: tensor<3072xf16>, %residual: tensor<8x3072xf16>) -> tensor<8x3072xf16> {
  %de = tensor.empty() : tensor<768x3072xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<768x3072xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<96x3072xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<6x3072xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<768x3072xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %acc_e = tensor.empty() : tensor<8x3072xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc_e : tensor<8x3072xf32>) -> tensor<8x3072xf32>
  %mm = linalg.matmul ins(%x, %deq : tensor<8x768xf16>, tensor<768x3072xf16>) outs(%acc : tensor<8x3072xf32>) -> tensor<8x3072xf32>
  %oe = tensor.empty() : tensor<8x3072xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias, %residual : tensor<8x3072xf32>, tensor<3072xf16>, tensor<8x3072xf16>) outs(%oe : tensor<8x3072xf16>) {
  ^bb0(%acc_v: f32, %b: f16, %r: f16, %o: f16):
    %kappa = arith.constant 4.471500e-02 : f32
    %beta = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %bf = arith.extf %b : f16 to f32
    %v = arith.addf %acc_v, %bf : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %k3 = arith.mulf %v3, %kappa : f32
    %in = arith.addf %v, %k3 : f32
    %sc = arith.mulf %in, %beta : f32
    %t = math.tanh %sc : f32
    %tp = arith.addf %t, %one : f32
    %hv = arith.mulf %v, %half : f32
    %g = arith.mulf %hv, %tp : f32
    %rf = arith.extf %r : f16 to f32
    %sum = arith.addf %g, %rf : f32
    %res = arith.truncf %sum : f32 to f16
    linalg.yield %res : f16
  } -> tensor<8x3072xf16>
  return %out : tensor<8x3072xf16>
}

// -----

// IREE contraction accumulating in f32, truncf generic, then bias + y (commuted) generic, gelu_tanh generic
// in f16 and residual + act (commuted) generic. [N, K/128, 128] weight, dynamic M, K = N = 4096.

// CHECK-LABEL: func.func @contraction_bias_gelu_residual(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<4096x32x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4096x32xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<4096xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<4096x32x128xi4> into tensor<4096x4096xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]], %[[B]], %[[RES]])
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<4096x4096xi4>, tensor<4096x32xf16>, tensor<4096xf16>, tensor<?x4096xf16>) -> tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x4096xf16>
func.func @contraction_bias_gelu_residual(%x: tensor<?x4096xf16>, %w: tensor<4096x32x128xi4>, %s: tensor<4096x32xf16>, %bias: tensor<4096xf16>, %residual: tensor<?x4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %zp = arith.constant 8.000000e+00 : f16
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %xg = tensor.expand_shape %x [[0], [1, 2]] output_shape [%m, 32, 128] : tensor<?x4096xf16> into tensor<?x32x128xf16>
  %de = tensor.empty() : tensor<4096x32x128xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x32x128xi4>, tensor<4096x32xf16>) outs(%de : tensor<4096x32x128xf16>) {
  ^bb0(%q: i4, %sc: f16, %o: f16):
    %0 = arith.extui %q : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %zp : f16
    %3 = arith.mulf %2, %sc : f16
    linalg.yield %3 : f16
  } -> tensor<4096x32x128xf16>
  %ae = tensor.empty(%m) : tensor<?x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x4096xf32>) -> tensor<?x4096xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xg, %deq : tensor<?x32x128xf16>, tensor<4096x32x128xf16>) outs(%acc : tensor<?x4096xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<?x4096xf32>
  %te = tensor.empty(%m) : tensor<?x4096xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x4096xf32>) outs(%te : tensor<?x4096xf16>) {
  ^bb0(%in: f32, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<?x4096xf16>
  %be = tensor.empty(%m) : tensor<?x4096xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias, %y : tensor<4096xf16>, tensor<?x4096xf16>) outs(%be : tensor<?x4096xf16>) {
  ^bb0(%b: f16, %v: f16, %out: f16):
    %0 = arith.addf %b, %v : f16
    linalg.yield %0 : f16
  } -> tensor<?x4096xf16>
  %ge = tensor.empty(%m) : tensor<?x4096xf16>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<?x4096xf16>) outs(%ge : tensor<?x4096xf16>) {
  ^bb0(%v: f16, %out: f16):
    %half = arith.constant 5.000000e-01 : f16
    %one = arith.constant 1.000000e+00 : f16
    %kappa = arith.constant 4.471500e-02 : f16
    %beta = arith.constant 7.978520e-01 : f16
    %0 = arith.mulf %v, %v : f16
    %1 = arith.mulf %0, %v : f16
    %2 = arith.mulf %kappa, %1 : f16
    %3 = arith.addf %v, %2 : f16
    %4 = arith.mulf %beta, %3 : f16
    %5 = math.tanh %4 : f16
    %6 = arith.addf %one, %5 : f16
    %7 = arith.mulf %half, %v : f16
    %8 = arith.mulf %7, %6 : f16
    linalg.yield %8 : f16
  } -> tensor<?x4096xf16>
  %re = tensor.empty(%m) : tensor<?x4096xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%residual, %g : tensor<?x4096xf16>, tensor<?x4096xf16>) outs(%re : tensor<?x4096xf16>) {
  ^bb0(%r: f16, %a: f16, %o: f16):
    %0 = arith.addf %r, %a : f16
    linalg.yield %0 : f16
  } -> tensor<?x4096xf16>
  return %out : tensor<?x4096xf16>
}

// -----

// bias + silu in one f32 generic (extf/truncf around), residual in a separate f16 generic. Small shape
// K = 256, N = 64, M = 7.

// CHECK-LABEL: func.func @bias_silu_f32_then_residual(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<7x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<7x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]], %[[RES]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<7x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>, tensor<7x64xf16>) -> tensor<7x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<7x64xf16>
func.func @bias_silu_f32_then_residual(%x: tensor<7x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>, %residual: tensor<7x64xf16>) -> tensor<7x64xf16> {
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
  %acc_e = tensor.empty() : tensor<7x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<7x64xf16>) -> tensor<7x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<7x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<7x64xf16>) -> tensor<7x64xf16>
  %e1 = tensor.empty() : tensor<7x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<7x64xf16>, tensor<64xf16>) outs(%e1 : tensor<7x64xf16>) {
  ^bb0(%y: f16, %b: f16, %o: f16):
    %one = arith.constant 1.000000e+00 : f32
    %0 = arith.extf %y : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.addf %1, %0 : f32
    %3 = arith.negf %2 : f32
    %4 = math.exp %3 : f32
    %5 = arith.addf %one, %4 : f32
    %6 = arith.divf %one, %5 : f32
    %7 = arith.mulf %2, %6 : f32
    %8 = arith.truncf %7 : f32 to f16
    linalg.yield %8 : f16
  } -> tensor<7x64xf16>
  %e2 = tensor.empty() : tensor<7x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%act, %residual : tensor<7x64xf16>, tensor<7x64xf16>) outs(%e2 : tensor<7x64xf16>) {
  ^bb0(%a: f16, %r: f16, %o: f16):
    %0 = arith.addf %a, %r : f16
    linalg.yield %0 : f16
  } -> tensor<7x64xf16>
  return %out : tensor<7x64xf16>
}
