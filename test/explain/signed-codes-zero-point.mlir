// --w4a16-explain: two's-complement i4 codes minus two's-complement i4 zero points, the weight of IREE's
// GPU tensor-alloc test (iree-org/iree, compiler/src/iree/compiler/Codegen/Common/GPU/test/gpu_tensor_alloc.mlir,
// @weight_dequant_matmul; f16 here where the test is f32, smaller shapes, the hal bindings replaced by
// arguments). Signed codes take no zero point (docs/contract.md, "Must not fuse"); the remark names that rule
// (it used to say "zero points ... follow no known packing").
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @weight_dequant_matmul(
// IR-NOT:     w4a16.fused_matmul
func.func @weight_dequant_matmul(%x: tensor<16x2x128xf16>, %q: tensor<2x128x64xi4>, %s: tensor<2x64xf16>,
                                 %z: tensor<2x64xi4>) -> tensor<16x64xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<2x128x64xf16>
  %w = linalg.generic {
      indexing_maps = [affine_map<(g, i, n) -> (g, i, n)>, affine_map<(g, i, n) -> (g, n)>,
                       affine_map<(g, i, n) -> (g, n)>, affine_map<(g, i, n) -> (g, i, n)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %s, %z : tensor<2x128x64xi4>, tensor<2x64xf16>, tensor<2x64xi4>) outs(%e : tensor<2x128x64xf16>) {
  ^bb0(%code: i4, %scale: f16, %zero: i4, %out: f16):
    %c = arith.extsi %code : i4 to i32
    %zz = arith.extsi %zero : i4 to i32
    %d = arith.subi %c, %zz : i32
    %df = arith.sitofp %d : i32 to f16
    %r = arith.mulf %df, %scale : f16
    linalg.yield %r : f16
  } -> tensor<2x128x64xf16>
  %init = tensor.empty() : tensor<16x64xf16>
  %fill = linalg.fill ins(%cst : f16) outs(%init : tensor<16x64xf16>) -> tensor<16x64xf16>
  // CHECK: {{.*}}signed-codes-zero-point.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: signed (two's-complement) codes with a zero point subtracted
  %y = linalg.generic {
      indexing_maps = [affine_map<(m, n, g, i) -> (m, g, i)>, affine_map<(m, n, g, i) -> (g, i, n)>,
                       affine_map<(m, n, g, i) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<16x2x128xf16>, tensor<2x128x64xf16>) outs(%fill : tensor<16x64xf16>) {
  ^bb0(%xe: f16, %we: f16, %o: f16):
    %p = arith.mulf %xe, %we : f16
    %a = arith.addf %o, %p : f16
    linalg.yield %a : f16
  } -> tensor<16x64xf16>
  return %y : tensor<16x64xf16>
}
// CHECK-NOT: remark:
