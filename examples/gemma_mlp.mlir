// A Gemma-style MLP block (GeGLU: gelu with the tanh approximation, "gelu_pytorch_tanh"; Gemma-2B's hidden 2048,
// intermediate scaled to 8192) as torch-mlir emits it for a GPTQ checkpoint (symmetric, group size 128):
//
//   out = down(up(x) * gelu_tanh(gate(x))) + x
//
// Weights as GPTQ packs them (qweight (K/8, N) i32, least-significant nibble first; scales (K/128, N) f16),
// unpacked by the same generic per projection; matmuls accumulate in f32; the product is taken in f32, up first.
//
// Expected: three fused chains -- gate (+ gelu_tanh), up, down (+ residual x) -- with gate, up and up * gate
// merged into one GLU launch (issue #21): act(x Wg) * (x Wu), gelu_tanh, one rounding.

#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @gemma_mlp(%x: tensor<?x2048xf16>,
                     %gate_qweight: tensor<256x8192xi32>, %gate_scales: tensor<16x8192xf16>,
                     %up_qweight: tensor<256x8192xi32>, %up_scales: tensor<16x8192xf16>,
                     %down_qweight: tensor<1024x2048xi32>, %down_scales: tensor<64x2048xf16>)
    -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>

  // ---- gate_proj: dequant, f32 matmul, gelu_tanh on the f32 accumulator, truncf -------------------------------
  %gate_w_init = tensor.empty() : tensor<2048x8192xf16>
  %gate_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%gate_w_init : tensor<2048x8192xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %gate_qweight[%kw, %n] : tensor<256x8192xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %gate_scales[%g, %n] : tensor<16x8192xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<2048x8192xf16>
  %gate_acc_init = tensor.empty(%m) : tensor<?x8192xf32>
  %gate_acc = linalg.fill ins(%zero : f32) outs(%gate_acc_init : tensor<?x8192xf32>) -> tensor<?x8192xf32>
  %gate_mm = linalg.matmul ins(%x, %gate_w : tensor<?x2048xf16>, tensor<2048x8192xf16>)
                           outs(%gate_acc : tensor<?x8192xf32>) -> tensor<?x8192xf32>
  %gate_init = tensor.empty(%m) : tensor<?x8192xf16>
  %gate = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gate_mm : tensor<?x8192xf32>) outs(%gate_init : tensor<?x8192xf16>) {
  ^bb0(%v: f32, %out: f16):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %beta = arith.constant 0.7978845608028654 : f32
    %kappa = arith.constant 4.471500e-02 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %kv3 = arith.mulf %kappa, %v3 : f32
    %inner = arith.addf %v, %kv3 : f32
    %arg = arith.mulf %beta, %inner : f32
    %t = math.tanh %arg : f32
    %onept = arith.addf %one, %t : f32
    %hv = arith.mulf %half, %v : f32
    %gl = arith.mulf %hv, %onept : f32
    %h = arith.truncf %gl : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x8192xf16>

  // ---- up_proj: dequant, f32 matmul, truncf ---------------------------------------------------------------
  %up_w_init = tensor.empty() : tensor<2048x8192xf16>
  %up_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%up_w_init : tensor<2048x8192xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %up_qweight[%kw, %n] : tensor<256x8192xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %up_scales[%g, %n] : tensor<16x8192xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<2048x8192xf16>
  %up_acc_init = tensor.empty(%m) : tensor<?x8192xf32>
  %up_acc = linalg.fill ins(%zero : f32) outs(%up_acc_init : tensor<?x8192xf32>) -> tensor<?x8192xf32>
  %up_mm = linalg.matmul ins(%x, %up_w : tensor<?x2048xf16>, tensor<2048x8192xf16>)
                         outs(%up_acc : tensor<?x8192xf32>) -> tensor<?x8192xf32>
  %up_init = tensor.empty(%m) : tensor<?x8192xf16>
  %up = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%up_mm : tensor<?x8192xf32>) outs(%up_init : tensor<?x8192xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x8192xf16>

  // ---- up * act_fn(gate), multiplied in f32 ----------------------------------------------------------------------------------
  %prod_init = tensor.empty(%m) : tensor<?x8192xf16>
  %prod = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%up, %gate : tensor<?x8192xf16>, tensor<?x8192xf16>) outs(%prod_init : tensor<?x8192xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p32 = arith.mulf %a32, %b32 : f32
    %p = arith.truncf %p32 : f32 to f16
    linalg.yield %p : f16
  } -> tensor<?x8192xf16>

  // ---- down_proj (K = 11008 = 86 groups): dequant, f32 matmul, truncf, residual add of x ------------------
  %down_w_init = tensor.empty() : tensor<8192x2048xf16>
  %down_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%down_w_init : tensor<8192x2048xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %down_qweight[%kw, %n] : tensor<1024x2048xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %down_scales[%g, %n] : tensor<64x2048xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<8192x2048xf16>
  %down_acc_init = tensor.empty(%m) : tensor<?x2048xf32>
  %down_acc = linalg.fill ins(%zero : f32) outs(%down_acc_init : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %down_mm = linalg.matmul ins(%prod, %down_w : tensor<?x8192xf16>, tensor<8192x2048xf16>)
                           outs(%down_acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %down_init = tensor.empty(%m) : tensor<?x2048xf16>
  %down = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%down_mm : tensor<?x2048xf32>) outs(%down_init : tensor<?x2048xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x2048xf16>
  %out_init = tensor.empty(%m) : tensor<?x2048xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%down, %x : tensor<?x2048xf16>, tensor<?x2048xf16>) outs(%out_init : tensor<?x2048xf16>) {
  ^bb0(%d: f16, %r: f16, %o: f16):
    %s = arith.addf %d, %r : f16
    linalg.yield %s : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
