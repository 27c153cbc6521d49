// ONNX Runtime's int4 linear layer, com.microsoft.MatMulNBits (bits = 4, block_size = 32, asymmetric: what its
// MatMulNBitsQuantizer writes by default), in linalg as a frontend lowering that contrib op would write it:
//
//   B            uint8 [N, K/bs, bs/2]       element 2i of a block in the low nibble of byte i, 2i + 1 in the high
//   scales       f16 [N * K/bs]              one per (column, block)
//   zero_points  uint8 [N, ceil(K/bs / 2)]   block b's zero point in nibble b % 2 of byte b / 2 (low first)
//   y = x * dequant(B)^T + bias,  dequant = (q - zp) * scale, computed in f32 (as ORT's kernels accumulate;
//   an f16 accumulator would make the upstream-only reference build itself the inexact side)
//
// K = 512, N = 256. Written here from the operator's definition (onnxruntime's contrib op documentation), not
// taken from an exporter's output.
//
// Expected: one fused chain -- weight packed_n_k2, scales n_g, zero points packed_n_g2, group size 32, bias.

#blk = affine_map<(n, b, i) -> (n, b, i)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @onnx_matmul_nbits(%x: tensor<?x512xf16>, %B: tensor<256x16x16xi8>, %scales: tensor<4096xf16>,
                             %zero_points: tensor<256x8xi8>, %bias: tensor<256xf16>) -> tensor<?x256xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %s2 = tensor.expand_shape %scales [[0, 1]] output_shape [256, 16] : tensor<4096xf16> into tensor<256x16xf16>
  %w_init = tensor.empty() : tensor<256x16x32xf32>
  %w = linalg.generic {indexing_maps = [#blk], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%w_init : tensor<256x16x32xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %b = linalg.index 1 : index
    %i = linalg.index 2 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : i32
    // the code: nibble i % 2 of byte i / 2 of the block
    %byte_at = arith.divui %i, %c2 : index
    %code_nib = arith.remui %i, %c2 : index
    %byte = tensor.extract %B[%n, %b, %byte_at] : tensor<256x16x16xi8>
    %word = arith.extui %byte : i8 to i32
    %shift = arith.muli %code_nib, %c4 : index
    %shift_i32 = arith.index_cast %shift : index to i32
    %shifted = arith.shrui %word, %shift_i32 : i32
    %q = arith.andi %shifted, %c15 : i32
    // the zero point: nibble b % 2 of byte b / 2 of the column's row
    %zp_at = arith.divui %b, %c2 : index
    %zp_nib = arith.remui %b, %c2 : index
    %zp_byte = tensor.extract %zero_points[%n, %zp_at] : tensor<256x8xi8>
    %zp_word = arith.extui %zp_byte : i8 to i32
    %zp_shift = arith.muli %zp_nib, %c4 : index
    %zp_shift_i32 = arith.index_cast %zp_shift : index to i32
    %zp_shifted = arith.shrui %zp_word, %zp_shift_i32 : i32
    %zp = arith.andi %zp_shifted, %c15 : i32
    %diff = arith.subi %q, %zp : i32
    %diff_f = arith.sitofp %diff : i32 to f32
    %scale = tensor.extract %s2[%n, %b] : tensor<256x16xf16>
    %scale32 = arith.extf %scale : f16 to f32
    %v = arith.mulf %diff_f, %scale32 : f32
    linalg.yield %v : f32
  } -> tensor<256x16x32xf32>
  %w_nk = tensor.collapse_shape %w [[0], [1, 2]] : tensor<256x16x32xf32> into tensor<256x512xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %y_init = tensor.empty(%m) : tensor<?x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%y_init : tensor<?x256xf32>) -> tensor<?x256xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
                                      affine_map<(d0, d1, d2) -> (d0, d1)>]
       ins(%x, %w_nk : tensor<?x512xf16>, tensor<256x512xf32>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %out_init = tensor.empty(%m) : tensor<?x256xf16>
  %out = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<?x256xf32>, tensor<256xf16>) outs(%out_init : tensor<?x256xf16>) {
  ^bb0(%a: f32, %bb: f16, %o: f16):
    %b32 = arith.extf %bb : f16 to f32
    %r = arith.addf %a, %b32 : f32
    %r16 = arith.truncf %r : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<?x256xf16>
  return %out : tensor<?x256xf16>
}
