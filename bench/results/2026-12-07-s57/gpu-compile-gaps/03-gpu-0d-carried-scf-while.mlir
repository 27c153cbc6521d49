// GPU-only error (host target OK): `w4a16-compile 03-gpu-0d-carried-scf-while.mlir -o out.o --target=gpu` -> "error: w4a16 GPU target: memref.store would run on the host and dereference device memory (it is not inside a parallel loop that maps to the GPU)" at scf.condition. A 0-d tensor carried through scf.while and updated by a 0-d linalg.map in the body. Realistic: torch.export's while_loop (generation / convergence loop with a scalar state tensor).
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %r = scf.while (%a = %x) : (tensor<f32>) -> tensor<f32> {
    %v = tensor.extract %a[] : tensor<f32>
    %lim = arith.constant 100.0 : f32
    %c = arith.cmpf olt, %v, %lim : f32
    scf.condition(%c) %a : tensor<f32>
  } do {
  ^bb0(%b: tensor<f32>):
    %e = tensor.empty() : tensor<f32>
    %y = linalg.map ins(%b : tensor<f32>) outs(%e : tensor<f32>)
      (%v: f32, %o: f32) {
        %two = arith.constant 2.0 : f32
        %t = arith.mulf %v, %two : f32
        linalg.yield %t : f32
      }
    scf.yield %y : tensor<f32>
  }
  return %r : tensor<f32>
}
