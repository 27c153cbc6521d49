// A pass that fails makes the tool exit 1 with the pass's located error and print nothing for that input,
// as mlir-opt does.
//
// RUN: not w4a16-opt --allow-unregistered-dialect --pass-pipeline='builtin.module(one-shot-bufferize)' %s > %t.out 2> %t.err
// RUN: count 0 < %t.out
// RUN: FileCheck %s < %t.err
// RUN: not mlir-opt --allow-unregistered-dialect --pass-pipeline='builtin.module(one-shot-bufferize)' %s 2> %t.mlir-opt.err
// RUN: diff %t.err %t.mlir-opt.err

// CHECK: failed-pass.mlir:[[@LINE+2]]:8: error: op was not bufferized
func.func @f() -> tensor<4xf32> {
  %0 = "unknown.producer"() : () -> tensor<4xf32>
  %1 = tensor.empty() : tensor<4xf32>
  %2 = linalg.copy ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
