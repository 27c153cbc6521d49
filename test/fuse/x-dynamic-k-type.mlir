// x typed with a dynamic K (tensor<?x?xf16>: an exporter's fully dynamic signature, as ONNX importers write a
// MatMul whose activation has symbolic dims) against a weight of static K = 256. K comes from the weight, so the
// chain fuses and x reaches the op through a tensor.cast to (?, 256) (the upstream matmul already assumes that
// size). Until session 41 it stayed unfused with "x is not read as a row-major (M, K) tensor". Look-alike: the same
// x read transposed (x[k, m]) stays unfused.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @x_dynamic_k(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x?xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x64xf16>
// CHECK:         %[[XS:.+]] = tensor.cast %[[X]] : tensor<?x?xf16> to tensor<?x256xf16>
// CHECK-NEXT:    %[[Y:.+]] = "w4a16.fused_matmul"(%[[XS]], %[[QW]], %[[S]])
// CHECK-SAME:      group_size = 32 : i64
// CHECK-SAME:      : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<8x64xf16>) -> tensor<?x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @x_dynamic_k(%x: tensor<?x?xf16>, %qw: tensor<32x64xi32>, %s: tensor<8x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c4 = arith.constant 4 : i32
  %c15 = arith.constant 15 : i32
  %zp = arith.constant 8.0 : f16
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %c = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x64xf16>
    %r = arith.mulf %c, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e2 : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<256x64xf16>) outs(%f : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// CHECK-LABEL: func.func @x_dynamic_k_read_transposed(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK-NOT:     tensor.cast
// CHECK:         linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @x_dynamic_k_read_transposed(%x: tensor<?x?xf16>, %qw: tensor<32x64xi32>, %s: tensor<8x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c4 = arith.constant 4 : i32
  %c15 = arith.constant 15 : i32
  %zp = arith.constant 8.0 : f16
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %c = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x64xf16>
    %r = arith.mulf %c, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c1 : tensor<?x?xf16>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e2 : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x?xf16>, tensor<256x64xf16>) outs(%f : tensor<?x64xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %p = arith.mulf %a, %b : f16
    %r = arith.addf %acc, %p : f16
    linalg.yield %r : f16
  } -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}
