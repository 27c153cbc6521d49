// Input of verify-diagnostics.mlir: an @unknown expectation not met is reported without a location (as
// mlir-opt does), a malformed regex at its designator.
// CHECK-DAG: verify-diagnostics-unknown.mlir:[[@LINE+3]]:4: error: found start of regex with no end '}}'
// CHECK-DAG: <unknown>:0: error: expected remark "from nowhere" was not produced
// expected-remark @unknown {{from nowhere}}
// expected-error-re {{a {{[0-9]+ b}}
func.func @f() {
  return
}
