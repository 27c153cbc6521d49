// Only subB inside the correction's contraction body: subA's gather has another user (the function returns it), so
// upstream's elementwise fusion left it a tensor the contraction reads. Used by test/int8prep/upstream-fused.mlir.
#gcol = affine_map<(d0, d1) -> (d1)>
#gid = affine_map<(d0, d1) -> (d0, d1)>
func.func @subA_returned(%A: tensor<?x256xf16>, %CB: tensor<264x256xi8>, %SCB: tensor<264xf32>, %cols: tensor<?xi64>,
                         %out: tensor<?x264xf16>) -> (tensor<?x?xf16>, tensor<?x264xf16>) {
  %k = arith.constant 7.874015718698502e-3 : f32
  %c0 = arith.constant 0 : index
  %M = tensor.dim %A, %c0 : tensor<?x256xf16>
  %L = tensor.dim %cols, %c0 : tensor<?xi64>
  %e = tensor.empty(%M, %L) : tensor<?x?xf16>
  %subA = linalg.generic {indexing_maps = [#gcol, #gid], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<?xi64>) outs(%e : tensor<?x?xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<?x256xf16>
    linalg.yield %v : f16
  } -> tensor<?x?xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, l) -> (m, l)>, affine_map<(m, n, l) -> (l)>,
                                        affine_map<(m, n, l) -> (n)>, affine_map<(m, n, l) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%subA, %cols, %SCB : tensor<?x?xf16>, tensor<?xi64>, tensor<264xf32>) outs(%out : tensor<?x264xf16>) {
  ^bb0(%a: f16, %c: i64, %s: f32, %acc: f16):
    %n = linalg.index 1 : index
    %i = arith.index_cast %c : i64 to index
    %q = tensor.extract %CB[%n, %i] : tensor<264x256xi8>
    %qf = arith.sitofp %q : i8 to f32
    %y = arith.mulf %qf, %s : f32
    %z = arith.mulf %y, %k : f32
    %b = arith.truncf %z : f32 to f16
    %p = arith.mulf %a, %b : f16
    %t = arith.addf %acc, %p : f16
    linalg.yield %t : f16
  } -> tensor<?x264xf16>
  return %subA, %r : tensor<?x?xf16>, tensor<?x264xf16>
}
