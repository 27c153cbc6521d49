// -o writes the result to a file (stdout stays empty); -o=<file> works too. When processing fails, the
// output file is not written.
//
// RUN: rm -f %t.out %t.out2 %t.bad
// RUN: w4a16-opt %s -o %t.out > %t.stdout
// RUN: count 0 < %t.stdout
// RUN: FileCheck %s < %t.out
// RUN: w4a16-opt -o=%t.out2 %s
// RUN: diff %t.out %t.out2
// RUN: echo 'func.func @broken(' | not w4a16-opt -o %t.bad
// RUN: not test -e %t.bad

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:.+]]: i32
// CHECK:         return %[[A]] : i32
func.func @f(%a: i32) -> i32 {
  return %a : i32
}
