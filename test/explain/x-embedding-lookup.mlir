// --w4a16-explain: x produced by an embedding lookup (table[ids[m], k], token ids as integers) feeding a
// dequantised matmul. The x side reads integer data too, so x is not a 16-bit tensor read through reshapes
// and casts: unfused, and the remark says so (issue #18: it used to be a silent candidate).
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @f(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @f(%ids: tensor<4xi64>, %table: tensor<1000x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<4x64xf16> {
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
  %xe = tensor.empty() : tensor<4x256xf16>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%xe : tensor<4x256xf16>) {
  ^bb0(%out: f16):
    %m = linalg.index 0 : index
    %kk = linalg.index 1 : index
    %id = tensor.extract %ids[%m] : tensor<4xi64>
    %row = arith.index_cast %id : i64 to index
    %e = tensor.extract %table[%row, %kk] : tensor<1000x256xf16>
    linalg.yield %e : f16
  } -> tensor<4x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<4x64xf16>) -> tensor<4x64xf16>
  // CHECK: {{.*}}x-embedding-lookup.mlir:[[@LINE+1]]:9: remark: w4a16: not fused: both operands are computed from integer tensors
  %mm = linalg.matmul ins(%x, %deq : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %mm : tensor<4x64xf16>
}
// CHECK-NOT: remark:
