// bf16 models (issue #18): x, bias, residual and the result in bf16, the scales in f16 or bf16 independently
// (GPTQ checkpoints keep f16 scales for bf16 models; torchao keeps bf16 scales and zero points). The op
// takes x's element type; a chain whose end is not in x's type does not fuse (negative-types-shapes.mlir).
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The remarks (REMARK, at the ops) name the element types when they are not all f16.

// Everything bf16 (IREE's GlobalOptimization form of a bf16 model: i4 (N, K/G, G) weight, bf16 scales, bf16
// dequant, pre-grouped x, bf16 contraction). The fused op accumulates in f32.

// CHECK-LABEL: func.func @all_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x4096xbf16>, %{{.*}}: tensor<4096x32x128xi4>, %[[S:.*]]: tensor<4096x32xbf16>
// CHECK:         %[[W:.*]] = tensor.collapse_shape
// CHECK:         %[[R:.*]] = "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]])
// CHECK-SAME:      scales_layout = "n_g", weight_layout = "n_k"
// CHECK-SAME:      (tensor<?x4096xbf16>, tensor<4096x4096xi4>, tensor<4096x32xbf16>) -> tensor<?x4096xbf16>
// CHECK-NEXT:    return %[[R]]
func.func @all_bf16(%x: tensor<?x4096xbf16>, %w: tensor<4096x32x128xi4>, %s: tensor<4096x32xbf16>) -> tensor<?x4096xbf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : bf16
  %zp = arith.constant 8.000000e+00 : bf16
  %m = tensor.dim %x, %c0 : tensor<?x4096xbf16>
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [%m, 32, 128] : tensor<?x4096xbf16> into tensor<?x32x128xbf16>
  %0 = tensor.empty() : tensor<4096x32x128xbf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x32x128xi4>, tensor<4096x32xbf16>) outs(%0 : tensor<4096x32x128xbf16>) {
  ^bb0(%in: i4, %in_0: bf16, %out: bf16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to bf16
    %7 = arith.subf %6, %zp : bf16
    %8 = arith.mulf %7, %in_0 : bf16
    linalg.yield %8 : bf16
  } -> tensor<4096x32x128xbf16>
  %2 = tensor.empty(%m) : tensor<?x4096xbf16>
  %3 = linalg.fill ins(%cst : bf16) outs(%2 : tensor<?x4096xbf16>) -> tensor<?x4096xbf16>
  // REMARK: bf16.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul [x bf16, scales bf16]
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %1 : tensor<?x32x128xbf16>, tensor<4096x32x128xbf16>) outs(%3 : tensor<?x4096xbf16>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: bf16):
    %5 = arith.mulf %in, %in_0 : bf16
    %6 = arith.addf %5, %out : bf16
    linalg.yield %6 : bf16
  } -> tensor<?x4096xbf16>
  return %4 : tensor<?x4096xbf16>
}

// -----

// A GPTQ checkpoint in a bf16 model, as HF transformers runs it: (K/8, N) i32 words and f16 scales, the
// dequantised weight and x widened to f32, bias (bf16) and silu in f32, the result truncated to bf16.

// CHECK-LABEL: func.func @gptq_f16_scales_bf16_model(
// CHECK-SAME:    %[[X:.*]]: tensor<?x256xbf16>, %[[Q:.*]]: tensor<32x64xi32>, %[[S:.*]]: tensor<2x64xf16>, %[[B:.*]]: tensor<64xbf16>
// CHECK:         %[[R:.*]] = "w4a16.fused_matmul"(%[[X]], %[[Q]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      (tensor<?x256xbf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xbf16>) -> tensor<?x64xbf16>
// CHECK-NEXT:    return %[[R]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @gptq_f16_scales_bf16_model(%x: tensor<?x256xbf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>,
                                      %bias: tensor<64xbf16>) -> tensor<?x64xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xbf16>
  %de = tensor.empty() : tensor<256x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %cz = arith.subf %cf, %zp : f32
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %sc32 = arith.extf %sc : f16 to f32
    %wv = arith.mulf %cz, %sc32 : f32
    linalg.yield %wv : f32
  } -> tensor<256x64xf32>
  %ex = tensor.empty(%m) : tensor<?x256xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xbf16>) outs(%ex : tensor<?x256xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %a32 = arith.extf %a : bf16 to f32
    linalg.yield %a32 : f32
  } -> tensor<?x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  // REMARK: bf16.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias -> silu [x bf16, scales f16]
  %y = linalg.matmul ins(%x32, %w : tensor<?x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xbf16>
  %out = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<?x64xf32>, tensor<64xbf16>) outs(%e2 : tensor<?x64xbf16>) {
  ^bb0(%a: f32, %b: bf16, %o: bf16):
    %one = arith.constant 1.0 : f32
    %b32 = arith.extf %b : bf16 to f32
    %t = arith.addf %a, %b32 : f32
    %nt = arith.negf %t : f32
    %ex1 = math.exp %nt : f32
    %den = arith.addf %one, %ex1 : f32
    %r = arith.divf %t, %den : f32
    %r16 = arith.truncf %r : f32 to bf16
    linalg.yield %r16 : bf16
  } -> tensor<?x64xbf16>
  return %out : tensor<?x64xbf16>
}

// -----

// bf16 x whose chain ends in f16 (truncf f32 -> f16): the result is not x's type, nothing fuses.

// CHECK-LABEL: func.func @bf16_x_f16_result(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @bf16_x_f16_result(%x: tensor<4x256xbf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xbf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xbf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xbf16>) {
  ^bb0(%out: bf16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : bf16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to bf16
    %cz = arith.subf %cf, %zp : bf16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xbf16>
    %wv = arith.mulf %cz, %sc : bf16
    linalg.yield %wv : bf16
  } -> tensor<256x64xbf16>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  // REMARK: bf16.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: matmul result is f32 and never truncated to bf16 (x{{.}}s type)
  %y = linalg.matmul ins(%x, %w : tensor<4x256xbf16>, tensor<256x64xbf16>) outs(%acc : tensor<4x64xf32>) -> tensor<4x64xf32>
  %e2 = tensor.empty() : tensor<4x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x64xf32>) outs(%e2 : tensor<4x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  return %out : tensor<4x64xf16>
}
