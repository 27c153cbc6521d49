// --w4a16-explain: an epilogue op that reads the matmul result transposed, y[n, m], over a dynamic M: the chain
// ends before it, and the remark says the read runs out of bounds wherever M is smaller than the column index
// (test/robustness/differential.py skips such IR: both builds' results are undefined there).
//
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s

#q = affine_map<(k, n) -> (k, n)>
#s = affine_map<(k, n) -> (k floordiv 128, n)>
#t = affine_map<(m, n) -> (n, m)>
#b = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @bias_reads_y_transposed(%x: tensor<?x256xf16>, %qw: tensor<256x256xi4>, %sc: tensor<2x256xf16>, %bias: tensor<256xf16>) -> tensor<?x256xf16> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e0 = tensor.empty() : tensor<256x256xf16>
  %w = linalg.generic {indexing_maps = [#q, #s, #q], iterator_types = ["parallel", "parallel"]} ins(%qw, %sc : tensor<256x256xi4>, tensor<2x256xf16>) outs(%e0 : tensor<256x256xf16>) {
  ^bb0(%c: i4, %s: f16, %o: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %s : f16
    linalg.yield %3 : f16
  } -> tensor<256x256xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e = tensor.empty(%m) : tensor<?x256xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<?x256xf16>) -> tensor<?x256xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x256xf16>) outs(%f : tensor<?x256xf16>) -> tensor<?x256xf16>
  %e2 = tensor.empty(%m) : tensor<?x256xf16>
  // CHECK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul; chain ends before {{.*}}transposed-read-dynamic.mlir:[[@LINE+1]]:10: reads the matmul result at another element (transposed or shifted): index 255 along its dynamic dim 0, out of bounds wherever that dim is smaller
  %out = linalg.generic {indexing_maps = [#t, #b, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %bias : tensor<?x256xf16>, tensor<256xf16>) outs(%e2 : tensor<?x256xf16>) {
  ^bb0(%v: f16, %bv: f16, %o: f16):
    %r = arith.addf %v, %bv : f16
    linalg.yield %r : f16
  } -> tensor<?x256xf16>
  return %out : tensor<?x256xf16>
}
