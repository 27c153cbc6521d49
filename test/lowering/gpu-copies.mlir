// w4a16-copies-to-kernels: a buffer copy becomes linalg.copy, which the GPU target maps onto threads like
// any other loop (a memref.copy would become a host memcpy of device pointers).
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-copies-to-kernels)' %s | FileCheck %s
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-copies-to-kernels,convert-linalg-to-parallel-loops)' %s | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @copy
// CHECK-SAME:    (%[[A:.*]]: memref<?x8xf32>, %[[B:.*]]: memref<?x8xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%[[A]] : memref<?x8xf32>) outs(%[[B]] : memref<?x8xf32>)
// LOOPS:         scf.parallel
// LOOPS:           memref.load
// LOOPS:           memref.store
func.func @copy(%a: memref<?x8xf32>, %b: memref<?x8xf32>) {
  memref.copy %a, %b : memref<?x8xf32> to memref<?x8xf32>
  return
}
