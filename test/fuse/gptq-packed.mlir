// GPTQ-packed weights (docs/contract.md §4 dequant (b)): a (K/8, N) i32 tensor whose word [k/8, n] holds the codes of
// k = 8*(k/8) .. +7, least-significant nibble first. The unpack generic reads the word with linalg.index +
// tensor.extract, shifts right by (k mod 8)*4, masks with 15, subtracts 8 and multiplies by the group scale.
// Each case must become one w4a16.fused_matmul with weight_layout "packed_k8_n" and scales_layout "g_n", the
// weight and scales operands being the function arguments themselves, and every dead producer erased.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// Static M (decode batch of 16), llama-7B gate/up projection shape. Word and scale both read with
// tensor.extract; shift = index_cast(k remui 8) * 4 computed in i32; zero point defined outside the body.

// CHECK-LABEL: func.func @gptq_static_m(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<16x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x11008xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     tensor.empty
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<16x4096xf16>, tensor<512x11008xi32>, tensor<32x11008xf16>) -> tensor<16x11008xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     tensor.empty
// CHECK:         return %[[R]] : tensor<16x11008xf16>
func.func @gptq_static_m(%x: tensor<16x4096xf16>, %qweight: tensor<512x11008xi32>, %scales: tensor<32x11008xf16>) -> tensor<16x11008xf16> {
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %zp = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<4096x11008xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<4096x11008xf16>) {
  ^bb0(%out: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x11008xi32>
    %kr = arith.remui %k, %c8 : index
    %kr_i32 = arith.index_cast %kr : index to i32
    %shift = arith.muli %kr_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %scales[%g, %n] : tensor<32x11008xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<4096x11008xf16>
  %2 = tensor.empty() : tensor<16x11008xf16>
  %3 = linalg.fill ins(%zero : f16) outs(%2 : tensor<16x11008xf16>) -> tensor<16x11008xf16>
  %4 = linalg.matmul ins(%x, %1 : tensor<16x4096xf16>, tensor<4096x11008xf16>) outs(%3 : tensor<16x11008xf16>) -> tensor<16x11008xf16>
  return %4 : tensor<16x11008xf16>
}

// -----

// Dynamic M (serving batch), square 4096x4096 projection. The shift is computed after the index_cast
// (remui in i32), the scale comes in through a floordiv indexing map, constants live inside the body.

#map_kn = affine_map<(d0, d1) -> (d0, d1)>
#map_group = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
// CHECK-LABEL: func.func @gptq_dynamic_m(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<512x4096xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-NOT:     linalg.
// CHECK-NOT:     tensor.empty
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x4096xf16>, tensor<512x4096xi32>, tensor<32x4096xf16>) -> tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x4096xf16>
func.func @gptq_dynamic_m(%arg0: tensor<?x4096xf16>, %arg1: tensor<512x4096xi32>, %arg2: tensor<32x4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<4096x4096xf16>
  %1 = linalg.generic {indexing_maps = [#map_group, #map_kn], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<32x4096xf16>) outs(%0 : tensor<4096x4096xf16>) {
  ^bb0(%in: f16, %out: f16):
    %c8_i32 = arith.constant 8 : i32
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %c8 = arith.constant 8 : index
    %cst_8 = arith.constant 8.000000e+00 : f16
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %row = arith.divui %i0, %c8 : index
    %packed = tensor.extract %arg1[%row, %i1] : tensor<512x4096xi32>
    %i0_i32 = arith.index_cast %i0 : index to i32
    %nib = arith.remui %i0_i32, %c8_i32 : i32
    %sh = arith.muli %nib, %c4_i32 : i32
    %v = arith.shrui %packed, %sh : i32
    %q = arith.andi %v, %c15_i32 : i32
    %qf = arith.uitofp %q : i32 to f16
    %d = arith.subf %qf, %cst_8 : f16
    %r = arith.mulf %d, %in : f16
    linalg.yield %r : f16
  } -> tensor<4096x4096xf16>
  %dim = tensor.dim %arg0, %c0 : tensor<?x4096xf16>
  %2 = tensor.empty(%dim) : tensor<?x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %4 = linalg.matmul ins(%arg0, %1 : tensor<?x4096xf16>, tensor<4096x4096xf16>) outs(%3 : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  return %4 : tensor<?x4096xf16>
}

// -----

// Small shape (K = 256, N = 64). k mod 8 as `andi k, 7`, times 4 as `shli 2`, the scale multiplied
// from the left (scale * (code - 8)).

// CHECK-LABEL: func.func @gptq_small_andi_shli(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
func.func @gptq_small_andi_shli(%x: tensor<4x256xf16>, %qw: tensor<32x64xi32>, %sc: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c2_i32 = arith.constant 2 : i32
  %c15_i32 = arith.constant 15 : i32
  %eight = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.shrui %k, %c3 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.andi %k, %c7 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.shli %lane_i32, %c2_i32 : i32
    %s = arith.shrui %word, %sh : i32
    %code = arith.andi %s, %c15_i32 : i32
    %f = arith.uitofp %code : i32 to f16
    %z = arith.subf %f, %eight : f16
    %c128 = arith.constant 128 : index
    %grp = arith.divui %k, %c128 : index
    %scale = tensor.extract %sc[%grp, %n] : tensor<2x64xf16>
    %w = arith.mulf %scale, %z : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %e2 = tensor.empty() : tensor<4x64xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%e2 : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%fill : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %mm : tensor<4x64xf16>
}

// -----

// llama-7B down projection (K = 11008 = 86 * 128, N = 4096), dynamic M with a tensor.empty sized from
// tensor.dim. The word's row index is computed with arith.floordivsi.

// CHECK-LABEL: func.func @gptq_down_proj(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x11008xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<1376x4096xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<86x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x11008xf16>, tensor<1376x4096xi32>, tensor<86x4096xf16>) -> tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x4096xf16>
func.func @gptq_down_proj(%x: tensor<?x11008xf16>, %qweight: tensor<1376x4096xi32>, %scales: tensor<86x4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %cst = arith.constant 8.000000e+00 : f16
  %cst_0 = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<11008x4096xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<11008x4096xf16>) {
  ^bb0(%out: f16):
    %5 = linalg.index 0 : index
    %6 = linalg.index 1 : index
    %7 = arith.floordivsi %5, %c8 : index
    %8 = tensor.extract %qweight[%7, %6] : tensor<1376x4096xi32>
    %9 = arith.remui %5, %c8 : index
    %10 = arith.index_cast %9 : index to i32
    %11 = arith.muli %10, %c4_i32 : i32
    %12 = arith.shrui %8, %11 : i32
    %13 = arith.andi %12, %c15_i32 : i32
    %14 = arith.uitofp %13 : i32 to f16
    %15 = arith.subf %14, %cst : f16
    %16 = arith.divui %5, %c128 : index
    %17 = tensor.extract %scales[%16, %6] : tensor<86x4096xf16>
    %18 = arith.mulf %15, %17 : f16
    linalg.yield %18 : f16
  } -> tensor<11008x4096xf16>
  %dim = tensor.dim %x, %c0 : tensor<?x11008xf16>
  %2 = tensor.empty(%dim) : tensor<?x4096xf16>
  %3 = linalg.fill ins(%cst_0 : f16) outs(%2 : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %4 = linalg.matmul ins(%x, %1 : tensor<?x11008xf16>, tensor<11008x4096xf16>) outs(%3 : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  return %4 : tensor<?x4096xf16>
}

// -----

// The packed word delivered through a floordiv-8 indexing map instead of tensor.extract (what
// linalg-generalisation of a gather-free unpack produces); the scale through a floordiv-128 map.

// CHECK-LABEL: func.func @gptq_word_through_map(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x1024xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<128x512xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x512xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      -> tensor<8x512xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
func.func @gptq_word_through_map(%x: tensor<8x1024xf16>, %qw: tensor<128x512xi32>, %s: tensor<8x512xf16>) -> tensor<8x512xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<1024x512xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 floordiv 8, d1)>, affine_map<(d0, d1) -> (d0 floordiv 128, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%qw, %s : tensor<128x512xi32>, tensor<8x512xf16>) outs(%e : tensor<1024x512xf16>) {
  ^bb0(%word: i32, %scale: f16, %out: f16):
    %c8 = arith.constant 8 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %f = arith.uitofp %code : i32 to f16
    %c = arith.subf %f, %zp : f16
    %w = arith.mulf %c, %scale : f16
    linalg.yield %w : f16
  } -> tensor<1024x512xf16>
  %e2 = tensor.empty() : tensor<8x512xf16>
  %fill = linalg.fill ins(%cst : f16) outs(%e2 : tensor<8x512xf16>) -> tensor<8x512xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<8x1024xf16>, tensor<1024x512xf16>) outs(%fill : tensor<8x512xf16>) -> tensor<8x512xf16>
  return %mm : tensor<8x512xf16>
}
