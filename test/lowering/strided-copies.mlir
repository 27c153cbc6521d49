// Host target: a result written into a column slice of a wider tensor (tensor.insert_slice, as an attention layer
// writes [q | k | v]) bufferizes to a memref.copy into a strided view. Lowered as it is, that copy calls memrefCopy
// from MLIR's runner-utils, which compiled code does not link (the .so did not load: "undefined symbol:
// memrefCopy"); w4a16-strided-copies-to-loops makes it host loops. Contiguous copies keep their memcpy.
//
// RUN: w4a16-opt --w4a16-pipeline %s | FileCheck %s
// RUN: w4a16-opt --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},w4a16-strided-copies-to-loops)' %s | FileCheck %s --check-prefix=PASS

// CHECK-LABEL: llvm.func @side_by_side(
// CHECK-NOT:     memrefCopy
// PASS-LABEL:  func.func @side_by_side(
// PASS-NOT:      memref.copy
// PASS-COUNT-3:  linalg.copy ins(%{{.+}} : memref<4x8xf16>) outs(%{{.+}} : memref<4x8xf16, strided<[24, 1]{{.*}}>>)
// PASS-NOT:      memref.copy
func.func @side_by_side(%a: tensor<4x8xf16>, %b: tensor<4x8xf16>, %c: tensor<4x8xf16>) -> tensor<4x24xf16> {
  %init = tensor.empty() : tensor<4x24xf16>
  %0 = tensor.insert_slice %a into %init[0, 0] [4, 8] [1, 1] : tensor<4x8xf16> into tensor<4x24xf16>
  %1 = tensor.insert_slice %b into %0[0, 8] [4, 8] [1, 1] : tensor<4x8xf16> into tensor<4x24xf16>
  %2 = tensor.insert_slice %c into %1[0, 16] [4, 8] [1, 1] : tensor<4x8xf16> into tensor<4x24xf16>
  return %2 : tensor<4x24xf16>
}
