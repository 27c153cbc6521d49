// compressed-tensors' pack-quantized W4A16 (neuralmagic/compressed-tensors @ 0199c6e7,
// src/compressed_tensors/compressors/quantized_compressors/pack_quantized.py), lowered by torch-mlir's rules by
// hand as in examples/compressed_tensors_asym.mlir, whose header cites the code: unpack_from_int32 assigns nibble i
// of every word to the columns i::8 (tensor.insert_slice with stride 8 into zeros) and subtracts 8 as int8;
// dequantize computes (x_q - zero_point) * scale over the (N, K/G, G) view; F.linear multiplies by the transpose.
// 1. symmetric (no zero-point tensor): the - 8 is the constant zero point; fuses as packed_n_k8.
// 2. asymmetric, the example itself: the zero points packed along N as (N/8, K/G) words (pack_to_int32 with
//    packed_dim = 0) fuse as packed_n8_g; both - 8 cancel.
// 3. look-alike: the zero points unpacked in blocks (nibble i to rows [8i, 8i + 8), not i::8): no layout keeps
//    z(g, n) there, and the remark says so.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: w4a16-opt --w4a16-fuse %S/../../examples/compressed_tensors_asym.mlir | FileCheck %s --check-prefix=ASYM
// RUN: w4a16-opt --w4a16-explain %S/../../examples/compressed_tensors_asym.mlir -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ASYM-REMARK

// ASYM-LABEL: func.func @compressed_tensors_asym(
// ASYM-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x512xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<512x64xi32>, %[[S:[a-zA-Z0-9_]+]]: tensor<512x4xf16>,
// ASYM-SAME:    %[[Z:[a-zA-Z0-9_]+]]: tensor<64x4xi32>)
// ASYM:         "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]], %[[Z]])
// ASYM-SAME:      scales_layout = "n_g", weight_layout = "packed_n_k8", zero_point_layout = "packed_n8_g"}
// ASYM-NOT:     linalg.matmul
// ASYM-REMARK: remark: w4a16: fused as dequant(packed_n_k8, scales n_g, zero points packed_n8_g tensor<64x4xi32>) -> matmul

