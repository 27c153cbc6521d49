// Upstream's fold-add-into-dest as a transform library (mlir-opt --transform-preload-library=... --transform-interpreter):
// linalg.add(matmul(.., zero init), other) becomes matmul(.., init = other), the form some pipelines leave.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.linalg.fold_add_into_dest
    } : !transform.any_op
    transform.yield
  }
}
