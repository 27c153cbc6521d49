// A Phi-3-style MLP block (Phi3MLP in huggingface/transformers, src/transformers/models/phi3/modeling_phi3.py;
// dimensions made small: hidden 256, intermediate I = 512) for a GPTQ-quantised checkpoint (group size 128):
//
//   gate_up = x @ W_gu          # ONE quantised linear of 2I = 1024 columns
//   gate, up = gate_up.chunk(2, dim=-1)
//   out = down(up * silu(gate))
//
// gate_up_proj stores qweight (K/8, 2I) i32 packed along K, scales (K/128, 2I) f16 and asymmetric zero points
// packed along N like GPTQ's qzeros, (K/128, 2I/8) i32, nibble n % 8 of word [g, n/8] (W = (code - z) * scale);
// down_proj is symmetric (z = 8). Matmuls accumulate in f32 and round to f16; chunk is two tensor.extract_slice
// of the columns (as torch-mlir lowers aten.chunk, canonicalized), silu and the product one generic each, in
// f16 as torch-mlir writes them. x has a dynamic batch M.
//
// Expected: two fused chains, gate_up (N = 1024) and down; w4a16-split-chunked-glu splits gate_up into two fused
// ops on column windows of its qweight, qzeros and scales (strided memrefs at run time, read through their
// strides when prepared), and w4a16-merge-siblings merges them into one GLU launch, silu(x Wg) * (x Wu), so the
// fused build makes two plans and calls the runtime twice.

#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @phi3_mlp(%x: tensor<?x256xf16>,
                    %gate_up_qweight: tensor<32x1024xi32>, %gate_up_qzeros: tensor<2x128xi32>,
                    %gate_up_scales: tensor<2x1024xf16>,
                    %down_qweight: tensor<64x256xi32>, %down_scales: tensor<4x256xf16>)
    -> tensor<?x256xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>

  // ---- gate_up_proj: dequant with zero points, f32 matmul, truncf -------------------------------------------
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
    %word = tensor.extract %gate_up_qweight[%kw, %n] : tensor<32x1024xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %g = arith.divui %k, %c128 : index
    %nw = arith.divui %n, %c8 : index
    %zword = tensor.extract %gate_up_qzeros[%g, %nw] : tensor<2x128xi32>
    %nl = arith.remui %n, %c8 : index
    %nl_i32 = arith.index_cast %nl : index to i32
    %zshift = arith.muli %nl_i32, %c4_i32 : i32
    %zshifted = arith.shrui %zword, %zshift : i32
    %z = arith.andi %zshifted, %c15_i32 : i32
    %centered = arith.subi %code, %z : i32
    %cf = arith.sitofp %centered : i32 to f16
    %scale = tensor.extract %gate_up_scales[%g, %n] : tensor<2x1024xf16>
    %w = arith.mulf %cf, %scale : f16
    linalg.yield %w : f16
  } -> tensor<256x1024xf16>
  %gu_acc_init = tensor.empty(%m) : tensor<?x1024xf32>
  %gu_acc = linalg.fill ins(%zero : f32) outs(%gu_acc_init : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %gu_mm = linalg.matmul ins(%x, %gu_w : tensor<?x256xf16>, tensor<256x1024xf16>)
                         outs(%gu_acc : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %gu_init = tensor.empty(%m) : tensor<?x1024xf16>
  %gate_up = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gu_mm : tensor<?x1024xf32>) outs(%gu_init : tensor<?x1024xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x1024xf16>

  // ---- gate, up = gate_up.chunk(2, dim=-1) ------------------------------------------------------------------
  %rows = tensor.dim %gate_up, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gate_up[0, 0] [%rows, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gate_up[0, 512] [%rows, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>

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

  // ---- down_proj: symmetric dequant, f32 matmul, truncf -------------------------------------------------------
  %down_w_init = tensor.empty() : tensor<512x256xf16>
  %down_w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%down_w_init : tensor<512x256xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %down_qweight[%kw, %n] : tensor<64x256xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %down_scales[%g, %n] : tensor<4x256xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<512x256xf16>
  %down_acc_init = tensor.empty(%m) : tensor<?x256xf32>
  %down_acc = linalg.fill ins(%zero : f32) outs(%down_acc_init : tensor<?x256xf32>) -> tensor<?x256xf32>
  %down_mm = linalg.matmul ins(%prod, %down_w : tensor<?x512xf16>, tensor<512x256xf16>)
                           outs(%down_acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %down_init = tensor.empty(%m) : tensor<?x256xf16>
  %down = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%down_mm : tensor<?x256xf32>) outs(%down_init : tensor<?x256xf16>) {
  ^bb0(%v: f32, %out: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x256xf16>
  return %down : tensor<?x256xf16>
}
