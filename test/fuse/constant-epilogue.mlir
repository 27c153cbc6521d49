// Bias and residual as constants: a frontend that folds a bias of one value (zeros for a freshly initialised
// Linear, a placeholder checkpoint) leaves a splat `arith.constant`. The epilogue is first evaluated with constants
// taken by value -- where y + c is then no step of the chain --, and only if that fails again with float tensor
// constants as its sides, so that a tensor of ones inside a sigmoid stays a constant. Until session 32 a splat bias
// ended the chain before the bias ("computes something other than act(y + bias) + residual").
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t

#id2 = affine_map<(a, n) -> (a, n)>
#row = affine_map<(a, n) -> (n)>

// CHECK-LABEL: func.func @splat_bias(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x4096xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<4096x4096xi4>, %[[S:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK:         %[[B:.+]] = arith.constant dense<5.000000e-01> : tensor<4096xf16>
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "silu"
// CHECK-NOT:     linalg.
func.func @splat_bias(%x: tensor<4x4096xf16>, %w: tensor<4096x4096xi4>, %s: tensor<32x4096xf16>) -> tensor<4x4096xf16> {
  %b = arith.constant dense<0.5> : tensor<4096xf16>
  %e0 = tensor.empty() : tensor<4096x4096xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<4096x4096xi4>, tensor<32x4096xf16>) outs(%e0 : tensor<4096x4096xf16>) {
  ^bb0(%q: i4, %sc: f16, %out: f16):
    %f = arith.uitofp %q : i4 to f16
    %c8 = arith.constant 8.0 : f16
    %m = arith.subf %f, %c8 : f16
    %r = arith.mulf %m, %sc : f16
    linalg.yield %r : f16
  } -> tensor<4096x4096xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<4x4096xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e3 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  // REMARK: constant-epilogue.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> bias -> silu
  %y = linalg.matmul ins(%x, %wd : tensor<4x4096xf16>, tensor<4096x4096xf16>) outs(%z : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %e4 = tensor.empty() : tensor<4x4096xf16>
  %o = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%y, %b : tensor<4x4096xf16>, tensor<4096xf16>) outs(%e4 : tensor<4x4096xf16>) {
  ^bb0(%a: f16, %bb: f16, %out: f16):
    %t = arith.addf %a, %bb : f16
    %n = arith.negf %t : f16
    %ex = math.exp %n : f16
    %one = arith.constant 1.0 : f16
    %d = arith.addf %ex, %one : f16
    %r = arith.divf %t, %d : f16
    linalg.yield %r : f16
  } -> tensor<4x4096xf16>
  return %o : tensor<4x4096xf16>
}

// -----

#id2 = affine_map<(a, n) -> (a, n)>

// A splat residual of the result's shape (static M), added after the activation.
// CHECK-LABEL: func.func @splat_residual(
// CHECK:         %[[R:.+]] = arith.constant dense<2.500000e-01> : tensor<4x4096xf16>
// CHECK:         "w4a16.fused_matmul"({{.*}}, %[[R]])
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
func.func @splat_residual(%x: tensor<4x4096xf16>, %w: tensor<4096x4096xi4>, %s: tensor<32x4096xf16>) -> tensor<4x4096xf16> {
  %res = arith.constant dense<0.25> : tensor<4x4096xf16>
  %e0 = tensor.empty() : tensor<4096x4096xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<4096x4096xi4>, tensor<32x4096xf16>) outs(%e0 : tensor<4096x4096xf16>) {
  ^bb0(%q: i4, %sc: f16, %out: f16):
    %f = arith.uitofp %q : i4 to f16
    %c8 = arith.constant 8.0 : f16
    %m = arith.subf %f, %c8 : f16
    %r = arith.mulf %m, %sc : f16
    linalg.yield %r : f16
  } -> tensor<4096x4096xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<4x4096xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e3 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  // REMARK: constant-epilogue.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> gelu_tanh -> residual
  %y = linalg.matmul ins(%x, %wd : tensor<4x4096xf16>, tensor<4096x4096xf16>) outs(%z : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %e4 = tensor.empty() : tensor<4x4096xf16>
  %o = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y, %res : tensor<4x4096xf16>, tensor<4x4096xf16>) outs(%e4 : tensor<4x4096xf16>) {
  ^bb0(%a: f16, %rr: f16, %out: f16):
    %half = arith.constant 0.5 : f16
    %one = arith.constant 1.0 : f16
    %c0 = arith.constant 0.7978845608028654 : f16
    %c1 = arith.constant 0.044715 : f16
    %a3 = arith.mulf %a, %a : f16
    %a3b = arith.mulf %a3, %a : f16
    %u0 = arith.mulf %a3b, %c1 : f16
    %u1 = arith.addf %a, %u0 : f16
    %u = arith.mulf %u1, %c0 : f16
    %th = math.tanh %u : f16
    %p = arith.addf %one, %th : f16
    %h = arith.mulf %a, %half : f16
    %g = arith.mulf %h, %p : f16
    %r = arith.addf %g, %rr : f16
    linalg.yield %r : f16
  } -> tensor<4x4096xf16>
  return %o : tensor<4x4096xf16>
}

// -----

// A tensor of ones in silu's denominator (named linalg.elementwise ops) stays a constant: silu, no residual.
// CHECK-LABEL: func.func @ones_in_silu(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-NOT:     linalg.
func.func @ones_in_silu(%x: tensor<4x4096xf16>, %w: tensor<4096x4096xi4>, %s: tensor<32x4096xf16>) -> tensor<4x4096xf16> {
  %e0 = tensor.empty() : tensor<4096x4096xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<4096x4096xi4>, tensor<32x4096xf16>) outs(%e0 : tensor<4096x4096xf16>) {
  ^bb0(%q: i4, %sc: f16, %out: f16):
    %f = arith.uitofp %q : i4 to f16
    %c8 = arith.constant 8.0 : f16
    %m = arith.subf %f, %c8 : f16
    %r = arith.mulf %m, %sc : f16
    linalg.yield %r : f16
  } -> tensor<4096x4096xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<4x4096xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e3 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  // REMARK: constant-epilogue.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> silu
  %y = linalg.matmul ins(%x, %wd : tensor<4x4096xf16>, tensor<4096x4096xf16>) outs(%z : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %ones = arith.constant dense<1.0> : tensor<4x4096xf16>
  %e6 = tensor.empty() : tensor<4x4096xf16>
  %ny = linalg.elementwise kind=#linalg.elementwise_kind<negf> ins(%y : tensor<4x4096xf16>) outs(%e6 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %ex = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%ny : tensor<4x4096xf16>) outs(%e6 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %den = linalg.elementwise kind=#linalg.elementwise_kind<add> ins(%ex, %ones : tensor<4x4096xf16>, tensor<4x4096xf16>) outs(%e6 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  %sl = linalg.elementwise kind=#linalg.elementwise_kind<div> ins(%y, %den : tensor<4x4096xf16>, tensor<4x4096xf16>) outs(%e6 : tensor<4x4096xf16>) -> tensor<4x4096xf16>
  return %sl : tensor<4x4096xf16>
}
