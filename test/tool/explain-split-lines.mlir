// --w4a16-explain reports at the matmul, and with --split-input-file the reported lines are those of the whole
// file (each chunk is parsed with its original line numbers). --w4a16-explain fuses like --w4a16-fuse.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s 2> %t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s < %t.err
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s 2> %t.fuse.err > %t.fuse
// RUN: count 0 < %t.fuse.err
// RUN: w4a16-opt --w4a16-explain --split-input-file %s 2>/dev/null | diff - %t.fuse

// OUT-LABEL: func.func @fused(
// OUT:         "w4a16.fused_matmul"
// OUT-NOT:     linalg.matmul
// OUT-LABEL: func.func @zero_point_7(
// OUT:         linalg.matmul
// OUT-NOT:     w4a16.fused_matmul

func.func @fused(%x: tensor<16x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<16x64xf16> {
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %zp = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<256x64xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kr_i32 = arith.index_cast %kr : index to i32
    %shift = arith.muli %kr_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %2 = tensor.empty() : tensor<16x64xf16>
  %3 = linalg.fill ins(%zero : f16) outs(%2 : tensor<16x64xf16>) -> tensor<16x64xf16>
  // CHECK: explain-split-lines.mlir:[[@LINE+1]]:8: remark: {{.*}}fused as
  %4 = linalg.matmul ins(%x, %1 : tensor<16x256xf16>, tensor<256x64xf16>) outs(%3 : tensor<16x64xf16>) -> tensor<16x64xf16>
  return %4 : tensor<16x64xf16>
}

// -----

func.func @zero_point_7(%x: tensor<16x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<16x64xf16> {
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %zp = arith.constant 7.300780e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<256x64xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kr_i32 = arith.index_cast %kr : index to i32
    %shift = arith.muli %kr_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %2 = tensor.empty() : tensor<16x64xf16>
  %3 = linalg.fill ins(%zero : f16) outs(%2 : tensor<16x64xf16>) -> tensor<16x64xf16>
  // CHECK: explain-split-lines.mlir:[[@LINE+1]]:8: remark: {{.*}}not fused: zero point 7.30078: a constant zero point must be a multiple of 1/8
  %4 = linalg.matmul ins(%x, %1 : tensor<16x256xf16>, tensor<256x64xf16>) outs(%3 : tensor<16x64xf16>) -> tensor<16x64xf16>
  return %4 : tensor<16x64xf16>
}
// CHECK-NOT: remark
