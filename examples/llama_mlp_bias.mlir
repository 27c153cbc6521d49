// A LLaMA-architecture MLP block with biases on its projections (transformers' LlamaConfig(mlp_bias=True); TinyLlama's
// widths: hidden 2048, intermediate 5632) as torch-mlir emits it for a GPTQ checkpoint (symmetric, group size 128):
//
//   out = down(silu(gate(x)) * up(x)) + x,   gate(x) = x Wg + bg, up(x) = x Wu + bu, down(h) = h Wd + bd
//
// Weights as GPTQ packs them (qweight (K/8, N) i32, least-significant nibble first; scales (K/128, N) f16,
// W[k, n] = (code - 8) * scales[k / 128, n]), unpacked by the same generic per projection. Each nn.Linear is a matmul
// accumulating in f32 whose bias is added in f32 before the rounding to f16 (as gpt_mlp and qwen2_qkv); silu is
// a generic of its own on the rounded gate (aten.silu), and the product another (aten.mul), up first.
//
// Expected: three fused chains with biases, gate and up merged with silu(gate) * up into one GLU launch
// (issue #21): act(x Wg + bg) * (x Wu + bu), the two biases interleaved as the GLU plan interleaves their columns.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

func.func @llama_mlp_bias(%x: tensor<?x2048xf16>,
                          %gate_qweight: tensor<256x5632xi32>, %gate_scales: tensor<16x5632xf16>, %gate_bias: tensor<5632xf16>,
                          %up_qweight: tensor<256x5632xi32>, %up_scales: tensor<16x5632xf16>, %up_bias: tensor<5632xf16>,
                          %down_qweight: tensor<704x2048xi32>, %down_scales: tensor<44x2048xf16>, %down_bias: tensor<2048xf16>)
    -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>

  // ---- gate_proj: dequant, f32 matmul, + bias in f32, truncf ------------------------------------------------
  %gate_w_init = tensor.empty() : tensor<2048x5632xf16>
  %gate_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%gate_w_init : tensor<2048x5632xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %gate_qweight[%kw, %n] : tensor<256x5632xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %gate_scales[%g, %n] : tensor<16x5632xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<2048x5632xf16>
  %gate_acc_init = tensor.empty(%m) : tensor<?x5632xf32>
  %gate_acc = linalg.fill ins(%zero : f32) outs(%gate_acc_init : tensor<?x5632xf32>) -> tensor<?x5632xf32>
  %gate_mm = linalg.matmul ins(%x, %gate_w : tensor<?x2048xf16>, tensor<2048x5632xf16>)
                           outs(%gate_acc : tensor<?x5632xf32>) -> tensor<?x5632xf32>
  %gate_init = tensor.empty(%m) : tensor<?x5632xf16>
  %gate = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gate_mm, %gate_bias : tensor<?x5632xf32>, tensor<5632xf16>) outs(%gate_init : tensor<?x5632xf16>) {
  ^bb0(%v: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %s = arith.addf %v, %bf : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x5632xf16>

  // ---- up_proj: dequant, f32 matmul, + bias in f32, truncf --------------------------------------------------
  %up_w_init = tensor.empty() : tensor<2048x5632xf16>
  %up_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%up_w_init : tensor<2048x5632xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %up_qweight[%kw, %n] : tensor<256x5632xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %up_scales[%g, %n] : tensor<16x5632xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<2048x5632xf16>
  %up_acc_init = tensor.empty(%m) : tensor<?x5632xf32>
  %up_acc = linalg.fill ins(%zero : f32) outs(%up_acc_init : tensor<?x5632xf32>) -> tensor<?x5632xf32>
  %up_mm = linalg.matmul ins(%x, %up_w : tensor<?x2048xf16>, tensor<2048x5632xf16>)
                           outs(%up_acc : tensor<?x5632xf32>) -> tensor<?x5632xf32>
  %up_init = tensor.empty(%m) : tensor<?x5632xf16>
  %up = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%up_mm, %up_bias : tensor<?x5632xf32>, tensor<5632xf16>) outs(%up_init : tensor<?x5632xf16>) {
  ^bb0(%v: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %s = arith.addf %v, %bf : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x5632xf16>

  // ---- silu(gate) (aten.silu), then up * silu(gate) (aten.mul) ---------------------------------------------------
  %act_init = tensor.empty(%m) : tensor<?x5632xf16>
  %act = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gate : tensor<?x5632xf16>) outs(%act_init : tensor<?x5632xf16>) {
  ^bb0(%a: f16, %out: f16):
    %af = arith.extf %a : f16 to f32
    %one = arith.constant 1.000000e+00 : f32
    %neg = arith.negf %af : f32
    %e = math.exp %neg : f32
    %den = arith.addf %e, %one : f32
    %silu = arith.divf %af, %den : f32
    %h = arith.truncf %silu : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x5632xf16>
  %prod_init = tensor.empty(%m) : tensor<?x5632xf16>
  %prod = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%up, %act : tensor<?x5632xf16>, tensor<?x5632xf16>) outs(%prod_init : tensor<?x5632xf16>) {
  ^bb0(%u: f16, %g: f16, %out: f16):
    %p = arith.mulf %u, %g : f16
    linalg.yield %p : f16
  } -> tensor<?x5632xf16>

  // ---- down_proj (K = 5632 = 44 groups): dequant, f32 matmul, + bias in f32, truncf; residual add of x ---------
  %down_w_init = tensor.empty() : tensor<5632x2048xf16>
  %down_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%down_w_init : tensor<5632x2048xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %down_qweight[%kw, %n] : tensor<704x2048xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %down_scales[%g, %n] : tensor<44x2048xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<5632x2048xf16>
  %down_acc_init = tensor.empty(%m) : tensor<?x2048xf32>
  %down_acc = linalg.fill ins(%zero : f32) outs(%down_acc_init : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %down_mm = linalg.matmul ins(%prod, %down_w : tensor<?x5632xf16>, tensor<5632x2048xf16>)
                           outs(%down_acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %down_init = tensor.empty(%m) : tensor<?x2048xf16>
  %down = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%down_mm, %down_bias : tensor<?x2048xf32>, tensor<2048xf16>) outs(%down_init : tensor<?x2048xf16>) {
  ^bb0(%v: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %s = arith.addf %v, %bf : f32
    %t = arith.truncf %s : f32 to f16
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
