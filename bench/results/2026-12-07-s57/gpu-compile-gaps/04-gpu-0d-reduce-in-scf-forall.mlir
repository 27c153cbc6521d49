// GPU-only error (host target OK): `w4a16-compile 04-gpu-0d-reduce-in-scf-forall.mlir -o out.o --target=gpu` -> "error: w4a16 GPU target: memref.store would run on the host and dereference device memory (it is not inside a parallel loop that maps to the GPU)" at the 0-d linalg.fill. A per-row 0-d reduction inside an scf.forall body (rank-reduced slices, as tiled IREE input writes it).
func.func @f(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = scf.forall (%h) in (4) shared_outs(%o = %e) -> (tensor<4xf32>) {
    %n = tensor.dim %x, %c1 : tensor<4x?xf32>
    %row = tensor.extract_slice %x[%h, 0] [1, %n] [1, 1] : tensor<4x?xf32> to tensor<?xf32>
    %e0 = tensor.empty() : tensor<f32>
    %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
    %s = linalg.reduce ins(%row : tensor<?xf32>) outs(%f0 : tensor<f32>) dimensions = [0]
      (%v: f32, %acc: f32) {
        %t = arith.addf %v, %acc : f32
        linalg.yield %t : f32
      }
    %s1 = tensor.expand_shape %s [] output_shape [1] : tensor<f32> into tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s1 into %o[%h] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  }
  return %r : tensor<4xf32>
}
