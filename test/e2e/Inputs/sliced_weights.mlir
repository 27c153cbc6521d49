// Fused projections whose weight, scales and zero points are column slices of larger tensors, as
// w4a16-split-chunked-glu leaves a Phi-3 gate_up projection (tensor.extract_slice of the stored tensors;
// bufferized, strided memref subviews). Written as fused ops so that the test does not depend on the
// matcher. In each function the two halves have different activations, so they stay two calls (no
// merge): each call's weight is a different window of one buffer, at the same shapes.
//   @gptq_halves: packed_k8_n (K/8, 2I) words and (K/G, 2I) scales, columns [0, I) and [I, 2I);
//   @awq_halves:  packed_k_n8_awq (K, 2I/8) words and packed_g_n8_awq zero points, words [0, I/8), [I/8, I/4);
//   @nk_halves:   n_k (2I, K) i8 codes and n_g (2I, K/G) scales, rows [0, I) and [I, 2I).
// K = 256, G = 128, I = 64.
func.func @gptq_halves(%x: tensor<?x256xf16>, %w: tensor<32x128xi32>, %s: tensor<2x128xf16>)
    -> (tensor<?x64xf16>, tensor<?x64xf16>) {
  %w0 = tensor.extract_slice %w[0, 0] [32, 64] [1, 1] : tensor<32x128xi32> to tensor<32x64xi32>
  %s0 = tensor.extract_slice %s[0, 0] [2, 64] [1, 1] : tensor<2x128xf16> to tensor<2x64xf16>
  %w1 = tensor.extract_slice %w[0, 64] [32, 64] [1, 1] : tensor<32x128xi32> to tensor<32x64xi32>
  %s1 = tensor.extract_slice %s[0, 64] [2, 64] [1, 1] : tensor<2x128xf16> to tensor<2x64xf16>
  %a = "w4a16.fused_matmul"(%x, %w0, %s0) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<?x64xf16>
  %b = "w4a16.fused_matmul"(%x, %w1, %s1) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<?x64xf16>
  return %a, %b : tensor<?x64xf16>, tensor<?x64xf16>
}

func.func @awq_halves(%x: tensor<?x256xf16>, %w: tensor<256x16xi32>, %z: tensor<2x16xi32>, %s: tensor<2x128xf16>)
    -> (tensor<?x64xf16>, tensor<?x64xf16>) {
  %w0 = tensor.extract_slice %w[0, 0] [256, 8] [1, 1] : tensor<256x16xi32> to tensor<256x8xi32>
  %z0 = tensor.extract_slice %z[0, 0] [2, 8] [1, 1] : tensor<2x16xi32> to tensor<2x8xi32>
  %s0 = tensor.extract_slice %s[0, 0] [2, 64] [1, 1] : tensor<2x128xf16> to tensor<2x64xf16>
  %w1 = tensor.extract_slice %w[0, 8] [256, 8] [1, 1] : tensor<256x16xi32> to tensor<256x8xi32>
  %z1 = tensor.extract_slice %z[0, 8] [2, 8] [1, 1] : tensor<2x16xi32> to tensor<2x8xi32>
  %s1 = tensor.extract_slice %s[0, 64] [2, 64] [1, 1] : tensor<2x128xf16> to tensor<2x64xf16>
  %a = "w4a16.fused_matmul"(%x, %w0, %s0, %z0) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k_n8_awq", zero_point_layout = "packed_g_n8_awq"} : (tensor<?x256xf16>, tensor<256x8xi32>, tensor<2x64xf16>, tensor<2x8xi32>) -> tensor<?x64xf16>
  %b = "w4a16.fused_matmul"(%x, %w1, %s1, %z1) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k_n8_awq", zero_point_layout = "packed_g_n8_awq"} : (tensor<?x256xf16>, tensor<256x8xi32>, tensor<2x64xf16>, tensor<2x8xi32>) -> tensor<?x64xf16>
  return %a, %b : tensor<?x64xf16>, tensor<?x64xf16>
}

func.func @nk_halves(%x: tensor<?x256xf16>, %w: tensor<128x256xi8>, %s: tensor<128x2xf16>)
    -> (tensor<?x64xf16>, tensor<?x64xf16>) {
  %w0 = tensor.extract_slice %w[0, 0] [64, 256] [1, 1] : tensor<128x256xi8> to tensor<64x256xi8>
  %s0 = tensor.extract_slice %s[0, 0] [64, 2] [1, 1] : tensor<128x2xf16> to tensor<64x2xf16>
  %w1 = tensor.extract_slice %w[64, 0] [64, 256] [1, 1] : tensor<128x256xi8> to tensor<64x256xi8>
  %s1 = tensor.extract_slice %s[64, 0] [64, 2] [1, 1] : tensor<128x2xf16> to tensor<64x2xf16>
  %a = "w4a16.fused_matmul"(%x, %w0, %s0) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<?x256xf16>, tensor<64x256xi8>, tensor<64x2xf16>) -> tensor<?x64xf16>
  %b = "w4a16.fused_matmul"(%x, %w1, %s1) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<?x256xf16>, tensor<64x256xi8>, tensor<64x2xf16>) -> tensor<?x64xf16>
  return %a, %b : tensor<?x64xf16>, tensor<?x64xf16>
}
