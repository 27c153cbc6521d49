// w4a16-lower-to-runtime on w4a16.merged_matmul (issue #21): w4a16_rt_merged(n, glu), then each member's call to
// the usual entry point with its own weight, scales and bias (the runtime records them and runs the last one as
// one launch). A glu's gate and up write one result buffer; up's call carries no activation.
//
// RUN: w4a16-opt --w4a16-lower-to-runtime --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-pipeline --split-input-file %s -o /dev/null

// CHECK-LABEL: func.func @glu(
// CHECK:         call @[[HELPER:__w4a16_fused_matmul_[0-9]+]](
// CHECK:       func.func private @w4a16_rt_merged(i32, i32) -> i32 attributes {llvm.emit_c_interface}
// CHECK:       func.func private @[[HELPER]](%[[X:[a-z0-9_]+]]: tensor<?x256xf16>, %[[WG:[a-z0-9_]+]]: tensor<32x64xi32>, %[[WU:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SG:[a-z0-9_]+]]: tensor<2x64xf16>, %[[SU:[a-z0-9_]+]]: tensor<2x64xf16>) -> tensor<?x64xf16>
// CHECK:         %[[XB:.+]] = memref.cast %{{.+}} : memref<?x256xf16> to memref<?x?xf16>
// CHECK-DAG:     %[[TWO:.+]] = arith.constant 2 : i32
// CHECK-DAG:     %[[GLU:.+]] = arith.constant 1 : i32
// CHECK:         call @w4a16_rt_merged(%[[TWO]], %[[GLU]])
// CHECK:         bufferization.to_buffer %[[WG]]
// CHECK:         %[[OUT:.+]] = memref.alloc(%{{.+}}) : memref<?x64xf16>
// CHECK:         %[[OUTD:.+]] = memref.cast %[[OUT]] : memref<?x64xf16> to memref<?x?xf16>
// CHECK:         %[[SILU:.+]] = arith.constant 1 : i32
// CHECK:         call @w4a16_rt_matmul_i32(%[[XB]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[OUTD]], %[[SILU]],
// CHECK:         bufferization.to_buffer %[[WU]]
// CHECK-NOT:     memref.alloc(
// CHECK:         %[[NONE:.+]] = arith.constant 0 : i32
// CHECK:         call @w4a16_rt_matmul_i32(%[[XB]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[OUTD]], %[[NONE]],
// CHECK:         %[[T:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:         return %[[T]]
func.func @glu(%x: tensor<?x256xf16>, %wg: tensor<32x64xi32>, %wu: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %su: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %0 = "w4a16.merged_matmul"(%x, %wg, %wu, %sg, %su) {activation = "silu", combine = "glu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// -----

// QKV-style outputs with biases: each member its bias and its own result.
// CHECK-LABEL: func.func @qk_bias(
// CHECK:       func.func private @__w4a16_fused_matmul_0(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4x256xf16>, %[[WQ:[a-z0-9_]+]]: tensor<32x64xi32>, %[[WK:[a-z0-9_]+]]: tensor<32x32xi32>, %[[SQ:[a-z0-9_]+]]: tensor<2x64xf16>, %[[SK:[a-z0-9_]+]]: tensor<2x32xf16>, %[[BQ:[a-z0-9_]+]]: tensor<64xf16>, %[[BK:[a-z0-9_]+]]: tensor<32xf16>) -> (tensor<4x64xf16>, tensor<4x32xf16>)
// CHECK-DAG:     %[[TWO:.+]] = arith.constant 2 : i32
// CHECK-DAG:     %[[NOGLU:.+]] = arith.constant 0 : i32
// CHECK:         call @w4a16_rt_merged(%[[TWO]], %[[NOGLU]])
// CHECK:         bufferization.to_buffer %[[BQ]] read_only
// CHECK:         %[[OQ:.+]] = memref.alloc() : memref<4x64xf16>
// CHECK:         call @w4a16_rt_matmul_i32(
// CHECK:         bufferization.to_buffer %[[BK]] read_only
// CHECK:         %[[OK:.+]] = memref.alloc() : memref<4x32xf16>
// CHECK:         call @w4a16_rt_matmul_i32(
// CHECK:         %[[TQ:.+]] = bufferization.to_tensor %[[OQ]]
// CHECK:         %[[TK:.+]] = bufferization.to_tensor %[[OK]]
// CHECK:         return %[[TQ]], %[[TK]] : tensor<4x64xf16>, tensor<4x32xf16>
func.func @qk_bias(%x: tensor<4x256xf16>, %wq: tensor<32x64xi32>, %wk: tensor<32x32xi32>, %sq: tensor<2x64xf16>, %sk: tensor<2x32xf16>, %bq: tensor<64xf16>, %bk: tensor<32xf16>) -> (tensor<4x64xf16>, tensor<4x32xf16>) {
  %0:2 = "w4a16.merged_matmul"(%x, %wq, %wk, %sq, %sk, %bq, %bk) {activation = "none", combine = "outputs", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<32x32xi32>, tensor<2x64xf16>, tensor<2x32xf16>, tensor<64xf16>, tensor<32xf16>) -> (tensor<4x64xf16>, tensor<4x32xf16>)
  return %0#0, %0#1 : tensor<4x64xf16>, tensor<4x32xf16>
}
