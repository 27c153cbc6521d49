// --mlir-print-op-generic prints every op in the generic form (as mlir-opt does), also the fused op.
//
// RUN: w4a16-opt --mlir-print-op-generic %s | FileCheck %s
// RUN: w4a16-opt --mlir-print-op-generic %s > %t.a
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.b
// RUN: diff %t.a %t.b
// The generic output parses back to the same pretty form.
// RUN: w4a16-opt %t.a | FileCheck %s --check-prefix=PRETTY

// CHECK-LABEL: "builtin.module"() ({
// CHECK:       "func.func"() <{function_type = (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>, sym_name = "fused"}> ({
// CHECK-NEXT:  ^bb0(%[[X:.+]]: tensor<4x256xf16>, %[[W:.+]]: tensor<32x64xi32>, %[[S:.+]]: tensor<2x64xf16>):
// CHECK-NEXT:    %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]])
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-NEXT:    "func.return"(%[[R]]) : (tensor<4x64xf16>) -> ()
// CHECK-NEXT:  }) : () -> ()
// CHECK-NOT:   func.func
// CHECK-NOT:   return
// PRETTY-LABEL: func.func @fused(
// PRETTY:         "w4a16.fused_matmul"
// PRETTY:         return
func.func @fused(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "gelu_tanh", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}
