// LLaMA's RMSNorm squares with math.fpowi (torch's pow(x, 2)), which has no LLVM lowering: the pipeline
// turns it into a generated function (upstream convert-math-to-funcs) instead of failing to legalize it
// (issue #18 item 0). The rest of the norm lowers as before, except math.rsqrt, which is expanded to
// 1 / sqrt: convert-math-to-libm would make it a call of rsqrtf, which libm does not have (the compiled
// library then fails to load: e2e-llama_rmsnorm_proj).
//
// RUN: w4a16-opt --w4a16-pipeline %s | FileCheck %s

// CHECK-NOT:   math.fpowi
// CHECK-NOT:   rsqrtf
// CHECK:       llvm.func @rmsnorm(
// CHECK:       llvm.call @__mlir_math_fpowi_f32_i64(
// CHECK:       llvm.func {{.*}}@__mlir_math_fpowi_f32_i64(
// CHECK-NOT:   math.fpowi
// CHECK-NOT:   rsqrtf
func.func @rmsnorm(%x: tensor<4x64xf16>, %w: tensor<64xf16>) -> tensor<4x64xf16> {
  %e = tensor.empty() : tensor<4x64xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf16>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f16, %out: f32):
    %c2 = arith.constant 2 : i64
    %f = arith.extf %in : f16 to f32
    %p = math.fpowi %f, %c2 : f32, i64
    linalg.yield %p : f32
  } -> tensor<4x64xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x64xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4x64xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %w : tensor<4x64xf16>, tensor<4xf32>, tensor<64xf16>) outs(%e3 : tensor<4x64xf16>) {
  ^bb0(%in: f16, %s: f32, %g: f16, %out: f16):
    %n = arith.constant 64.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %m = arith.divf %s, %n : f32
    %v = arith.addf %m, %eps : f32
    %rs = math.rsqrt %v : f32
    %xf = arith.extf %in : f16 to f32
    %y = arith.mulf %xf, %rs : f32
    %yt = arith.truncf %y : f32 to f16
    %o = arith.mulf %yt, %g : f16
    linalg.yield %o : f16
  } -> tensor<4x64xf16>
  return %r : tensor<4x64xf16>
}
