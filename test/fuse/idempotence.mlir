// Idempotence: running the pass on its own output changes nothing (fused ops are not matmuls fed by a
// dequant, the ops left behind after a partial fusion are not re-absorbed into a fused op, already-fused input
// stays as it is), so fuse|fuse == fuse, byte for byte.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s -o %t.once
// RUN: w4a16-opt --w4a16-fuse --split-input-file %t.once -o %t.twice
// RUN: diff %t.once %t.twice
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | w4a16-opt --w4a16-fuse --split-input-file | FileCheck %s

// Partial fusion: the matmul result is also returned, so the bias + silu generics stay after the fused op;
// a second run must not pull them into it.

// CHECK-LABEL: func.func @partial(
// CHECK-COUNT-1: "w4a16.fused_matmul"
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK:         linalg.generic
// CHECK:         linalg.generic
// CHECK:           math.exp
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         return
func.func @partial(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %bias: tensor<64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %cz = arith.subf %cf, %zp : f16
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
  return %act, %mm : tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// Already-fused input followed by a residual add: the existing fused op is kept as written and the add is
// not merged into it (the pass fuses dequant chains, it does not grow existing fused ops).

// CHECK-LABEL: func.func @already_fused(
// CHECK:         %[[F:.+]] = "w4a16.fused_matmul"
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[F]],
// CHECK-NOT:     w4a16.fused_matmul
func.func @already_fused(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %r: tensor<?x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %f = "w4a16.fused_matmul"(%x, %w, %s, %b) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<?x64xf16>
  %e = tensor.empty(%m) : tensor<?x64xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%f, %r : tensor<?x64xf16>, tensor<?x64xf16>) outs(%e : tensor<?x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %out: f16):
    %0 = arith.addf %a, %bb : f16
    linalg.yield %0 : f16
  } -> tensor<?x64xf16>
  return %o : tensor<?x64xf16>
}

// -----

// A full chain (bias, gelu_tanh, residual) next to an unfusable one (zero point 7.3, not a multiple of 1/8) in the same function.

// CHECK-LABEL: func.func @full_and_unfusable(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @full_and_unfusable(%x: tensor<8x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>, %bias: tensor<256xf16>, %residual: tensor<8x256xf16>, %qw7: tensor<128x256xi32>, %s7: tensor<8x256xf16>) -> (tensor<8x256xf16>, tensor<8x256xf16>) {
  %de_a = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_a : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_a_i = arith.constant 8 : index
    %c128_a_i = arith.constant 128 : index
    %c4_a_i32 = arith.constant 4 : i32
    %c15_a_i32 = arith.constant 15 : i32
    %zp_a = arith.constant 8.000000e+00 : f16
    %k_a = linalg.index 0 : index
    %n_a = linalg.index 1 : index
    %kw_a = arith.divui %k_a, %c8_a_i : index
    %word_a = tensor.extract %qweight[%kw_a, %n_a] : tensor<128x256xi32>
    %lane_a = arith.remui %k_a, %c8_a_i : index
    %lane_a_i32 = arith.index_cast %lane_a : index to i32
    %sh_a = arith.muli %lane_a_i32, %c4_a_i32 : i32
    %v_a = arith.shrui %word_a, %sh_a : i32
    %code_a = arith.andi %v_a, %c15_a_i32 : i32
    %cf_a = arith.uitofp %code_a : i32 to f16
    %cz_a = arith.subf %cf_a, %zp_a : f16
    %g_a = arith.divui %k_a, %c128_a_i : index
    %sc_a = tensor.extract %scales[%g_a, %n_a] : tensor<8x256xf16>
    %w_a = arith.mulf %cz_a, %sc_a : f16
    linalg.yield %w_a : f16
  } -> tensor<1024x256xf16>
  %zero_a = arith.constant 0.000000e+00 : f16
  %acc_e_a = tensor.empty() : tensor<8x256xf16>
  %acc_a = linalg.fill ins(%zero_a : f16) outs(%acc_e_a : tensor<8x256xf16>) -> tensor<8x256xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<8x1024xf16>, tensor<1024x256xf16>) outs(%acc_a : tensor<8x256xf16>) -> tensor<8x256xf16>
  %oe = tensor.empty() : tensor<8x256xf16>
  %full = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias, %residual : tensor<8x256xf16>, tensor<256xf16>, tensor<8x256xf16>) outs(%oe : tensor<8x256xf16>) {
  ^bb0(%y: f16, %b: f16, %r: f16, %o: f16):
    %kappa = arith.constant 4.471500e-02 : f32
    %beta = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %yf = arith.extf %y : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %v = arith.addf %yf, %bf : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %k3 = arith.mulf %v3, %kappa : f32
    %in = arith.addf %v, %k3 : f32
    %sc = arith.mulf %in, %beta : f32
    %t = math.tanh %sc : f32
    %tp = arith.addf %t, %one : f32
    %hv = arith.mulf %v, %half : f32
    %g = arith.mulf %hv, %tp : f32
    %gh = arith.truncf %g : f32 to f16
    %res = arith.addf %gh, %r : f16
    linalg.yield %res : f16
  } -> tensor<8x256xf16>
  %de7 = tensor.empty() : tensor<1024x256xf16>
  %deq7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de7 : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 7.300780e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qw7[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %s7[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero_7 = arith.constant 0.000000e+00 : f16
  %acc_e_7 = tensor.empty() : tensor<8x256xf16>
  %acc_7 = linalg.fill ins(%zero_7 : f16) outs(%acc_e_7 : tensor<8x256xf16>) -> tensor<8x256xf16>
  %mm7 = linalg.matmul ins(%x, %deq7 : tensor<8x1024xf16>, tensor<1024x256xf16>) outs(%acc_7 : tensor<8x256xf16>) -> tensor<8x256xf16>
  return %full, %mm7 : tensor<8x256xf16>, tensor<8x256xf16>
}
