// The attention input projections of a Qwen2-style layer (Qwen2-1.5B's widths scaled to hidden 2048: 16 query
// heads and 2 key/value heads of 128, grouped-query attention) as torch-mlir emits them for a GPTQ checkpoint
// (symmetric, group size 128). Qwen2's q, k and v projections have biases:
//
//   q = x Wq + bq (2048 wide), k = x Wk + bk (256), v = x Wv + bv (256); out = [q | k | v]
//
// Weights as GPTQ packs them (qweight (K/8, N) i32, least-significant nibble first; scales (K/128, N) f16,
// W[k, n] = (code - 8) * scales[k / 128, n]), unpacked by the same generic per projection; the matmuls
// accumulate in f32 and the bias is added in f32 before the rounding to f16. The three results are written side
// by side into one (M, 2560) tensor, which the attention that follows would read.
//
// Expected: three fused chains (matmul -> bias), merged into one w4a16.merged_matmul (issue #21): one launch
// and one plan for the three weights, each result still its own tensor.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

func.func @qwen2_qkv(%x: tensor<?x2048xf16>,
                     %q_qweight: tensor<256x2048xi32>, %q_scales: tensor<16x2048xf16>, %q_bias: tensor<2048xf16>,
                     %k_qweight: tensor<256x256xi32>, %k_scales: tensor<16x256xf16>, %k_bias: tensor<256xf16>,
                     %v_qweight: tensor<256x256xi32>, %v_scales: tensor<16x256xf16>, %v_bias: tensor<256xf16>)
    -> tensor<?x2560xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>

  // ---- q_proj: dequant, f32 matmul, + bias in f32, truncf ----------------------------------------------------
  %q_w_init = tensor.empty() : tensor<2048x2048xf16>
  %q_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%q_w_init : tensor<2048x2048xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %kk = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %kk, %c8 : index
    %word = tensor.extract %q_qweight[%kw, %n] : tensor<256x2048xi32>
    %lane = arith.remui %kk, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %kk, %c128 : index
    %scale = tensor.extract %q_scales[%g, %n] : tensor<16x2048xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<2048x2048xf16>
  %q_acc_init = tensor.empty(%m) : tensor<?x2048xf32>
  %q_acc = linalg.fill ins(%zero : f32) outs(%q_acc_init : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %q_mm = linalg.matmul ins(%x, %q_w : tensor<?x2048xf16>, tensor<2048x2048xf16>)
                         outs(%q_acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %q_init = tensor.empty(%m) : tensor<?x2048xf16>
  %q = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q_mm, %q_bias : tensor<?x2048xf32>, tensor<2048xf16>) outs(%q_init : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %y = arith.addf %a, %bf : f32
    %h = arith.truncf %y : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x2048xf16>

  // ---- k_proj: dequant, f32 matmul, + bias in f32, truncf ----------------------------------------------------
  %k_w_init = tensor.empty() : tensor<2048x256xf16>
  %k_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%k_w_init : tensor<2048x256xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %kk = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %kk, %c8 : index
    %word = tensor.extract %k_qweight[%kw, %n] : tensor<256x256xi32>
    %lane = arith.remui %kk, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %kk, %c128 : index
    %scale = tensor.extract %k_scales[%g, %n] : tensor<16x256xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<2048x256xf16>
  %k_acc_init = tensor.empty(%m) : tensor<?x256xf32>
  %k_acc = linalg.fill ins(%zero : f32) outs(%k_acc_init : tensor<?x256xf32>) -> tensor<?x256xf32>
  %k_mm = linalg.matmul ins(%x, %k_w : tensor<?x2048xf16>, tensor<2048x256xf16>)
                         outs(%k_acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %k_init = tensor.empty(%m) : tensor<?x256xf16>
  %k = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%k_mm, %k_bias : tensor<?x256xf32>, tensor<256xf16>) outs(%k_init : tensor<?x256xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %y = arith.addf %a, %bf : f32
    %h = arith.truncf %y : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x256xf16>

  // ---- v_proj: dequant, f32 matmul, + bias in f32, truncf ----------------------------------------------------
  %v_w_init = tensor.empty() : tensor<2048x256xf16>
  %v_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%v_w_init : tensor<2048x256xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %kk = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %kk, %c8 : index
    %word = tensor.extract %v_qweight[%kw, %n] : tensor<256x256xi32>
    %lane = arith.remui %kk, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %kk, %c128 : index
    %scale = tensor.extract %v_scales[%g, %n] : tensor<16x256xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<2048x256xf16>
  %v_acc_init = tensor.empty(%m) : tensor<?x256xf32>
  %v_acc = linalg.fill ins(%zero : f32) outs(%v_acc_init : tensor<?x256xf32>) -> tensor<?x256xf32>
  %v_mm = linalg.matmul ins(%x, %v_w : tensor<?x2048xf16>, tensor<2048x256xf16>)
                         outs(%v_acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %v_init = tensor.empty(%m) : tensor<?x256xf16>
  %v = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v_mm, %v_bias : tensor<?x256xf32>, tensor<256xf16>) outs(%v_init : tensor<?x256xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %y = arith.addf %a, %bf : f32
    %h = arith.truncf %y : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x256xf16>

  // ---- [q | k | v] ----------------------------------------------------------------------------------------------
  %qkv_init = tensor.empty(%m) : tensor<?x2560xf16>
  %with_q = tensor.insert_slice %q into %qkv_init[0, 0] [%m, 2048] [1, 1] : tensor<?x2048xf16> into tensor<?x2560xf16>
  %with_k = tensor.insert_slice %k into %with_q[0, 2048] [%m, 256] [1, 1] : tensor<?x256xf16> into tensor<?x2560xf16>
  %qkv = tensor.insert_slice %v into %with_k[0, 2304] [%m, 256] [1, 1] : tensor<?x256xf16> into tensor<?x2560xf16>
  return %qkv : tensor<?x2560xf16>
}
