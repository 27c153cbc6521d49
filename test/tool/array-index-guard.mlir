// The MLIR 22 attribute parser segfaults on a dense array of `index` elements (upstream mlir-opt too). Such
// input never reaches it: the tool reports a located error in the format of its other diagnostics and exits 1.
// Only attributes count: the text in string literals and in `//` comments (these lines) is left alone.
//
// RUN: not w4a16-opt %s 2>&1 | FileCheck %s
// RUN: not w4a16-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// With --split-input-file only the chunks that hold one fail, located in the whole file; the others print.
// RUN: not w4a16-opt --split-input-file %s > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=SPLIT < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out

// OUT-LABEL: func.func @strings_and_comments()
// OUT-SAME:    b = array<i64: 1, 2>
// OUT-SAME:    s = "array<index: 1>"
func.func @strings_and_comments() attributes {s = "array<index: 1>", b = array<i64: 1, 2>} { // array<index: 2>
  return
}

// -----

// CHECK: array-index-guard.mlir:[[@LINE+7]]:48: error: 'array<index ...>' attributes are not supported: the MLIR 22 parser crashes on them
// CHECK-NEXT: {{^}}func.func @dense_index_array() attributes {a = array<index: 1, 2>} {
// CHECK-NEXT: {{^}}                                               ^{{$}}
// CHECK-NOT: error
// STDIN: <stdin>:[[@LINE+3]]:48: error: 'array<index ...>' attributes are not supported
// SPLIT: array-index-guard.mlir:[[@LINE+2]]:48: error: 'array<index ...>' attributes are not supported
// SPLIT-NEXT: {{^}}func.func @dense_index_array()
func.func @dense_index_array() attributes {a = array<index: 1, 2>} {
  return
}

// -----

// Whitespace, line breaks and comments between `array<` and `index` are skipped, as the lexer skips them.
// SPLIT: array-index-guard.mlir:[[@LINE+2]]:37: error: 'array<index ...>' attributes are not supported
// SPLIT-NEXT: {{^}}func.func @spaced() attributes {a = array<
func.func @spaced() attributes {a = array< // the element type
    index: 3>} {
  return
}

// -----

// SPLIT-NOT: error
// OUT:       {{^// -+$}}
// OUT-NEXT:  {{^// -+$}}
// OUT-NEXT:  {{^// -+$}}
// OUT-NEXT:  module {
// OUT-NEXT:    func.func @after()
func.func @after() {
  return
}
