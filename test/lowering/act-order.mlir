// A fused op with a g_idx (act-order GPTQ, issue #22) lowers to the zero-point entry of the runtime, even
// with the constant zero point 8: g_idx goes as a 1-D i32 memref after the zero points, and has_g_idx (the
// last argument) is 1. The runtime makes the act-order plan from it when the weight is prepared.
//
// RUN: w4a16-opt --w4a16-lower-to-runtime --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func private @w4a16_rt_matmul_zp_i32_f16(
// CHECK-SAME:    memref<?x?xf16>, memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?xf16>, memref<?x?xf16>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?xi32>, memref<?x?xf16>, i32, i32, i32, i32, i32, i32, i32, i32, f64, i32) -> i32
// CHECK:       func.func private @__w4a16_fused_matmul
// CHECK-SAME:    %[[G:[a-z_0-9]+]]: tensor<256xi32>
// CHECK:         %[[GBUF:.+]] = bufferization.to_buffer %[[G]] read_only : tensor<256xi32> to memref<256xi32>
// CHECK:         %[[GARG:.+]] = memref.cast %[[GBUF]] : memref<256xi32> to memref<?xi32>
// CHECK-DAG:     %[[Z:cst[_0-9]*]] = arith.constant 8.000000e+00 : f64
// CHECK-DAG:     %[[HAS:c1_i32[_0-9]*]] = arith.constant 1 : i32
// CHECK:         call @w4a16_rt_matmul_zp_i32_f16(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[GARG]], %{{.+}}, %[[Z]], %[[HAS]])
func.func @act_order(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %g: tensor<256xi32>) -> tensor<?x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %g) {activation = "none", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 1>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<256xi32>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}
