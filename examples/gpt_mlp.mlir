// A GPT-style MLP block (hidden 4096, inner 4 * 4096 = 16384) as torch-mlir emits it for a model whose
// nn.Linear weights were quantised to 4 bits with group size 128 and kept in PyTorch's (out, in) layout:
//
//   out = fc2(gelu_tanh(fc1(x) + b1)) + b2 + x
//
// Each weight is an i8 container holding one unsigned 4-bit code per byte (its low nibble, masked: the IR
// says so, or an 8-bit value would be a different computation), shaped [N, K/128, 128] (the
// (out, in) matrix with the input dimension split into groups), with scales [N, K/128] f16:
// W[n, k] = (code - 8) * scales[n, k / 128]. The dequantised weight is collapsed back to (N, K) and used by
// a transposed-B linalg.matmul (x @ W^T) accumulating in f32. fc1 applies bias and gelu(approximate="tanh")
// in f32 in one generic; fc2 adds its bias in f32, rounds, and the residual is a named linalg.add in f16.
// x has a dynamic batch M. Weights and biases are function arguments.
//
// Expected: two fused chains — fc1 (+ bias + gelu_tanh) and fc2 (+ bias + residual).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#grp = affine_map<(d0, d1, d2) -> (d0, d1)>
#mm_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#mm_bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#mm_c = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @gpt_mlp(%x: tensor<?x4096xf16>,
                   %fc1_weight: tensor<16384x32x128xi8>, %fc1_scales: tensor<16384x32xf16>, %fc1_bias: tensor<16384xf16>,
                   %fc2_weight: tensor<4096x128x128xi8>, %fc2_scales: tensor<4096x128xf16>, %fc2_bias: tensor<4096xf16>)
    -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>

  // ---- fc1: 4096 -> 16384, bias, gelu_tanh -----------------------------------------------------------------
  %w1_init = tensor.empty() : tensor<16384x32x128xf16>
  %w1_3d = linalg.generic {indexing_maps = [#id3, #grp, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%fc1_weight, %fc1_scales : tensor<16384x32x128xi8>, tensor<16384x32xf16>)
      outs(%w1_init : tensor<16384x32x128xf16>) {
  ^bb0(%q: i8, %s: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %nibble = arith.constant 15 : i8
    %q4 = arith.andi %q, %nibble : i8
    %qi = arith.extui %q4 : i8 to i32
    %qf = arith.uitofp %qi : i32 to f16
    %c = arith.subf %qf, %zp : f16
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<16384x32x128xf16>
  %w1 = tensor.collapse_shape %w1_3d [[0], [1, 2]] : tensor<16384x32x128xf16> into tensor<16384x4096xf16>
  %h_acc_init = tensor.empty(%m) : tensor<?x16384xf32>
  %h_acc = linalg.fill ins(%zero : f32) outs(%h_acc_init : tensor<?x16384xf32>) -> tensor<?x16384xf32>
  %h_mm = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%x, %w1 : tensor<?x4096xf16>, tensor<16384x4096xf16>)
      outs(%h_acc : tensor<?x16384xf32>) -> tensor<?x16384xf32>
  %h_init = tensor.empty(%m) : tensor<?x16384xf16>
  %h = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h_mm, %fc1_bias : tensor<?x16384xf32>, tensor<16384xf16>) outs(%h_init : tensor<?x16384xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %beta = arith.constant 0.7978845608028654 : f32
    %kappa = arith.constant 4.471500e-02 : f32
    %bf = arith.extf %b : f16 to f32
    %v = arith.addf %a, %bf : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %kv3 = arith.mulf %kappa, %v3 : f32
    %inner = arith.addf %v, %kv3 : f32
    %arg = arith.mulf %beta, %inner : f32
    %t = math.tanh %arg : f32
    %onept = arith.addf %one, %t : f32
    %hv = arith.mulf %half, %v : f32
    %g = arith.mulf %hv, %onept : f32
    %gh = arith.truncf %g : f32 to f16
    linalg.yield %gh : f16
  } -> tensor<?x16384xf16>

  // ---- fc2: 16384 -> 4096, bias, residual x ----------------------------------------------------------------
  %w2_init = tensor.empty() : tensor<4096x128x128xf16>
  %w2_3d = linalg.generic {indexing_maps = [#id3, #grp, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%fc2_weight, %fc2_scales : tensor<4096x128x128xi8>, tensor<4096x128xf16>)
      outs(%w2_init : tensor<4096x128x128xf16>) {
  ^bb0(%q: i8, %s: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %nibble = arith.constant 15 : i8
    %q4 = arith.andi %q, %nibble : i8
    %qi = arith.extui %q4 : i8 to i32
    %qf = arith.uitofp %qi : i32 to f16
    %c = arith.subf %qf, %zp : f16
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<4096x128x128xf16>
  %w2 = tensor.collapse_shape %w2_3d [[0], [1, 2]] : tensor<4096x128x128xf16> into tensor<4096x16384xf16>
  %y_acc_init = tensor.empty(%m) : tensor<?x4096xf32>
  %y_acc = linalg.fill ins(%zero : f32) outs(%y_acc_init : tensor<?x4096xf32>) -> tensor<?x4096xf32>
  %y_mm = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%h, %w2 : tensor<?x16384xf16>, tensor<4096x16384xf16>)
      outs(%y_acc : tensor<?x4096xf32>) -> tensor<?x4096xf32>
  %y_init = tensor.empty(%m) : tensor<?x4096xf16>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y_mm, %fc2_bias : tensor<?x4096xf32>, tensor<4096xf16>) outs(%y_init : tensor<?x4096xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %v = arith.addf %a, %bf : f32
    %vh = arith.truncf %v : f32 to f16
    linalg.yield %vh : f16
  } -> tensor<?x4096xf16>
  %out_init = tensor.empty(%m) : tensor<?x4096xf16>
  %out = linalg.add ins(%y, %x : tensor<?x4096xf16>, tensor<?x4096xf16>)
                    outs(%out_init : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  return %out : tensor<?x4096xf16>
}
