// HQQ's 4-bit linear layer (mobiusml/hqq: BitPack.pack_4bit_u8 pairs element e of the weight's grouped view
// with element e + N*K/2 in one byte, the first in the high nibble; Quantizer.dequantize with axis = 1,
// group_size = 64: W = (unpack(W_q) - zero) * scale over the [N*K/64, 64] view; HQQLinear: x @ W.t()), as
// torch-mlir lowers it: the unpacking a torch.cat of the two nibbles (two tensor.insert_slice), uint8 -> f16 by
// uitofp, f16 arithmetic, the reshape to (N, K) a collapse + expand, .t() a linalg.transpose. The matmul
// accumulates in f32 here (the f16 accumulation torch-mlir emits would make the reference the least accurate
// side; test/explain/codes-computed.mlir has that form). N = K = 512, G = 64, f16 float zero points.
//
// Expected: one fused chain, weight layout halves_n_k (the W_q bytes as (N/2, K)), scales and zero points
// n_g reshaped from [N*K/64, 1] through one dim; the CUDA kernels run it in their affine form.

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
func.func @hqq_4bit(%x: tensor<?x512xf16>, %wq: tensor<2048x64xi8>, %scale: tensor<4096x1xf16>, %zero: tensor<4096x1xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %e8 = tensor.empty() : tensor<2048x64xi8>
  %hm = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%wq : tensor<2048x64xi8>) outs(%e8 : tensor<2048x64xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant -16 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x64xi8>
  %hi = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%hm : tensor<2048x64xi8>) outs(%e8 : tensor<2048x64xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 4 : i8
    %r = arith.shrui %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x64xi8>
  %lo = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%wq : tensor<2048x64xi8>) outs(%e8 : tensor<2048x64xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c = arith.constant 15 : i8
    %r = arith.andi %a, %c : i8
    linalg.yield %r : i8
  } -> tensor<2048x64xi8>
  %ec = tensor.empty() : tensor<4096x64xi8>
  %cat0 = tensor.insert_slice %hi into %ec[0, 0] [2048, 64] [1, 1] : tensor<2048x64xi8> into tensor<4096x64xi8>
  %cat = tensor.insert_slice %lo into %cat0[2048, 0] [2048, 64] [1, 1] : tensor<2048x64xi8> into tensor<4096x64xi8>
  %ef = tensor.empty() : tensor<4096x64xf16>
  %qf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%cat : tensor<4096x64xi8>) outs(%ef : tensor<4096x64xf16>) {
  ^bb0(%a: i8, %o: f16):
    %r = arith.uitofp %a : i8 to f16
    linalg.yield %r : f16
  } -> tensor<4096x64xf16>
  %sub = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%qf, %zero : tensor<4096x64xf16>, tensor<4096x1xf16>) outs(%ef : tensor<4096x64xf16>) {
  ^bb0(%a: f16, %z: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %zz = arith.mulf %z, %one : f16
    %r = arith.subf %a, %zz : f16
    linalg.yield %r : f16
  } -> tensor<4096x64xf16>
  %mul = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%sub, %scale : tensor<4096x64xf16>, tensor<4096x1xf16>) outs(%ef : tensor<4096x64xf16>) {
  ^bb0(%a: f16, %s: f16, %o: f16):
    %r = arith.mulf %a, %s : f16
    linalg.yield %r : f16
  } -> tensor<4096x64xf16>
  %flat = tensor.collapse_shape %mul [[0, 1]] : tensor<4096x64xf16> into tensor<262144xf16>
  %w = tensor.expand_shape %flat [[0, 1]] output_shape [512, 512] : tensor<262144xf16> into tensor<512x512xf16>
  %et = tensor.empty() : tensor<512x512xf16>
  %wt = linalg.transpose ins(%w : tensor<512x512xf16>) outs(%et : tensor<512x512xf16>) permutation = [1, 0]
  %zf = arith.constant 0.0 : f32
  %eo = tensor.empty(%m) : tensor<?x512xf16>
  %eo32 = tensor.empty(%m) : tensor<?x512xf32>
  %acc = linalg.fill ins(%zf : f32) outs(%eo32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y32 = linalg.matmul ins(%x, %wt : tensor<?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y32 : tensor<?x512xf32>) outs(%eo : tensor<?x512xf16>) {
  ^bb0(%a: f32, %o: f16):
    %h = arith.truncf %a : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}
