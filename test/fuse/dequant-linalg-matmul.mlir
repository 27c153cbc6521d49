// torch-mlir style: the grouped dequant generic produces a 3-D f16 weight, a tensor.collapse_shape turns it
// into the 2-D (K, N) or (N, K) matrix and a linalg.matmul consumes it (plain, or with transposed-B
// indexing_maps for the (N, K) nn.Linear storage). Sometimes the frontend also starts from a 2-D weight
// and expand_shapes it into groups first.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// [K/128, 128, N] weight -> collapse [[0, 1], [2]] -> (K, N) -> linalg.matmul. Static M = 32.

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @gkn_collapse_matmul(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x128x11008xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<32x128x11008xi4> into tensor<4096x11008xi4>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<32x4096xf16>, tensor<4096x11008xi4>, tensor<32x11008xf16>) -> tensor<32x11008xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     tensor.collapse_shape {{.*}}xf16>
// CHECK:         return %[[R]] : tensor<32x11008xf16>
func.func @gkn_collapse_matmul(%arg0: tensor<32x4096xf16>, %arg1: tensor<32x128x11008xi4>, %arg2: tensor<32x11008xf16>) -> tensor<32x11008xf16> {
  %cst = arith.constant 8.000000e+00 : f16
  %cst_0 = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<32x128x11008xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg2 : tensor<32x128x11008xi4>, tensor<32x11008xf16>) outs(%0 : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_1: f16, %out: f16):
    %6 = arith.extui %in : i4 to i32
    %7 = arith.uitofp %6 : i32 to f16
    %8 = arith.subf %7, %cst : f16
    %9 = arith.mulf %8, %in_1 : f16
    linalg.yield %9 : f16
  } -> tensor<32x128x11008xf16>
  %collapsed = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %2 = tensor.empty() : tensor<32x11008xf16>
  %3 = linalg.fill ins(%cst_0 : f16) outs(%2 : tensor<32x11008xf16>) -> tensor<32x11008xf16>
  %4 = linalg.matmul ins(%arg0, %collapsed : tensor<32x4096xf16>, tensor<4096x11008xf16>) outs(%3 : tensor<32x11008xf16>) -> tensor<32x11008xf16>
  return %4 : tensor<32x11008xf16>
}

// -----

// nn.Linear storage: [N, K/128, 128] weight -> collapse [[0], [1, 2]] -> (N, K) -> linalg.matmul with
// transposed-B indexing maps (what linalg.matmul_transpose_b became). Dynamic M.

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d1, d2)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @nk_collapse_matmul_transpose_b(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<11008x32x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<11008x32xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2]] : tensor<11008x32x128xi4> into tensor<11008x4096xi4>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<11008x4096xi4>, tensor<11008x32xf16>) -> tensor<?x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x11008xf16>
func.func @nk_collapse_matmul_transpose_b(%x: tensor<?x4096xf16>, %w: tensor<11008x32x128xi4>, %s: tensor<11008x32xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %zp = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<11008x32x128xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<11008x32x128xi4>, tensor<11008x32xf16>) outs(%0 : tensor<11008x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<11008x32x128xf16>
  %w2d = tensor.collapse_shape %1 [[0], [1, 2]] : tensor<11008x32x128xf16> into tensor<11008x4096xf16>
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %2 = tensor.empty(%m) : tensor<?x11008xf16>
  %3 = linalg.fill ins(%zero : f16) outs(%2 : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %4 = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %w2d : tensor<?x4096xf16>, tensor<11008x4096xf16>) outs(%3 : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %4 : tensor<?x11008xf16>
}

// -----

// 2-D (N, K) i4 weight as stored on disk, expand_shape'd into groups, dequantised, collapsed back and
// multiplied with transposed-B maps. The weight operand of the fused op is an (N, K) i4 tensor (the
// frontend's own 2-D weight, or an equivalent collapse of its expansion).

// CHECK-LABEL: func.func @expand_2d_weight_nk(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<4096x4096xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4096x32xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %{{[a-zA-Z0-9_]+}}, %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<8x4096xf16>, tensor<4096x4096xi4>, tensor<4096x32xf16>) -> tensor<8x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<8x4096xf16>
func.func @expand_2d_weight_nk(%x: tensor<8x4096xf16>, %w: tensor<4096x4096xi4>, %s: tensor<4096x32xf16>) -> tensor<8x4096xf16> {
  %zp = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %wg = tensor.expand_shape %w [[0], [1, 2]] output_shape [4096, 32, 128] : tensor<4096x4096xi4> into tensor<4096x32x128xi4>
  %0 = tensor.empty() : tensor<4096x32x128xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wg, %s : tensor<4096x32x128xi4>, tensor<4096x32xf16>) outs(%0 : tensor<4096x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %a = arith.extui %in : i4 to i32
    %b = arith.uitofp %a : i32 to f16
    %c = arith.subf %b, %zp : f16
    %d = arith.mulf %c, %in_0 : f16
    linalg.yield %d : f16
  } -> tensor<4096x32x128xf16>
  %2 = tensor.collapse_shape %1 [[0], [1, 2]] : tensor<4096x32x128xf16> into tensor<4096x4096xf16>
  %3 = tensor.empty() : tensor<8x4096xf16>
  %4 = linalg.fill ins(%zero : f16) outs(%3 : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %5 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %2 : tensor<8x4096xf16>, tensor<4096x4096xf16>) outs(%4 : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  return %5 : tensor<8x4096xf16>
}

// -----

// 2-D (K, N) i8-container weight (the code is the element's low nibble, masked), expanded to
// [K/128, 128, N], 3-D scales [K/128, 1, N] read with a constant-0 map; small shape K = 256, N = 64.
// Scales are collapsed to (K/128, N) by the pass.

// CHECK-LABEL: func.func @expand_2d_weight_kn_i8_scales_3d(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x256xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<256x64xi8>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x1x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[SC:.+]] = tensor.collapse_shape %[[S]] {{\[\[.*\]\]}} : tensor<2x1x64xf16> into tensor<2x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %{{[a-zA-Z0-9_]+}}, %[[SC]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<?x256xf16>, tensor<256x64xi8>, tensor<2x64xf16>) -> tensor<?x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x64xf16>
func.func @expand_2d_weight_kn_i8_scales_3d(%x: tensor<?x256xf16>, %w: tensor<256x64xi8>, %s: tensor<2x1x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  %wg = tensor.expand_shape %w [[0, 1], [2]] output_shape [2, 128, 64] : tensor<256x64xi8> into tensor<2x128x64xi8>
  %0 = tensor.empty() : tensor<2x128x64xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wg, %s : tensor<2x128x64xi8>, tensor<2x1x64xf16>) outs(%0 : tensor<2x128x64xf16>) {
  ^bb0(%in: i8, %scale: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %nibble = arith.constant 15 : i8
    %in4 = arith.andi %in, %nibble : i8
    %a = arith.extui %in4 : i8 to i32
    %b = arith.uitofp %a : i32 to f16
    %c = arith.subf %b, %zp : f16
    %d = arith.mulf %c, %scale : f16
    linalg.yield %d : f16
  } -> tensor<2x128x64xf16>
  %2 = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<2x128x64xf16> into tensor<256x64xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %3 = tensor.empty(%m) : tensor<?x64xf16>
  %4 = linalg.fill ins(%zero : f16) outs(%3 : tensor<?x64xf16>) -> tensor<?x64xf16>
  %5 = linalg.matmul ins(%x, %2 : tensor<?x256xf16>, tensor<256x64xf16>) outs(%4 : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %5 : tensor<?x64xf16>
}

// -----

// Zero point given as a linalg.fill'ed [K/128, N] tensor of 8 (not a scalar), subtracted in the body;
// [K/128, 128, N] weight feeding linalg.matmul after a collapse. The zero-point fill may stay or go.

// CHECK-LABEL: func.func @gkn_zp_fill_tensor(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<16x1024xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<8x128x2048xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x2048xf16>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<8x128x2048xi4> into tensor<1024x2048xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      -> tensor<16x2048xf16>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     linalg.matmul
// CHECK:         return %[[R]]
func.func @gkn_zp_fill_tensor(%x: tensor<16x1024xf16>, %w: tensor<8x128x2048xi4>, %s: tensor<8x2048xf16>) -> tensor<16x2048xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %c0 = arith.constant 0.000000e+00 : f16
  %zpe = tensor.empty() : tensor<8x2048xf16>
  %zp = linalg.fill ins(%c8 : f16) outs(%zpe : tensor<8x2048xf16>) -> tensor<8x2048xf16>
  %0 = tensor.empty() : tensor<8x128x2048xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s, %zp : tensor<8x128x2048xi4>, tensor<8x2048xf16>, tensor<8x2048xf16>) outs(%0 : tensor<8x128x2048xf16>) {
  ^bb0(%in: i4, %sc: f16, %z: f16, %out: f16):
    %a = arith.extui %in : i4 to i32
    %b = arith.uitofp %a : i32 to f16
    %c = arith.subf %b, %z : f16
    %d = arith.mulf %sc, %c : f16
    linalg.yield %d : f16
  } -> tensor<8x128x2048xf16>
  %2 = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<8x128x2048xf16> into tensor<1024x2048xf16>
  %3 = tensor.empty() : tensor<16x2048xf16>
  %4 = linalg.fill ins(%c0 : f16) outs(%3 : tensor<16x2048xf16>) -> tensor<16x2048xf16>
  %5 = linalg.matmul ins(%x, %2 : tensor<16x1024xf16>, tensor<1024x2048xf16>) outs(%4 : tensor<16x2048xf16>) -> tensor<16x2048xf16>
  return %5 : tensor<16x2048xf16>
}
