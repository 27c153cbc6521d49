// A decode step's KV-cache append at a position held in a 0-d device tensor (torch-mlir's form of HF's
// cache_position): the copy kernel reads the position itself, so the call can be captured in a CUDA graph.
func.func @kv_append(%cache: tensor<2x16x8xf16>, %k: tensor<2x1x8xf16>, %pos: tensor<i64>) -> tensor<2x16x8xf16> {
  %p64 = tensor.extract %pos[] : tensor<i64>
  %p = arith.index_cast %p64 : i64 to index
  %upd = tensor.insert_slice %k into %cache[0, %p, 0] [2, 1, 8] [1, 1, 1] : tensor<2x1x8xf16> into tensor<2x16x8xf16>
  return %upd : tensor<2x16x8xf16>
}

// The position also bounds a host loop (rows 0 .. pos - 1 scaled by 2): the host reads it through the runtime,
// which refuses inside a capture.
func.func @double_rows_before(%x: tensor<16x8xf16>, %pos: tensor<i64>) -> tensor<16x8xf16> {
  %p64 = tensor.extract %pos[] : tensor<i64>
  %p = arith.index_cast %p64 : i64 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f16
  %r = scf.for %i = %c0 to %p step %c1 iter_args(%acc = %x) -> (tensor<16x8xf16>) {
    %row = tensor.extract_slice %acc[%i, 0] [1, 8] [1, 1] : tensor<16x8xf16> to tensor<1x8xf16>
    %e = tensor.empty() : tensor<1x8xf16>
    %d = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]} ins(%row : tensor<1x8xf16>) outs(%e : tensor<1x8xf16>) {
    ^bb0(%v: f16, %o: f16):
      %m = arith.mulf %v, %two : f16
      linalg.yield %m : f16
    } -> tensor<1x8xf16>
    %n = tensor.insert_slice %d into %acc[%i, 0] [1, 8] [1, 1] : tensor<1x8xf16> into tensor<16x8xf16>
    scf.yield %n : tensor<16x8xf16>
  }
  return %r : tensor<16x8xf16>
}
