// The offset form, W = (q - z) * scale + m with m a per-(group, column) tensor (issue #17): GGUF's Q4_1
// (W = d * q + m, z = 0, 32-element blocks) and torchao's float zero point (dequantize_affine with the
// FLOAT zero-point domain: (q - 8) * scale + zero_point). The op carries zero_points_are_offsets and the
// constant part of the zero point.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @q4_1_offsets(
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<64x2048xf16>, %[[M:[a-zA-Z0-9_]+]]: tensor<64x2048xf16>
// CHECK:         "w4a16.fused_matmul"(%{{.+}}, %{{.+}}, %[[S]], %{{.+}}, %[[M]])
// CHECK-SAME:      group_size = 32 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0>
// CHECK-SAME:      zero_point = 0.000000e+00 : f64
// CHECK-SAME:      zero_point_layout = "g_n"
// CHECK-SAME:      zero_points_are_offsets
// CHECK-NOT:     linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

func.func @q4_1_offsets(%x: tensor<?x2048xf16>, %qweight: tensor<256x2048xi32>, %scales: tensor<64x2048xf16>,
                        %mins: tensor<64x2048xf16>, %bias: tensor<2048xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %de = tensor.empty() : tensor<2048x2048xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<256x2048xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<64x2048xf16>
    %mn = tensor.extract %mins[%g, %n] : tensor<64x2048xf16>
    %ds = arith.mulf %cf, %sc : f16
    %wv = arith.addf %ds, %mn : f16
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

// CHECK-LABEL: func.func @torchao_float_zero_point(
// CHECK:         "w4a16.fused_matmul"
// CHECK-NOT:       zero_point = 
// CHECK-SAME:      zero_points_are_offsets
// CHECK-NOT:     linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

func.func @torchao_float_zero_point(%x: tensor<?x2048xf16>, %qweight: tensor<256x2048xi32>, %scales: tensor<64x2048xf16>,
                        %mins: tensor<64x2048xf16>, %bias: tensor<2048xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %de = tensor.empty() : tensor<2048x2048xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<2048x2048xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<256x2048xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<64x2048xf16>
    %mn = tensor.extract %mins[%g, %n] : tensor<64x2048xf16>
    %c8f = arith.constant 8.000000e+00 : f16
    %cs = arith.subf %cf, %c8f : f16
    %ds = arith.mulf %cs, %sc : f16
    %wv = arith.addf %ds, %mn : f16
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
