// w4a16-lower-to-runtime lowers w4a16.int8_prep (w4a16-lower-int8-prep) to a private function that allocates
// subA and subB and calls the runtime through the memref C interface: guarded by L != 0 when L is dynamic,
// unguarded when L is static and non-zero, and with no call at all when L = 0 statically.
// The returned status is not checked in the IR (no cf.assert: nothing compiled aborts); the runtime records
// a failure for the generated w4a16c_run_/w4a16c_prepare_ entry points.
// RUN: w4a16-opt --w4a16-lower-to-runtime --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-lower-to-runtime --split-input-file %s | FileCheck %s --check-prefix=NOABORT
// NOABORT-NOT: cf.assert

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:    attributes {llvm.emit_c_interface}
// CHECK-NEXT:    %[[R:.+]]:2 = call @[[H:__w4a16_int8_prep_[0-9]+]](%arg0, %arg1, %arg2, %arg3)
// CHECK-NEXT:    linalg.matmul ins(%[[R]]#0, %[[R]]#1
// CHECK:       func.func private @w4a16_rt_int8_prep(memref<?x?xf16>, memref<?x?xi8>, memref<?xf32>, memref<?xi64>, memref<?x?xf16>, memref<?x?xf16>) -> i32 attributes {llvm.emit_c_interface}
// CHECK:       func.func private @[[H]](%[[A:.+]]: tensor<?x4096xf16>, %[[CB:.+]]: tensor<1024x4096xi8>, %[[S:.+]]: tensor<1024xf32>, %[[C:.+]]: tensor<?xi64>) -> (tensor<?x?xf16>, tensor<?x1024xf16>)
// CHECK:         %[[M:.+]] = tensor.dim %[[A]], %[[C0:.+]] : tensor<?x4096xf16>
// CHECK:         %[[L:.+]] = tensor.dim %[[C]], %[[C0]] : tensor<?xi64>
// CHECK:         %[[SA:.+]] = memref.alloc(%[[M]], %[[L]]) : memref<?x?xf16>
// CHECK:         %[[SB:.+]] = memref.alloc(%[[L]]) : memref<?x1024xf16>
// CHECK:         bufferization.to_buffer %[[A]] read_only : tensor<?x4096xf16> to memref<?x4096xf16>
// CHECK:         bufferization.to_buffer %[[CB]] read_only : tensor<1024x4096xi8> to memref<1024x4096xi8>
// CHECK:         bufferization.to_buffer %[[S]] read_only
// CHECK:         bufferization.to_buffer %[[C]] read_only
// CHECK:         %[[NE:.+]] = arith.cmpi ne, %[[L]], %[[C0]] : index
// CHECK-NEXT:    scf.if %[[NE]] {
// CHECK-NEXT:      %{{.+}} = func.call @w4a16_rt_int8_prep(
// CHECK-NEXT:    }
// CHECK:         %[[TA:.+]] = bufferization.to_tensor %[[SA]] restrict writable : memref<?x?xf16> to tensor<?x?xf16>
// CHECK:         %[[TB:.+]] = bufferization.to_tensor %[[SB]] restrict writable : memref<?x1024xf16> to tensor<?x1024xf16>
// CHECK:         return %[[TA]], %[[TB]]
func.func @dynamic(%A: tensor<?x4096xf16>, %CB: tensor<1024x4096xi8>, %SCB: tensor<1024xf32>, %cols: tensor<?xi64>,
                   %out: tensor<?x1024xf16>) -> tensor<?x1024xf16> {
  %p:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<?x4096xf16>, tensor<1024x4096xi8>, tensor<1024xf32>, tensor<?xi64>) -> (tensor<?x?xf16>, tensor<?x1024xf16>)
  %r = linalg.matmul ins(%p#0, %p#1 : tensor<?x?xf16>, tensor<?x1024xf16>) outs(%out : tensor<?x1024xf16>) -> tensor<?x1024xf16>
  return %r : tensor<?x1024xf16>
}

// -----

// Static shapes, L = 16: no tensor.dim, no guard. Two ops share one runtime declaration.
// CHECK-LABEL: func.func @static(
// CHECK:         call @[[H0:__w4a16_int8_prep_[0-9]+]](
// CHECK:         call @[[H1:__w4a16_int8_prep_[0-9]+]](
// CHECK-COUNT-1: func.func private @w4a16_rt_int8_prep(
// CHECK-NOT:     func.func private @w4a16_rt_int8_prep(
// CHECK:       func.func private @[[H0]](
// CHECK-NOT:     tensor.dim
// CHECK-NOT:     scf.if
// CHECK:         memref.alloc() : memref<8x16xf16>
// CHECK:         memref.alloc() : memref<16x512xf16>
// CHECK:         call @w4a16_rt_int8_prep(
// CHECK:         return
func.func @static(%A: tensor<8x256xf16>, %CB: tensor<512x256xi8>, %SCB: tensor<512xf32>, %cols: tensor<16xi64>)
    -> (tensor<8x16xf16>, tensor<16x512xf16>, tensor<8x16xf16>, tensor<16x512xf16>) {
  %p:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<8x256xf16>, tensor<512x256xi8>, tensor<512xf32>, tensor<16xi64>) -> (tensor<8x16xf16>, tensor<16x512xf16>)
  %q:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<8x256xf16>, tensor<512x256xi8>, tensor<512xf32>, tensor<16xi64>) -> (tensor<8x16xf16>, tensor<16x512xf16>)
  return %p#0, %p#1, %q#0, %q#1 : tensor<8x16xf16>, tensor<16x512xf16>, tensor<8x16xf16>, tensor<16x512xf16>
}

// -----

// L = 0 statically: the two empty results are allocated (as the unfused code allocates its empty tensors)
// and nothing is called.
// CHECK-LABEL: func.func @empty(
// CHECK:       func.func private @__w4a16_int8_prep_0(
// CHECK:         memref.alloc() : memref<8x0xf16>
// CHECK:         memref.alloc() : memref<0x512xf16>
// CHECK-NOT:     bufferization.to_buffer
// CHECK-NOT:     call
// CHECK:         return
func.func @empty(%A: tensor<8x256xf16>, %CB: tensor<512x256xi8>, %SCB: tensor<512xf32>, %cols: tensor<0xi64>)
    -> (tensor<8x0xf16>, tensor<0x512xf16>) {
  %p:2 = "w4a16.int8_prep"(%A, %CB, %SCB, %cols) : (tensor<8x256xf16>, tensor<512x256xi8>, tensor<512xf32>, tensor<0xi64>) -> (tensor<8x0xf16>, tensor<0x512xf16>)
  return %p#0, %p#1 : tensor<8x0xf16>, tensor<0x512xf16>
}
