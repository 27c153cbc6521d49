// linalg.softmax kept whole compiles for the GPU target too: w4a16-decompose-aggregates runs ahead of the GPU
// bufferization, so the max, exp, sum and divide each become kernels on the caller's stream (the probe of session 43
// found it failing: "linalg.softmax would run on the host and dereference device memory"). It is decomposed ahead of
// w4a16-gpu-split-reductions, so its row max and sum are split like a softmax written as generics (the same 14
// kernels as gpu-softmax.mlir's).
// REQUIRES: libdevice
// RUN: w4a16-opt --w4a16-gpu-pipeline %s | FileCheck %s
// CHECK-NOT:     linalg.softmax
// CHECK-COUNT-14: gpu.launch_func <%{{[0-9]+}} : !llvm.ptr>
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.func @w4a16c_run_softmax(%{{.*}}: !llvm.ptr,
func.func @softmax(%x: tensor<?x1024xf16>) -> tensor<?x1024xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x1024xf16>
  %e = tensor.empty(%m) : tensor<?x1024xf16>
  %r = linalg.softmax dimension(1) ins(%x : tensor<?x1024xf16>) outs(%e : tensor<?x1024xf16>) -> tensor<?x1024xf16>
  return %r : tensor<?x1024xf16>
}
