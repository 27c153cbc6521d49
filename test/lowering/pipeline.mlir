// --w4a16-pipeline takes frontend IR all the way to the LLVM dialect: the chain becomes one call of the
// runtime's C interface, the model function is exported as _mlir_ciface_<name>, and w4a16c_run_<name> /
// w4a16c_prepare_<name> return the compiled-code status. Nothing aborts: no abort, no puts.
// RUN: w4a16-opt --w4a16-pipeline %s | FileCheck %s
// RUN: w4a16-opt --w4a16-pipeline %s | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM
// RUN: w4a16-opt --w4a16-pipeline %s | FileCheck %s --check-prefix=NOABORT
// NOABORT-NOT: abort
// NOABORT-NOT: puts

// CHECK-NOT:   linalg.
// CHECK-NOT:   tensor.
// CHECK-NOT:   bufferization.
// CHECK:       llvm.func @proj(
// CHECK:         llvm.call @w4a16_rt_matmul_i8(
// CHECK-NOT:     llvm.call @w4a16_rt_matmul
// CHECK:       llvm.func @_mlir_ciface_proj(
// CHECK:       llvm.func private @w4a16_rt_matmul_i8(
// CHECK:         llvm.call @_mlir_ciface_w4a16_rt_matmul_i8(
// CHECK:       llvm.func @_mlir_ciface_w4a16_rt_matmul_i8(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32) -> i32
// CHECK:       llvm.func @w4a16c_run_proj(
// CHECK:         llvm.call @w4a16_rt_enter(
// CHECK:         llvm.call @_mlir_ciface_proj(
// CHECK:         llvm.call @w4a16_rt_leave()
// CHECK:       llvm.func @w4a16c_prepare_proj(
// LLVM:        define void @_mlir_ciface_proj(ptr
// LLVM:        declare i32 @_mlir_ciface_w4a16_rt_matmul_i8(ptr, ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32, i32)
// LLVM:        define i32 @w4a16c_run_proj(ptr
// LLVM:        define i32 @w4a16c_prepare_proj(ptr
#map = affine_map<(d0, d1) -> (d0, d1)>
#scale = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
func.func @proj(%x: tensor<?x256xf16>, %codes: tensor<256x64xi8>, %s: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#map, #scale, #map], iterator_types = ["parallel", "parallel"]}
      ins(%codes, %s : tensor<256x64xi8>, tensor<2x64xf16>) outs(%e : tensor<256x64xf16>) {
  ^bb0(%c: i8, %sc: f16, %o: f16):
    %nibble = arith.constant 15 : i8
    %c4 = arith.andi %c, %nibble : i8
    %u = arith.uitofp %c4 : i8 to f16
    %eight = arith.constant 8.0 : f16
    %d = arith.subf %u, %eight : f16
    %v = arith.mulf %d, %sc : f16
    linalg.yield %v : f16
  } -> tensor<256x64xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %init = tensor.empty(%m) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%init : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}
