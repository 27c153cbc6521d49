// 46: one dequantisation of a fused QKV weight (K, 3N) (Falcon's query_key_value / GPT-2's c_attn stored as one
// quantised tensor), then column windows of the DEQUANTISED weight (tensor.extract_slice) feed q, k, v matmuls.
func.func @qkv_slices(%x: tensor<4x1024xf16>, %q: tensor<1024x768xi4>, %s: tensor<8x768xf16>) -> (tensor<4x256xf16>, tensor<4x256xf16>, tensor<4x256xf16>) {
  %c8 = arith.constant 8.0 : f16
  %c0 = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1024x768xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<1024x768xi4>, tensor<8x768xf16>) outs(%e : tensor<1024x768xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x768xf16>
  %wq = tensor.extract_slice %w[0, 0] [1024, 256] [1, 1] : tensor<1024x768xf16> to tensor<1024x256xf16>
  %wk = tensor.extract_slice %w[0, 256] [1024, 256] [1, 1] : tensor<1024x768xf16> to tensor<1024x256xf16>
  %wv = tensor.extract_slice %w[0, 512] [1024, 256] [1, 1] : tensor<1024x768xf16> to tensor<1024x256xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  %yq = linalg.matmul ins(%x, %wq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  %yk = linalg.matmul ins(%x, %wk : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  %yv = linalg.matmul ins(%x, %wv : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %yq, %yk, %yv : tensor<4x256xf16>, tensor<4x256xf16>, tensor<4x256xf16>
}
