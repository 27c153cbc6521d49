// --w4a16-explain: a GPTQ dequant subtracting 7 fuses with the constant zero point it found (issue #17;
// until then this test expected "not fused: zero point 7, expected 8"). The remark, located at the matmul,
// names it, and the op carries zero_point = 7.0.
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @f(
// IR:        "w4a16.fused_matmul"
// IR-SAME:     zero_point = 7.000000e+00 : f64
// IR-NOT:    linalg.matmul
func.func @f(%x: tensor<8x4096xf16>, %qweight: tensor<512x4096xi32>, %scales: tensor<32x4096xf16>) -> tensor<8x4096xf16> {
  %de = tensor.empty() : tensor<4096x4096xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x4096xf16>) {
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
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x4096xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<32x4096xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<4096x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<8x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  // CHECK: {{.*}}zero-point-7.mlir:[[@LINE+1]]:9: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero point 7) -> matmul
  %mm = linalg.matmul ins(%x, %deq : tensor<8x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<8x4096xf16>) -> tensor<8x4096xf16>
  return %mm : tensor<8x4096xf16>
}
// CHECK-NOT: remark:
