// --w4a16-explain: one scale for the whole weight (per-tensor quantisation, brevitas' default for weights: a (1, 1)
// scale tensor read at [0, 0], and a scalar scale read from a 0-d tensor inside the body). Out of scope (no K
// groups); the remark names it as such instead of "scale per column", which it said until session 32.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @tensor_1x1(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @tensor_1x1(%x: tensor<2x4096xf16>, %w: tensor<4096x4096xi4>, %s: tensor<1x1xf16>) -> tensor<2x4096xf16> {
  %e0 = tensor.empty() : tensor<4096x4096xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (0, 0)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<4096x4096xi4>, tensor<1x1xf16>) outs(%e0 : tensor<4096x4096xf16>) {
  ^bb0(%q: i4, %sc: f16, %out: f16):
    %f = arith.uitofp %q : i4 to f16
    %c8 = arith.constant 8.0 : f16
    %m = arith.subf %f, %c8 : f16
    %r = arith.mulf %m, %sc : f16
    linalg.yield %r : f16
  } -> tensor<4096x4096xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<2x4096xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e3 : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  // CHECK: {{.*}}scale-per-tensor.mlir:[[@LINE+1]]:9: remark: w4a16: not fused: one scale for the whole weight (per-tensor quantisation, no K groups)
  %mm = linalg.matmul ins(%x, %wd : tensor<2x4096xf16>, tensor<4096x4096xf16>) outs(%z : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  return %mm : tensor<2x4096xf16>
}

// -----

// IR-LABEL: func.func @scalar(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @scalar(%x: tensor<2x4096xf16>, %w: tensor<4096x4096xi4>, %s: tensor<f16>) -> tensor<2x4096xf16> {
  %e0 = tensor.empty() : tensor<4096x4096xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<4096x4096xi4>) outs(%e0 : tensor<4096x4096xf16>) {
  ^bb0(%q: i4, %out: f16):
    %sc = tensor.extract %s[] : tensor<f16>
    %f = arith.uitofp %q : i4 to f16
    %c8 = arith.constant 8.0 : f16
    %m = arith.subf %f, %c8 : f16
    %r = arith.mulf %m, %sc : f16
    linalg.yield %r : f16
  } -> tensor<4096x4096xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<2x4096xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e3 : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  // CHECK: {{.*}}scale-per-tensor.mlir:[[@LINE+1]]:9: remark: w4a16: not fused: one scale for the whole weight (per-tensor quantisation, no K groups)
  %mm = linalg.matmul ins(%x, %wd : tensor<2x4096xf16>, tensor<4096x4096xf16>) outs(%z : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  return %mm : tensor<2x4096xf16>
}
