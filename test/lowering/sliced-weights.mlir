// A fused op whose weight, scales and zero points are windows of larger tensors (tensor.extract_slice: what
// w4a16-split-chunked-glu makes of a gate_up projection's halves) reaches the runtime as strided memrefs --
// the subviews one-shot bufferization makes of the slices, with their offsets and strides -- and not as a
// copy into a fresh buffer per call: the runtime finds a weight's plan by its buffer, and reads the window
// through its strides when it prepares it (test/e2e/sliced_weights_test.c runs such windows).
// RUN: w4a16-opt --w4a16-lower-to-runtime %s | FileCheck %s --check-prefix=LOWERED
// RUN: w4a16-opt --w4a16-lower-to-runtime --pass-pipeline='builtin.module(inline,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})' %s | FileCheck %s
// RUN: w4a16-opt --w4a16-pipeline %s -o /dev/null

// LOWERED-LABEL: func.func private @w4a16_rt_matmul_zp_i32_i32(
// LOWERED-SAME:    memref<?x?xf16>, memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?xf16>, memref<?x?xf16>, memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<?xi32>, memref<?x?xf16>,
// LOWERED:         bufferization.to_buffer %{{.+}} read_only : tensor<256x8xi32> to memref<256x8xi32, strided<[?, ?], offset: ?>>
// LOWERED:         memref.cast %{{.+}} : memref<256x8xi32, strided<[?, ?], offset: ?>> to memref<?x?xi32, strided<[?, ?], offset: ?>>

// CHECK-LABEL: func.func @awq_up_half(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: memref<256x16xi32>, %[[Z:[a-z0-9]+]]: memref<2x16xi32>, %[[S:[a-z0-9]+]]: memref<2x128xf16>
// CHECK-NOT:     memref.copy
// CHECK-DAG:     %[[WV:.+]] = memref.subview %[[W]][0, 8] [256, 8] [1, 1] : memref<256x16xi32> to memref<256x8xi32, strided<[16, 1], offset: 8>>
// CHECK-DAG:     %[[ZV:.+]] = memref.subview %[[Z]][0, 8] [2, 8] [1, 1] : memref<2x16xi32> to memref<2x8xi32, strided<[16, 1], offset: 8>>
// CHECK-DAG:     %[[SV:.+]] = memref.subview %[[S]][0, 64] [2, 64] [1, 1] : memref<2x128xf16> to memref<2x64xf16, strided<[128, 1], offset: 64>>
// CHECK-DAG:     %[[WC0:.+]] = memref.cast %[[WV]] : {{.*}} to memref<256x8xi32, strided<[?, ?], offset: ?>>
// CHECK-DAG:     %[[WC:.+]] = memref.cast %[[WC0]] : {{.*}} to memref<?x?xi32, strided<[?, ?], offset: ?>>
// CHECK-DAG:     %[[ZC0:.+]] = memref.cast %[[ZV]] : {{.*}} to memref<2x8xi32, strided<[?, ?], offset: ?>>
// CHECK-DAG:     %[[ZC:.+]] = memref.cast %[[ZC0]] : {{.*}} to memref<?x?xi32, strided<[?, ?], offset: ?>>
// CHECK-DAG:     %[[SC0:.+]] = memref.cast %[[SV]] : {{.*}} to memref<2x64xf16, strided<[?, ?], offset: ?>>
// CHECK-DAG:     %[[SC:.+]] = memref.cast %[[SC0]] : {{.*}} to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK-NOT:     memref.copy
// CHECK:         call @w4a16_rt_matmul_zp_i32_i32(%{{.+}}, %[[WC]], %[[SC]], %{{.+}}, %{{.+}}, %[[ZC]],
func.func @awq_up_half(%x: tensor<?x256xf16>, %w: tensor<256x16xi32>, %z: tensor<2x16xi32>, %s: tensor<2x128xf16>) -> tensor<?x64xf16> {
  %w1 = tensor.extract_slice %w[0, 8] [256, 8] [1, 1] : tensor<256x16xi32> to tensor<256x8xi32>
  %z1 = tensor.extract_slice %z[0, 8] [2, 8] [1, 1] : tensor<2x16xi32> to tensor<2x8xi32>
  %s1 = tensor.extract_slice %s[0, 64] [2, 64] [1, 1] : tensor<2x128xf16> to tensor<2x64xf16>
  %0 = "w4a16.fused_matmul"(%x, %w1, %s1, %z1) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k_n8_awq", zero_point_layout = "packed_g_n8_awq"} : (tensor<?x256xf16>, tensor<256x8xi32>, tensor<2x64xf16>, tensor<2x8xi32>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// A window of a constant weight (K = 32, G = 32, the gate half of N = 16): a subview of its global, no copy either.
// CHECK-LABEL: func.func @constant_gate_half(
// CHECK:         %[[G:.+]] = memref.get_global @{{.+}} : memref<4x16xi32>
// CHECK-NOT:     memref.copy
// CHECK:         memref.subview %[[G]][0, 0] [4, 8] [1, 1] : memref<4x16xi32> to memref<4x8xi32, strided<[16, 1]>>
// CHECK-NOT:     memref.copy
// CHECK:         call @w4a16_rt_matmul_i32(
func.func @constant_gate_half(%x: tensor<?x32xf16>, %s: tensor<1x8xf16>) -> tensor<?x8xf16> {
  %w = arith.constant dense<[[0, 506952113, 1013904226, 1520856339, 2027808452, 387276917, 894229030, 1401181143, 1908133256, 267601721, 774553834, 1281505947, 1788458060, 147926525, 654878638, 1161830751], [1668782864, 28251329, 535203442, 1042155555, 1549107668, 2056059781, 415528246, 922480359, 1429432472, 1936384585, 295853050, 802805163, 1309757276, 1816709389, 176177854, 683129967], [1190082080, 1697034193, 56502658, 563454771, 1070406884, 1577358997, 2084311110, 443779575, 950731688, 1457683801, 1964635914, 324104379, 831056492, 1338008605, 1844960718, 204429183], [711381296, 1218333409, 1725285522, 84753987, 591706100, 1098658213, 1605610326, 2112562439, 472030904, 978983017, 1485935130, 1992887243, 352355708, 859307821, 1366259934, 1873212047]]> : tensor<4x16xi32>
  %wh = tensor.extract_slice %w[0, 0] [4, 8] [1, 1] : tensor<4x16xi32> to tensor<4x8xi32>
  %0 = "w4a16.fused_matmul"(%x, %wh, %s) {activation = "none", group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x32xf16>, tensor<4x8xi32>, tensor<1x8xf16>) -> tensor<?x8xf16>
  return %0 : tensor<?x8xf16>
}
