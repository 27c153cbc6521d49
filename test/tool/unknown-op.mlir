// Operations the tool does not know are located errors (non-zero exit), as in mlir-opt:
// an unregistered dialect, an unknown op of a registered dialect (custom and generic form) and an unknown
// w4a16 op. --allow-unregistered-dialect accepts ops of unregistered dialects, like mlir-opt, but unknown ops
// of registered dialects (arith, w4a16) stay errors.
//
// RUN: not w4a16-opt --split-input-file %s 2>&1 >/dev/null | FileCheck %s
// RUN: not w4a16-opt --allow-unregistered-dialect %s --split-input-file > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=ALLOW-OUT < %t.out
// RUN: FileCheck %s --check-prefix=ALLOW-ERR < %t.err

// CHECK: unknown-op.mlir:[[@LINE+5]]:17: error: operation being parsed with an unregistered dialect
// ALLOW-OUT-LABEL: func.func @unregistered_dialect
// ALLOW-OUT: "foo.bar"(%{{.*}}) : (i32) -> i32
// ALLOW-OUT-NEXT: return
func.func @unregistered_dialect(%a: i32) -> i32 {
  %0 = "foo.bar"(%a) : (i32) -> i32
  return %0 : i32
}

// -----

// CHECK: unknown-op.mlir:[[@LINE+4]]:3: error: custom op 'arith.frobnicate' is unknown
// ALLOW-ERR-NOT: error: operation being parsed with an unregistered dialect
// ALLOW-ERR: unknown-op.mlir:[[@LINE+2]]:3: error: custom op 'arith.frobnicate' is unknown
func.func @unknown_custom_op(%a: i32) {
  arith.frobnicate %a : i32
  return
}

// -----

// CHECK: unknown-op.mlir:[[@LINE+3]]:3: error: unregistered operation 'arith.frobnicate' found in dialect ('arith') that does not allow unknown operations
// ALLOW-ERR: unknown-op.mlir:[[@LINE+2]]:3: error: unregistered operation 'arith.frobnicate'
func.func @unknown_generic_op(%a: i32) {
  "arith.frobnicate"(%a) : (i32) -> ()
  return
}

// -----

// CHECK: unknown-op.mlir:[[@LINE+3]]:8: error: unregistered operation 'w4a16.fused_matmul_v2' found in dialect ('w4a16') that does not allow unknown operations
// ALLOW-ERR: unknown-op.mlir:[[@LINE+2]]:8: error: unregistered operation 'w4a16.fused_matmul_v2'
func.func @unknown_w4a16_op(%x: tensor<4x128xf16>) -> tensor<4x128xf16> {
  %0 = "w4a16.fused_matmul_v2"(%x) : (tensor<4x128xf16>) -> tensor<4x128xf16>
  return %0 : tensor<4x128xf16>
}
// ALLOW-OUT-NOT: frobnicate
// ALLOW-OUT-NOT: fused_matmul_v2
