// An MLX 4-bit linear layer (mlx.core.quantize, bits = 4, group_size = 64: the form of the mlx-community
// checkpoints), in linalg as a frontend importing such a checkpoint would write it:
//
//   weight  uint32 [N, K/8]     code(k, n) in nibble k % 8 of word [n, k/8], least significant first
//   scales  f16 [N, K/64],  biases f16 [N, K/64]
//   y = x * W^T + bias,  W[n, k] = code * scale + bias_g   (an offset form: zero point 0, offset = MLX's bias)
//
// computed in f32 (the upstream-only reference build then is the exact side). K = 512, N = 256. Written here
// from mlx.core.quantize's definition, not taken from an exporter's output.
//
// Expected: one fused chain -- weight packed_n_k8, scales n_g, offsets n_g, group size 64, bias.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @mlx_q4(%x: tensor<?x512xf16>, %weight: tensor<256x64xi32>, %scales: tensor<256x8xf16>,
                  %biases: tensor<256x8xf16>, %bias: tensor<256xf16>) -> tensor<?x256xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %w_init = tensor.empty() : tensor<256x512xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%w_init : tensor<256x512xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %k = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i32
    %word_at = arith.divui %k, %c8 : index
    %nibble = arith.remui %k, %c8 : index
    %word = tensor.extract %weight[%n, %word_at] : tensor<256x64xi32>
    %shift = arith.muli %nibble, %c4 : index
    %shift_i32 = arith.index_cast %shift : index to i32
    %shifted = arith.shrui %word, %shift_i32 : i32
    %q = arith.andi %shifted, %c15 : i32
    %qf = arith.uitofp %q : i32 to f32
    %g = arith.divui %k, %c64 : index
    %s = tensor.extract %scales[%n, %g] : tensor<256x8xf16>
    %b = tensor.extract %biases[%n, %g] : tensor<256x8xf16>
    %s32 = arith.extf %s : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %qs = arith.mulf %qf, %s32 : f32
    %v = arith.addf %qs, %b32 : f32
    linalg.yield %v : f32
  } -> tensor<256x512xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %y_init = tensor.empty(%m) : tensor<?x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%y_init : tensor<?x256xf32>) -> tensor<?x256xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
                                      affine_map<(d0, d1, d2) -> (d0, d1)>]
       ins(%x, %w : tensor<?x512xf16>, tensor<256x512xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %out_init = tensor.empty(%m) : tensor<?x256xf16>
  %out = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<?x256xf32>, tensor<256xf16>) outs(%out_init : tensor<?x256xf16>) {
  ^bb0(%a: f32, %bb: f16, %o: f16):
    %b32 = arith.extf %bb : f16 to f32
    %r = arith.addf %a, %b32 : f32
    %r16 = arith.truncf %r : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<?x256xf16>
  return %out : tensor<?x256xf16>
}
