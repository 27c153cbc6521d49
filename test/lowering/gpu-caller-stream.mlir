// w4a16-caller-stream: every launch of host code goes on the caller's stream (w4a16_rt_stream()), made its
// async dependency so that gpu-to-llvm takes it as the launch's stream instead of creating, synchronising and
// destroying one around the launch. A launch that is async already is left alone.
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-caller-stream)' %s | FileCheck %s

// CHECK-LABEL: func.func @two_launches
// CHECK:         %[[S0:.*]] = call @w4a16_rt_stream() : () -> !llvm.ptr
// CHECK:         %[[T0:.*]] = builtin.unrealized_conversion_cast %[[S0]] : !llvm.ptr to !gpu.async.token
// CHECK:         gpu.launch_func async [%[[T0]]] @kernels::@k blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%{{.*}} : memref<?xf32>)
// CHECK:         %[[S1:.*]] = call @w4a16_rt_stream() : () -> !llvm.ptr
// CHECK:         %[[T1:.*]] = builtin.unrealized_conversion_cast %[[S1]] : !llvm.ptr to !gpu.async.token
// CHECK:         gpu.launch_func async [%[[T1]]] @kernels::@k
// CHECK-SAME:      dynamic_shared_memory_size
// CHECK-LABEL: func.func @already_async
// CHECK-NOT:     w4a16_rt_stream
// CHECK:         gpu.launch_func async [%{{.*}}] @kernels::@k
// CHECK:       func.func private @w4a16_rt_stream() -> !llvm.ptr
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @two_launches(%a: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : i32
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %c0 args(%a : memref<?xf32>)
    return
  }
  func.func @already_async(%a: memref<?xf32>, %t: !gpu.async.token) -> !gpu.async.token {
    %c1 = arith.constant 1 : index
    %r = gpu.launch_func async [%t] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    return %r : !gpu.async.token
  }
}
