// GPU-only error (host target OK): `w4a16-compile 05-gpu-from-elements-in-scf-for.mlir -o out.o --target=gpu` -> "error: w4a16 GPU target: memref.store would run on the host and dereference device memory (it is not inside a parallel loop that maps to the GPU)" at tensor.from_elements. tensor.from_elements inside a loop (or an scf.if branch) stays host stores into a device buffer; at a function's top level it compiles. Realistic: per-step index pairs / position rows built in a host loop and inserted into a tensor.
func.func @f(%n: index, %out: tensor<?x2xi64>) -> tensor<?x2xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %out) -> (tensor<?x2xi64>) {
    %v = arith.index_cast %i : index to i64
    %t = tensor.from_elements %v, %v : tensor<1x2xi64>
    %u = tensor.insert_slice %t into %a[%i, 0] [1, 2] [1, 1] : tensor<1x2xi64> into tensor<?x2xi64>
    scf.yield %u : tensor<?x2xi64>
  }
  return %r : tensor<?x2xi64>
}
