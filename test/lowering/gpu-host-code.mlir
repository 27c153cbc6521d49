// w4a16-gpu-host-code (GPU target, after the loops are mapped onto the GPU): host code that would dereference
// a device buffer is an error at its location; constants host code hands out are routed to device copies.
// RUN: w4a16-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(w4a16-gpu-host-code)' %s | FileCheck %s

// A scalar read from a tensor, left on the host (a function returning one element).
func.func @pick(%m: memref<2x3xf64>, %i: index) -> f64 {
  // expected-error @+1 {{w4a16 GPU target: memref.load would run on the host and dereference device memory}}
  %v = memref.load %m[%i, %i] : memref<2x3xf64>
  return %v : f64
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
