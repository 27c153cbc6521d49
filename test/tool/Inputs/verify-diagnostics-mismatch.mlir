// Input of verify-diagnostics.mlir: every way a diagnostic and its designators can disagree (upstream IR
// only, so that mlir-opt reports the same).

// The text differs: an unexpected error, and an expectation not met.
// CHECK-DAG: verify-diagnostics-mismatch.mlir:[[@LINE+4]]:3: error: unexpected error: type of return operand 0 ('i32') doesn't match function result type ('i64')
// CHECK-DAG: verify-diagnostics-mismatch.mlir:[[@LINE+1]]:4: error: expected error "not the text" was not produced
// expected-error @+2 {{not the text}}
func.func @f(%a: i32) -> i64 {
  return %a : i32
}
// ONLY: verify-diagnostics-mismatch.mlir:[[@LINE-4]]:4: error: expected error "not the text" was not produced
// ONLY-NOT: unexpected

// -----

// The severity differs.
// CHECK-DAG: verify-diagnostics-mismatch.mlir:[[@LINE+3]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
// CHECK-DAG: verify-diagnostics-mismatch.mlir:[[@LINE+2]]:6: error: expected warning "doesn't match" was not produced
func.func @g(%a: i32) -> i64 {
  // expected-warning @below {{doesn't match}}
  return %a : i32
}

// -----

// A note nobody expected, attached to an expected error.
// CHECK-DAG: verify-diagnostics-mismatch.mlir:[[@LINE+3]]:3: error: unexpected note: previously defined here
// CHECK-DAG: {{^}}          ^~~~~~~~~~~~~{{$}}
func.func @dup() {
  %0 = arith.constant 1 : i32
  // expected-error @+1 {{redefinition of SSA value}}
  %0 = arith.constant 2 : i32
  return
}

// -----

// Expectations without diagnostics; the chunk itself is fine and printed.
// CHECK-DAG: verify-diagnostics-mismatch.mlir:[[@LINE+3]]:6: error: expected note "nothing here" was not produced
// CHECK-DAG: verify-diagnostics-mismatch.mlir:[[@LINE+3]]:22: error: expected remark "nor here" was not produced
func.func @quiet(%a: i32) -> i32 {
  // expected-note {{nothing here}}
  return %a : i32 // expected-remark {{nor here}}
}
