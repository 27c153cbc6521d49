// A GPT block's softmax (a max and a sum over each row, exp) compiles for the GPU target: every op becomes a
// kernel on the caller's stream (the max and the sum each split twice: 8 steps x 128 lanes, 8 x 16, then 16), the
// exp links libdevice, and nothing is left for the host to dereference.
// REQUIRES: libdevice
// RUN: w4a16-opt --w4a16-gpu-pipeline %s | FileCheck %s
// CHECK-COUNT-14: gpu.launch_func <%{{[0-9]+}} : !llvm.ptr>
// CHECK-NOT:     gpu.launch_func
// CHECK-NOT:     .extern .func
// CHECK:         llvm.func @w4a16c_run_softmax(%{{.*}}: !llvm.ptr,
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x1024xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x1024xf32>) outs(%mx0 : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %ee = tensor.empty(%m) : tensor<?x1024xf32>
  %ex = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx : tensor<?x1024xf32>, tensor<?xf32>) outs(%ee : tensor<?x1024xf32>) {
  ^bb0(%in: f32, %mm: f32, %out: f32):
    %d = arith.subf %in, %mm : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<?x1024xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<?x1024xf32>) outs(%s0 : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<?x1024xf32>, tensor<?xf32>) outs(%ee : tensor<?x1024xf32>) {
  ^bb0(%in: f32, %ss: f32, %out: f32):
    %v = arith.divf %in, %ss : f32
    linalg.yield %v : f32
  } -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}
