// w4a16-device-memory (GPU target, LLVM dialect): buffers come from the runtime's device arena and a
// constant's host address becomes the address of its device copy, made once by the runtime. Modules not
// marked w4a16.target = "gpu" are left alone.
// RUN: w4a16-opt --split-input-file --pass-pipeline='builtin.module(w4a16-device-memory)' %s | FileCheck %s

// CHECK-LABEL: llvm.func @f()
// CHECK:         llvm.call @w4a16_rt_device_aligned_alloc(
// CHECK:         llvm.call @w4a16_rt_device_alloc(
// CHECK:         %[[D:.*]] = llvm.call @__w4a16_devptr___w4a16_dev_table() : () -> !llvm.ptr
// CHECK:         llvm.call @consume(%[[D]])
// CHECK:         llvm.call @w4a16_rt_device_free(
// CHECK:       llvm.func @w4a16_rt_device_alloc(i64) -> !llvm.ptr
// CHECK:       llvm.func @w4a16_rt_device_aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK:       llvm.func @w4a16_rt_device_free(!llvm.ptr)
// CHECK:       llvm.func @w4a16_rt_device_constant(!llvm.ptr, i64) -> !llvm.ptr
// CHECK:       llvm.func private @__w4a16_devptr___w4a16_dev_table() -> !llvm.ptr {
// CHECK:         %[[H:.*]] = llvm.mlir.addressof @__w4a16_dev_table : !llvm.ptr
// CHECK:         %[[N:.*]] = llvm.mlir.constant(2048 : i64) : i64
// CHECK:         llvm.call @w4a16_rt_device_constant(%[[H]], %[[N]])
// CHECK-NOT:   __w4a16_devuse
// CHECK-NOT:   _mlir_memref_to_llvm
module attributes {w4a16.device_constants = {__w4a16_dev_table = 2048 : i64}, w4a16.target = "gpu"} {
  llvm.mlir.global private constant @__w4a16_dev_table(dense<1> : tensor<512xi32>) {addr_space = 0 : i32} : !llvm.array<512 x i32>
  llvm.func @consume(!llvm.ptr)
  llvm.func @f() {
    %c64 = llvm.mlir.constant(64 : i64) : i64
    %c8 = llvm.mlir.constant(8 : i64) : i64
    %a = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%c64, %c8) : (i64, i64) -> !llvm.ptr
    %b = llvm.call @_mlir_memref_to_llvm_alloc(%c8) : (i64) -> !llvm.ptr
    %t = llvm.mlir.addressof @__w4a16_dev_table : !llvm.ptr
    llvm.call @consume(%t) : (!llvm.ptr) -> ()
    llvm.call @_mlir_memref_to_llvm_free(%a) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
}

// -----

// The host target: nothing to do.
// CHECK-LABEL: llvm.func @g()
// CHECK:         llvm.call @_mlir_memref_to_llvm_alloc(
module {
  llvm.func @g() {
    %c8 = llvm.mlir.constant(8 : i64) : i64
    %b = llvm.call @_mlir_memref_to_llvm_alloc(%c8) : (i64) -> !llvm.ptr
    llvm.return
  }
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
}
