// A LLaMA-7B decoder layer's second half as torch-mlir emits it for a GPTQ checkpoint (AutoGPTQ export,
// symmetric, group size 128; weights as in llama_mlp.mlir):
//
//   normed = RMSNorm(x) * norm_weight;   out = down(silu(gate(normed)) * up(normed)) + x
//
// RMSNorm as exporters write it: pow(x, 2) (math.fpowi), a row reduction, rsqrt. x has a dynamic batch M.
//
// Expected: three fused chains -- gate (+ silu), up, down (+ residual x) -- with gate, up and gate * up merged
// into one GLU launch (issue #21); the norm stays ordinary linalg ops (host loops on the host target, generated
// kernels on the GPU target).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @llama_block(%x: tensor<?x4096xf16>, %norm_weight: tensor<4096xf16>,
                     %gate_qweight: tensor<512x11008xi32>, %gate_scales: tensor<32x11008xf16>,
                     %up_qweight: tensor<512x11008xi32>, %up_scales: tensor<32x11008xf16>,
                     %down_qweight: tensor<1376x4096xi32>, %down_scales: tensor<86x4096xf16>)
    -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>

  // ---- RMSNorm: h = x * rsqrt(mean(x^2) + eps) * weight (torch's pow(x, 2) is math.fpowi) -----------------
  %sq_init = tensor.empty(%m) : tensor<?x4096xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x4096xf16>) outs(%sq_init : tensor<?x4096xf32>) {
  ^bb0(%in: f16, %out: f32):
    %c2 = arith.constant 2 : i64
    %f = arith.extf %in : f16 to f32
    %p = math.fpowi %f, %c2 : f32, i64
    linalg.yield %p : f32
  } -> tensor<?x4096xf32>
  %sum_init = tensor.empty(%m) : tensor<?xf32>
  %sum_zero = linalg.fill ins(%zero : f32) outs(%sum_init : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sq : tensor<?x4096xf32>) outs(%sum_zero : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %h_init = tensor.empty(%m) : tensor<?x4096xf16>
  %normed = linalg.generic {indexing_maps = [#id2, #row, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %norm_weight : tensor<?x4096xf16>, tensor<?xf32>, tensor<4096xf16>) outs(%h_init : tensor<?x4096xf16>) {
  ^bb0(%in: f16, %s: f32, %g: f16, %out: f16):
    %n = arith.constant 4096.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %v : f32
    %xf = arith.extf %in : f16 to f32
    %y = arith.mulf %xf, %rs : f32
    %yt = arith.truncf %y : f32 to f16
    %o = arith.mulf %yt, %g : f16
    linalg.yield %o : f16
  } -> tensor<?x4096xf16>

  // ---- gate_proj: dequant, f32 matmul, silu on the f32 accumulator, truncf -------------------------------
  %gate_w_init = tensor.empty() : tensor<4096x11008xf16>
  %gate_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%gate_w_init : tensor<4096x11008xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %gate_qweight[%kw, %n] : tensor<512x11008xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %gate_scales[%g, %n] : tensor<32x11008xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<4096x11008xf16>
  %gate_acc_init = tensor.empty(%m) : tensor<?x11008xf32>
  %gate_acc = linalg.fill ins(%zero : f32) outs(%gate_acc_init : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  %gate_mm = linalg.matmul ins(%normed, %gate_w : tensor<?x4096xf16>, tensor<4096x11008xf16>)
                           outs(%gate_acc : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  %gate_init = tensor.empty(%m) : tensor<?x11008xf16>
  %gate = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gate_mm : tensor<?x11008xf32>) outs(%gate_init : tensor<?x11008xf16>) {
  ^bb0(%v: f32, %out: f16):
    %one = arith.constant 1.000000e+00 : f32
    %neg = arith.negf %v : f32
    %e = math.exp %neg : f32
    %den = arith.addf %e, %one : f32
    %sig = arith.divf %one, %den : f32
    %silu = arith.mulf %v, %sig : f32
    %h = arith.truncf %silu : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x11008xf16>

  // ---- up_proj: dequant, f32 matmul, truncf ---------------------------------------------------------------
  %up_w_init = tensor.empty() : tensor<4096x11008xf16>
  %up_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%up_w_init : tensor<4096x11008xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %up_qweight[%kw, %n] : tensor<512x11008xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %up_scales[%g, %n] : tensor<32x11008xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<4096x11008xf16>
  %up_acc_init = tensor.empty(%m) : tensor<?x11008xf32>
  %up_acc = linalg.fill ins(%zero : f32) outs(%up_acc_init : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  %up_mm = linalg.matmul ins(%normed, %up_w : tensor<?x4096xf16>, tensor<4096x11008xf16>)
                         outs(%up_acc : tensor<?x11008xf32>) -> tensor<?x11008xf32>
  %up_init = tensor.empty(%m) : tensor<?x11008xf16>
  %up = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%up_mm : tensor<?x11008xf32>) outs(%up_init : tensor<?x11008xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x11008xf16>

  // ---- act_fn(gate) * up ----------------------------------------------------------------------------------
  %prod_init = tensor.empty(%m) : tensor<?x11008xf16>
  %prod = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<?x11008xf16>, tensor<?x11008xf16>) outs(%prod_init : tensor<?x11008xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %p = arith.mulf %a, %b : f16
    linalg.yield %p : f16
  } -> tensor<?x11008xf16>

  // ---- down_proj (K = 11008 = 86 groups): dequant, f32 matmul, truncf, residual add of x ------------------
  %down_w_init = tensor.empty() : tensor<11008x4096xf16>
  %down_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%down_w_init : tensor<11008x4096xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %down_qweight[%kw, %n] : tensor<1376x4096xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %down_scales[%g, %n] : tensor<86x4096xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<11008x4096xf16>
  %down_acc_init = tensor.empty(%m) : tensor<?x4096xf32>
  %down_acc = linalg.fill ins(%zero : f32) outs(%down_acc_init : tensor<?x4096xf32>) -> tensor<?x4096xf32>
  %down_mm = linalg.matmul ins(%prod, %down_w : tensor<?x11008xf16>, tensor<11008x4096xf16>)
                           outs(%down_acc : tensor<?x4096xf32>) -> tensor<?x4096xf32>
  %down_init = tensor.empty(%m) : tensor<?x4096xf16>
  %down = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%down_mm : tensor<?x4096xf32>) outs(%down_init : tensor<?x4096xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x4096xf16>
  %out_init = tensor.empty(%m) : tensor<?x4096xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%down, %x : tensor<?x4096xf16>, tensor<?x4096xf16>) outs(%out_init : tensor<?x4096xf16>) {
  ^bb0(%d: f16, %r: f16, %o: f16):
    %s = arith.addf %d, %r : f16
    linalg.yield %s : f16
  } -> tensor<?x4096xf16>
  return %out : tensor<?x4096xf16>
}
