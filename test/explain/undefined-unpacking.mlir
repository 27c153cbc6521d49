// --w4a16-explain on unpacking that is undefined or reads one nibble position wrongly: each stays unfused, with
// a remark at the matmul, and the compiler never traps. Found by the differential fuzzer (session 38): a
// compressed-tensors unpack whose nibble-4 shift was mutated (16 -> -1, then 16 -> 20) fused as the plain unpack
// and ran with 96 % of the outputs wrong, because the matcher sampled nibble positions 3..6 of a word only by
// chance; and an i64 `arith.divsi` of the minimum by -1 in the body trapped the evaluator (SIGFPE).
// GPTQ-style words along K (TorchQuantLinear's `(qweight[k / 8, n] >> 4 (k % 8)) & 15`), zero point 8.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// The control: the same unpack, shifts 0, 4, .., 28: fuses.
// CHECK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul
// IR-LABEL: func.func @plain_unpack(
// IR:        w4a16.fused_matmul
// IR-NOT:    linalg.matmul
func.func @plain_unpack(%x: tensor<8x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<8x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c0_i32 = arith.constant 0 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh0 = arith.muli %lane_i32, %c4_i32 : i32
    %sh = arith.addi %sh0, %c0_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x256xf16>) -> tensor<8x256xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<8x256xf16>) -> tensor<8x256xf16>
  return %y : tensor<8x256xf16>
}

// -----

// Shifts by 32 + 4 (k % 8): poison in arith (x86 happens to compute the plain unpack, other targets need not).
// CHECK: remark: w4a16: not fused: dequantisation: a shift by at least the bit width (poison in arith)
// IR-LABEL: func.func @shift_past_width(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @shift_past_width(%x: tensor<8x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<8x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh0 = arith.muli %lane_i32, %c4_i32 : i32
    %c32_i32 = arith.constant 32 : i32
    %sh = arith.addi %sh0, %c32_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code0 = arith.andi %v, %mask : i32
    %code = arith.ori %code0, %code0 : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x256xf16>) -> tensor<8x256xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<8x256xf16>) -> tensor<8x256xf16>
  return %y : tensor<8x256xf16>
}

// -----

// Row 4 of every word reads nibble 5: a constant shift table (torch-mlir materialises GPTQ's `wf` so) with 20
// where 16 is due. No layout stores codes that way; a matcher that samples nibble positions only at word edges
// fuses it as the plain unpack.
// CHECK: remark: w4a16: not fused: dequantisation computes something other than (code - 8) * scale
// IR-LABEL: func.func @nibble_four_reads_five(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @nibble_four_reads_five(%x: tensor<8x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<8x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh0 = arith.muli %lane_i32, %c4_i32 : i32
    %wf = arith.constant dense<[0, 4, 8, 12, 20, 20, 24, 28]> : tensor<8xi32>
    %sh = tensor.extract %wf[%lane] : tensor<8xi32>
    %v = arith.shrui %word, %sh : i32
    %code0 = arith.andi %v, %mask : i32
    %code = arith.ori %code0, %code0 : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x256xf16>) -> tensor<8x256xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<8x256xf16>) -> tensor<8x256xf16>
  return %y : tensor<8x256xf16>
}

// -----

// An i64 division of the minimum by -1 (undefined in arith) on the way to the code.
// CHECK: remark: w4a16: not fused: dequantisation: a signed division of the minimum by -1 (overflow, undefined in arith)
// IR-LABEL: func.func @signed_division_overflow(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @signed_division_overflow(%x: tensor<8x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<8x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh0 = arith.muli %lane_i32, %c4_i32 : i32
    %sh = arith.ori %sh0, %sh0 : i32
    %v = arith.shrui %word, %sh : i32
    %code0 = arith.andi %v, %mask : i32
    %imin = arith.constant -9223372036854775808 : i64
    %m1 = arith.constant -1 : i64
    %c64 = arith.extui %code0 : i32 to i64
    %z64 = arith.subi %c64, %c64 : i64
    %hq = arith.ori %z64, %imin : i64
    %dq = arith.divsi %hq, %m1 : i64
    %dd = arith.subi %dq, %dq : i64
    %d32 = arith.trunci %dd : i64 to i32
    %code = arith.addi %code0, %d32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x256xf16>) -> tensor<8x256xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<8x256xf16>) -> tensor<8x256xf16>
  return %y : tensor<8x256xf16>
}
