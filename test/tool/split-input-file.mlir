// --split-input-file: every chunk is processed on its own; an error in one chunk does not stop the others but
// makes the exit status 1; outputs are joined by the split marker; diagnostics carry the line and column of
// the whole file (not of the chunk) - the same text mlir-opt prints. (Like mlir-opt, the tool splits at every
// occurrence of the marker, so the checks below spell it with a regex.)
//
// RUN: w4a16-opt --split-input-file %s > %t.out 2> %t.err; test $? -eq 1
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: not mlir-opt --split-input-file %s > %t.mlir-opt.out 2> %t.mlir-opt.err
// RUN: diff %t.out %t.mlir-opt.out
// RUN: diff %t.err %t.mlir-opt.err
// Without the flag the whole file is one module, and the first error stops it.
// RUN: not w4a16-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE
// A custom input marker and output marker (RUN lines are blanked so that only the sed-made markers split).
// RUN: sed -e 's|^// RUN:.*$||' -e 's|^// -\{5\}$|//===|' %s | not w4a16-opt --split-input-file=//=== --output-split-marker=//+++ 2>&1 | FileCheck %s --check-prefix=MARKER

// OUT-LABEL: func.func @first(
// OUT-SAME:    %[[A:[a-zA-Z0-9_]+]]: i32
// OUT:         return %[[A]] : i32
// OUT:       {{^// -+$}}
func.func @first(%a: i32) -> i32 {
  return %a : i32
}

// -----

// A type error: its chunk prints nothing (two markers in a row in the output).
// ERR: split-input-file.mlir:[[@LINE+3]]:10: error: use of value '%a' expects different type than prior uses: 'i64' vs 'i32'
// OUT-NEXT:  {{^// -+$}}
func.func @second(%a: i32) -> i64 {
  return %a : i64
}

// -----

// OUT-NEXT:    module {
// OUT-NEXT:    func.func @third(
// OUT:         arith.addi
// OUT-NOT:     {{^// -+$}}
func.func @third(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}

// ERR-NOT: error
// WHOLE: split-input-file.mlir:31:10: error: use of value '%a' expects different type than prior uses
// WHOLE-NOT: error
// MARKER: <stdin>:31:10: error: use of value '%a'
// MARKER: func.func @first
// MARKER-NEXT: return
// MARKER-NEXT: }
// MARKER-NEXT: }
// MARKER-EMPTY:
// MARKER-NEXT: //+++
// MARKER-NEXT: //+++
// MARKER-NEXT: module {
// MARKER-NEXT: func.func @third
