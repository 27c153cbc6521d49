// GPU-only error (host target OK): `w4a16-compile 01-gpu-0d-op-in-scf-for.mlir -o out.o --target=gpu` -> "error: w4a16 GPU target: memref.store would run on the host and dereference device memory (it is not inside a parallel loop that maps to the GPU)" at the linalg.fill. A 0-d fill + reduction (max) inside an scf.for body: w4a16-gpu-serial-kernels only wraps 0-d runs at a function's top level. Realistic: top-k by repeated max/argmax, a greedy-decode loop's argmax into a 0-d token.
func.func @f(%x: tensor<1024xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ninf = arith.constant 0xFF800000 : f32
  %out = tensor.empty() : tensor<4xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%o = %out) -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<f32>
    %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %m = linalg.reduce ins(%x : tensor<1024xf32>) outs(%f : tensor<f32>) dimensions = [0]
      (%v: f32, %acc: f32) {
        %t = arith.maximumf %v, %acc : f32
        linalg.yield %t : f32
      }
    %m1 = tensor.expand_shape %m [] output_shape [1] : tensor<f32> into tensor<1xf32>
    %o2 = tensor.insert_slice %m1 into %o[%k] [1] [1] : tensor<1xf32> into tensor<4xf32>
    scf.yield %o2 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
