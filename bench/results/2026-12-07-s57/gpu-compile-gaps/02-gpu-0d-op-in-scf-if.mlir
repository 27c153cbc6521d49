// GPU-only error (host target OK): `w4a16-compile 02-gpu-0d-op-in-scf-if.mlir -o out.o --target=gpu` -> "error: w4a16 GPU target: memref.store would run on the host and dereference device memory (it is not inside a parallel loop that maps to the GPU)" at the linalg.map. An elementwise op on a 0-d tensor inside an scf.if branch (serial-kernel wrapping is top-level only). Realistic: torch.export's torch.cond lowered to scf.if around a scalar (0-d) computation.
func.func @f(%x: tensor<f32>, %c: i1) -> tensor<f32> {
  %r = scf.if %c -> (tensor<f32>) {
    %e = tensor.empty() : tensor<f32>
    %y = linalg.map ins(%x : tensor<f32>) outs(%e : tensor<f32>)
      (%v: f32, %o: f32) {
        %t = math.exp %v : f32
        linalg.yield %t : f32
      }
    scf.yield %y : tensor<f32>
  } else {
    scf.yield %x : tensor<f32>
  }
  return %r : tensor<f32>
}
