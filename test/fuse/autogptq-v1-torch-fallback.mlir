// AutoGPTQ's torch fallback for v1 checkpoints as torch-mlir lowers it (AutoGPTQ/AutoGPTQ,
// auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py, QuantLinear.forward without the CUDA extension): the
// zero points are ((qzeros >> wf) + 1) & 15, so a stored 15 is the zero point 0, not 16 as with plain v1's
// + 1 (examples/gptq_asym.mlir). Fused with zero_point_offset = 1 and zero_point_offset_wraps (until then:
// "zero points ... follow no known packing"). The matmul accumulates in f16 as torch-mlir emits it; the
// same chain with f32 accumulation runs end to end as examples/autogptq_v1_torch.mlir. K = N = 2048.
//
// RUN: w4a16-opt --w4a16-fuse %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// CHECK-LABEL: func.func @forward(
// CHECK-NEXT:    %[[R:.+]] = "w4a16.fused_matmul"(%arg0, %arg1, %arg3, %arg4, %arg2)
// CHECK-SAME:      zero_point_layout = "packed_g_n8", zero_point_offset = 1 : i64, zero_point_offset_wraps
// CHECK-NEXT:    return %[[R]]
// REMARK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points packed_g_n8 tensor<16x256xi32> + 1 mod 16) -> matmul -> bias
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bc_w = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#bc_z = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#wf_w = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#wf_z = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<?x2048xf16>, %qweight: tensor<256x2048xi32>, %qzeros: tensor<16x256xi32>,
                   %scales: tensor<16x2048xf16>, %bias: tensor<2048xf16>) -> tensor<?x2048xf16> {
  %c1_i64 = arith.constant 1 : i64
  %c15_i64 = arith.constant 15 : i64
  %wf = arith.constant dense<[[0, 4, 8, 12, 16, 20, 24, 28]]> : tensor<1x8xi32>
  // ---- zeros ----
  %qz_u = tensor.expand_shape %qzeros [[0], [1, 2]] output_shape [16, 256, 1] : tensor<16x256xi32> into tensor<16x256x1xi32>
  %e0 = tensor.empty() : tensor<16x256x8xi32>
  %qz_b = linalg.generic {indexing_maps = [#bc_z, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qz_u : tensor<16x256x1xi32>) outs(%e0 : tensor<16x256x8xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  } -> tensor<16x256x8xi32>
  %wf_z0 = tensor.expand_shape %wf [[0, 1], [2]] output_shape [1, 1, 8] : tensor<1x8xi32> into tensor<1x1x8xi32>
  %z_sh = linalg.generic {indexing_maps = [#id3, #wf_z, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qz_b, %wf_z0 : tensor<16x256x8xi32>, tensor<1x1x8xi32>) outs(%e0 : tensor<16x256x8xi32>) {
  ^bb0(%a: i32, %s: i32, %out: i32):
    %r = arith.shrsi %a, %s : i32
    linalg.yield %r : i32
  } -> tensor<16x256x8xi32>
  %e1 = tensor.empty() : tensor<16x256x8xi8>
  %z_i8 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%z_sh : tensor<16x256x8xi32>) outs(%e1 : tensor<16x256x8xi8>) {
  ^bb0(%a: i32, %out: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  } -> tensor<16x256x8xi8>
  %z_p1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%z_i8 : tensor<16x256x8xi8>) outs(%e1 : tensor<16x256x8xi8>) {
  ^bb0(%a: i8, %out: i8):
    %o = arith.trunci %c1_i64 : i64 to i8
    %al = arith.trunci %c1_i64 : i64 to i8
    %sc = arith.muli %o, %al : i8
    %r = arith.addi %a, %sc : i8
    linalg.yield %r : i8
  } -> tensor<16x256x8xi8>
  %z_and = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%z_p1 : tensor<16x256x8xi8>) outs(%e1 : tensor<16x256x8xi8>) {
  ^bb0(%a: i8, %out: i8):
    %m = arith.trunci %c15_i64 : i64 to i8
    %r = arith.andi %a, %m : i8
    linalg.yield %r : i8
  } -> tensor<16x256x8xi8>
  %z_flat = tensor.collapse_shape %z_and [[0], [1, 2]] : tensor<16x256x8xi8> into tensor<16x2048xi8>
  %z3 = tensor.expand_shape %z_flat [[0], [1, 2]] output_shape [16, 1, 2048] : tensor<16x2048xi8> into tensor<16x1x2048xi8>
  %s3 = tensor.expand_shape %scales [[0], [1, 2]] output_shape [16, 1, 2048] : tensor<16x2048xf16> into tensor<16x1x2048xf16>
  // ---- weight ----
  %qw_u = tensor.expand_shape %qweight [[0, 1], [2]] output_shape [256, 1, 2048] : tensor<256x2048xi32> into tensor<256x1x2048xi32>
  %e2 = tensor.empty() : tensor<256x8x2048xi32>
  %qw_b = linalg.generic {indexing_maps = [#bc_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qw_u : tensor<256x1x2048xi32>) outs(%e2 : tensor<256x8x2048xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  } -> tensor<256x8x2048xi32>
  %wf_w0 = tensor.expand_shape %wf [[0], [1, 2]] output_shape [1, 8, 1] : tensor<1x8xi32> into tensor<1x8x1xi32>
  %w_sh = linalg.generic {indexing_maps = [#id3, #wf_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qw_b, %wf_w0 : tensor<256x8x2048xi32>, tensor<1x8x1xi32>) outs(%e2 : tensor<256x8x2048xi32>) {
  ^bb0(%a: i32, %s: i32, %out: i32):
    %r = arith.shrsi %a, %s : i32
    linalg.yield %r : i32
  } -> tensor<256x8x2048xi32>
  %e3 = tensor.empty() : tensor<256x8x2048xi8>
  %w_i8 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w_sh : tensor<256x8x2048xi32>) outs(%e3 : tensor<256x8x2048xi8>) {
  ^bb0(%a: i32, %out: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  } -> tensor<256x8x2048xi8>
  %w_and = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w_i8 : tensor<256x8x2048xi8>) outs(%e3 : tensor<256x8x2048xi8>) {
  ^bb0(%a: i8, %out: i8):
    %m = arith.trunci %c15_i64 : i64 to i8
    %r = arith.andi %a, %m : i8
    linalg.yield %r : i8
  } -> tensor<256x8x2048xi8>
  %w_flat = tensor.collapse_shape %w_and [[0, 1], [2]] : tensor<256x8x2048xi8> into tensor<2048x2048xi8>
  %w3 = tensor.expand_shape %w_flat [[0, 1], [2]] output_shape [16, 128, 2048] : tensor<2048x2048xi8> into tensor<16x128x2048xi8>
  // ---- weight - zeros (int8), scales * (...) ----
  %e4 = tensor.empty() : tensor<16x128x2048xi8>
  %diff = linalg.generic {indexing_maps = [#id3, #bc_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w3, %z3 : tensor<16x128x2048xi8>, tensor<16x1x2048xi8>) outs(%e4 : tensor<16x128x2048xi8>) {
  ^bb0(%a: i8, %b: i8, %out: i8):
    %al = arith.trunci %c1_i64 : i64 to i8
    %sc = arith.muli %b, %al : i8
    %r = arith.subi %a, %sc : i8
    linalg.yield %r : i8
  } -> tensor<16x128x2048xi8>
  %e5 = tensor.empty() : tensor<16x128x2048xf16>
  %dq = linalg.generic {indexing_maps = [#bc_w, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s3, %diff : tensor<16x1x2048xf16>, tensor<16x128x2048xi8>) outs(%e5 : tensor<16x128x2048xf16>) {
  ^bb0(%s: f16, %d: i8, %out: f16):
    %df = arith.sitofp %d : i8 to f16
    %r = arith.mulf %s, %df : f16
    linalg.yield %r : f16
  } -> tensor<16x128x2048xf16>
  %wk = tensor.collapse_shape %dq [[0, 1], [2]] : tensor<16x128x2048xf16> into tensor<2048x2048xf16>
  // ---- matmul + bias ----
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %cst = arith.constant 0.000000e+00 : f16
  %e6 = tensor.empty(%m) : tensor<?x2048xf16>
  %fill = linalg.fill ins(%cst : f16) outs(%e6 : tensor<?x2048xf16>) -> tensor<?x2048xf16>
  %mm = linalg.matmul ins(%x, %wk : tensor<?x2048xf16>, tensor<2048x2048xf16>) outs(%fill : tensor<?x2048xf16>) -> tensor<?x2048xf16>
  %c1_f = arith.constant 1.000000e+00 : f64
  %out = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x2048xf16>, tensor<2048xf16>) outs(%e6 : tensor<?x2048xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %al = arith.truncf %c1_f : f64 to f16
    %sc = arith.mulf %b, %al : f16
    %r = arith.addf %a, %sc : f16
    linalg.yield %r : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