// CHECK-LABEL: func.func @symmetric(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "packed_n_k8"}
// CHECK-NOT:     linalg.matmul
// REMARK: remark: w4a16: fused as dequant(packed_n_k8, scales n_g) -> matmul
// CHECK-LABEL: func.func @zero_points_in_blocks(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: zero points are read per (group, column) from elements no known layout keeps them in
#id = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#grp3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @symmetric(%x: tensor<?x256xf16>, %weight_packed: tensor<64x32xi32>, %weight_scale: tensor<64x2xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %zero_i32 = arith.constant 0 : i32
  %q_e = tensor.empty() : tensor<64x256xi32>
  %q_0 = linalg.fill ins(%zero_i32 : i32) outs(%q_e : tensor<64x256xi32>) -> tensor<64x256xi32>
  %q_pe = tensor.empty() : tensor<64x32xi32>
  %q_n0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 0 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u0 = tensor.insert_slice %q_n0 into %q_0[0, 0] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u1 = tensor.insert_slice %q_n1 into %q_u0[0, 1] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 8 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u2 = tensor.insert_slice %q_n2 into %q_u1[0, 2] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 12 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u3 = tensor.insert_slice %q_n3 into %q_u2[0, 3] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 16 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u4 = tensor.insert_slice %q_n4 into %q_u3[0, 4] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 20 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u5 = tensor.insert_slice %q_n5 into %q_u4[0, 5] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 24 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u6 = tensor.insert_slice %q_n6 into %q_u5[0, 6] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u7 = tensor.insert_slice %q_n7 into %q_u6[0, 7] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_e8 = tensor.empty() : tensor<64x256xi8>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%q_u7 : tensor<64x256xi32>) outs(%q_e8 : tensor<64x256xi8>) {
  ^bb0(%a: i32, %o: i8):
    %c8 = arith.constant 8 : i32
    %s = arith.subi %a, %c8 : i32
    %r = arith.trunci %s : i32 to i8
    linalg.yield %r : i8
  } -> tensor<64x256xi8>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [64, 2, 128] : tensor<64x256xi8> into tensor<64x2x128xi8>
  %e3 = tensor.empty() : tensor<64x2x128xf16>
  %w3 = linalg.generic {indexing_maps = [#id3, #grp3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q3, %weight_scale : tensor<64x2x128xi8>, tensor<64x2xf16>) outs(%e3 : tensor<64x2x128xf16>) {
  ^bb0(%qv: i8, %sv: f16, %o: f16):
    %qf = arith.sitofp %qv : i8 to f16
    %r = arith.mulf %qf, %sv : f16
    linalg.yield %r : f16
  } -> tensor<64x2x128xf16>
  %w = tensor.collapse_shape %w3 [[0], [1, 2]] : tensor<64x2x128xf16> into tensor<64x256xf16>
  %zf16 = arith.constant 0.0 : f16
  %eo = tensor.empty(%m) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zf16 : f16) outs(%eo : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x256xf16>, tensor<64x256xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#grp3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @zero_points_in_blocks(%x: tensor<?x256xf16>, %weight_packed: tensor<64x32xi32>, %weight_scale: tensor<64x2xf16>,
    %weight_zero_point: tensor<8x2xi32>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %zero_i32 = arith.constant 0 : i32
  %q_e = tensor.empty() : tensor<64x256xi32>
  %q_0 = linalg.fill ins(%zero_i32 : i32) outs(%q_e : tensor<64x256xi32>) -> tensor<64x256xi32>
  %q_pe = tensor.empty() : tensor<64x32xi32>
  %q_n0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 0 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u0 = tensor.insert_slice %q_n0 into %q_0[0, 0] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u1 = tensor.insert_slice %q_n1 into %q_u0[0, 1] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 8 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u2 = tensor.insert_slice %q_n2 into %q_u1[0, 2] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 12 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u3 = tensor.insert_slice %q_n3 into %q_u2[0, 3] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 16 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u4 = tensor.insert_slice %q_n4 into %q_u3[0, 4] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 20 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u5 = tensor.insert_slice %q_n5 into %q_u4[0, 5] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 24 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u6 = tensor.insert_slice %q_n6 into %q_u5[0, 6] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_n7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_packed : tensor<64x32xi32>) outs(%q_pe : tensor<64x32xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<64x32xi32>
  %q_u7 = tensor.insert_slice %q_n7 into %q_u6[0, 7] [64, 32] [1, 8] : tensor<64x32xi32> into tensor<64x256xi32>
  %q_e8 = tensor.empty() : tensor<64x256xi8>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%q_u7 : tensor<64x256xi32>) outs(%q_e8 : tensor<64x256xi8>) {
  ^bb0(%a: i32, %o: i8):
    %c8 = arith.constant 8 : i32
    %s = arith.subi %a, %c8 : i32
    %r = arith.trunci %s : i32 to i8
    linalg.yield %r : i8
  } -> tensor<64x256xi8>
  %z_e = tensor.empty() : tensor<64x2xi32>
  %z_0 = linalg.fill ins(%zero_i32 : i32) outs(%z_e : tensor<64x2xi32>) -> tensor<64x2xi32>
  %z_pe = tensor.empty() : tensor<8x2xi32>
  %z_n0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<8x2xi32>) outs(%z_pe : tensor<8x2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 0 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<8x2xi32>
  %z_u0 = tensor.insert_slice %z_n0 into %z_0[0, 0] [8, 2] [1, 1] : tensor<8x2xi32> into tensor<64x2xi32>
  %z_n1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<8x2xi32>) outs(%z_pe : tensor<8x2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<8x2xi32>
  %z_u1 = tensor.insert_slice %z_n1 into %z_u0[8, 0] [8, 2] [1, 1] : tensor<8x2xi32> into tensor<64x2xi32>
  %z_n2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<8x2xi32>) outs(%z_pe : tensor<8x2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 8 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<8x2xi32>
  %z_u2 = tensor.insert_slice %z_n2 into %z_u1[16, 0] [8, 2] [1, 1] : tensor<8x2xi32> into tensor<64x2xi32>
  %z_n3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<8x2xi32>) outs(%z_pe : tensor<8x2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 12 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<8x2xi32>
  %z_u3 = tensor.insert_slice %z_n3 into %z_u2[24, 0] [8, 2] [1, 1] : tensor<8x2xi32> into tensor<64x2xi32>
  %z_n4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<8x2xi32>) outs(%z_pe : tensor<8x2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 16 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<8x2xi32>
  %z_u4 = tensor.insert_slice %z_n4 into %z_u3[32, 0] [8, 2] [1, 1] : tensor<8x2xi32> into tensor<64x2xi32>
  %z_n5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<8x2xi32>) outs(%z_pe : tensor<8x2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 20 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<8x2xi32>
  %z_u5 = tensor.insert_slice %z_n5 into %z_u4[40, 0] [8, 2] [1, 1] : tensor<8x2xi32> into tensor<64x2xi32>
  %z_n6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<8x2xi32>) outs(%z_pe : tensor<8x2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 24 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<8x2xi32>
  %z_u6 = tensor.insert_slice %z_n6 into %z_u5[48, 0] [8, 2] [1, 1] : tensor<8x2xi32> into tensor<64x2xi32>
  %z_n7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%weight_zero_point : tensor<8x2xi32>) outs(%z_pe : tensor<8x2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %sh = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %s = arith.shrsi %a, %sh : i32
    %r = arith.andi %s, %mask : i32
    linalg.yield %r : i32
  } -> tensor<8x2xi32>
  %z_u7 = tensor.insert_slice %z_n7 into %z_u6[56, 0] [8, 2] [1, 1] : tensor<8x2xi32> into tensor<64x2xi32>
  %z_e8 = tensor.empty() : tensor<64x2xi8>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%z_u7 : tensor<64x2xi32>) outs(%z_e8 : tensor<64x2xi8>) {
  ^bb0(%a: i32, %o: i8):
    %c8 = arith.constant 8 : i32
    %s = arith.subi %a, %c8 : i32
    %r = arith.trunci %s : i32 to i8
    linalg.yield %r : i8
  } -> tensor<64x2xi8>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [64, 2, 128] : tensor<64x256xi8> into tensor<64x2x128xi8>
  %e3 = tensor.empty() : tensor<64x2x128xf16>
  %w3 = linalg.generic {indexing_maps = [#id3, #grp3, #grp3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q3, %z, %weight_scale : tensor<64x2x128xi8>, tensor<64x2xi8>, tensor<64x2xf16>) outs(%e3 : tensor<64x2x128xf16>) {
  ^bb0(%qv: i8, %zv: i8, %sv: f16, %o: f16):
    %qf = arith.sitofp %qv : i8 to f16
    %zf = arith.sitofp %zv : i8 to f16
    %d = arith.subf %qf, %zf : f16
    %r = arith.mulf %d, %sv : f16
    linalg.yield %r : f16
  } -> tensor<64x2x128xf16>
  %w = tensor.collapse_shape %w3 [[0], [1, 2]] : tensor<64x2x128xf16> into tensor<64x256xf16>
  %zf16 = arith.constant 0.0 : f16
  %eo = tensor.empty(%m) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zf16 : f16) outs(%eo : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x256xf16>, tensor<64x256xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

