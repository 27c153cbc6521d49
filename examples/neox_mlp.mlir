// A GPT-NeoX MLP (EleutherAI/pythia-410m, f16: hidden 1024, ffn 4096; GPT-NeoX, Falcon, MPT and BERT use the same
// exact gelu), with 4-bit weights in IREE's i4 style:
//
//   out = dense_4h_to_h(gelu(dense_h_to_4h(x) + b1)) + b2 + x,   gelu(v) = 0.5 v (1 + erf(v / sqrt 2))
//
// Each weight is i4 [N, K/128, 128] (PyTorch's (out, in) layout with the input dimension split into groups;
// LLVM stores each code in one byte) with f16 scales [N, K/128]: W[n, k] = (code - 8) * scales[n, k / 128].
// The dequantised weight is collapsed to (N, K) and used by a transposed-B linalg.matmul accumulating in f32.
// dense_h_to_4h's bias and gelu(approximate="none") run on the f32 accumulator in one generic (as elementwise
// fusion leaves them), with 1 / sqrt 2 as an f32 constant; dense_4h_to_h adds its bias in f32 and rounds, and
// the residual is a named linalg.add in f16. x has a dynamic batch M.
//
// Expected: two fused chains -- dense_h_to_4h (+ bias + gelu_erf) and dense_4h_to_h (+ bias + residual).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#grp = affine_map<(d0, d1, d2) -> (d0, d1)>
#mm_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#mm_bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#mm_c = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @neox_mlp(%x: tensor<?x1024xf16>,
                    %fc1_weight: tensor<4096x8x128xi4>, %fc1_scales: tensor<4096x8xf16>, %fc1_bias: tensor<4096xf16>,
                    %fc2_weight: tensor<1024x32x128xi4>, %fc2_scales: tensor<1024x32xf16>, %fc2_bias: tensor<1024xf16>)
    -> tensor<?x1024xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x1024xf16>

  // ---- dense_h_to_4h: 1024 -> 4096, bias, exact gelu -------------------------------------------------------
  %w1_init = tensor.empty() : tensor<4096x8x128xf16>
  %w1_3d = linalg.generic {indexing_maps = [#id3, #grp, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%fc1_weight, %fc1_scales : tensor<4096x8x128xi4>, tensor<4096x8xf16>)
      outs(%w1_init : tensor<4096x8x128xf16>) {
  ^bb0(%q: i4, %s: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %qi = arith.extui %q : i4 to i32
    %qf = arith.uitofp %qi : i32 to f16
    %c = arith.subf %qf, %zp : f16
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<4096x8x128xf16>
  %w1 = tensor.collapse_shape %w1_3d [[0], [1, 2]] : tensor<4096x8x128xf16> into tensor<4096x1024xf16>
  %h_acc_init = tensor.empty(%m) : tensor<?x4096xf32>
  %h_acc = linalg.fill ins(%zero : f32) outs(%h_acc_init : tensor<?x4096xf32>) -> tensor<?x4096xf32>
  %h_mm = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%x, %w1 : tensor<?x1024xf16>, tensor<4096x1024xf16>)
      outs(%h_acc : tensor<?x4096xf32>) -> tensor<?x4096xf32>
  %h_init = tensor.empty(%m) : tensor<?x4096xf16>
  %h = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h_mm, %fc1_bias : tensor<?x4096xf32>, tensor<4096xf16>) outs(%h_init : tensor<?x4096xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %rsqrt2 = arith.constant 0.707106769 : f32
    %bf = arith.extf %b : f16 to f32
    %v = arith.addf %a, %bf : f32
    %scaled = arith.mulf %v, %rsqrt2 : f32
    %e = math.erf %scaled : f32
    %onepe = arith.addf %one, %e : f32
    %cdf = arith.mulf %half, %onepe : f32
    %g = arith.mulf %v, %cdf : f32
    %gh = arith.truncf %g : f32 to f16
    linalg.yield %gh : f16
  } -> tensor<?x4096xf16>

  // ---- dense_4h_to_h: 4096 -> 1024, bias, residual x -------------------------------------------------------
  %w2_init = tensor.empty() : tensor<1024x32x128xf16>
  %w2_3d = linalg.generic {indexing_maps = [#id3, #grp, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%fc2_weight, %fc2_scales : tensor<1024x32x128xi4>, tensor<1024x32xf16>)
      outs(%w2_init : tensor<1024x32x128xf16>) {
  ^bb0(%q: i4, %s: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %qi = arith.extui %q : i4 to i32
    %qf = arith.uitofp %qi : i32 to f16
    %c = arith.subf %qf, %zp : f16
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<1024x32x128xf16>
  %w2 = tensor.collapse_shape %w2_3d [[0], [1, 2]] : tensor<1024x32x128xf16> into tensor<1024x4096xf16>
  %y_acc_init = tensor.empty(%m) : tensor<?x1024xf32>
  %y_acc = linalg.fill ins(%zero : f32) outs(%y_acc_init : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %y_mm = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%h, %w2 : tensor<?x4096xf16>, tensor<1024x4096xf16>)
      outs(%y_acc : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %y_init = tensor.empty(%m) : tensor<?x1024xf16>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y_mm, %fc2_bias : tensor<?x1024xf32>, tensor<1024xf16>) outs(%y_init : tensor<?x1024xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %v = arith.addf %a, %bf : f32
    %vh = arith.truncf %v : f32 to f16
    linalg.yield %vh : f16
  } -> tensor<?x1024xf16>
  %out_init = tensor.empty(%m) : tensor<?x1024xf16>
  %out = linalg.add ins(%y, %x : tensor<?x1024xf16>, tensor<?x1024xf16>)
                    outs(%out_init : tensor<?x1024xf16>) -> tensor<?x1024xf16>
  return %out : tensor<?x1024xf16>
}
