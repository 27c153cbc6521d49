// --w4a16-explain reports only matmuls fed by a dequantised weight: a plain f16 matmul (with an epilogue) and a
// dequant that feeds no matmul produce no remark at all, and the IR is unchanged.
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s --allow-empty
// RUN: w4a16-opt %s -o %t.plain
// RUN: diff %t %t.plain

// CHECK-NOT: remark

func.func @plain(%x: tensor<?x4096xf16>, %w: tensor<4096x4096xf16>, %bias: tensor<4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<?x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %be = tensor.empty(%m) : tensor<?x4096xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x4096xf16>, tensor<4096xf16>) outs(%be : tensor<?x4096xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<?x4096xf16>
  return %yb : tensor<?x4096xf16>
}

func.func @dequant_only(%qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<256x64xf16> {
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
  return %deq : tensor<256x64xf16>
}
