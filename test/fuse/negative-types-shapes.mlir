// Must not fuse (docs/contract.md §4), types and shapes: f32 activations; a result never truncated to x's
// type (the fused op's result has x's type, f16 or bf16); dynamic K or N; a plain f16 matmul with no dequant;
// a dequantised weight feeding something that is not a matmul; a matmul whose init is not zero; a (K, N)
// dequant used as a transposed B (the groups then run along N). The output must be byte-for-byte the
// pass-less print. bf16 chains that fuse are in bf16.mlir.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s -o %t.fused
// RUN: w4a16-opt --split-input-file %s -o %t.plain
// RUN: diff %t.fused %t.plain
// RUN: mlir-opt --split-input-file %s -o %t.mlir-opt
// RUN: diff %t.fused %t.mlir-opt

// x is f32 and stays f32: the dequantised weight is extended to f32 and the matmul runs in f32.

// CHECK-LABEL: func.func @x_f32_extf_weight(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @x_f32_extf_weight(%x: tensor<4x1024xf32>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf32> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %we = tensor.empty() : tensor<1024x256xf32>
  %wf = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%deq : tensor<1024x256xf16>) outs(%we : tensor<1024x256xf32>) {
  ^bb0(%in: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    linalg.yield %0 : f32
  } -> tensor<1024x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %ae = tensor.empty() : tensor<4x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<4x256xf32>) -> tensor<4x256xf32>
  %mm = linalg.matmul ins(%x, %wf : tensor<4x1024xf32>, tensor<1024x256xf32>) outs(%acc : tensor<4x256xf32>) -> tensor<4x256xf32>
  return %mm : tensor<4x256xf32>
}

// -----

// x is f32, the weight f16, a mixed-type linalg.matmul into an f32 accumulator, truncated to f16 after.

// CHECK-LABEL: func.func @x_f32_mixed_matmul(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @x_f32_mixed_matmul(%x: tensor<?x1024xf32>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<?x256xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x1024xf32>
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %ae = tensor.empty(%m) : tensor<?x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x256xf32>) -> tensor<?x256xf32>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x1024xf32>, tensor<1024x256xf16>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  %te = tensor.empty(%m) : tensor<?x256xf16>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x256xf32>) outs(%te : tensor<?x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %0 = arith.truncf %in : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<?x256xf16>
  return %t : tensor<?x256xf16>
}

// -----

// x is bf16 (a bf16 model), the weight dequantised to f16, mixed-type matmul into f32 returned as f32:
// never truncated to bf16, x's type, which the fused op's result has.

// CHECK-LABEL: func.func @x_bf16_mixed_matmul(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @x_bf16_mixed_matmul(%x: tensor<8x1024xbf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<8x256xf32> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %ae = tensor.empty() : tensor<8x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<8x256xf32>) -> tensor<8x256xf32>
  %mm = linalg.matmul ins(%x, %deq : tensor<8x1024xbf16>, tensor<1024x256xf16>) outs(%acc : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %mm : tensor<8x256xf32>
}

// -----

// f16 inputs accumulated into f32 and returned as f32 (never truncated): the f16 fused op cannot produce it.

// CHECK-LABEL: func.func @f32_result_never_truncated(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @f32_result_never_truncated(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf32> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %acc_e = tensor.empty() : tensor<4x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc_e : tensor<4x256xf32>) -> tensor<4x256xf32>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf32>) -> tensor<4x256xf32>
  return %mm : tensor<4x256xf32>
}

// -----

// Dynamic K: x (?, ?), qweight (?, N), scales (?, N).

// CHECK-LABEL: func.func @dynamic_k(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @dynamic_k(%x: tensor<?x?xf16>, %qweight: tensor<?x11008xi32>, %scales: tensor<?x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %kdim = tensor.dim %x, %c1 : tensor<?x?xf16>
  %de = tensor.empty(%kdim) : tensor<?x11008xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<?x11008xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<?x11008xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<?x11008xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<?x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %ae = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ae : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x?xf16>, tensor<?x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}

// -----

// Dynamic N: qweight (K/8, ?), scales (K/128, ?).

// CHECK-LABEL: func.func @dynamic_n(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @dynamic_n(%x: tensor<4x4096xf16>, %qweight: tensor<512x?xi32>, %scales: tensor<32x?xf16>) -> tensor<4x?xf16> {
  %c1 = arith.constant 1 : index
  %ndim = tensor.dim %qweight, %c1 : tensor<512x?xi32>
  %de = tensor.empty(%ndim) : tensor<4096x?xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x?xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x?xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<32x?xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<4096x?xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %ae = tensor.empty(%ndim) : tensor<4x?xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ae : tensor<4x?xf16>) -> tensor<4x?xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x4096xf16>, tensor<4096x?xf16>) outs(%acc : tensor<4x?xf16>) -> tensor<4x?xf16>
  return %mm : tensor<4x?xf16>
}

// -----

// Dynamic K in the IREE layout: a [N, ?, 128] weight (unknown number of groups).

