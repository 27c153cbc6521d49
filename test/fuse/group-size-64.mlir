// Group size 64 fuses (issue #17): GPTQ (K/8, N) words with (K/64, N) scales, and IREE's [N, K/64, 64]
// weight with [N, K/64] scales and x expanded to [M, K/64, 64]. Both chunks were in negative-quant.mlir
// (must not fuse) until group sizes 32 and 64 became supported.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// GPTQ with group size 64: scales (K/64, N), group index k / 64.

// CHECK-LABEL: func.func @gptq_group_64(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      group_size = 64 : i64
// CHECK-SAME:      scales_layout = "g_n", weight_layout = "packed_k8_n"
// CHECK-NOT:     linalg.
func.func @gptq_group_64(%x: tensor<8x4096xf16>, %qweight: tensor<512x4096xi32>, %scales: tensor<64x4096xf16>) -> tensor<8x4096xf16> {
  %de = tensor.empty() : tensor<4096x4096xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x4096xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 64 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x4096xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<64x4096xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<4096x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<8x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<8x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  return %mm : tensor<8x4096xf16>
}

// -----

// IREE-style [N, K/64, 64] weight with [N, K/64] scales and x expanded to [M, K/64, 64]: group size 64.

// CHECK-LABEL: func.func @iree_group_64(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      group_size = 64 : i64
// CHECK-SAME:      scales_layout = "n_g", weight_layout = "n_k"
// CHECK-NOT:     linalg.
func.func @iree_group_64(%x: tensor<4x4096xf16>, %w: tensor<4096x64x64xi4>, %s: tensor<4096x64xf16>) -> tensor<4x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 64, 64] : tensor<4x4096xf16> into tensor<4x64x64xf16>
  %0 = tensor.empty() : tensor<4096x64x64xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x64x64xi4>, tensor<4096x64xf16>) outs(%0 : tensor<4096x64x64xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<4096x64x64xf16>
  %2 = tensor.empty() : tensor<4x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<4x64x64xf16>, tensor<4096x64x64xf16>) outs(%3 : tensor<4x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<4x4096xf16>
  return %4 : tensor<4x4096xf16>
}
