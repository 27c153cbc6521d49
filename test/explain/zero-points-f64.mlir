// --w4a16-explain: an HQQ-style chain (examples/hqq_group64.mlir) whose float zero points are f64. The
// arithmetic is the formula, but the runtime reads zero points only as i4, i8, i32, f16, bf16 or f32, so
// the chain stays unfused with a remark at the matmul naming the type (the verifier rejects such an op:
// test/fuse/invalid-fused-op.mlir).
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @hqq_f64_zeros(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @hqq_f64_zeros(%x: tensor<4x256xf16>, %weight: tensor<64x256xi8>, %scales: tensor<64x4xf16>,
                         %zeros: tensor<64x4xf64>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<64x256xf16>) {
  ^bb0(%out: f16):
    %c64 = arith.constant 64 : index
    %n = linalg.index 0 : index
    %k = linalg.index 1 : index
    %q = tensor.extract %weight[%n, %k] : tensor<64x256xi8>
    %nibble = arith.constant 15 : i8
    %q4 = arith.andi %q, %nibble : i8
    %qf = arith.uitofp %q4 : i8 to f64
    %g = arith.divui %k, %c64 : index
    %s = tensor.extract %scales[%n, %g] : tensor<64x4xf16>
    %z = tensor.extract %zeros[%n, %g] : tensor<64x4xf64>
    %s64 = arith.extf %s : f16 to f64
    %c = arith.subf %qf, %z : f64
    %wv = arith.mulf %c, %s64 : f64
    %wh = arith.truncf %wv : f64 to f16
    linalg.yield %wh : f16
  } -> tensor<64x256xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  // CHECK: {{.*}}zero-points-f64.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: zero points are f64, expected i4, i8, i32, f16, bf16 or f32 (what the runtime reads)
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
                                      affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %w : tensor<4x256xf16>, tensor<64x256xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
// CHECK-NOT: remark:
