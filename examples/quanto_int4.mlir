// optimum-quanto's qint4 linear layer (huggingface/optimum-quanto; what transformers' QuantoConfig(weights="int4")
// saves), as torch-mlir would lower its dequantisation and F.linear:
//   QModuleMixin (nn/qmodule.py @ 007217e5): axis = 0, group_size = 128 for in_features % 128 == 0;
//   MaxOptimizer (tensor/optimizers/max_optimizer.py @ 120f285b): a float shift = -rmin per group;
//   quantize_affine (library/quantize.py @ 0a50c54f): data = clamp(round((base + shift) / scale), 0, 15) over the
//     grouped view [N*K/G, G]; scale and shift [N*K/G, 1];
//   pack_weights (tensor/packed.py @ b5304921): row r of the grouped view in the low nibble of packed row r, row
//     r + R/2 in the high one (packed [N*K/G/2, G] uint8);
//   unpack (library/unpack.py @ b54737ed): torch.cat([(packed & 15) >> 0, (packed & 255) >> 4]) along dim 0;
//   QBitsDequantizer (tensor/qbits.py @ 567737f5): with a float shift, dqt = scale * data; dqt -= shift; then
//     ungroup (a reshape to [N, K] for axis 0); F.linear(x, W, bias).
// Lowering rules applied (as torch-mlir's TorchToLinalg would): uint8 -> signless i8, `& 255` an andi with -1 : i8,
// `>> 4` on uint8 an arith.shrui (hand-corrected: torch-mlir emits shrsi), torch.cat -> tensor.concat, the unpack's
// `[: shape[0]]` a full-size tensor.extract_slice, uint8 * f16 -> uitofp then mulf, sub_.Tensor -> mulf by alpha 1
// then subf, size-1 dims broadcast by the map (d0, 0), the reshape a collapse + expand, .t() a linalg.transpose.
// The matmul accumulates in f32 (as in examples/hqq_4bit.mlir). N = K = 512, G = 128, f16.
//
// Expected: one fused chain, weight layout halves_n_k_lo (the packed bytes as (N/2, K)), scales and shifts n_g
// reshaped from [N*K/128, 1] through one dim, the shift as offsets_subtracted (W = scale * q - shift), the bias in
// the epilogue.

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @quanto_int4(%x: tensor<?x512xf16>, %packed: tensor<1024x128xi8>, %scale: tensor<2048x1xf16>,
                       %shift: tensor<2048x1xf16>, %bias: tensor<512xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %e8 = tensor.empty() : tensor<1024x128xi8>
  %lo_masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%packed : tensor<1024x128xi8>) outs(%e8 : tensor<1024x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 15 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<1024x128xi8>
  %lo = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%lo_masked : tensor<1024x128xi8>) outs(%e8 : tensor<1024x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 0 : i8
    %r = arith.shrui %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<1024x128xi8>
  %hi_masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%packed : tensor<1024x128xi8>) outs(%e8 : tensor<1024x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant -1 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<1024x128xi8>
  %hi = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%hi_masked : tensor<1024x128xi8>) outs(%e8 : tensor<1024x128xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 4 : i8
    %r = arith.shrui %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<1024x128xi8>
  %cat = tensor.concat dim(0) %lo, %hi : (tensor<1024x128xi8>, tensor<1024x128xi8>) -> tensor<2048x128xi8>
  %data = tensor.extract_slice %cat[0, 0] [2048, 128] [1, 1] : tensor<2048x128xi8> to tensor<2048x128xi8>
  %ef = tensor.empty() : tensor<2048x128xf16>
  %scaled = linalg.generic {indexing_maps = [#bc, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%scale, %data : tensor<2048x1xf16>, tensor<2048x128xi8>) outs(%ef : tensor<2048x128xf16>) {
  ^bb0(%s: f16, %q: i8, %o: f16):
    %qf = arith.uitofp %q : i8 to f16
    %r = arith.mulf %s, %qf : f16
    linalg.yield %r : f16
  } -> tensor<2048x128xf16>
  %dq = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%scaled, %shift : tensor<2048x128xf16>, tensor<2048x1xf16>) outs(%ef : tensor<2048x128xf16>) {
  ^bb0(%a: f16, %sh: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %s1 = arith.mulf %sh, %one : f16
    %r = arith.subf %a, %s1 : f16
    linalg.yield %r : f16
  } -> tensor<2048x128xf16>
  %flat = tensor.collapse_shape %dq [[0, 1]] : tensor<2048x128xf16> into tensor<262144xf16>
  %w = tensor.expand_shape %flat [[0, 1]] output_shape [512, 512] : tensor<262144xf16> into tensor<512x512xf16>
  %et = tensor.empty() : tensor<512x512xf16>
  %wt = linalg.transpose ins(%w : tensor<512x512xf16>) outs(%et : tensor<512x512xf16>) permutation = [1, 0]
  %zf = arith.constant 0.0 : f32
  %eo = tensor.empty(%m) : tensor<?x512xf16>
  %eo32 = tensor.empty(%m) : tensor<?x512xf32>
  %acc = linalg.fill ins(%zf : f32) outs(%eo32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y32 = linalg.matmul ins(%x, %wt : tensor<?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%y32, %bias : tensor<?x512xf32>, tensor<512xf16>) outs(%eo : tensor<?x512xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %h = arith.truncf %a : f32 to f16
    %r = arith.addf %h, %b : f16
    linalg.yield %r : f16
  } -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}
