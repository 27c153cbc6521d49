// Input from stdin, with no file argument or with "-"; diagnostics then name <stdin>.
//
// RUN: w4a16-opt < %s | FileCheck %s
// RUN: cat %s | w4a16-opt - | FileCheck %s
// RUN: echo 'func.func @g() -> i32 { return %%nope : i32 }' | not w4a16-opt 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @from_stdin(
// CHECK-SAME:    %[[A:.+]]: f16
// CHECK:         %[[R:.+]] = arith.addf %[[A]], %[[A]] : f16
// CHECK:         return %[[R]] : f16
func.func @from_stdin(%a: f16) -> f16 {
  %0 = arith.addf %a, %a : f16
  return %0 : f16
}

// ERR: <stdin>:1:32: error: use of undeclared SSA value name
