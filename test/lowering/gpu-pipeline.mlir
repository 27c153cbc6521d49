// --w4a16-gpu-pipeline: the fused chain calls the runtime on the caller's device buffers; what is left (here
// RMSNorm's reduction and scaling, and gate * up) becomes kernels -- PTX for sm_90 in a gpu.binary -- launched
// on the stream the entry points take first (w4a16_rt_stream()); buffers come from the runtime's device arena.
// No per-launch stream, no synchronisation, no malloc, no host memcpy.
// REQUIRES: libdevice
// RUN: w4a16-opt --w4a16-gpu-pipeline %s | FileCheck %s
// RUN: w4a16-opt --w4a16-gpu-pipeline %s | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM
// RUN: w4a16-opt --w4a16-gpu-pipeline %s | FileCheck %s --check-prefix=NOHOST

// NOHOST-NOT: @malloc
// NOHOST-NOT: @free
// NOHOST-NOT: mgpuStream
// NOHOST-NOT: memcpy
// NOHOST-NOT: abort

// CHECK:       module attributes {{{.*}}w4a16.target = "gpu"
// CHECK:       llvm.func @block(
// CHECK:         llvm.call @w4a16_rt_device_alloc(
// CHECK:         %[[S0:[0-9]+]] = llvm.call @w4a16_rt_stream() : () -> !llvm.ptr
// CHECK:         gpu.launch_func <%[[S0]] : !llvm.ptr> @block_kernel::@block_kernel
// CHECK:         llvm.call @w4a16_rt_matmul_i8(
// CHECK:         %[[S1:[0-9]+]] = llvm.call @w4a16_rt_stream() : () -> !llvm.ptr
// CHECK:         gpu.launch_func <%[[S1]] : !llvm.ptr>
// CHECK:       gpu.binary @block_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}assembly = "
// CHECK-SAME:    .target sm_90
// CHECK:       llvm.func @w4a16c_run_block(%[[STREAM:[a-z0-9]+]]: !llvm.ptr, %{{.*}}: !llvm.ptr,
// CHECK:         llvm.call @w4a16_rt_enter_device(%{{.*}}, %{{.*}}, %[[STREAM]]) : (!llvm.ptr, i32, !llvm.ptr) -> ()
// CHECK:         llvm.call @_mlir_ciface_block(
// CHECK:         llvm.call @w4a16_rt_leave()
// CHECK:       llvm.func @w4a16c_prepare_block(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr,

// The kernels' math links libdevice: nothing external is left for the JIT to resolve. pow(x, 2) with an i64
// exponent (as torch exports it) is a generated function (inlined by the PTX optimiser here), never libdevice's
// __nv_powif(float, int).
// CHECK-NOT:   .extern .func
// NOHOST-NOT:  __nv_powif

// LLVM:        @llvm.global_ctors = appending global {{.*}} @block_kernel_load
// LLVM:        call ptr @mgpuModuleGetFunction(
// LLVM:        call void @mgpuLaunchKernel(
// LLVM:        define i32 @w4a16c_run_block(ptr
// LLVM:        declare ptr @mgpuModuleLoadJIT(ptr, i32)

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#scale = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
func.func @block(%x: tensor<?x256xf16>, %codes: tensor<256x64xi8>, %s: tensor<2x64xf16>, %up: tensor<?x64xf16>)
    -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %zf = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  // RMSNorm: x * rsqrt(mean(x^2) + eps)
  %e1 = tensor.empty(%m) : tensor<?xf32>
  %acc0 = linalg.fill ins(%zf : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x256xf16>) outs(%acc0 : tensor<?xf32>) {
  ^bb0(%v: f16, %a: f32):
    %f = arith.extf %v : f16 to f32
    %two = arith.constant 2 : i64
    %sq = math.fpowi %f, %two : f32, i64
    %r = arith.addf %sq, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %xe = tensor.empty(%m) : tensor<?x256xf16>
  %xn = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x256xf16>, tensor<?xf32>) outs(%xe : tensor<?x256xf16>) {
  ^bb0(%v: f16, %ss: f32, %o: f16):
    %k = arith.constant 256.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %ss, %k : f32
    %me = arith.addf %mean, %eps : f32
    %inv = math.rsqrt %me : f32
    %f = arith.extf %v : f16 to f32
    %n = arith.mulf %f, %inv : f32
    %h = arith.truncf %n : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x256xf16>
  // The fused chain.
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
  %init = tensor.empty(%m) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%init : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul ins(%xn, %w : tensor<?x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  // gate * up, as a SwiGLU block multiplies.
  %pe = tensor.empty(%m) : tensor<?x64xf16>
  %p = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y, %up : tensor<?x64xf16>, tensor<?x64xf16>) outs(%pe : tensor<?x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %r = arith.mulf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<?x64xf16>
  return %p : tensor<?x64xf16>
}
