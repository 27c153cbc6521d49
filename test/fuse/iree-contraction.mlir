// IREE / torch-mlir style grouped dequantisation (docs/contract.md §4 dequant (a)) feeding IREE's two-reduction
// contraction generic: x is expanded to [M, K/128, 128], the dequantised weight is [N, K/128, 128] (or
// [K/128, 128, N]) and the contraction reduces over (group, in-group). The fused op takes the 2-D x (the
// source of the expand_shape); the 3-D i4 weight and scales are collapsed to 2-D by the pass.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// [N, K/128, 128] i4 weight, [N, K/128] scales, scalar zero point, f16 accumulation, dynamic M.

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @iree_nk_f16_dynamic_m(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<11008x32x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<11008x32xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<11008x32x128xi4> into tensor<11008x4096xi4>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<11008x4096xi4>, tensor<11008x32xf16>) -> tensor<?x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x11008xf16>
func.func @iree_nk_f16_dynamic_m(%arg0: tensor<?x4096xf16>, %arg1: tensor<11008x32x128xi4>, %arg2: tensor<11008x32xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f16
  %cst_0 = arith.constant 8.000000e+00 : f16
  %dim = tensor.dim %arg0, %c0 : tensor<?x4096xf16>
  %expanded = tensor.expand_shape %arg0 [[0], [1, 2]] output_shape [%dim, 32, 128] : tensor<?x4096xf16> into tensor<?x32x128xf16>
  %0 = tensor.empty() : tensor<11008x32x128xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg2 : tensor<11008x32x128xi4>, tensor<11008x32xf16>) outs(%0 : tensor<11008x32x128xf16>) {
  ^bb0(%in: i4, %in_1: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %cst_0 : f16
    %8 = arith.mulf %7, %in_1 : f16
    linalg.yield %8 : f16
  } -> tensor<11008x32x128xf16>
  %2 = tensor.empty(%dim) : tensor<?x11008xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %4 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%expanded, %1 : tensor<?x32x128xf16>, tensor<11008x32x128xf16>) outs(%3 : tensor<?x11008xf16>) {
  ^bb0(%in: f16, %in_1: f16, %out: f16):
    %5 = arith.mulf %in, %in_1 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<?x11008xf16>
  return %4 : tensor<?x11008xf16>
}

// -----

// As IREE's own tests write it: per-group zero points as a tensor input ([N, K/128], here a linalg.fill
// of 8), f32 accumulation inside the contraction body (extf of both inputs) and an arith.truncf generic
// after it. Static M = 1 (decode).

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @iree_nk_zp_fill_f32_acc(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<1x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<4096x32x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4096x32xf16>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<4096x32x128xi4> into tensor<4096x4096xi4>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<1x4096xf16>, tensor<4096x4096xi4>, tensor<4096x32xf16>) -> tensor<1x4096xf16>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[R]] : tensor<1x4096xf16>
func.func @iree_nk_zp_fill_f32_acc(%x: tensor<1x4096xf16>, %w: tensor<4096x32x128xi4>, %scales: tensor<4096x32xf16>) -> tensor<1x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_zp = arith.constant 8.000000e+00 : f16
  %zp_init = tensor.empty() : tensor<4096x32xf16>
  %zps = linalg.fill ins(%cst_zp : f16) outs(%zp_init : tensor<4096x32xf16>) -> tensor<4096x32xf16>
  %expanded = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 32, 128] : tensor<1x4096xf16> into tensor<1x32x128xf16>
  %0 = tensor.empty() : tensor<4096x32x128xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %scales, %zps : tensor<4096x32x128xi4>, tensor<4096x32xf16>, tensor<4096x32xf16>) outs(%0 : tensor<4096x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %in_1: f16, %out: f16):
    %6 = arith.extui %in : i4 to i32
    %7 = arith.uitofp %6 : i32 to f16
    %8 = arith.subf %7, %in_1 : f16
    %9 = arith.mulf %8, %in_0 : f16
    linalg.yield %9 : f16
  } -> tensor<4096x32x128xf16>
  %2 = tensor.empty() : tensor<1x4096xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%expanded, %1 : tensor<1x32x128xf16>, tensor<4096x32x128xf16>) outs(%3 : tensor<1x4096xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %6 = arith.extf %in : f16 to f32
    %7 = arith.extf %in_0 : f16 to f32
    %8 = arith.mulf %6, %7 : f32
    %9 = arith.addf %out, %8 : f32
    linalg.yield %9 : f32
  } -> tensor<1x4096xf32>
  %5 = tensor.empty() : tensor<1x4096xf16>
  %trunc = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<1x4096xf32>) outs(%5 : tensor<1x4096xf16>) {
  ^bb0(%in: f32, %out: f16):
    %6 = arith.truncf %in : f32 to f16
    linalg.yield %6 : f16
  } -> tensor<1x4096xf16>
  return %trunc : tensor<1x4096xf16>
}

// -----

// [K/128, 128, N] weight and [K/128, N] scales (the transposed storage some exporters keep); the
// contraction reads the weight with (d2, d3, d1). Small shape K = 256, N = 64, static M = 3.

// CHECK-LABEL: func.func @iree_kn_small(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<3x256xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<2x128x64xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<2x128x64xi4> into tensor<256x64xi4>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<3x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) -> tensor<3x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
func.func @iree_kn_small(%x: tensor<3x256xf16>, %w: tensor<2x128x64xi4>, %s: tensor<2x64xf16>) -> tensor<3x64xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [3, 2, 128] : tensor<3x256xf16> into tensor<3x2x128xf16>
  %e = tensor.empty() : tensor<2x128x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<2x128x64xi4>, tensor<2x64xf16>) outs(%e : tensor<2x128x64xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %a = arith.extui %q : i4 to i32
    %b = arith.uitofp %a : i32 to f16
    %c = arith.subf %b, %zp : f16
    %d = arith.mulf %scale, %c : f16
    linalg.yield %d : f16
  } -> tensor<2x128x64xf16>
  %acc0 = tensor.empty() : tensor<3x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc0 : tensor<3x64xf16>) -> tensor<3x64xf16>
  %mm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %deq : tensor<3x2x128xf16>, tensor<2x128x64xf16>) outs(%acc : tensor<3x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %p = arith.mulf %a, %b : f16
    %s2 = arith.addf %o, %p : f16
    linalg.yield %s2 : f16
  } -> tensor<3x64xf16>
  return %mm : tensor<3x64xf16>
}

// -----

// i8 container for the 4-bit codes (the low nibble, masked, then extui i8 -> i32), zero point as a splat
// constant tensor input, and 3-D scales [N, K/128, 1] read with a constant-0 map as IREE writes them: the
// pass collapses the scales to [N, K/128] as well.

// CHECK-LABEL: func.func @iree_i8_container_splat_zp_3d_scales(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x1024xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<512x8x128xi8>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<512x8x1xf16>
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<512x8x128xi8> into tensor<512x1024xi8>
// CHECK-DAG:     %[[SC:.+]] = tensor.collapse_shape %[[S]] {{\[\[}}0], [1, 2]] : tensor<512x8x1xf16> into tensor<512x8xf16>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[SC]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<?x1024xf16>, tensor<512x1024xi8>, tensor<512x8xf16>) -> tensor<?x512xf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
func.func @iree_i8_container_splat_zp_3d_scales(%x: tensor<?x1024xf16>, %w: tensor<512x8x128xi8>, %s: tensor<512x8x1xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f16
  %zps = arith.constant dense<8.000000e+00> : tensor<512x8xf16>
  %m = tensor.dim %x, %c0 : tensor<?x1024xf16>
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [%m, 8, 128] : tensor<?x1024xf16> into tensor<?x8x128xf16>
  %0 = tensor.empty() : tensor<512x8x128xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s, %zps : tensor<512x8x128xi8>, tensor<512x8x1xf16>, tensor<512x8xf16>) outs(%0 : tensor<512x8x128xf16>) {
  ^bb0(%in: i8, %in_0: f16, %in_1: f16, %out: f16):
    %nibble = arith.constant 15 : i8
    %in4 = arith.andi %in, %nibble : i8
    %5 = arith.extui %in4 : i8 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %in_1 : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<512x8x128xf16>
  %2 = tensor.empty(%m) : tensor<?x512xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<?x512xf16>) -> tensor<?x512xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<?x8x128xf16>, tensor<512x8x128xf16>) outs(%3 : tensor<?x512xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<?x512xf16>
  return %4 : tensor<?x512xf16>
}

// -----

// Realistic llama-13B shape (K = 5120 = 40 * 128, N = 13824) with the zero-point subtraction fed by
// a linalg.fill'ed tensor of 8 that is broadcast over the group like the scale, and the extension
// to i16 before uitofp.

// CHECK-LABEL: func.func @iree_13b_zp_fill_ext16(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x5120xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<13824x40x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<13824x40xf16>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<13824x40x128xi4> into tensor<13824x5120xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<32x5120xf16>, tensor<13824x5120xi4>, tensor<13824x40xf16>) -> tensor<32x13824xf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
func.func @iree_13b_zp_fill_ext16(%x: tensor<32x5120xf16>, %w: tensor<13824x40x128xi4>, %s: tensor<13824x40xf16>) -> tensor<32x13824xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %eight = arith.constant 8.000000e+00 : f16
  %ze = tensor.empty() : tensor<13824x40xf16>
  %zp = linalg.fill ins(%eight : f16) outs(%ze : tensor<13824x40xf16>) -> tensor<13824x40xf16>
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [32, 40, 128] : tensor<32x5120xf16> into tensor<32x40x128xf16>
  %de = tensor.empty() : tensor<13824x40x128xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %zp, %s : tensor<13824x40x128xi4>, tensor<13824x40xf16>, tensor<13824x40xf16>) outs(%de : tensor<13824x40x128xf16>) {
  ^bb0(%q: i4, %z: f16, %sc: f16, %o: f16):
    %0 = arith.extui %q : i4 to i16
    %1 = arith.uitofp %0 : i16 to f16
    %2 = arith.subf %1, %z : f16
    %3 = arith.mulf %2, %sc : f16
    linalg.yield %3 : f16
  } -> tensor<13824x40x128xf16>
  %ae = tensor.empty() : tensor<32x13824xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ae : tensor<32x13824xf16>) -> tensor<32x13824xf16>
  %mm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %deq : tensor<32x40x128xf16>, tensor<13824x40x128xf16>) outs(%acc : tensor<32x13824xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %0 = arith.mulf %b, %a : f16
    %1 = arith.addf %o, %0 : f16
    linalg.yield %1 : f16
  } -> tensor<32x13824xf16>
  return %mm : tensor<32x13824xf16>
}
