// w4a16-gpu-register-accumulators (GPU target, buffers): a reduction loop whose accumulator makes a memory
// round trip at every step carries it in iter_args instead -- loaded once before, stored once after -- when
// that computes the same thing; otherwise the loop is left as it is.
// RUN: w4a16-opt --split-input-file --pass-pipeline='builtin.module(w4a16-gpu-register-accumulators)' %s | FileCheck %s

// CHECK-LABEL: func.func @row_sum
// CHECK-SAME:    (%[[IN:.*]]: memref<8x4096xf32>, %[[I:.*]]: index)
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[A0:.*]] = memref.load %[[OUT]][%[[I]]] : memref<8xf32>
// CHECK:         %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[A0]]) -> (f32) {
// CHECK:           %[[V:.*]] = memref.load %[[IN]][%[[I]], %[[K]]]
// CHECK:           %[[S:.*]] = arith.addf %[[V]], %[[A]] : f32
// CHECK:           scf.yield %[[S]] : f32
// CHECK:         }
// CHECK:         memref.store %[[R]], %[[OUT]][%[[I]]] : memref<8xf32>
func.func @row_sum(%in: memref<8x4096xf32>, %i: index) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %out = memref.alloc() : memref<8xf32>
  scf.for %k = %c0 to %c4096 step %c1 {
    %v = memref.load %in[%i, %k] : memref<8x4096xf32>
    %a = memref.load %out[%i] : memref<8xf32>
    %s = arith.addf %v, %a : f32
    memref.store %s, %out[%i] : memref<8xf32>
  }
  return %out : memref<8xf32>
}

// -----

// Left alone: the accumulator is a caller's buffer (it may alias the input); the body reads the
// accumulator's buffer elsewhere; the store's index moves with the loop.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     iter_args
func.func @left_alone(%in: memref<8x4096xf32>, %arg_out: memref<8xf32>, %i: index) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c4096 = arith.constant 4096 : index
  scf.for %k = %c0 to %c4096 step %c1 {
    %v = memref.load %in[%i, %k] : memref<8x4096xf32>
    %a = memref.load %arg_out[%i] : memref<8xf32>
    %s = arith.addf %v, %a : f32
    memref.store %s, %arg_out[%i] : memref<8xf32>
  }
  %out = memref.alloc() : memref<8xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    %other = memref.load %out[%k] : memref<8xf32>
    %a = memref.load %out[%i] : memref<8xf32>
    %s = arith.addf %other, %a : f32
    memref.store %s, %out[%i] : memref<8xf32>
  }
  scf.for %k = %c0 to %c8 step %c1 {
    %a = memref.load %out[%k] : memref<8xf32>
    %s = arith.addf %a, %a : f32
    memref.store %s, %out[%k] : memref<8xf32>
  }
  return %out : memref<8xf32>
}
