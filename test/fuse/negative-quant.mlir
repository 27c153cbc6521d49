// Must not fuse (docs/contract.md §4), quantisation scheme: group size not 32, 64 or 128, one scale per row or per
// column instead of per (K/128 group, column), two's complement minus 8, (code * s) - 8 instead of (code - 8) * s, nibbles most-significant first, a 3-bit mask, K not a multiple
// of 128. The output must be byte-for-byte what w4a16-opt and mlir-opt print without the pass.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s -o %t.fused
// RUN: w4a16-opt --split-input-file %s -o %t.plain
// RUN: diff %t.fused %t.plain
// RUN: mlir-opt --split-input-file %s -o %t.mlir-opt
// RUN: diff %t.fused %t.mlir-opt

// GPTQ with group size 256: scales (K/256, N).

// CHECK-LABEL: func.func @gptq_group_256(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @gptq_group_256(%x: tensor<16x4096xf16>, %qweight: tensor<512x11008xi32>, %scales: tensor<16x11008xf16>) -> tensor<16x11008xf16> {
  %de = tensor.empty() : tensor<4096x11008xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x11008xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 256 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x11008xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<16x11008xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<16x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<16x11008xf16>) -> tensor<16x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<16x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<16x11008xf16>) -> tensor<16x11008xf16>
  return %mm : tensor<16x11008xf16>
}

// -----

// One scale per row k (scales (K,)) instead of per group.

// CHECK-LABEL: func.func @gptq_scale_per_row(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @gptq_scale_per_row(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<1024xf16>) -> tensor<4x256xf16> {
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
    %sc = tensor.extract %scales[%k] : tensor<1024xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

// One scale per column n (scales (N,), per-channel quantisation).

// CHECK-LABEL: func.func @gptq_scale_per_column(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @gptq_scale_per_column(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<256xf16>) -> tensor<4x256xf16> {
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
    %sc = tensor.extract %scales[%n] : tensor<256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

// code * s - 8 instead of (code - 8) * s.

// CHECK-LABEL: func.func @gptq_mul_then_sub(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @gptq_mul_then_sub(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf16> {
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
    %cm = arith.mulf %cf, %sc : f16
    %w = arith.subf %cm, %zp : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

// Nibbles taken most-significant first: shift (7 - k mod 8) * 4.

// CHECK-LABEL: func.func @gptq_msb_first(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @gptq_msb_first(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf16> {
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
    %rlane = arith.subi %c7_i32, %lane_i32 : i32
    %sh = arith.muli %rlane, %c4_i32 : i32
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
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

// 3-bit codes: mask 7 instead of 15.

// CHECK-LABEL: func.func @gptq_mask_7(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @gptq_mask_7(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 7 : i32
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
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

// K = 200 is not a multiple of 128 (25 packed rows, 2 scale groups, the last one partial).

// CHECK-LABEL: func.func @gptq_k_200(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @gptq_k_200(%x: tensor<4x200xf16>, %qweight: tensor<25x64xi32>, %scales: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<200x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<200x64xf16>) {
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
    %word = tensor.extract %qweight[%kw, %n] : tensor<25x64xi32>
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
  } -> tensor<200x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x200xf16>, tensor<200x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %mm : tensor<4x64xf16>
}

// -----

// K = 320 (a multiple of 64, not of 128) with group 128 indexing: 3 scale groups.

// CHECK-LABEL: func.func @gptq_k_320(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @gptq_k_320(%x: tensor<2x320xf16>, %qweight: tensor<40x64xi32>, %scales: tensor<3x64xf16>) -> tensor<2x64xf16> {
  %de = tensor.empty() : tensor<320x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<320x64xf16>) {
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
    %word = tensor.extract %qweight[%kw, %n] : tensor<40x64xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<3x64xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<320x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<2x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<2x64xf16>) -> tensor<2x64xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<2x320xf16>, tensor<320x64xf16>) outs(%acc : tensor<2x64xf16>) -> tensor<2x64xf16>
  return %mm : tensor<2x64xf16>
}

// -----

// One scale per row k: scales [K/128, 128] read with (d0, d1), not broadcast over the group.

// CHECK-LABEL: func.func @iree_scale_per_row(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @iree_scale_per_row(%x: tensor<?x4096xf16>, %w: tensor<32x128x11008xi4>, %s: tensor<32x128xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de = tensor.empty() : tensor<32x128x11008xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x11008xi4>, tensor<32x128xf16>) outs(%de : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %0 = arith.extui %in : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %zp : f16
    %3 = arith.mulf %2, %in_0 : f16
    linalg.yield %3 : f16
  } -> tensor<32x128x11008xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}

// -----

// One scale per column n: scales [N] read with (d2).

// CHECK-LABEL: func.func @iree_scale_per_column(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @iree_scale_per_column(%x: tensor<?x4096xf16>, %w: tensor<32x128x11008xi4>, %s: tensor<11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de = tensor.empty() : tensor<32x128x11008xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x11008xi4>, tensor<11008xf16>) outs(%de : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %0 = arith.extui %in : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %zp : f16
    %3 = arith.mulf %2, %in_0 : f16
    linalg.yield %3 : f16
  } -> tensor<32x128x11008xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}

// -----

// Sign-extended codes minus 8 (two's complement read, then the unsigned offset): wrong codes.

// CHECK-LABEL: func.func @iree_extsi_minus_8(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul
func.func @iree_extsi_minus_8(%x: tensor<?x4096xf16>, %w: tensor<32x128x11008xi4>, %s: tensor<32x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de = tensor.empty() : tensor<32x128x11008xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x11008xi4>, tensor<32x11008xf16>) outs(%de : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 8.000000e+00 : f16
    %0 = arith.extsi %in : i4 to i32
    %1 = arith.sitofp %0 : i32 to f16
    %2 = arith.subf %1, %zp : f16
    %3 = arith.mulf %2, %in_0 : f16
    linalg.yield %3 : f16
  } -> tensor<32x128x11008xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}
