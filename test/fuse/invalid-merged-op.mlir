// Malformed w4a16.merged_matmul ops are rejected with an error located at the op (the C verifier; IRDL only
// checks that operands, results and attributes are present), whether or not a pass runs.
//
// RUN: w4a16-opt --verify-diagnostics --split-input-file %s > /dev/null
// RUN: w4a16-opt --verify-diagnostics --w4a16-merge-siblings --split-input-file %s > /dev/null

// combine must name a known combination.
func.func @bad_combine(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  // expected-error @+1 {{combine must be "outputs" or "glu"}}
  %0:2 = "w4a16.merged_matmul"(%x, %w, %w, %s, %s) {activation = "none", combine = "sum", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>)
  return %0#0, %0#1 : tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// "outputs" needs a result per member.
func.func @one_result_for_two(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{a result per weight}}
  %0 = "w4a16.merged_matmul"(%x, %w, %w, %s, %s) {activation = "none", combine = "outputs", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// A glu's biases are on both members or none (a member without one gets zeros from merge-siblings).
func.func @glu_with_one_bias(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{biases for none or all}}
  %0 = "w4a16.merged_matmul"(%x, %w, %w, %s, %s, %b) {activation = "silu", combine = "glu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// A glu has two members.
func.func @glu_of_three(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{for "glu", two weights and one result}}
  %0 = "w4a16.merged_matmul"(%x, %w, %w, %w, %s, %s, %s) {activation = "silu", combine = "glu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<32x64xi32>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// Members fill the slots from 0: weight_3 without weight_2 is malformed.
func.func @slot_gap(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) {
  // expected-error @+1 {{in slots from 0}}
  %0:3 = "w4a16.merged_matmul"(%x, %w, %w, %w, %s, %s, %s) {activation = "none", combine = "outputs", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<32x64xi32>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x64xf16>, tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>)
  return %0#0, %0#1, %0#2 : tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// Each member is checked like a fused_matmul, and named: member 1's scales have the wrong N.
func.func @member_shape(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %s32: tensor<2x32xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  // expected-error @+1 {{member 1: scales dim 1 is 32, expected 64}}
  %0:2 = "w4a16.merged_matmul"(%x, %w, %w, %s, %s32) {activation = "none", combine = "outputs", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x32xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>)
  return %0#0, %0#1 : tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// A glu's result has each member's N: here the up weight is wider.
func.func @glu_n_mismatch(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %w128: tensor<32x128xi32>) -> tensor<4x64xf16> {
  // expected-error @+1 {{member 1: weight dim 1 is 128, expected 64}}
  %0 = "w4a16.merged_matmul"(%x, %w, %w128, %s, %s) {activation = "silu", combine = "glu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<32x128xi32>, tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}
