// --w4a16-explain with --split-input-file: remarks carry the line numbers of the ORIGINAL file (as mlir-opt
// reports them), one per chunk, and a chunk that fuses says so.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s

func.func @zp7(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 7.000000e+00 : f16
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
  // CHECK: {{.*}}split-input-file.mlir:[[@LINE+1]]:9: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero point 7) -> matmul
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

func.func @ok(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %c128_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c15_i32 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %c128_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  // CHECK: {{.*}}split-input-file.mlir:[[@LINE+1]]:9: remark: w4a16: fused as{{ }}
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}

// -----

func.func @group64(%x: tensor<4x1024xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<16x256xf16>) -> tensor<4x256xf16> {
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 64 : index
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
    %sc = tensor.extract %scales[%g, %n] : tensor<16x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x256xf16>) -> tensor<4x256xf16>
  // CHECK: {{.*}}split-input-file.mlir:[[@LINE+1]]:9: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, group 64) -> matmul
  %mm = linalg.matmul ins(%x, %deq : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%acc : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %mm : tensor<4x256xf16>
}
// CHECK-NOT: remark:
