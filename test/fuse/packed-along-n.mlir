// Weights (and zero points) packed along N, (K, N/8) i32: AutoAWQ's order, where nibble i of word (k, j) holds
// column 8j + [0, 2, 4, 6, 1, 3, 5, 7][i] (the unpacking shifts by a constant table indexed by n % 8), and the
// sequential order (nibble i holds column 8j + i). The nibble order is read off the arithmetic: the order
// whose codes make (code - z) * scale exact at every sample (issue #17).
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @awq_gemm(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0>
// CHECK-SAME:      weight_layout = "packed_k_n8_awq"
// CHECK-SAME:      zero_point_layout = "packed_g_n8_awq"
// CHECK-NOT:     linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

func.func @awq_gemm(%x: tensor<?x2048xf16>, %qweight: tensor<2048x256xi32>, %scales: tensor<16x2048xf16>,
                    %qzeros: tensor<16x256xi32>, %bias: tensor<2048xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %de = tensor.empty() : tensor<2048x2048xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c15 = arith.constant 15 : i32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %shifts = arith.constant dense<[0, 16, 4, 20, 8, 24, 12, 28]> : tensor<8xi32>
    %nw = arith.divui %n, %c8 : index
    %nl = arith.remui %n, %c8 : index
    %sh = tensor.extract %shifts[%nl] : tensor<8xi32>
    %word = tensor.extract %qweight[%k, %nw] : tensor<2048x256xi32>
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %g = arith.divui %k, %c128 : index
    %zword = tensor.extract %qzeros[%g, %nw] : tensor<16x256xi32>
    %zv = arith.shrui %zword, %sh : i32
    %z = arith.andi %zv, %c15 : i32
    %zi = arith.subi %code, %z : i32
    %cz = arith.sitofp %zi : i32 to f16
    %sc = tensor.extract %scales[%g, %n] : tensor<16x2048xf16>
    %wv = arith.mulf %cz, %sc : f16
    %wv32 = arith.extf %wv : f16 to f32
    linalg.yield %wv32 : f32
  } -> tensor<2048x2048xf32>
  %ex = tensor.empty(%m) : tensor<?x2048xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x2048xf16>) outs(%ex : tensor<?x2048xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x2048xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x2048xf32>, tensor<2048x2048xf32>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %e2 = tensor.empty(%m) : tensor<?x2048xf16>
  %out = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<?x2048xf32>, tensor<2048xf16>) outs(%e2 : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c0g = arith.constant 0.7978845608028654 : f32
    %c1g = arith.constant 0.044715 : f32
    %b32 = arith.extf %b : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %t3 = arith.mulf %t, %t : f32
    %t3b = arith.mulf %t3, %t : f32
    %u0 = arith.mulf %t3b, %c1g : f32
    %u1 = arith.addf %t, %u0 : f32
    %u = arith.mulf %u1, %c0g : f32
    %th = math.tanh %u : f32
    %p = arith.addf %one, %th : f32
    %h = arith.mulf %t, %half : f32
    %r = arith.mulf %h, %p : f32
    %r16 = arith.truncf %r : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}

// -----

// CHECK-LABEL: func.func @packed_along_n_sequential(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      weight_layout = "packed_k_n8"
// CHECK-SAME:      zero_point_layout = "packed_g_n8"
// CHECK-NOT:     linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

func.func @packed_along_n_sequential(%x: tensor<?x2048xf16>, %qweight: tensor<2048x256xi32>, %scales: tensor<16x2048xf16>,
                    %qzeros: tensor<16x256xi32>, %bias: tensor<2048xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %de = tensor.empty() : tensor<2048x2048xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c15 = arith.constant 15 : i32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %shifts = arith.constant dense<[0, 4, 8, 12, 16, 20, 24, 28]> : tensor<8xi32>
    %nw = arith.divui %n, %c8 : index
    %nl = arith.remui %n, %c8 : index
    %sh = tensor.extract %shifts[%nl] : tensor<8xi32>
    %word = tensor.extract %qweight[%k, %nw] : tensor<2048x256xi32>
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %g = arith.divui %k, %c128 : index
    %zword = tensor.extract %qzeros[%g, %nw] : tensor<16x256xi32>
    %zv = arith.shrui %zword, %sh : i32
    %z = arith.andi %zv, %c15 : i32
    %zi = arith.subi %code, %z : i32
    %cz = arith.sitofp %zi : i32 to f16
    %sc = tensor.extract %scales[%g, %n] : tensor<16x2048xf16>
    %wv = arith.mulf %cz, %sc : f16
    %wv32 = arith.extf %wv : f16 to f32
    linalg.yield %wv32 : f32
  } -> tensor<2048x2048xf32>
  %ex = tensor.empty(%m) : tensor<?x2048xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x2048xf16>) outs(%ex : tensor<?x2048xf32>) {
  ^bb0(%a: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x2048xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %y = linalg.matmul ins(%x32, %w : tensor<?x2048xf32>, tensor<2048x2048xf32>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %e2 = tensor.empty(%m) : tensor<?x2048xf16>
  %out = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<?x2048xf32>, tensor<2048xf16>) outs(%e2 : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c0g = arith.constant 0.7978845608028654 : f32
    %c1g = arith.constant 0.044715 : f32
    %b32 = arith.extf %b : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %t3 = arith.mulf %t, %t : f32
    %t3b = arith.mulf %t3, %t : f32
    %u0 = arith.mulf %t3b, %c1g : f32
    %u1 = arith.addf %t, %u0 : f32
    %u = arith.mulf %u1, %c0g : f32
    %th = math.tanh %u : f32
    %p = arith.addf %one, %th : f32
    %h = arith.mulf %t, %half : f32
    %r = arith.mulf %h, %p : f32
    %r16 = arith.truncf %r : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
