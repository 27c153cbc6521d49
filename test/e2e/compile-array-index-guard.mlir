// w4a16-compile rejects an `array<index ...>` attribute, on which the MLIR 22 parser segfaults, with a located
// error before parsing, exits 1 and writes nothing. (Text in comments and string literals is not scanned.)
//
// RUN: not w4a16-compile %s -o %t.o --header %t.h 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: test ! -e %t.h

// CHECK: compile-array-index-guard.mlir:[[@LINE+4]]:66: error: 'array<index ...>' attributes are not supported: the MLIR 22 parser crashes on them
// CHECK-NEXT: {{^}}func.func @f(%x: tensor<4xf16>) -> tensor<4xf16> attributes {a = array<index: 0, 1>} {
// CHECK-NEXT: {{^}}                                                                 ^{{$}}
// CHECK-NOT: error
func.func @f(%x: tensor<4xf16>) -> tensor<4xf16> attributes {a = array<index: 0, 1>} {
  return %x : tensor<4xf16>
}
