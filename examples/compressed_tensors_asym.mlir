// compressed-tensors' pack-quantized W4A16 with asymmetric group zero points (neuralmagic/compressed-tensors
// @ 0199c6e7, src/compressed_tensors/compressors/quantized_compressors/pack_quantized.py; what llm-compressor's
// W4A16_ASYM recipes save and vLLM loads), as torch-mlir would lower its decompression and F.linear:
//   pack_to_int32: int8 values + 8 as unsigned nibbles, nibble i of word [n, j] = value[n, 8j + i] (packed_dim = 1,
//     the weight (N, K/8)); the zero points packed the other way, nibble i of word [j, g] = z[8j + i, g]
//     (packed_dim = 0, (N/8, K/G));
//   unpack_from_int32: `unpacked[:, i::8] = (value >> 4i) & 15` for i in 0..7 (packed_dim = 0: `unpacked[i::8, :]`)
//     into a zero int32 tensor, the padding sliced off, then `(unpacked - 8).to(torch.int8)`;
//   dequantize (quantization/lifecycle/forward.py, group strategy): x_q.to(f16) - zero_point.to(f16), times the
//     scale, over the weight viewed as (N, K/G, G); then F.linear(x, W).
// Lowering rules applied (as torch-mlir's TorchToLinalg would): the strided slice assignment (slice_scatter) a
// tensor.insert_slice with stride 8 into a linalg.fill of 0, `>> 4i` on int32 an arith.shrsi, .to(int8) a trunci,
// int8 -> f16 a sitofp, the (N, K/G, G) view an expand_shape and back, .t() folded into transposed-B indexing maps
// of linalg.matmul (f32 accumulation, as in examples/hqq_4bit.mlir). N = K = 512, G = 128, f16.
//
// Expected: one fused chain, weight layout packed_n_k8, scales n_g, zero points packed_n8_g (W = (q - z) * s with
// q and z the stored nibbles: their - 8 cancel).

