// A dequantisation in a function of its own, called by the function with the matmul (exporters that emit one
// function per quantised Linear; hand-written libraries). The pipeline inlines calls before it fuses
// (w4a16AddPreFusionPasses), so the chain fuses; before session 56 the matcher saw only the call's result, gave no
// remark, and the later inlining lowered the dequantised matmul unfused. w4a16-compile's count runs the same
// passes, so its remark and count agree with what the pipeline fuses.
//
// RUN: w4a16-compile %s --explain -o %t.so 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: w4a16-compile %s --emit-mlir -q | FileCheck %s --check-prefix=IR

// LOG: compile-calls.mlir:[[@LINE+23]]:{{[0-9]+}}: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
// LOG: fused 1 chain into w4a16.fused_matmul; 0 candidate matmuls left unfused
// IR-LABEL: llvm.func @outlined(
// IR: llvm.call @w4a16_rt_matmul_i4(
func.func private @dequant(%q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<256x64xf16> {
  %c8 = arith.constant 8.0 : f16
  %e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>,
                                        affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<256x64xi4>, tensor<2x64xf16>) outs(%e : tensor<256x64xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  return %w : tensor<256x64xf16>
}
func.func @outlined(%x: tensor<4x256xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %zero = arith.constant 0.0 : f16
  %w = func.call @dequant(%q, %s) : (tensor<256x64xi4>, tensor<2x64xf16>) -> tensor<256x64xf16>
  %ey = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
