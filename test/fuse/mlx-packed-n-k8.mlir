// Codes packed eight to an i32 word along K of an (N, K) weight: word [n, k/8], nibble k % 8 least significant
// first (weight_layout "packed_n_k8"), as MLX's mlx.core.quantize stores 4-bit weights (the mlx-community
// checkpoints), with its per-group scales and biases (W = code * scale + bias: the offset form, zero point 0);
// the same words with a symmetric (code - 8) * scale; and a look-alike unpacking the words most-significant
// nibble first, which stays unfused with the remark naming it. Written here from mlx.core.quantize's definition,
// not taken from an exporter's output.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// MLX: group size 64, scales and biases (N, K/G).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d1, d2)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @mlx_scales_and_biases(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x256xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x32xi32>, %[[S:[a-zA-Z0-9_]+]]: tensor<64x4xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<64x4xf16>
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]], %[[B]])
// CHECK-SAME:      group_size = 64 : i64
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "packed_n_k8"
// CHECK-SAME:      zero_point = 0.000000e+00 : f64
// CHECK-SAME:      zero_point_layout = "n_g"
// CHECK-SAME:      zero_points_are_offsets
// CHECK-NOT:     linalg.matmul
// REMARK: remark: w4a16: fused as dequant(packed_n_k8, scales n_g, group 64, offsets n_g tensor<64x4xf16>, zero point 0) -> matmul
func.func @mlx_scales_and_biases(%x: tensor<?x256xf16>, %w: tensor<64x32xi32>, %s: tensor<64x4xf16>, %b: tensor<64x4xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e = tensor.empty() : tensor<64x256xf16>
  %wd = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<64x256xf16>) {
  ^bb0(%out: f16):
    %n = linalg.index 0 : index
    %k = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %cG = arith.constant 64 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i32
    %j = arith.divui %k, %c8 : index
    %i = arith.remui %k, %c8 : index
    %sh = arith.muli %i, %c4 : index
    %word = tensor.extract %w[%n, %j] : tensor<64x32xi32>
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %g = arith.divui %k, %cG : index
    %sc = tensor.extract %s[%n, %g] : tensor<64x4xf16>
    %bg = tensor.extract %b[%n, %g] : tensor<64x4xf16>
    %qs = arith.mulf %qf, %sc : f16
    %r = arith.addf %qs, %bg : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %zero = arith.constant 0.0 : f16
  %ye = tensor.empty(%m) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ye : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %wd : tensor<?x256xf16>, tensor<64x256xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// The same words, symmetric (code - 8) * scale, group size 128.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d1, d2)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @words_along_k_symmetric(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      weight_layout = "packed_n_k8"
// REMARK: remark: w4a16: fused as dequant(packed_n_k8, scales n_g) -> matmul
func.func @words_along_k_symmetric(%x: tensor<?x256xf16>, %w: tensor<64x32xi32>, %s: tensor<64x2xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e = tensor.empty() : tensor<64x256xf16>
  %wd = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<64x256xf16>) {
  ^bb0(%out: f16):
    %n = linalg.index 0 : index
    %k = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %cG = arith.constant 128 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i32
    %j = arith.divui %k, %c8 : index
    %i = arith.remui %k, %c8 : index
    %sh = arith.muli %i, %c4 : index
    %word = tensor.extract %w[%n, %j] : tensor<64x32xi32>
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %g = arith.divui %k, %cG : index
    %sc = tensor.extract %s[%n, %g] : tensor<64x2xf16>
    %c8f = arith.constant 8.0 : f16
    %d = arith.subf %qf, %c8f : f16
    %r = arith.mulf %d, %sc : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %zero = arith.constant 0.0 : f16
  %ye = tensor.empty(%m) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ye : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %wd : tensor<?x256xf16>, tensor<64x256xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// Look-alike: nibble 7 - k % 8 of the word (most significant first).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d1, d2)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @words_along_k_msb_first(
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: nibbles unpacked most-significant first; expected least-significant first
func.func @words_along_k_msb_first(%x: tensor<?x256xf16>, %w: tensor<64x32xi32>, %s: tensor<64x2xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e = tensor.empty() : tensor<64x256xf16>
  %wd = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<64x256xf16>) {
  ^bb0(%out: f16):
    %n = linalg.index 0 : index
    %k = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %cG = arith.constant 128 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i32
    %j = arith.divui %k, %c8 : index
    %i = arith.remui %k, %c8 : index
    %c7 = arith.constant 7 : index
    %im = arith.subi %c7, %i : index
    %sh = arith.muli %im, %c4 : index
    %word = tensor.extract %w[%n, %j] : tensor<64x32xi32>
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %g = arith.divui %k, %cG : index
    %sc = tensor.extract %s[%n, %g] : tensor<64x2xf16>
    %c8f = arith.constant 8.0 : f16
    %d = arith.subf %qf, %c8f : f16
    %r = arith.mulf %d, %sc : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %zero = arith.constant 0.0 : f16
  %ye = tensor.empty(%m) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ye : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x, %wd : tensor<?x256xf16>, tensor<64x256xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}
