// w4a16-gpu-host-code (GPU target, after the loops are mapped onto the GPU): a host read of one scalar of a
// device buffer becomes a call of the runtime's w4a16_rt_device_read; other host code that would dereference a
// device buffer is an error at its location; constants host code hands out are routed to device copies.
// RUN: w4a16-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(w4a16-gpu-host-code)' %s | FileCheck %s

// A scalar read from a tensor, left on the host (a function returning one element; until session 57 an error):
// the runtime reads 8 bytes at aligned pointer + (offset + i * 3 + j) * 8.
// CHECK-LABEL: func.func @pick(
// CHECK-SAME:      %[[M:.+]]: memref<2x3xf64>, %[[I:.+]]: index, %[[J:.+]]: index)
// CHECK:         %[[BASE:.+]], %[[OFF:.+]], %{{.+}}:2, %[[STRIDES:.+]]:2 = memref.extract_strided_metadata %[[M]]
// CHECK:         %[[A:.+]] = arith.muli %[[I]], %[[STRIDES]]#0
// CHECK:         %[[B:.+]] = arith.addi %[[OFF]], %[[A]]
// CHECK:         %[[C:.+]] = arith.muli %[[J]], %[[STRIDES]]#1
// CHECK:         %[[LIN:.+]] = arith.addi %[[B]], %[[C]]
// CHECK:         %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %[[M]]
// CHECK:         %[[EIGHT:.+]] = arith.constant 8 : index
// CHECK:         %[[BYTES:.+]] = arith.muli %[[LIN]], %[[EIGHT]]
// CHECK:         %[[ADDR:.+]] = arith.addi %[[PTR]], %[[BYTES]]
// CHECK:         %[[ADDR64:.+]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK:         %[[N:.+]] = arith.constant 8 : i64
// CHECK:         %[[RAW:.+]] = call @w4a16_rt_device_read(%[[ADDR64]], %[[N]])
// CHECK:         %[[V:.+]] = arith.bitcast %[[RAW]] : i64 to f64
// CHECK:         return %[[V]]
// CHECK:       func.func private @w4a16_rt_device_read(i64, i64) -> i64
func.func @pick(%m: memref<2x3xf64>, %i: index, %j: index) -> f64 {
  %v = memref.load %m[%i, %j] : memref<2x3xf64>
  return %v : f64
}

// -----

// A 0-d i32 position read for an offset: 4 bytes, truncated.
// CHECK-LABEL: func.func @position(
// CHECK:         %[[N:.+]] = arith.constant 4 : i64
// CHECK:         %[[RAW:.+]] = call @w4a16_rt_device_read(%{{.+}}, %[[N]])
// CHECK:         %[[V:.+]] = arith.trunci %[[RAW]] : i64 to i32
// CHECK:         arith.index_cast %[[V]] : i32 to index
func.func @position(%p: memref<i32>) -> index {
  %v = memref.load %p[] : memref<i32>
  %i = arith.index_cast %v : i32 to index
  return %i : index
}

// -----

// A host write to a tensor stays an error.
func.func @poke(%m: memref<2x3xf64>, %i: index, %v: f64) {
  // expected-error @+1 {{w4a16 GPU target: memref.store would run on the host and dereference device memory}}
  memref.store %v, %m[%i, %i] : memref<2x3xf64>
  return
}

// -----

// A host stack buffer (the fused lowering's empty bias placeholder) is not device memory: no error.
// CHECK-LABEL: func.func @stack
func.func @stack() -> f16 {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<1xf16>
  %v = memref.load %a[%c0] : memref<1xf16>
  return %v : f16
}

// -----

// The int8 prep's runtime reads host memory.
func.func private @w4a16_rt_int8_prep(memref<?xf16>) -> i32
func.func @prep(%a: memref<?xf16>) -> i32 {
  // expected-error @+1 {{w4a16 GPU target: w4a16.int8_prep runs on the host target only}}
  %s = func.call @w4a16_rt_int8_prep(%a) : (memref<?xf16>) -> i32
  return %s : i32
}

// -----

