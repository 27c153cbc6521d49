// A syntax error is reported at its file:line:col, with the source line and a caret, and the exit status is
// non-zero; nothing is printed on stdout.
//
// RUN: not w4a16-opt %s > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: count 0 < %t.out
// The same diagnostic text as mlir-opt:
// RUN: not mlir-opt %s 2> %t.mlir-opt.err
// RUN: diff %t.err %t.mlir-opt.err

// CHECK: parse-error.mlir:[[@LINE+5]]:25: error: expected ':'
// CHECK-NEXT: {{^}}  %0 = arith.addi %a, %a i32{{$}}
// CHECK-NEXT: {{^}}                        ^{{$}}
// CHECK-NOT: error
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a i32
  return %0 : i32
}
