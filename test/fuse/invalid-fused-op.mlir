// Bad input for the pass: malformed w4a16.fused_matmul ops are rejected with an error located at the op,
// from the IRDL definition or the C verifier, whether or not a pass runs; every chunk is diagnosed (the
// tool goes on after a failing chunk) and the exit status is non-zero. The chunks named valid* print.
//
// RUN: w4a16-opt --verify-diagnostics --w4a16-fuse --split-input-file %s > /dev/null
// RUN: w4a16-opt --verify-diagnostics --split-input-file %s > /dev/null
// RUN: not w4a16-opt --split-input-file %s > /dev/null 2>&1
// RUN: not w4a16-opt --w4a16-fuse --split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=VALID

// x must be f16 or bf16 (here f32).
func.func @x_not_f16(%x: tensor<4x256xf32>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}x{{.*}}f16}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf32>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// two codes per byte (q4_0_blocks) need i8 elements: an i4 holds one code.
func.func @q4_0_blocks_i4(%x: tensor<4x256xf16>, %w: tensor<64x128xi4>, %s: tensor<64x8xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}weight must have i8 elements}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "q4_0_blocks"} : (tensor<4x256xf16>, tensor<64x128xi4>, tensor<64x8xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// packed_n_k2 holds (N, K/2) bytes: (64, 256) is one code per byte.
func.func @packed_n_k2_shape(%x: tensor<4x256xf16>, %w: tensor<64x256xi8>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}weight dim 1 is 256, expected 128}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_n_k2"} : (tensor<4x256xf16>, tensor<64x256xi8>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// scales (4, N) for K = 256: expected K/128 = 2 groups.
func.func @scales_wrong_groups(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<4x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}scales}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<4x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// the activation attribute is missing.
func.func @missing_activation(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}activation}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// activation "relu" is not one of none | silu | gelu_tanh.
func.func @relu(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}relu}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "relu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// weight_layout packed_k8_n but the weight is a (K, N) i4 tensor, not (K/8, N) i32.
func.func @packed_layout_i4_weight(%x: tensor<4x256xf16>, %w: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}weight}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// bias must be (N,), here (M, N).
func.func @bias_2d(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<4x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}bias}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %b) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// result (M, 128) while the weight and scales say N = 64.
func.func @result_wrong_n(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x128xf16> {
  // expected-error @+1 {{}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x128xf16>
  return %0 : tensor<4x128xf16>
}

// -----

// residual (8, N) for M = 4.
func.func @residual_wrong_m(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %r: tensor<8x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}residual}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %r) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<8x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// n_k weight with scales given as (K/128, N) although scales_layout says n_g (N, K/128).
func.func @n_g_scales_mismatch(%x: tensor<4x256xf16>, %w: tensor<64x256xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}scales}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<4x256xf16>, tensor<64x256xi4>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// group_size 96: the op supports 32, 64 and 128 (64 was the invalid example before issue #17).
func.func @group_size_96(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}group_size}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 96 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// x has K = 512, the packed weight holds K = 256.
func.func @k_mismatch(%x: tensor<4x512xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x512xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// x is bf16, the result f16: x, bias, residual and out share one type.
func.func @bf16_x_f16_out(%x: tensor<4x256xbf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op result must have bf16 (x's type) elements}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xbf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// a bf16 op with an f16 bias.
func.func @bf16_f16_bias(%x: tensor<4x256xbf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xbf16>, %b: tensor<64xf16>) -> tensor<4x64xbf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op bias must have bf16 (x's type) elements}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %b) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xbf16>, tensor<32x64xi32>, tensor<2x64xbf16>, tensor<64xf16>) -> tensor<4x64xbf16>
  return %0 : tensor<4x64xbf16>
}

// -----

// f32 scales: the scales are f16 or bf16.
func.func @f32_scales(%x: tensor<4x256xbf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf32>) -> tensor<4x64xbf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op scales must have f16 or bf16 elements}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xbf16>, tensor<32x64xi32>, tensor<2x64xf32>) -> tensor<4x64xbf16>
  return %0 : tensor<4x64xbf16>
}

// -----

// f64 zero points: not an element type the runtime reads.
func.func @f64_zero_points(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %z: tensor<2x64xf64>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op zero_points must have i4, i8, i32, f16, bf16 or f32 elements}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n", zero_point_layout = "g_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x64xf64>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// zero_point_offset_wraps without zero_point_offset
func.func @wraps_without_offset(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %z: tensor<2x8xi32>) -> tensor<?x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op zero_point_offset_wraps needs integer zero_points and zero_point_offset}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n", zero_point_layout = "packed_g_n8", zero_point_offset_wraps} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x8xi32>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// -----

