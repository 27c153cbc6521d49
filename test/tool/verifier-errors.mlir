// Malformed w4a16 ops are located errors (exit 1) - both what IRDL checks (attributes present) and what the C
// verifier checks from contract.h (attribute values, shapes, group size), which the tool runs after parsing,
// after every pass and at the end. --verify-diagnostics checks each error's line, severity and text.
// Other chunks are still processed.
//
// RUN: w4a16-opt --verify-diagnostics --split-input-file %s | FileCheck %s --check-prefix=OUT
// RUN: not w4a16-opt --split-input-file %s > /dev/null
// The w4a16-verify pass reports the same errors.
// RUN: w4a16-opt --verify-diagnostics --split-input-file --w4a16-verify %s > /dev/null
// The quoted line and caret, as for every diagnostic:
// RUN: not w4a16-opt --split-input-file %s 2>&1 >/dev/null | FileCheck %s

// CHECK: verifier-errors.mlir:[[@LINE+5]]:8: error: 'w4a16.fused_matmul' op scales dim 0 is 3, expected 2
// CHECK-NEXT: {{^}}  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64,
// CHECK-NEXT: {{^}}       ^
func.func @bad_scales(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<3x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op scales dim 0 is 3, expected 2}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<3x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

func.func @bad_activation(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op activation "relu" is not one of "none", "silu", "gelu_tanh"}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "relu", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

func.func @bad_group(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<4x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op group_size must be 32, 64 or 128}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "silu", group_size = 96 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<4x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// N = 7: the runtime cannot run it (contract.h: N % 8 == 0), so the op is invalid.
func.func @n_not_multiple_of_8(%x: tensor<4x256xf16>, %w: tensor<32x7xi32>, %s: tensor<2x7xf16>) -> tensor<4x7xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op K = 256, N = 7, group size 128: N must be a positive multiple of 8}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<4x256xf16>, tensor<32x7xi32>, tensor<2x7xf16>) -> tensor<4x7xf16>
  return %0 : tensor<4x7xf16>
}

// -----

// OUT-LABEL: func.func @good(
// OUT-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x256xf16>
// OUT-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// OUT:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %{{.+}}, %{{.+}}, %[[B]])
// OUT-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// OUT:         return %[[R]]
// OUT-NOT:     func.func
func.func @good(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>) -> tensor<?x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %b) {activation = "silu", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}
