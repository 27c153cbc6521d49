// The gate*up product of a llama MLP reads an (M, N) tensor like a residual does; the reason the chain ends
// there is the multiplication, not the f32 type of `up` (regression: the type used to be reported first).
// RUN: w4a16-opt --w4a16-explain %s 2>&1 >/dev/null | FileCheck %s

// CHECK: product-not-residual.mlir:[[@LINE+22]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> silu; chain ends before {{.*}}product-not-residual.mlir:[[@LINE+32]]:11: combines the matmul result with an (M, N) tensor other than by adding it last
// CHECK-NOT: expected f16
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gate_times_up(%x: tensor<?x256xf16>, %w: tensor<2x128x64xi4>, %s: tensor<2x64xf16>, %up: tensor<?x64xf32>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zp = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<2x128x64xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<2x128x64xi4>, tensor<2x64xf16>) outs(%0 : tensor<2x128x64xf16>) {
  ^bb0(%in: i4, %sc: f16, %out: f16):
    %e = arith.extui %in : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %d = arith.subf %f, %zp : f16
    %v = arith.mulf %d, %sc : f16
    linalg.yield %v : f16
  } -> tensor<2x128x64xf16>
  %wd = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<2x128x64xf16> into tensor<256x64xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %init = tensor.empty(%m) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%init : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul ins(%x, %wd : tensor<?x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  %silu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x64xf16>) outs(%init : tensor<?x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %n = arith.negf %a : f16
    %ex = math.exp %n : f16
    %one = arith.constant 1.0 : f16
    %den = arith.addf %one, %ex : f16
    %r = arith.divf %a, %den : f16
    linalg.yield %r : f16
  } -> tensor<?x64xf16>
  %prod = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%silu, %up : tensor<?x64xf16>, tensor<?x64xf32>) outs(%init : tensor<?x64xf16>) {
  ^bb0(%a: f16, %u: f32, %o: f16):
    %a32 = arith.extf %a : f16 to f32
    %p = arith.mulf %a32, %u : f32
    %p16 = arith.truncf %p : f32 to f16
    linalg.yield %p16 : f16
  } -> tensor<?x64xf16>
  return %prod : tensor<?x64xf16>
}