// A constant table host code passes on (act-order's g_idx folded into the IR): its uses read a renamed copy,
// listed with its size (512 x i32 = 2048 bytes) for w4a16-device-memory; a kernel's own use is untouched.
// CHECK:       module attributes {w4a16.device_constants = {__w4a16_dev_table = 2048 : i64}, w4a16.target = "gpu"}
// CHECK:         memref.global "private" constant @table
// CHECK:         memref.global "private" constant @__w4a16_dev_table
// CHECK-LABEL:   func.func @use_table
// CHECK:           memref.get_global @__w4a16_dev_table : memref<512xi32>
// CHECK:           gpu.launch
// CHECK:             memref.get_global @table : memref<512xi32>
memref.global "private" constant @table : memref<512xi32> = dense<1>
func.func private @consume(memref<512xi32>)
func.func @use_table() {
  %t = memref.get_global @table : memref<512xi32>
  func.call @consume(%t) : (memref<512xi32>) -> ()
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %d = memref.get_global @table : memref<512xi32>
    %c0 = arith.constant 0 : index
    %e = memref.load %d[%c0] : memref<512xi32>
    gpu.terminator
  }
  return
}

// -----

// A mutable global cannot be copied once.
memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func private @consume(memref<4xf32>)
func.func @use_state() {
  // expected-error @+1 {{w4a16 GPU target: host code uses a global that is not a statically shaped constant}}
  %t = memref.get_global @state : memref<4xf32>
  func.call @consume(%t) : (memref<4xf32>) -> ()
  return
}

// -----

// A KV-cache window at an offset read from a 0-d position tensor, used only by a kernel: the kernel computes the
// offset and the window itself (the load, the index_cast and the subview are copied into it), and no host read is
// left, so the call stays capturable in a CUDA graph.
// CHECK-LABEL: func.func @append_at(
// CHECK-SAME:      %[[CACHE:[^:]+]]: memref<8x4xf16>, %[[K:[^:]+]]: memref<1x4xf16>, %[[POS:[^:]+]]: memref<i64>)
// CHECK-NOT:     memref.load
// CHECK-NOT:     w4a16_rt_device_read
// CHECK:         gpu.launch
// CHECK:           %[[P:.+]] = memref.load %[[POS]][] : memref<i64>
// CHECK:           %[[I:.+]] = arith.index_cast %[[P]] : i64 to index
// CHECK:           %[[WIN:.+]] = memref.subview %[[CACHE]][%[[I]], 0] [1, 4] [1, 1]
// CHECK:           memref.store %{{.+}}, %[[WIN]][
func.func @append_at(%cache: memref<8x4xf16>, %k: memref<1x4xf16>, %pos: memref<i64>) {
  %p = memref.load %pos[] : memref<i64>
  %i = arith.index_cast %p : i64 to index
  %win = memref.subview %cache[%i, 0] [1, 4] [1, 1] : memref<8x4xf16> to memref<1x4xf16, strided<[4, 1], offset: ?>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
    %e = memref.load %k[%c0, %tx] : memref<1x4xf16>
    memref.store %e, %win[%c0, %tx] : memref<1x4xf16, strided<[4, 1], offset: ?>>
    gpu.terminator
  }
  return
}

// -----

// The same value also bounds a host loop: the kernel still computes its own copy, and the host reads it through
// the runtime for the loop.
// CHECK-LABEL: func.func @append_and_loop(
// CHECK:         %[[RAW:.+]] = call @w4a16_rt_device_read
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step
// CHECK:           gpu.launch
// CHECK:             memref.load %{{.+}}[] : memref<i64>
func.func @append_and_loop(%cache: memref<8x4xf16>, %pos: memref<i64>) {
  %p = memref.load %pos[] : memref<i64>
  %i = arith.index_cast %p : i64 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = arith.constant 1.0 : f16
  scf.for %j = %c0 to %i step %c1 {
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
      memref.store %h, %cache[%i, %tx] : memref<8x4xf16>
      gpu.terminator
    }
  }
  return
}

// -----

// A grid sized by the position: the launch's own operand stays the host's (read through the runtime), while the
// body computes its own copy.
// CHECK-LABEL: func.func @grid_from_position(
// CHECK:         %[[RAW:.+]] = call @w4a16_rt_device_read
// CHECK:         %[[N:.+]] = arith.index_cast %{{.+}} : i64 to index
// CHECK:         gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[N]],
// CHECK:           memref.load %{{.+}}[] : memref<i64>
func.func @grid_from_position(%cache: memref<8x4xf16>, %pos: memref<i64>) {
  %p = memref.load %pos[] : memref<i64>
  %n = arith.index_cast %p : i64 to index
  %c1 = arith.constant 1 : index
  %h = arith.constant 1.0 : f16
  gpu.launch blocks(%bx, %by, %bz) in (%x = %n, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    memref.store %h, %cache[%n, %tx] : memref<8x4xf16>
    gpu.terminator
  }
  return
}