// offsets_subtracted without zero_points_are_offsets (only offsets are subtracted; a zero point always is)
func.func @subtracted_without_offsets(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %z: tensor<2x64xf16>) -> tensor<?x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op offsets_subtracted needs zero_points_are_offsets}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 128 : i64, offsets_subtracted, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n", zero_point_layout = "g_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// -----

// zero_points_signed without signed_codes (a zero point is only a signed nibble against signed codes)
func.func @signed_zero_points_unsigned_codes(%x: tensor<?x256xf16>, %w: tensor<256x64xi4>, %s: tensor<2x64xf16>, %z: tensor<2x64xi4>) -> tensor<?x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op zero_points_signed needs signed_codes and integer zero_points}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "k_n", zero_point_layout = "g_n", zero_points_signed} : (tensor<?x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>, tensor<2x64xi4>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// -----

// zero points packed two per byte along the groups (ONNX Runtime's MatMulNBits, "packed_n_g2") must be i8 ...
func.func @packed_n_g2_not_i8(%x: tensor<?x256xf16>, %w: tensor<64x128xi8>, %s: tensor<64x8xf16>, %z: tensor<64x4xi32>) -> tensor<?x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op zero_points must have i8 elements}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "n_g", weight_layout = "packed_n_k2", zero_point_layout = "packed_n_g2"} : (tensor<?x256xf16>, tensor<64x128xi8>, tensor<64x8xf16>, tensor<64x4xi32>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// -----

// ... of shape (N, ceil(K/G / 2)): 8 groups take 4 bytes per column, not 8
func.func @packed_n_g2_one_group_per_byte(%x: tensor<?x256xf16>, %w: tensor<64x128xi8>, %s: tensor<64x8xf16>, %z: tensor<64x8xi8>) -> tensor<?x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op zero_points dim 1 is 8, expected 4}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "n_g", weight_layout = "packed_n_k2", zero_point_layout = "packed_n_g2"} : (tensor<?x256xf16>, tensor<64x128xi8>, tensor<64x8xf16>, tensor<64x8xi8>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// -----

// a valid packed_n_g2 op with an odd group count (K = 192, G = 64: 2 bytes per column): printed, no error.
// VALID-LABEL: func.func @valid_packed_n_g2_odd_groups(
// VALID: zero_point_layout = "packed_n_g2"
func.func @valid_packed_n_g2_odd_groups(%x: tensor<?x192xf16>, %w: tensor<32x96xi8>, %s: tensor<32x3xf16>, %z: tensor<32x2xi8>) -> tensor<?x32xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "n_g", weight_layout = "packed_n_k2", zero_point_layout = "packed_n_g2"} : (tensor<?x192xf16>, tensor<32x96xi8>, tensor<32x3xf16>, tensor<32x2xi8>) -> tensor<?x32xf16>
  return %0 : tensor<?x32xf16>
}

// -----

// a valid bf16 op with f16 scales (GPTQ keeps f16 scales for bf16 models): printed, no error.
func.func @valid_bf16(%x: tensor<?x256xbf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xbf16>) -> tensor<?x64xbf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %b) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xbf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xbf16>) -> tensor<?x64xbf16>
  return %0 : tensor<?x64xbf16>
}

// VALID-LABEL: func.func @valid_bf16(
// VALID:         "w4a16.fused_matmul"

// -----

// a valid act-order op (g_idx, the seventh operand): printed, no error.
func.func @valid_act_order(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %g: tensor<256xi32>) -> tensor<?x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %g) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 1>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<256xi32>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// VALID-LABEL: func.func @valid_act_order(
// VALID:         "w4a16.fused_matmul"{{.*}}array<i32: 1, 1, 1, 0, 0, 0, 1>

// -----

// g_idx (act-order) holds one i32 group number per row k: (128) for K = 256 is rejected.
func.func @g_idx_shape(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %g: tensor<128xi32>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op g_idx dim 0 is 128, expected 256}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %g) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 1>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<128xi32>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// ... and of type i32 (the runtime's g_idx).
func.func @g_idx_i64(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %g: tensor<256xi64>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op g_idx must have i32 elements}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %g) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 1>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<256xi64>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// The seventh operand segment is g_idx: six entries (the form before issue #22) are rejected by IRDL.
func.func @six_segments(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error-re @+1 {{{{.*}}operandSegmentSizes{{.*}}}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// a valid op: printed, no error.
func.func @valid(%x: tensor<?x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<?x64xf16>
  return %0 : tensor<?x64xf16>
}

// VALID-LABEL: func.func @valid(
// VALID:         "w4a16.fused_matmul"
