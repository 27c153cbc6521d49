// MLIR bytecode input is accepted (and never split).
//
// RUN: mlir-opt --emit-bytecode %s -o %t.mlirbc
// RUN: w4a16-opt %t.mlirbc | FileCheck %s
// RUN: w4a16-opt --split-input-file %t.mlirbc | FileCheck %s
// RUN: w4a16-opt %s > %t.text
// RUN: w4a16-opt %t.mlirbc > %t.from-bc
// RUN: diff %t.text %t.from-bc

// CHECK-LABEL: func.func @from_bytecode(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4xf16>
// CHECK:         %[[R:.+]] = math.tanh %[[A]] : tensor<4xf16>
// CHECK:         return %[[R]]
func.func @from_bytecode(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = math.tanh %a : tensor<4xf16>
  return %0 : tensor<4xf16>
}
