// OPT's decoder MLP (facebook/opt-125m: hidden 768, ffn 3072) quantised with GPTQ (4 bits, group size 128,
// symmetric) as torch-mlir lowers it, one generic per aten op:
//
//   out = fc2(relu(fc1(x) + b1)) + b2 + x
//
// Each nn.Linear stores its weight as GPTQ packs it: qweight (K/8, N) i32, word [k/8, n] holding the codes of
// k = 8*(k/8) .. +7, least-significant nibble first, and scales (K/128, N) f16; W[k, n] = (code - 8) *
// scales[k / 128, n]. The matmuls accumulate in f32 (f16 x f16 -> f32 init, as torch does on CUDA) and round to
// f16; each bias is a broadcast aten.add in f16. aten.relu is torch-mlir's select(x >u 0, x, 0): the unordered compare keeps a NaN, as the
// fused op does. x has a dynamic batch M. Weights and biases are function arguments.
//
// Expected: two fused chains -- fc1 (+ bias + relu) and fc2 (+ bias + residual x).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

func.func @opt_mlp(%x: tensor<?x768xf16>,
                   %fc1_qweight: tensor<96x3072xi32>, %fc1_scales: tensor<6x3072xf16>, %fc1_bias: tensor<3072xf16>,
                   %fc2_qweight: tensor<384x768xi32>, %fc2_scales: tensor<24x768xf16>, %fc2_bias: tensor<768xf16>)
    -> tensor<?x768xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x768xf16>

  // ---- fc1: 768 -> 3072, bias, relu --------------------------------------------------------------------------
  %w1_init = tensor.empty() : tensor<768x3072xf16>
  %w1 = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%w1_init : tensor<768x3072xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %fc1_qweight[%kw, %n] : tensor<96x3072xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %fc1_scales[%g, %n] : tensor<6x3072xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<768x3072xf16>
  %h_acc_init = tensor.empty(%m) : tensor<?x3072xf32>
  %h_acc = linalg.fill ins(%zero : f32) outs(%h_acc_init : tensor<?x3072xf32>) -> tensor<?x3072xf32>
  %h_mm = linalg.matmul ins(%x, %w1 : tensor<?x768xf16>, tensor<768x3072xf16>)
                        outs(%h_acc : tensor<?x3072xf32>) -> tensor<?x3072xf32>
  %h16_init = tensor.empty(%m) : tensor<?x3072xf16>
  %h16 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h_mm : tensor<?x3072xf32>) outs(%h16_init : tensor<?x3072xf16>) {
  ^bb0(%a: f32, %out: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x3072xf16>
  %hb_init = tensor.empty(%m) : tensor<?x3072xf16>
  %hb = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h16, %fc1_bias : tensor<?x3072xf16>, tensor<3072xf16>) outs(%hb_init : tensor<?x3072xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  } -> tensor<?x3072xf16>
  %h_init = tensor.empty(%m) : tensor<?x3072xf16>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%hb : tensor<?x3072xf16>) outs(%h_init : tensor<?x3072xf16>) {
  ^bb0(%a: f16, %out: f16):
    %z = arith.constant 0.000000e+00 : f16
    %positive = arith.cmpf ugt, %a, %z : f16
    %r = arith.select %positive, %a, %z : f16
    linalg.yield %r : f16
  } -> tensor<?x3072xf16>

  // ---- fc2: 3072 -> 768, bias, residual ----------------------------------------------------------------------
  %w2_init = tensor.empty() : tensor<3072x768xf16>
  %w2 = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%w2_init : tensor<3072x768xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %fc2_qweight[%kw, %n] : tensor<384x768xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %fc2_scales[%g, %n] : tensor<24x768xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<3072x768xf16>
  %o_acc_init = tensor.empty(%m) : tensor<?x768xf32>
  %o_acc = linalg.fill ins(%zero : f32) outs(%o_acc_init : tensor<?x768xf32>) -> tensor<?x768xf32>
  %o_mm = linalg.matmul ins(%h, %w2 : tensor<?x3072xf16>, tensor<3072x768xf16>)
                        outs(%o_acc : tensor<?x768xf32>) -> tensor<?x768xf32>
  %o16_init = tensor.empty(%m) : tensor<?x768xf16>
  %o16 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%o_mm : tensor<?x768xf32>) outs(%o16_init : tensor<?x768xf16>) {
  ^bb0(%a: f32, %out: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x768xf16>
  %ob_init = tensor.empty(%m) : tensor<?x768xf16>
  %ob = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%o16, %fc2_bias : tensor<?x768xf16>, tensor<768xf16>) outs(%ob_init : tensor<?x768xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  } -> tensor<?x768xf16>
  %out_init = tensor.empty(%m) : tensor<?x768xf16>
  %out = linalg.add ins(%ob, %x : tensor<?x768xf16>, tensor<?x768xf16>) outs(%out_init : tensor<?x768xf16>)
      -> tensor<?x768xf16>
  return %out : tensor<?x768xf16>
}
