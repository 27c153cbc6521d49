// --pass-pipeline runs upstream passes: with the builtin.module anchor as in mlir-opt, or as a bare list of
// passes for the top-level module. The result equals mlir-opt's for the same pipeline.
//
// RUN: w4a16-opt --pass-pipeline='builtin.module(canonicalize)' %s | FileCheck %s
// RUN: w4a16-opt --pass-pipeline=canonicalize %s | FileCheck %s
// RUN: w4a16-opt --pass-pipeline 'builtin.module(func.func(canonicalize),cse)' %s | FileCheck %s
// RUN: w4a16-opt --pass-pipeline='builtin.module(func.func(canonicalize),cse)' %s > %t.a
// RUN: mlir-opt --pass-pipeline='builtin.module(func.func(canonicalize),cse)' %s > %t.b
// RUN: diff %t.a %t.b
// Without a pipeline nothing folds.
// RUN: w4a16-opt %s | FileCheck %s --check-prefix=NOPASS

// CHECK-LABEL: func.func @fold(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: i32
// CHECK-NEXT:    %[[C:.+]] = arith.constant 5 : i32
// CHECK-NEXT:    %[[R:.+]] = arith.addi %[[A]], %[[C]] : i32
// CHECK-NEXT:    return %[[R]] : i32
// CHECK-NOT:     arith.constant 2
// NOPASS-LABEL: func.func @fold(
// NOPASS:         arith.constant 2 : i32
// NOPASS:         arith.constant 3 : i32
func.func @fold(%a: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %0 = arith.addi %c2, %c3 : i32
  %1 = arith.addi %a, %0 : i32
  return %1 : i32
}
