// Operations the tool does not know are located errors (non-zero exit), as in mlir-opt:
// an unregistered dialect, an unknown op of a registered dialect (custom and generic form) and an unknown
// w4a16 op (--verify-diagnostics checks each error's line and text). --allow-unregistered-dialect accepts
// ops of unregistered dialects, like mlir-opt, but unknown ops of registered dialects (arith, w4a16) stay
// errors.
//
// RUN: w4a16-opt --verify-diagnostics --split-input-file %s > /dev/null
// RUN: not w4a16-opt --split-input-file %s > /dev/null 2>&1
// RUN: not w4a16-opt --allow-unregistered-dialect %s --split-input-file > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=ALLOW-OUT < %t.out
// RUN: FileCheck %s --check-prefix=ALLOW-ERR < %t.err

// ALLOW-OUT-LABEL: func.func @unregistered_dialect
// ALLOW-OUT: "foo.bar"(%{{.*}}) : (i32) -> i32
// ALLOW-OUT-NEXT: return
func.func @unregistered_dialect(%a: i32) -> i32 {
  // expected-error @+1 {{operation being parsed with an unregistered dialect}}
  %0 = "foo.bar"(%a) : (i32) -> i32
  return %0 : i32
}

// -----

// ALLOW-ERR-NOT: error: operation being parsed with an unregistered dialect
// ALLOW-ERR: unknown-op.mlir:[[@LINE+3]]:3: error: custom op 'arith.frobnicate' is unknown
func.func @unknown_custom_op(%a: i32) {
  // expected-error @+1 {{custom op 'arith.frobnicate' is unknown}}
  arith.frobnicate %a : i32
  return
}

// -----

// ALLOW-ERR: unknown-op.mlir:[[@LINE+3]]:3: error: unregistered operation 'arith.frobnicate'
func.func @unknown_generic_op(%a: i32) {
  // expected-error @+1 {{unregistered operation 'arith.frobnicate' found in dialect ('arith') that does not allow unknown operations}}
  "arith.frobnicate"(%a) : (i32) -> ()
  return
}

// -----

// ALLOW-ERR: unknown-op.mlir:[[@LINE+3]]:8: error: unregistered operation 'w4a16.fused_matmul_v2'
func.func @unknown_w4a16_op(%x: tensor<4x128xf16>) -> tensor<4x128xf16> {
  // expected-error @+1 {{unregistered operation 'w4a16.fused_matmul_v2' found in dialect ('w4a16') that does not allow unknown operations}}
  %0 = "w4a16.fused_matmul_v2"(%x) : (tensor<4x128xf16>) -> tensor<4x128xf16>
  return %0 : tensor<4x128xf16>
}
// ALLOW-OUT-NOT: frobnicate
// ALLOW-OUT-NOT: fused_matmul_v2
