// A function whose linalg op accumulates into an argument (`outs(%acc)`), as frontends write `acc += a`
// on a tensor they received. Bufferized in place, the compiled code wrote into the caller's %acc buffer;
// the pipeline marks arguments read-only (lowering/read_only_args.c), so the result goes to a new buffer.
func.func @accumulate(%a: tensor<?x8xf32>, %acc: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x8xf32>) outs(%acc : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
