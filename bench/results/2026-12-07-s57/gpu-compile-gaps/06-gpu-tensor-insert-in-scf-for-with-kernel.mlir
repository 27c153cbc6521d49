// GPU-only error (host target OK): `w4a16-compile 06-gpu-tensor-insert-in-scf-for-with-kernel.mlir -o out.o --target=gpu` -> "error: w4a16 GPU target: memref.store would run on the host and dereference device memory (it is not inside a parallel loop that maps to the GPU)" at tensor.insert. A scalar tensor.insert after a kernel inside an scf.for body (the same insert at top level, or in a loop with no kernel, compiles). Realistic: index_put_/masked scalar write (e.g. forcing a logit or a cache slot) inside a decode loop.
func.func @f(%x: tensor<16xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<16xf32>) {
    %e = tensor.empty() : tensor<16xf32>
    %y = linalg.map ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>)
      (%v: f32, %o: f32) {
        %t = math.exp %v : f32
        linalg.yield %t : f32
      }
    %z = arith.constant 0.0 : f32
    %u = tensor.insert %z into %y[%c0] : tensor<16xf32>
    scf.yield %u : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
