// --verify-diagnostics, as in mlir-opt: every diagnostic must match an expected-{error,warning,remark,note}
// designator of the input by line, severity and text, and every designator must be matched. Matched
// diagnostics are not printed; the exit status is the verifier's, and chunks that succeed are printed.
// Here: the w4a16 verifier, the parser, a failing pass and notes, with every form of designator.
//
// RUN: w4a16-opt --verify-diagnostics --split-input-file %s 2> %t.err | FileCheck %s
// RUN: count 0 < %t.err
// RUN: w4a16-opt --verify-diagnostics --split-input-file --w4a16-fuse --w4a16-verify %s 2>&1 >/dev/null | count 0
// A failing pass (one-shot-bufferize on an op it cannot bufferize) is verified the same way.
// RUN: w4a16-opt --verify-diagnostics --allow-unregistered-dialect --pass-pipeline='builtin.module(one-shot-bufferize)' %S/Inputs/verify-diagnostics-pass.mlir
//
// Mismatches are errors worded and placed as mlir-opt does (the same stderr, byte for byte, and exit 1):
// unexpected diagnostics, a severity that differs, expectations not met; notes are verified on their own.
// RUN: not w4a16-opt --verify-diagnostics --split-input-file %S/Inputs/verify-diagnostics-mismatch.mlir > %t.m.out 2> %t.m.err
// RUN: not mlir-opt --verify-diagnostics --split-input-file %S/Inputs/verify-diagnostics-mismatch.mlir > %t.m.mlir-opt.out 2> %t.m.mlir-opt.err
// RUN: diff %t.m.err %t.m.mlir-opt.err
// RUN: diff %t.m.out %t.m.mlir-opt.out
// RUN: FileCheck %S/Inputs/verify-diagnostics-mismatch.mlir < %t.m.err
// only-expected ignores the unexpected ones; what is missing still fails.
// RUN: not w4a16-opt --verify-diagnostics=only-expected --split-input-file %S/Inputs/verify-diagnostics-mismatch.mlir 2>&1 >/dev/null | FileCheck %S/Inputs/verify-diagnostics-mismatch.mlir --check-prefix=ONLY
// RUN: not mlir-opt --verify-diagnostics=only-expected --split-input-file %S/Inputs/verify-diagnostics-mismatch.mlir 2> %t.o.mlir-opt.err > /dev/null
// RUN: not w4a16-opt --verify-diagnostics=only-expected --split-input-file %S/Inputs/verify-diagnostics-mismatch.mlir 2> %t.o.err > /dev/null
// RUN: diff %t.o.err %t.o.mlir-opt.err
// --no-implicit-module: the diagnostics the tool holds back during the parse are verified too, the same
// way as mlir-opt with and without their designators.
// RUN: w4a16-opt --verify-diagnostics --no-implicit-module --split-input-file %S/Inputs/verify-diagnostics-nim.mlir > %t.n.out
// RUN: mlir-opt --verify-diagnostics --no-implicit-module --split-input-file %S/Inputs/verify-diagnostics-nim.mlir > %t.n.mlir-opt.out
// RUN: diff %t.n.out %t.n.mlir-opt.out
// RUN: sed -e '/expected-error/d' %S/Inputs/verify-diagnostics-nim.mlir > %t.nim.mlir
// RUN: not w4a16-opt --verify-diagnostics --no-implicit-module --split-input-file %t.nim.mlir > /dev/null 2> %t.nim.err
// RUN: not mlir-opt --verify-diagnostics --no-implicit-module --split-input-file %t.nim.mlir > /dev/null 2> %t.nim.mlir-opt.err
// RUN: diff %t.nim.err %t.nim.mlir-opt.err
// RUN: FileCheck %s --check-prefix=NIM < %t.nim.err
// Designators mlir-opt reports without a location, and a bad regex.
// RUN: not w4a16-opt --verify-diagnostics %S/Inputs/verify-diagnostics-unknown.mlir 2>&1 | FileCheck %S/Inputs/verify-diagnostics-unknown.mlir
// RUN: w4a16-opt --verify-diagnostics=maybe %s 2>&1; test $? -eq 2

// NIM: error: unexpected error: source must contain a single top-level operation, found: 2
// NIM: error: unexpected error: use of undeclared SSA value name

// CHECK-LABEL: func.func @good(
// CHECK-NOT:   func.func @
func.func @bad_scales(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<3x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'w4a16.fused_matmul' op scales dim 0 is 3, expected 2}}
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<3x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

func.func @bad_activation(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "relu", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  // expected-error-re @-3 {{activation "relu" is not one of {{("[a-z_]+"(, )?)+}}}}
  return %0 : tensor<4x64xf16>
}

// -----

func.func @parse_error(%a: i32) -> i32 {
  // expected-error @below {{expected ':'}}
  %0 = arith.addi %a, %a i32
  return %0 : i32
}

// -----

func.func @redefinition() {
  %0 = arith.constant 1 : i32
  // expected-note @above {{previously defined here}}
  %0 = arith.constant 2 : i32 // expected-error {{redefinition of SSA value '%0'}}
  return
}

// -----

func.func @good(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "silu", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}
