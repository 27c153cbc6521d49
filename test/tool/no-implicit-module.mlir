// --no-implicit-module: the single top-level op is taken as is (no builtin.module around it), passes run on it,
// and several top-level ops are an error at the start of the chunk - as in mlir-opt.
//
// RUN: w4a16-opt --no-implicit-module --split-input-file %s > %t.a 2> %t.a.err; test $? -eq 1
// RUN: not mlir-opt --no-implicit-module --split-input-file %s > %t.b 2> %t.b.err
// RUN: diff %t.a %t.b
// RUN: diff %t.a.err %t.b.err
// RUN: FileCheck %s < %t.a
// RUN: FileCheck %s --check-prefix=ERR < %t.a.err
// RUN: not w4a16-opt --no-implicit-module --w4a16-fuse --pass-pipeline=canonicalize --split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=PASS

// CHECK-NOT:   module
// CHECK-LABEL: func.func @alone(
// PASS-LABEL:  func.func @alone(
// PASS-NEXT:     arith.constant 3 : i32
func.func @alone() -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.addi %c1, %c2 : i32
  return %0 : i32
}

// -----

// CHECK-LABEL: module @named
// CHECK:         func.func @inside
module @named {
  func.func @inside() {
    return
  }
}

// -----

// ERR: no-implicit-module.mlir:[[@LINE-2]]:9: error: source must contain a single top-level operation, found: 2
func.func @one() {
  return
}
func.func @two() {
  return
}
