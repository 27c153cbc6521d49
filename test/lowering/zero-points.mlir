// A fused op with zero points lowers to the zero-point entry of the runtime, w4a16_rt_matmul_zp_<w>_<z>
// (w: the weight's element type, z: the zero points'), with the layout, offset and constant as arguments;
// a constant zero point other than 8 passes an empty f16 tensor and has_zero_points = 0. The symmetric op
// keeps w4a16_rt_matmul_<w>.
//
// RUN: w4a16-opt --w4a16-lower-to-runtime --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func private @w4a16_rt_matmul_zp_i32_i32(
// CHECK-SAME:    memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?xf16>, memref<?x?xf16>, memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<?xi32>, memref<?x?xf16>, i32, i32, i32, i32, i32, i32, i32, i32, f64, i32) -> i32
// CHECK-DAG:   %[[LAYOUT:c2_i32[_0-9]*]] = arith.constant 2 : i32
// CHECK-DAG:   %[[Z:cst[_0-9]*]] = arith.constant 8.000000e+00 : f64
// CHECK:       call @w4a16_rt_matmul_zp_i32_i32({{.*}}, %c1_i32{{[_0-9]*}}, %[[LAYOUT]], %c1_i32{{[_0-9]*}}, %[[Z]], %c0_i32{{[_0-9]*}})
func.func @packed_qzeros(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %z: tensor<2x8xi32>) -> tensor<?x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n",
        zero_point_layout = "packed_g_n8", zero_point_offset = 1 : i64}
        : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x8xi32>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// -----

// CHECK-LABEL: func.func private @w4a16_rt_matmul_zp_i32_f16(
// CHECK-DAG:   %[[Z:cst[_0-9]*]] = arith.constant 7.000000e+00 : f64
// CHECK:       call @w4a16_rt_matmul_zp_i32_f16({{.*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %[[Z]], %c0_i32{{[_0-9]*}})
func.func @constant_7(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n",
        zero_point = 7.0 : f64} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// (stored + 1) mod 16 (AutoGPTQ's v1 torch path): layout code packed_g_n8 (2) | W4A16_ZP_WRAPS (32).
// CHECK-LABEL: func.func @packed_qzeros_wrapping(
// CHECK-DAG:   %[[LAYOUT:c34_i32[_0-9]*]] = arith.constant 34 : i32
// CHECK:       call @w4a16_rt_matmul_zp_i32_i32({{.*}}, %c1_i32{{[_0-9]*}}, %[[LAYOUT]], %c1_i32{{[_0-9]*}}, %{{[^,]+}}, %c0_i32{{[_0-9]*}})
func.func @packed_qzeros_wrapping(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %z: tensor<2x8xi32>) -> tensor<?x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n",
        zero_point_layout = "packed_g_n8", zero_point_offset = 1 : i64, zero_point_offset_wraps}
        : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x8xi32>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}
