// Shapes exporters give the chain (issue #18): x as a rank-3 [B, S, K] argument collapsed inside the
// function, x pre-grouped as [K/G, G] or [1, 1, K/G, G], decode matvecs with no M dimension, contractions
// with unit batch dims, and a static M = 1 whose (1, N) residual follows the activation. Each computes
// out = act(x W + bias) + residual for a row-major (M, K) view of x and fuses as such: x and the residual
// are reshaped to 2-D for the op and its (M, N) result back to the chain's shape.
//
// Sources: @linear_rank3 is how torch-mlir's aten.linear lowering treats [B, S, K] activations (collapse,
// matmul, expand back); @grouped_quantized_matvec and @unit_batch_grouped keep the maps and shapes of IREE's
// GlobalOptimization dequantization-fusion tests (grouped_quantized_matvec, and its [1, 1, K/G, G] x form)
// with f16 activations and the zero point 8 as a constant; @static_m1 is a decode step with M = 1 kept.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @linear_rank3(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x?x256xf16>
// CHECK:         %[[XC:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[XC]],
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      -> tensor<?x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]]
// REMARK: exporter-shapes.mlir:59:9: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias -> silu
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear_rank3(%x: tensor<?x?x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>) -> tensor<?x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bsz = tensor.dim %x, %c0 : tensor<?x?x256xf16>
  %seq = tensor.dim %x, %c1 : tensor<?x?x256xf16>
  %xc = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
  %rows = tensor.dim %xc, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%rows) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<?x64xf16>) -> tensor<?x64xf16>
  %mm = linalg.matmul ins(%xc, %w : tensor<?x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  %e2 = tensor.empty(%rows) : tensor<?x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d1)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<?x64xf16>, tensor<64xf16>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    %one = arith.constant 1.0 : f16
    %ng = arith.negf %t : f16
    %ex = math.exp %ng : f16
    %den = arith.addf %one, %ex : f16
    %r = arith.divf %t, %den : f16
    linalg.yield %r : f16
  } -> tensor<?x64xf16>
  %out = tensor.expand_shape %y [[0, 1], [2]] output_shape [%bsz, %seq, 64] : tensor<?x64xf16> into tensor<?x?x64xf16>
  return %out : tensor<?x?x64xf16>
}

// -----

// CHECK-LABEL: func.func @grouped_quantized_matvec(
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<64x2x128xi4>
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x128xf16>
// CHECK:         %[[XF:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<2x128xf16> into tensor<256xf16>
// CHECK:         %[[XM:.+]] = tensor.expand_shape %[[XF]] {{\[\[}}0, 1]] output_shape [1, 256] : tensor<256xf16> into tensor<1x256xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[XM]],
// CHECK-SAME:      -> tensor<1x64xf16>
// CHECK:         %[[V:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1]] : tensor<1x64xf16> into tensor<64xf16>
// CHECK:         return %[[V]] : tensor<64xf16>
// REMARK: exporter-shapes.mlir:104:8: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @grouped_quantized_matvec(%arg0: tensor<64x2x128xi4>, %arg1: tensor<2x128xf16>, %arg2: tensor<64x2xf16>) -> tensor<64xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %0 = tensor.empty() : tensor<64xf16>
  %1 = tensor.empty() : tensor<64x2x128xf16>
  %2 = linalg.fill ins(%cst : f16) outs(%0 : tensor<64xf16>) -> tensor<64xf16>
  %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg0, %arg2 : tensor<64x2x128xi4>, tensor<64x2xf16>) outs(%1 : tensor<64x2x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<64x2x128xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>],
      iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%arg1, %3 : tensor<2x128xf16>, tensor<64x2x128xf16>) outs(%2 : tensor<64xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<64xf16>
  return %4 : tensor<64xf16>
}

// -----

// CHECK-LABEL: func.func @unit_batch_grouped(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<1x1x2x128xf16>
// CHECK:         %[[XM:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2, 3]] : tensor<1x1x2x128xf16> into tensor<1x256xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[XM]],
// CHECK-SAME:      -> tensor<1x64xf16>
// CHECK:         %[[V:.+]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [1, 1, 64] : tensor<1x64xf16> into tensor<1x1x64xf16>
// CHECK:         return %[[V]]
// REMARK: exporter-shapes.mlir:142:8: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @unit_batch_grouped(%arg0: tensor<64x2x128xi4>, %arg1: tensor<1x1x2x128xf16>, %arg2: tensor<64x2xf16>) -> tensor<1x1x64xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %zp = arith.constant 8.000000e+00 : f16
  %0 = tensor.empty() : tensor<1x1x64xf32>
  %1 = tensor.empty() : tensor<64x2x128xf16>
  %2 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x64xf32>) -> tensor<1x1x64xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg0, %arg2 : tensor<64x2x128xi4>, tensor<64x2xf16>) outs(%1 : tensor<64x2x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<64x2x128xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%arg1, %3 : tensor<1x1x2x128xf16>, tensor<64x2x128xf16>) outs(%2 : tensor<1x1x64xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %a = arith.extf %in : f16 to f32
    %b = arith.extf %in_0 : f16 to f32
    %5 = arith.mulf %a, %b : f32
    %6 = arith.addf %5, %out : f32
    linalg.yield %6 : f32
  } -> tensor<1x1x64xf32>
  %e = tensor.empty() : tensor<1x1x64xf16>
  %t = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<1x1x64xf32>) outs(%e : tensor<1x1x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<1x1x64xf16>
  return %t : tensor<1x1x64xf16>
}

// -----

// CHECK-LABEL: func.func @static_m1(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<1x256xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<1x64xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %{{.+}}, %{{.+}}, %[[B]], %[[RES]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK:         return %[[R]]
// REMARK: exporter-shapes.mlir:202:9: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias -> silu -> residual
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @static_m1(%x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %r: tensor<1x64xf16>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %e2 = tensor.empty() : tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b, %r : tensor<1x64xf16>, tensor<64xf16>, tensor<1x64xf16>) outs(%e2 : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %rr: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    %one = arith.constant 1.0 : f16
    %ng = arith.negf %t : f16
    %ex = math.exp %ng : f16
    %den = arith.addf %one, %ex : f16
    %sl = arith.divf %t, %den : f16
    %res = arith.addf %sl, %rr : f16
    linalg.yield %res : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

