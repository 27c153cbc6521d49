// Two's-complement signed i4 values s with W = s * scale fuse (issue #17): s is the code XOR 8 minus 8, the
// symmetric form, and the op carries signed_codes (the runtime flips each code once, when it prepares the
// weight). These chunks -- GPTQ nibbles sign-extended by shli + shrsi, IREE's arith.extsi + sitofp, and
// sitofp straight from i4 -- were in negative-quant.mlir (must not fuse) until then.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// Nibbles read as two's complement (shli + shrsi, sitofp) with no -8 offset.

// CHECK-LABEL: func.func @gptq_signed_twos_complement(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      signed_codes
// CHECK-NOT:     linalg.matmul
func.func @gptq_signed_twos_complement(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf16> {
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
    %lsh = arith.subi %c28_i32, %sh : i32
    %up = arith.shli %word, %lsh : i32
    %code = arith.shrsi %up, %c28_i32 : i32
    %cf = arith.sitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %w = arith.mulf %cf, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

// Signed i4: arith.extsi + arith.sitofp, no zero point subtracted.

// CHECK-LABEL: func.func @iree_signed_extsi_no_offset(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      signed_codes
// CHECK-NOT:     linalg.matmul
func.func @iree_signed_extsi_no_offset(%x: tensor<?x4096xf16>, %w: tensor<32x128x11008xi4>, %s: tensor<32x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de = tensor.empty() : tensor<32x128x11008xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x11008xi4>, tensor<32x11008xf16>) outs(%de : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %0 = arith.extsi %in : i4 to i32
    %1 = arith.sitofp %0 : i32 to f16
    %2 = arith.mulf %1, %in_0 : f16
    linalg.yield %2 : f16
  } -> tensor<32x128x11008xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}

// -----

// Signed i4 converted directly with arith.sitofp i4 -> f16, no offset.

// CHECK-LABEL: func.func @iree_signed_sitofp_direct(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      signed_codes
// CHECK-NOT:     linalg.matmul
func.func @iree_signed_sitofp_direct(%x: tensor<?x4096xf16>, %w: tensor<32x128x11008xi4>, %s: tensor<32x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de = tensor.empty() : tensor<32x128x11008xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x11008xi4>, tensor<32x11008xf16>) outs(%de : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %0 = arith.sitofp %in : i4 to f16
    %1 = arith.mulf %0, %in_0 : f16
    linalg.yield %1 : f16
  } -> tensor<32x128x11008xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}