#id = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#grp3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @compressed_tensors_asym(%x: tensor<?x512xf16>, %weight_packed: tensor<512x64xi32>, %weight_scale: tensor<512x4xf16>,
                                   %weight_zero_point: tensor<64x4xi32>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %zero_i32 = arith.constant 0 : i32
  %q_e = tensor.empty() : tensor<512x512xi32>
  %q_0 = linalg.fill ins(%zero_i32 : i32) outs(%q_e : tensor<512x512xi32>) -> tensor<512x512xi32>
  %q_pe = tensor.empty() : tensor<512x64xi32>
  %q_n0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<512x64xi32>) outs(%q_pe : tensor<512x64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 0 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<512x64xi32>
  %q_u0 = tensor.insert_slice %q_n0 into %q_0[0, 0] [512, 64] [1, 8] : tensor<512x64xi32> into tensor<512x512xi32>
  %q_n1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<512x64xi32>) outs(%q_pe : tensor<512x64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<512x64xi32>
  %q_u1 = tensor.insert_slice %q_n1 into %q_u0[0, 1] [512, 64] [1, 8] : tensor<512x64xi32> into tensor<512x512xi32>
  %q_n2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<512x64xi32>) outs(%q_pe : tensor<512x64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 8 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<512x64xi32>
  %q_u2 = tensor.insert_slice %q_n2 into %q_u1[0, 2] [512, 64] [1, 8] : tensor<512x64xi32> into tensor<512x512xi32>
  %q_n3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<512x64xi32>) outs(%q_pe : tensor<512x64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 12 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<512x64xi32>
  %q_u3 = tensor.insert_slice %q_n3 into %q_u2[0, 3] [512, 64] [1, 8] : tensor<512x64xi32> into tensor<512x512xi32>
  %q_n4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<512x64xi32>) outs(%q_pe : tensor<512x64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 16 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<512x64xi32>
  %q_u4 = tensor.insert_slice %q_n4 into %q_u3[0, 4] [512, 64] [1, 8] : tensor<512x64xi32> into tensor<512x512xi32>
  %q_n5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<512x64xi32>) outs(%q_pe : tensor<512x64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 20 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<512x64xi32>
  %q_u5 = tensor.insert_slice %q_n5 into %q_u4[0, 5] [512, 64] [1, 8] : tensor<512x64xi32> into tensor<512x512xi32>
  %q_n6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<512x64xi32>) outs(%q_pe : tensor<512x64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 24 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<512x64xi32>
  %q_u6 = tensor.insert_slice %q_n6 into %q_u5[0, 6] [512, 64] [1, 8] : tensor<512x64xi32> into tensor<512x512xi32>
  %q_n7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<512x64xi32>) outs(%q_pe : tensor<512x64xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<512x64xi32>
  %q_u7 = tensor.insert_slice %q_n7 into %q_u6[0, 7] [512, 64] [1, 8] : tensor<512x64xi32> into tensor<512x512xi32>
  %q_sl = tensor.extract_slice %q_u7[0, 0] [512, 512] [1, 1] : tensor<512x512xi32> to tensor<512x512xi32>
  %q_e8 = tensor.empty() : tensor<512x512xi8>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%q_sl : tensor<512x512xi32>) outs(%q_e8 : tensor<512x512xi8>) {
  ^bb0(%a: i32, %o: i8):
    %c8 = arith.constant 8 : i32
    %s = arith.subi %a, %c8 : i32
    %r = arith.trunci %s : i32 to i8
    linalg.yield %r : i8
  } -> tensor<512x512xi8>
  %z_e = tensor.empty() : tensor<512x4xi32>
  %z_0 = linalg.fill ins(%zero_i32 : i32) outs(%z_e : tensor<512x4xi32>) -> tensor<512x4xi32>
  %z_pe = tensor.empty() : tensor<64x4xi32>
  %z_n0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<64x4xi32>) outs(%z_pe : tensor<64x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 0 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x4xi32>
  %z_u0 = tensor.insert_slice %z_n0 into %z_0[0, 0] [64, 4] [8, 1] : tensor<64x4xi32> into tensor<512x4xi32>
  %z_n1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<64x4xi32>) outs(%z_pe : tensor<64x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x4xi32>
  %z_u1 = tensor.insert_slice %z_n1 into %z_u0[1, 0] [64, 4] [8, 1] : tensor<64x4xi32> into tensor<512x4xi32>
  %z_n2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<64x4xi32>) outs(%z_pe : tensor<64x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 8 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x4xi32>
  %z_u2 = tensor.insert_slice %z_n2 into %z_u1[2, 0] [64, 4] [8, 1] : tensor<64x4xi32> into tensor<512x4xi32>
  %z_n3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<64x4xi32>) outs(%z_pe : tensor<64x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 12 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x4xi32>
  %z_u3 = tensor.insert_slice %z_n3 into %z_u2[3, 0] [64, 4] [8, 1] : tensor<64x4xi32> into tensor<512x4xi32>
  %z_n4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<64x4xi32>) outs(%z_pe : tensor<64x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 16 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x4xi32>
  %z_u4 = tensor.insert_slice %z_n4 into %z_u3[4, 0] [64, 4] [8, 1] : tensor<64x4xi32> into tensor<512x4xi32>
  %z_n5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<64x4xi32>) outs(%z_pe : tensor<64x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 20 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x4xi32>
  %z_u5 = tensor.insert_slice %z_n5 into %z_u4[5, 0] [64, 4] [8, 1] : tensor<64x4xi32> into tensor<512x4xi32>
  %z_n6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<64x4xi32>) outs(%z_pe : tensor<64x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 24 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x4xi32>
  %z_u6 = tensor.insert_slice %z_n6 into %z_u5[6, 0] [64, 4] [8, 1] : tensor<64x4xi32> into tensor<512x4xi32>
  %z_n7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<64x4xi32>) outs(%z_pe : tensor<64x4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x4xi32>
  %z_u7 = tensor.insert_slice %z_n7 into %z_u6[7, 0] [64, 4] [8, 1] : tensor<64x4xi32> into tensor<512x4xi32>
  %z_sl = tensor.extract_slice %z_u7[0, 0] [512, 4] [1, 1] : tensor<512x4xi32> to tensor<512x4xi32>
  %z_e8 = tensor.empty() : tensor<512x4xi8>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%z_sl : tensor<512x4xi32>) outs(%z_e8 : tensor<512x4xi8>) {
  ^bb0(%a: i32, %o: i8):
    %c8 = arith.constant 8 : i32
    %s = arith.subi %a, %c8 : i32
    %r = arith.trunci %s : i32 to i8
    linalg.yield %r : i8
  } -> tensor<512x4xi8>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [512, 4, 128] : tensor<512x512xi8> into tensor<512x4x128xi8>
  %e3 = tensor.empty() : tensor<512x4x128xf16>
  %w3 = linalg.generic {indexing_maps = [#id3, #grp3, #grp3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q3, %z, %weight_scale : tensor<512x4x128xi8>, tensor<512x4xi8>, tensor<512x4xf16>) outs(%e3 : tensor<512x4x128xf16>) {
  ^bb0(%qv: i8, %zv: i8, %sv: f16, %o: f16):
    %qf = arith.sitofp %qv : i8 to f16
    %zf = arith.sitofp %zv : i8 to f16
    %d = arith.subf %qf, %zf : f16
    %r = arith.mulf %d, %sv : f16
    linalg.yield %r : f16
  } -> tensor<512x4x128xf16>
  %w = tensor.collapse_shape %w3 [[0], [1, 2]] : tensor<512x4x128xf16> into tensor<512x512xf16>
  %zf32 = arith.constant 0.0 : f32
  %eo = tensor.empty(%m) : tensor<?x512xf16>
  %eo32 = tensor.empty(%m) : tensor<?x512xf32>
  %acc = linalg.fill ins(%zf32 : f32) outs(%eo32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y32 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y32 : tensor<?x512xf32>) outs(%eo : tensor<?x512xf16>) {
  ^bb0(%a: f32, %o: f16):
    %h = arith.truncf %a : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}