// CHECK-LABEL: func.func @dynamic_k_iree(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT:     w4a16.fused_matmul
func.func @dynamic_k_iree(%x: tensor<4x?x128xf16>, %w: tensor<4096x?x128xi4>, %s: tensor<4096x?xf16>) -> tensor<4x4096xf16> {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.000000e+00 : f16
  %zp = arith.constant 8.000000e+00 : f16
  %g = tensor.dim %w, %c1 : tensor<4096x?x128xi4>
  %0 = tensor.empty(%g) : tensor<4096x?x128xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4096x?x128xi4>, tensor<4096x?xf16>) outs(%0 : tensor<4096x?x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %5 = arith.extui %in : i4 to i32
    %6 = arith.uitofp %5 : i32 to f16
    %7 = arith.subf %6, %zp : f16
    %8 = arith.mulf %7, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<4096x?x128xf16>
  %2 = tensor.empty() : tensor<4x4096xf16>
  %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %1 : tensor<4x?x128xf16>, tensor<4096x?x128xf16>) outs(%3 : tensor<4x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %5 = arith.mulf %in, %in_0 : f16
    %6 = arith.addf %5, %out : f16
    linalg.yield %6 : f16
  } -> tensor<4x4096xf16>
  return %4 : tensor<4x4096xf16>
}

// -----

// A plain f16 nn.Linear (no quantisation at all) with bias, silu and residual epilogues: nothing to fuse.

// CHECK-LABEL: func.func @plain_f16_matmul_with_epilogue(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @plain_f16_matmul_with_epilogue(%x: tensor<?x4096xf16>, %w: tensor<4096x11008xf16>, %bias: tensor<11008xf16>, %residual: tensor<?x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.000000e+00 : f16
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %e = tensor.empty(%m) : tensor<?x11008xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias, %residual : tensor<?x11008xf16>, tensor<11008xf16>, tensor<?x11008xf16>) outs(%e : tensor<?x11008xf16>) {
  ^bb0(%y: f16, %b: f16, %r: f16, %o: f16):
    %0 = arith.addf %y, %b : f16
    %1 = arith.negf %0 : f16
    %2 = math.exp %1 : f16
    %3 = arith.addf %2, %one : f16
    %4 = arith.divf %one, %3 : f16
    %5 = arith.mulf %0, %4 : f16
    %6 = arith.addf %5, %r : f16
    linalg.yield %6 : f16
  } -> tensor<?x11008xf16>
  return %out : tensor<?x11008xf16>
}

// -----

// The dequantised weight only feeds a linalg.transpose (materialising W^T), no matmul.

// CHECK-LABEL: func.func @dequant_feeds_transpose(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.transpose
// CHECK-NOT:     w4a16.fused_matmul
func.func @dequant_feeds_transpose(%qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<256x1024xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %te = tensor.empty() : tensor<256x1024xf16>
  %t = linalg.transpose ins(%deq : tensor<1024x256xf16>) outs(%te : tensor<256x1024xf16>) permutation = [1, 0]
  return %t : tensor<256x1024xf16>
}

// -----

// The dequantised weight feeds a column-sum reduction (a generic with one reduction dim), not a matmul.

// CHECK-LABEL: func.func @dequant_feeds_reduction(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.generic
// CHECK-NOT:     w4a16.fused_matmul
func.func @dequant_feeds_reduction(%qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %re = tensor.empty() : tensor<256xf16>
  %rf = linalg.fill ins(%zero : f16) outs(%re : tensor<256xf16>) -> tensor<256xf16>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%deq : tensor<1024x256xf16>) outs(%rf : tensor<256xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.addf %in, %out : f16
    linalg.yield %0 : f16
  } -> tensor<256xf16>
  return %sum : tensor<256xf16>
}

// -----

// The dequantised weight is simply returned (a weight-export function).

// CHECK-LABEL: func.func @dequant_returned(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.generic
// CHECK-NOT:     w4a16.fused_matmul
func.func @dequant_returned(%qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<1024x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  return %deq : tensor<1024x256xf16>
}

// -----

// The matmul accumulates into a tensor filled with 1.0, not 0: out = 1 + x @ W is not the fused op.

// CHECK-LABEL: func.func @matmul_init_not_zero(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @matmul_init_not_zero(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %one = arith.constant 1.000000e+00 : f16
  %ae = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%one : f16) outs(%ae : tensor<4x256xf16>) -> tensor<4x256xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

// A (K, N) = (256, 256) dequant ([K/128, 128, N], groups along its first dim) used as the B of a transposed-B
// matmul: the contraction runs over its SECOND dim, so the scale groups lie along the output dim.

// CHECK-LABEL: func.func @kn_dequant_used_transposed(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @kn_dequant_used_transposed(%x: tensor<4x256xf16>, %w: tensor<2x128x256xi4>, %s: tensor<2x256xf16>) -> tensor<4x256xf16> {
  %de3 = tensor.empty() : tensor<2x128x256xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<2x128x256xi4>, tensor<2x256xf16>) outs(%de3 : tensor<2x128x256xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %c = arith.subf %f, %zp : f16
    %r = arith.mulf %c, %in_0 : f16
    linalg.yield %r : f16
  } -> tensor<2x128x256xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<2x128x256xf16> into tensor<256x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %deq : tensor<4x256xf16>, tensor<256x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

// The dequantised weight, transposed, is the LEFT operand of the matmul (W^T @ x^T, B = activations): the
// quantised operand is the matmul's A, not its B.

// CHECK-LABEL: func.func @dequant_is_lhs(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @dequant_is_lhs(%xt: tensor<256x4xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<64x4xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %wte = tensor.empty() : tensor<64x256xf16>
  %wt = linalg.transpose ins(%deq : tensor<256x64xf16>) outs(%wte : tensor<64x256xf16>) permutation = [1, 0]
  %zero = arith.constant 0.000000e+00 : f16
  %ae = tensor.empty() : tensor<64x4xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ae : tensor<64x4xf16>) -> tensor<64x4xf16>
  %mm = linalg.matmul ins(%wt, %xt : tensor<64x256xf16>, tensor<256x4xf16>) outs(%acc : tensor<64x4xf16>) -> tensor<64x4xf16>
  return %mm : tensor<64x4xf16>
}
