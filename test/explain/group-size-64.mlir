// --w4a16-explain: group size 64 (scales (K/64, N), group index k / 64), as many GPTQ checkpoints use. It
// fuses with group_size = 64 and the remark names the group size (until issue #17 this test expected "not
// fused: group size 64, expected 128").
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @f(
// IR:        "w4a16.fused_matmul"
// IR-SAME:     group_size = 64 : i64
// IR-NOT:    linalg.matmul
func.func @f(%x: tensor<16x4096xf16>, %qweight: tensor<512x11008xi32>, %scales: tensor<64x11008xf16>) -> tensor<16x11008xf16> {
  %de = tensor.empty() : tensor<4096x11008xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x11008xf16>) {
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
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x11008xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<64x11008xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<16x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<16x11008xf16>) -> tensor<16x11008xf16>
  // CHECK: {{.*}}group-size-64.mlir:[[@LINE+1]]:9: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, group 64) -> matmul
  %mm = linalg.matmul ins(%x, %deq : tensor<16x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<16x11008xf16>) -> tensor<16x11008xf16>
  return %mm : tensor<16x11008xf16>
}
// CHECK-NOT: remark:
