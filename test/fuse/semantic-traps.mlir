// Semantic traps: IR that LOOKS like a fusable chain (same ops, same shapes) but computes something else.
// Each must be left alone (byte-for-byte) or, where a prefix is still a valid chain, only that prefix fuses.
// A matcher that checks op names and shapes but not indexing maps, operand order or constant values fuses
// these wrongly. One control case (@transposes_cancel) looks as suspicious but is exactly the chain.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// Weight stored [N, 128, K/128] (in-group index first) with per-(n, group) scales, contracted with (d1, d3, d2):
// a valid grouping, but collapsing the weight to (N, K) would order K wrongly.

// CHECK-LABEL: func.func @ingroup_major_weight(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT:     w4a16.fused_matmul
func.func @ingroup_major_weight(%x: tensor<4x4096xf16>, %w: tensor<4096x128x32xi4>, %s: tensor<4096x32xf16>) -> tensor<4x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 32, 128] : tensor<4x4096xf16> into tensor<4x32x128xf16>
  %0 = tensor.empty() : tensor<4096x128x32xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x128x32xi4>, tensor<4096x32xf16>) outs(%0 : tensor<4096x128x32xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<4096x128x32xf16>
  %2 = tensor.empty() : tensor<4x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<4x32x128xf16>, tensor<4096x128x32xf16>) outs(%3 : tensor<4x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<4x4096xf16>
  return %4 : tensor<4x4096xf16>
}

// -----

// Scales [N, 128] read with (d0, d2): the scale follows the position inside the group, not the group.

// CHECK-LABEL: func.func @scale_per_ingroup_position(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT:     w4a16.fused_matmul
func.func @scale_per_ingroup_position(%x: tensor<4x4096xf16>, %w: tensor<4096x32x128xi4>, %s: tensor<4096x128xf16>) -> tensor<4x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 32, 128] : tensor<4x4096xf16> into tensor<4x32x128xf16>
  %0 = tensor.empty() : tensor<4096x32x128xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x32x128xi4>, tensor<4096x128xf16>) outs(%0 : tensor<4096x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<4096x32x128xf16>
  %2 = tensor.empty() : tensor<4x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<4x32x128xf16>, tensor<4096x32x128xf16>) outs(%3 : tensor<4x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<4x4096xf16>
  return %4 : tensor<4x4096xf16>
}

// -----

// Zero points come in as a function argument (unknown values, IREE's quantized-matmul form). Since issue #17
// this is the chain with a zero_points operand (it was a trap while only the constant 8 was supported).

// CHECK-LABEL: func.func @zero_points_from_argument(
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4096x32xf16>, %[[ZPS:[a-zA-Z0-9_]+]]: tensor<4096x32xf16>
// CHECK:         "w4a16.fused_matmul"(%{{.+}}, %{{.+}}, %[[S]], %[[ZPS]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>
// CHECK-SAME:      zero_point_layout = "n_g"
// CHECK-NOT:     linalg.
func.func @zero_points_from_argument(%x: tensor<4x4096xf16>, %w: tensor<4096x32x128xi4>, %s: tensor<4096x32xf16>, %zps: tensor<4096x32xf16>) -> tensor<4x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 32, 128] : tensor<4x4096xf16> into tensor<4x32x128xf16>
  %0 = tensor.empty() : tensor<4096x32x128xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s, %zps : tensor<4096x32x128xi4>, tensor<4096x32xf16>, tensor<4096x32xf16>) outs(%0 : tensor<4096x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %z: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %z : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<4096x32x128xf16>
  %2 = tensor.empty() : tensor<4x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<4x32x128xf16>, tensor<4096x32x128xf16>) outs(%3 : tensor<4x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<4x4096xf16>
  return %4 : tensor<4x4096xf16>
}

// -----

// (code - 8) * s * s.

// CHECK-LABEL: func.func @scale_applied_twice(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT:     w4a16.fused_matmul
func.func @scale_applied_twice(%x: tensor<4x4096xf16>, %w: tensor<4096x32x128xi4>, %s: tensor<4096x32xf16>) -> tensor<4x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 32, 128] : tensor<4x4096xf16> into tensor<4x32x128xf16>
  %0 = tensor.empty() : tensor<4096x32x128xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x32x128xi4>, tensor<4096x32xf16>) outs(%0 : tensor<4096x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    %9 = arith.mulf %8, %in_0 : f16
    linalg.yield %9 : f16
  } -> tensor<4096x32x128xf16>
  %2 = tensor.empty() : tensor<4x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<4x32x128xf16>, tensor<4096x32x128xf16>) outs(%3 : tensor<4x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<4x4096xf16>
  return %4 : tensor<4x4096xf16>
}

// -----

// The contraction body accumulates out - x * w: the result is -(x @ W).

// CHECK-LABEL: func.func @contraction_subtracts(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT:     w4a16.fused_matmul
func.func @contraction_subtracts(%x: tensor<4x4096xf16>, %w: tensor<4096x32x128xi4>, %s: tensor<4096x32xf16>) -> tensor<4x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 32, 128] : tensor<4x4096xf16> into tensor<4x32x128xf16>
  %0 = tensor.empty() : tensor<4096x32x128xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x32x128xi4>, tensor<4096x32xf16>) outs(%0 : tensor<4096x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<4096x32x128xf16>
  %2 = tensor.empty() : tensor<4x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<4x32x128xf16>, tensor<4096x32x128xf16>) outs(%3 : tensor<4x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.subf %out, %5 : f16
    linalg.yield %6 : f16
  } -> tensor<4x4096xf16>
  return %4 : tensor<4x4096xf16>
}

// -----

// The contraction body is max(out, x * w) (a tropical product), not a sum.

// CHECK-LABEL: func.func @contraction_max_plus(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT:     w4a16.fused_matmul
func.func @contraction_max_plus(%x: tensor<4x4096xf16>, %w: tensor<4096x32x128xi4>, %s: tensor<4096x32xf16>) -> tensor<4x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 32, 128] : tensor<4x4096xf16> into tensor<4x32x128xf16>
  %0 = tensor.empty() : tensor<4096x32x128xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x32x128xi4>, tensor<4096x32xf16>) outs(%0 : tensor<4096x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<4096x32x128xf16>
  %2 = tensor.empty() : tensor<4x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<4x32x128xf16>, tensor<4096x32x128xf16>) outs(%3 : tensor<4x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.maximumf %out, %5 : f16
    linalg.yield %6 : f16
  } -> tensor<4x4096xf16>
  return %4 : tensor<4x4096xf16>
}

// -----

// NOT a trap, the control for the one above: the dequant writes its output transposed ([N, 128, K/128])
// and the contraction reads it back transposed ((d1, d3, d2)); the two transposes cancel, x[m, g, i] meets
// code[n, g, i] with scale[n, g], so this IS the chain and fuses (n_k / n_g).

// CHECK-LABEL: func.func @transposes_cancel(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<4096x32x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4096x32xf16>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<4096x32x128xi4> into tensor<4096x4096xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<4x4096xf16>, tensor<4096x4096xi4>, tensor<4096x32xf16>) -> tensor<4x4096xf16>
// CHECK-NOT:     linalg.generic
func.func @transposes_cancel(%x: tensor<4x4096xf16>, %w: tensor<4096x32x128xi4>, %s: tensor<4096x32xf16>) -> tensor<4x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 32, 128] : tensor<4x4096xf16> into tensor<4x32x128xf16>
  %0 = tensor.empty() : tensor<4096x128x32xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2, d1)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x32x128xi4>, tensor<4096x32xf16>) outs(%0 : tensor<4096x128x32xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<4096x128x32xf16>
  %2 = tensor.empty() : tensor<4x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<4x32x128xf16>, tensor<4096x128x32xf16>) outs(%3 : tensor<4x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<4x4096xf16>
  return %4 : tensor<4x4096xf16>
}

// -----

// M = N = 64 and a (64,) vector added along the ROWS ((d0, d1) -> (d0)): a per-row add, not a bias. Only
// dequant + matmul fuse; the add stays and reads the fused result.

// CHECK-LABEL: func.func @row_vector_is_not_bias(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<64x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<64x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<64x64xf16>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[R]], %{{.+}} : tensor<64x64xf16>, tensor<64xf16>)
func.func @row_vector_is_not_bias(%x: tensor<64x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %rowvec: tensor<64xf16>) -> tensor<64x64xf16> {
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
  %acc_e = tensor.empty() : tensor<64x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<64x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<64x64xf16>) -> tensor<64x64xf16>
  %be = tensor.empty() : tensor<64x64xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %rowvec : tensor<64x64xf16>, tensor<64xf16>) outs(%be : tensor<64x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<64x64xf16>
  return %y : tensor<64x64xf16>
}

// -----

// M = N = 64 and the (M, N) tensor added TRANSPOSED ((d1, d0)): not a residual. Only dequant + matmul fuse.

// CHECK-LABEL: func.func @transposed_add_is_not_residual(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<64x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<64x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<64x64xf16>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[R]], %{{.+}} : tensor<64x64xf16>, tensor<64x64xf16>)
func.func @transposed_add_is_not_residual(%x: tensor<64x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %r: tensor<64x64xf16>) -> tensor<64x64xf16> {
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
  %acc_e = tensor.empty() : tensor<64x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<64x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<64x64xf16>) -> tensor<64x64xf16>
  %re = tensor.empty() : tensor<64x64xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %r : tensor<64x64xf16>, tensor<64x64xf16>) outs(%re : tensor<64x64xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<64x64xf16>
  return %y : tensor<64x64xf16>
}

// -----

// The activation generic reads the matmul result transposed ((d1, d0), M = N): silu(y^T) is not in the chain.

// CHECK-LABEL: func.func @activation_reads_transposed(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<64x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<64x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<64x64xf16>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<64x64xf16>)
// CHECK:           math.exp
func.func @activation_reads_transposed(%x: tensor<64x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<64x64xf16> {
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
  %acc_e = tensor.empty() : tensor<64x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<64x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<64x64xf16>) -> tensor<64x64xf16>
  %ae = tensor.empty() : tensor<64x64xf16>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<64x64xf16>) outs(%ae : tensor<64x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<64x64xf16>
  return %a : tensor<64x64xf16>
}

// -----

// v * ((1 + exp(-v)) / 1): the divf operands are the wrong way round, this is not v * sigmoid(v).

// CHECK-LABEL: func.func @silu_divide_reversed(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<64x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<64x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<64x64xf16>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<64x64xf16>)
func.func @silu_divide_reversed(%x: tensor<64x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<64x64xf16> {
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
  %acc_e = tensor.empty() : tensor<64x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<64x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<64x64xf16>) -> tensor<64x64xf16>
  %ae = tensor.empty() : tensor<64x64xf16>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<64x64xf16>) outs(%ae : tensor<64x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %2, %one : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<64x64xf16>
  return %a : tensor<64x64xf16>
}

// -----

// v * sigmoid(v) computed but the multiply uses the sigmoid of the NEGATED value: v * sigmoid(-v).

// CHECK-LABEL: func.func @silu_of_negated(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<64x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<64x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<64x64xf16>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[R]] : tensor<64x64xf16>)
func.func @silu_of_negated(%x: tensor<64x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<64x64xf16> {
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
  %acc_e = tensor.empty() : tensor<64x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<64x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<64x64xf16>) -> tensor<64x64xf16>
  %ae = tensor.empty() : tensor<64x64xf16>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<64x64xf16>) outs(%ae : tensor<64x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %1 = math.exp %in : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<64x64xf16>
  return %a : tensor<64x64xf16>
}

// -----

// GPTQ unpack whose scale row is k mod 128 (scales (128, N)) instead of k / 128.

// CHECK-LABEL: func.func @gptq_scale_k_mod_128(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @gptq_scale_k_mod_128(%x: tensor<4x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<128x64xf16>) -> tensor<4x64xf16> {
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
    %g = arith.remui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<128x64xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %mm : tensor<4x64xf16>
}

// -----

// Zero points as a non-splat dense constant: all 8 except one 7.

// CHECK-LABEL: func.func @zero_points_not_all_8(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @zero_points_not_all_8(%x: tensor<2x256xf16>, %w: tensor<2x128x4xi4>, %s: tensor<2x4xf16>) -> tensor<2x4xf16> {
  %zps = arith.constant dense<[[8.0, 8.0, 8.0, 8.0], [8.0, 8.0, 7.0, 8.0]]> : tensor<2x4xf16>
  %cst = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<2x128x4xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s, %zps : tensor<2x128x4xi4>, tensor<2x4xf16>, tensor<2x4xf16>) outs(%0 : tensor<2x128x4xf16>) {
  ^bb0(%in: i4, %sc: f16, %z: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %z : f16
    %8 = arith.mulf %7, %sc : f16
    linalg.yield %8 : f16
  } -> tensor<2x128x4xf16>
  %c = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<2x128x4xf16> into tensor<256x4xf16>
  %2 = tensor.empty() : tensor<2x4xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<2x4xf16>) -> tensor<2x4xf16>
  %4 = linalg.matmul ins(%x, %c : tensor<2x256xf16>, tensor<256x4xf16>) outs(%3 : tensor<2x4xf16>) -> tensor<2x4xf16>
  return %4 : tensor<2x4xf16>
}
