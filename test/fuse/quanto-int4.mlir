// optimum-quanto's qint4 with an integer shift (quantize_weight(..., zeropoint=True): AffineOptimizer rounds the
// shift to an int8 zero point; QBitsDequantizer, tensor/qbits.py @ 567737f5: `data = data.to(torch.int8) -
// shift.to(torch.int8)` before `scale * data`), otherwise as examples/quanto_int4.mlir (its header cites the
// packing and unpacking; the float shift, subtracted after scaling, is that example's form and runs in the CPU
// e2e): the codes halves_n_k_lo, the int8 zero points [N*K/128, 1] read as (N, K/128) through one dim.
//
// RUN: w4a16-opt --w4a16-fuse %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: w4a16-opt --w4a16-fuse %S/../../examples/quanto_int4.mlir | FileCheck %s --check-prefix=FLOAT

// CHECK-LABEL: func.func @quanto_int4_integer_shift(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0>
// CHECK-SAME:      scales_layout = "n_g", weight_layout = "halves_n_k_lo", zero_point_layout = "n_g"}
// CHECK-SAME:      (tensor<?x512xf16>, tensor<256x512xi8>, tensor<512x4xf16>, tensor<512xf16>, tensor<512x4xi8>)
// CHECK-NOT:     linalg.matmul
// REMARK: remark: w4a16: fused as dequant(halves_n_k_lo, scales n_g, zero points n_g tensor<2048x1xi8>) -> matmul -> bias

// FLOAT-LABEL: func.func @quanto_int4(
// FLOAT:         "w4a16.fused_matmul"
// FLOAT-SAME:      offsets_subtracted
// FLOAT-SAME:      weight_layout = "halves_n_k_lo", zero_point = 0.000000e+00 : f64, zero_point_layout = "n_g", zero_points_are_offsets
// FLOAT-NOT:     linalg.matmul

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @quanto_int4_integer_shift(%x: tensor<?x512xf16>, %packed: tensor<1024x128xi8>, %scale: tensor<2048x1xf16>,
                       %shift: tensor<2048x1xi8>, %bias: tensor<512xf16>) -> tensor<?x512xf16> {
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
  %ei8 = tensor.empty() : tensor<2048x128xi8>
  %centered = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%data, %shift : tensor<2048x128xi8>, tensor<2048x1xi8>) outs(%ei8 : tensor<2048x128xi8>) {
  ^bb0(%q: i8, %z: i8, %o: i8):
    %r = arith.subi %q, %z : i8
    linalg.yield %r : i8
  } -> tensor<2048x128xi8>
  %ef = tensor.empty() : tensor<2048x128xf16>
  %dq = linalg.generic {indexing_maps = [#bc, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%scale, %centered : tensor<2048x1xf16>, tensor<2048x128xi8>) outs(%ef : tensor<2048x128xf16>) {
  ^bb0(%s: f16, %q: i8, %o: f16):
    %qf = arith.sitofp %q : i8 to f16
    %r = arith.mulf %s, %qf : f16
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
