// A Megatron-Core MLP with a gated linear unit and biases (megatron/core/transformer/mlp.py: gated_linear_unit=True,
// add_bias_linear=True, as NeMo's Megatron GPT models run SwiGLU; dimensions made small: hidden 256, ffn I = 512)
// for a GPTQ-quantised checkpoint (group size 128):
//
//   fc1 = x @ W_fc1 + b_fc1     # ONE quantised linear of 2I = 1024 columns, with a bias
//   gate, up = fc1.chunk(2, dim=-1)
//   out = down(up * silu(gate))  # linear_fc2 (no bias here: Megatron may add it after the residual)
//
// linear_fc1 stores qweight (K/8, 2I) i32 packed along K, scales (K/128, 2I) f16 and asymmetric zero points packed
// along N like GPTQ's qzeros, (K/128, 2I/8) i32; linear_fc2 is symmetric (z = 8). The bias is added to the f32
// accumulator before the rounding to f16; chunk is two tensor.extract_slice of the columns, silu and the product one
// generic each, in f16. x has a dynamic batch M. (The structure is examples/phi3_mlp.mlir's plus the bias.)
//
// Expected: two fused chains, fc1 (+ bias; N = 1024) and fc2; w4a16-split-chunked-glu splits fc1 into two fused ops
// on column windows of its qweight, qzeros, scales and bias, and w4a16-merge-siblings merges them into one GLU
// launch, silu(x Wg + bg) * (x Wu + bu): two plans, two runtime calls.

#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @megatron_glu_bias(%x: tensor<?x256xf16>,
                    %fc1_qweight: tensor<32x1024xi32>, %fc1_qzeros: tensor<2x128xi32>,
                    %fc1_scales: tensor<2x1024xf16>, %fc1_bias: tensor<1024xf16>,
                    %fc2_qweight: tensor<64x256xi32>, %fc2_scales: tensor<4x256xf16>)
    -> tensor<?x256xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>

  // ---- fc1_proj: dequant with zero points, f32 matmul, truncf -------------------------------------------
  %gu_w_init = tensor.empty() : tensor<256x1024xf16>
  %gu_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%gu_w_init : tensor<256x1024xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %fc1_qweight[%kw, %n] : tensor<32x1024xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %g = arith.divui %k, %c128 : index
    %nw = arith.divui %n, %c8 : index
    %zword = tensor.extract %fc1_qzeros[%g, %nw] : tensor<2x128xi32>
    %nl = arith.remui %n, %c8 : index
    %nl_i32 = arith.index_cast %nl : index to i32
    %zshift = arith.muli %nl_i32, %c4_i32 : i32
    %zshifted = arith.shrui %zword, %zshift : i32
    %z = arith.andi %zshifted, %c15_i32 : i32
    %centered = arith.subi %code, %z : i32
    %cf = arith.sitofp %centered : i32 to f16
    %scale = tensor.extract %fc1_scales[%g, %n] : tensor<2x1024xf16>
    %w = arith.mulf %cf, %scale : f16
    linalg.yield %w : f16
  } -> tensor<256x1024xf16>
  %gu_acc_init = tensor.empty(%m) : tensor<?x1024xf32>
  %gu_acc = linalg.fill ins(%zero : f32) outs(%gu_acc_init : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %gu_mm = linalg.matmul ins(%x, %gu_w : tensor<?x256xf16>, tensor<256x1024xf16>)
                         outs(%gu_acc : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %gu_init = tensor.empty(%m) : tensor<?x1024xf16>
  %fc1 = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d1)>, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gu_mm, %fc1_bias : tensor<?x1024xf32>, tensor<1024xf16>) outs(%gu_init : tensor<?x1024xf16>) {
  ^bb0(%v: f32, %b: f16, %out: f16):
    %bf = arith.extf %b : f16 to f32
    %s = arith.addf %v, %bf : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x1024xf16>

  // ---- gate, up = fc1.chunk(2, dim=-1) ------------------------------------------------------------------
  %rows = tensor.dim %fc1, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %fc1[0, 0] [%rows, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %fc1[0, 512] [%rows, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>

  // ---- up * silu(gate): one generic each, in f16 ------------------------------------------------------------
  %g_rows = tensor.dim %gate, %c0 : tensor<?x512xf16>
  %act_init = tensor.empty(%g_rows) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gate : tensor<?x512xf16>) outs(%act_init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %neg = arith.negf %a : f16
    %exp = math.exp %neg : f16
    %den = arith.addf %exp, %one : f16
    %sig = arith.divf %one, %den : f16
    %r = arith.mulf %a, %sig : f16
    linalg.yield %r : f16
  } -> tensor<?x512xf16>
  %u_rows = tensor.dim %up, %c0 : tensor<?x512xf16>
  %prod_init = tensor.empty(%u_rows) : tensor<?x512xf16>
  %prod = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%prod_init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %r = arith.mulf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<?x512xf16>

  // ---- linear_fc2: symmetric dequant, f32 matmul, truncf -------------------------------------------------------
  %fc2_w_init = tensor.empty() : tensor<512x256xf16>
  %fc2_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%fc2_w_init : tensor<512x256xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %fc2_qweight[%kw, %n] : tensor<64x256xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %fc2_scales[%g, %n] : tensor<4x256xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<512x256xf16>
  %fc2_acc_init = tensor.empty(%m) : tensor<?x256xf32>
  %fc2_acc = linalg.fill ins(%zero : f32) outs(%fc2_acc_init : tensor<?x256xf32>) -> tensor<?x256xf32>
  %fc2_mm = linalg.matmul ins(%prod, %fc2_w : tensor<?x512xf16>, tensor<512x256xf16>)
                           outs(%fc2_acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %fc2_init = tensor.empty(%m) : tensor<?x256xf16>
  %down = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%fc2_mm : tensor<?x256xf32>) outs(%fc2_init : tensor<?x256xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x256xf16>
  return %down : tensor<?x256xf16>
}
