// Input of verify-diagnostics.mlir: --no-implicit-module, where the tool holds the parser's diagnostics back
// to re-locate "single top-level operation" at the start of the chunk (as mlir-opt does).
func.func @alone() {
  return
}
// -----
// expected-error @-1 {{source must contain a single top-level operation, found: 2}}
func.func @one() {
  return
}
func.func @two() {
  return
}
// -----
func.func @bad(%a: i32) -> i32 {
  // expected-error @+1 {{use of undeclared SSA value name}}
  return %b : i32
}
