// --w4a16-explain: HQQ's 4-bit unpacking (two nibbles of each uint8, concatenated with tensor.insert_slice as
// torch.cat lowers) computes the codes inside the function from an op the matcher does not see through. The
// runtime prepares a weight once from stored bytes, so such a chain stays unfused, with a remark naming the
// op (it used to get no remark at all: the codes' shape split no leading dims into N).
//
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: w4a16: not fused: codes are computed by tensor.insert_slice, which the matcher does not see through
// CHECK-NOT: remark:
//
// Source: mobiusml/hqq @ 0dbf39a66df2897ee2f169d64a011e88114ca8d0, hqq/core/bitpack.py
//   BitPack.pack_4bit_u8:  (W_q[:step] << 4) | W_q[step:]           (rows of the grouped view paired with rows + R/2)
//   BitPack.unpack_4bit_u8_cat: torch.cat([(W_q & 0b11110000) >> 4, W_q & 0b00001111], axis=0)
// and mobiusml/hqq @ 74bbe01e51dcba34d6d2ab6ded22bedcdb89d2f7, hqq/core/quantize.py:
//   Quantizer.quantize(axis=1, group_size=64): W.reshape([-1, group_size]); scale/zero shape [N*K/64, 1]
//   Quantizer.dequantize: W_r = ((unpack(W_q).to(f16) - zero) * scale).reshape(shape)   (f16 arithmetic)
//   HQQLinear forward_pytorch: out = torch.matmul(x, W_est.t())
// Shapes: N = K = 512, G = 64, W_q packed ui8 [2048, 64], scale/zero f16 [4096, 1], x f16 [M, K], M dynamic.
// Lowering rules applied (as torch-mlir TorchToLinalg would):
//   * ui8 -> signless i8; `&` with scalar 0xF0 -> linalg.generic arith.andi with the constant -16 : i8;
//   * `>> 4` (aten.__rshift__.Scalar -> bitwise_right_shift) -> arith.shrui on i8 (what PyTorch computes for uint8; hand-corrected relative to torch-mlir, which emits shrsi)
//   * torch.cat(dim 0) -> tensor.empty + two tensor.insert_slice;
//   * .to(float16) of a ui8 tensor -> arith.uitofp i8 -> f16;
//   * sub.Tensor (alpha 1) -> arith.mulf(rhs, 1.0) then arith.subf, size-1 dim broadcast via map (d0, 0);
//   * mul.Tensor -> arith.mulf; reshape [4096,64]->[512,512] -> tensor.collapse_shape + tensor.expand_shape;
//   * .t() -> linalg.transpose; matmul f16 x f16 -> linalg.matmul with an f16 zero-filled accumulator.
#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
func.func @hqq_axis1_shrui(%x: tensor<?x512xf16>, %wq: tensor<2048x64xi8>, %scale: tensor<4096x1xf16>, %zero: tensor<4096x1xf16>) -> tensor<?x512xf16> {
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
  %zf = arith.constant 0.0 : f16
  %eo = tensor.empty(%m) : tensor<?x512xf16>
  %acc = linalg.fill ins(%zf : f16) outs(%eo : tensor<?x512xf16>) -> tensor<?x512xf16>
  %y = linalg.matmul ins(%x, %wt : tensor<?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}
