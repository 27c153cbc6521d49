// w4a16-lower-to-runtime: every fused op becomes a call of a private function that hands the operands to
// the runtime as memrefs and wraps the result buffer back into a tensor. The returned status is not checked
// in the IR (no cf.assert: nothing compiled aborts); the runtime records a failure for the generated
// w4a16c_run_/w4a16c_prepare_ entry points (test/lowering/entry-points.mlir).
// RUN: w4a16-opt --w4a16-lower-to-runtime --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-lower-to-runtime --split-input-file %s | FileCheck %s --check-prefix=NOABORT
// NOABORT-NOT: cf.assert

// Dynamic M, packed weight, bias, silu: M is read from x for the result buffer; an absent residual is an
// empty buffer with has_residual = 0; the codes are silu = 1, packed_k8_n = 0, g_n = 0.
// CHECK-LABEL: func.func @dynamic_m(
// CHECK-SAME:    %[[X:.+]]: tensor<?x256xf16>, %[[W:.+]]: tensor<32x64xi32>, %[[S:.+]]: tensor<2x64xf16>, %[[B:.+]]: tensor<64xf16>)
// CHECK-SAME:    attributes {llvm.emit_c_interface}
// CHECK-NEXT:    %[[R:.+]] = call @[[HELPER:__w4a16_fused_matmul_[0-9]+]](%[[X]], %[[W]], %[[S]], %[[B]])
// CHECK-NEXT:    return %[[R]]
// CHECK:       func.func private @w4a16_rt_matmul_i32(memref<?x?xf16>, memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?xf16>, memref<?x?xf16>, memref<?x?xf16>, i32, i32, i32, i32, i32) -> i32 attributes {llvm.emit_c_interface}
// CHECK:       func.func private @[[HELPER]](%[[HX:.+]]: tensor<?x256xf16>, %[[HW:.+]]: tensor<32x64xi32>, %[[HS:.+]]: tensor<2x64xf16>, %[[HB:.+]]: tensor<64xf16>) -> tensor<?x64xf16> {
// CHECK:         %[[XB:.+]] = bufferization.to_buffer %[[HX]] read_only : tensor<?x256xf16> to memref<?x256xf16>
// CHECK:         %[[XD:.+]] = memref.cast %[[XB]] : memref<?x256xf16> to memref<?x?xf16>
// CHECK:         bufferization.to_buffer %[[HW]] read_only : tensor<32x64xi32> to memref<32x64xi32, strided<[?, ?], offset: ?>>
// CHECK:         bufferization.to_buffer %[[HB]] read_only : tensor<64xf16> to memref<64xf16>
// CHECK:         %[[RB:.+]] = memref.alloca() : memref<0x0xf16>
// CHECK:         %[[M:.+]] = tensor.dim %[[HX]], %{{.+}} : tensor<?x256xf16>
// CHECK:         %[[OUT:.+]] = memref.alloc(%[[M]]) : memref<?x64xf16>
// CHECK:         %[[ACT:.+]] = arith.constant 1 : i32
// CHECK:         %[[WL:.+]] = arith.constant 0 : i32
// CHECK:         %[[SL:.+]] = arith.constant 0 : i32
// CHECK:         %[[HASB:.+]] = arith.constant 1 : i32
// CHECK:         %[[HASR:.+]] = arith.constant 0 : i32
// CHECK:         %{{.+}} = call @w4a16_rt_matmul_i32(%[[XD]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ACT]], %[[WL]], %[[SL]], %[[HASB]], %[[HASR]])
// CHECK-NEXT:    %[[T:.+]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<?x64xf16> to tensor<?x64xf16>
// CHECK:         return %[[T]] : tensor<?x64xf16>
func.func @dynamic_m(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>) -> tensor<?x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %b) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// -----

// Static M, i4 codes (N, K), scales (N, K/128), residual, gelu_tanh: no tensor.dim, an empty bias buffer,
// codes gelu_tanh = 2, n_k = 2, n_g = 1, has_bias = 0, has_residual = 1. Two fused ops share one declaration.
// CHECK-LABEL: func.func @static_m_i4(
// CHECK:         call @[[H0:__w4a16_fused_matmul_[0-9]+]](
// CHECK:         call @[[H1:__w4a16_fused_matmul_[0-9]+]](
// CHECK-COUNT-1: func.func private @w4a16_rt_matmul_i4(memref<?x?xf16>, memref<?x?xi4, strided<[?, ?], offset: ?>>,
// CHECK-NOT:     func.func private @w4a16_rt_matmul_i4
// CHECK:       func.func private @[[H0]](
// CHECK-NOT:     tensor.dim
// CHECK:         memref.alloca() : memref<0xf16>
// CHECK:         memref.alloc() : memref<4x64xf16>
// CHECK-DAG:     arith.constant 2 : i32
// CHECK-DAG:     arith.constant 1 : i32
// CHECK:         call @w4a16_rt_matmul_i4(
// CHECK:       func.func private @[[H1]](
func.func @static_m_i4(%x: tensor<4x256xf16>, %w: tensor<64x256xi4>, %s: tensor<64x2xf16>, %r: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %r) {activation = "gelu_tanh", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<4x256xf16>, tensor<64x256xi4>, tensor<64x2xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
  %1 = "w4a16.fused_matmul"(%x, %w, %s, %0) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<4x256xf16>, tensor<64x256xi4>, tensor<64x2xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
  return %1 : tensor<4x64xf16>
}

// -----

// Private functions and declarations do not get a C interface; IR without fused ops is otherwise unchanged.
// CHECK-LABEL: func.func private @helper(
// CHECK-NOT:     llvm.emit_c_interface
// CHECK:       func.func @public(
// CHECK-SAME:    attributes {llvm.emit_c_interface}
// CHECK-NEXT:    %[[R:.+]] = call @helper(
// CHECK-NEXT:    return %[[R]]
// CHECK-NOT:   w4a16_rt_matmul
func.func private @helper(%a: tensor<4xf16>) -> tensor<4xf16> {
  return %a : tensor<4xf16>
}
func.func @public(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = func.call @helper(%a) : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
