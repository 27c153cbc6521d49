// Decode (M = 1) written with linalg's named vector contractions instead of a matmul: linalg.vecmat (x (K) times
// the (K, N) dequantised weight, as a frontend that folds the unit M dim of x @ W emits it) and linalg.matvec (the
// (N, K) weight times x (K), torch's F.linear on a 1-D x). Both compute the chain with M = 1: x becomes a (1, K)
// view and the (1, N) result goes back to (N). A dequantisation computed in f32 from f32 scales and truncated to f16
// (torch code that upcasts before the multiply) is not the op's formula (scales f16 or bf16): it stays unfused with
// a remark that says so. A matvec whose (N) result is expanded to [1, 1, N] (a rank-3 decode step) takes its
// epilogue there (it used to fuse the matmul only).
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @decode_vecmat(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<256xf16>
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<256x64xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>
// CHECK-NEXT:    %[[X2:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [1, 256] : tensor<256xf16> into tensor<1x256xf16>
// CHECK-NEXT:    %[[R:.+]] = "w4a16.fused_matmul"(%[[X2]], %[[Q]], %[[S]])
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      -> tensor<1x64xf16>
// CHECK-NEXT:    %[[R1:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1]] : tensor<1x64xf16> into tensor<64xf16>
// CHECK-NEXT:    return %[[R1]]
// REMARK: named-matvec.mlir:[[@LINE+17]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
func.func @decode_vecmat(%x: tensor<256xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>,
                                        affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<256x64xi4>, tensor<2x64xf16>) outs(%e : tensor<256x64xf16>) {
  ^bb0(%a: i4, %b: f16, %o: f16):
    %i = arith.extui %a : i4 to i32
    %f = arith.uitofp %i : i32 to f16
    %c8 = arith.constant 8.0 : f16
    %d = arith.subf %f, %c8 : f16
    %r = arith.mulf %d, %b : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %e2 = tensor.empty() : tensor<64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e2 : tensor<64xf16>) -> tensor<64xf16>
  %y = linalg.vecmat ins(%x, %w : tensor<256xf16>, tensor<256x64xf16>) outs(%acc : tensor<64xf16>) -> tensor<64xf16>
  return %y : tensor<64xf16>
}

// -----

// CHECK-LABEL: func.func @decode_matvec(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<256xf16>
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<64x256xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<64x2xf16>
// CHECK-NEXT:    %[[X2:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [1, 256] : tensor<256xf16> into tensor<1x256xf16>
// CHECK-NEXT:    %[[R:.+]] = "w4a16.fused_matmul"(%[[X2]], %[[Q]], %[[S]])
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      -> tensor<1x64xf16>
// CHECK-NEXT:    %[[R1:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1]] : tensor<1x64xf16> into tensor<64xf16>
// CHECK-NEXT:    return %[[R1]]
// REMARK: named-matvec.mlir:[[@LINE+17]]:8: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
func.func @decode_matvec(%x: tensor<256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x2xf16>) -> tensor<64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k floordiv 128)>,
                                        affine_map<(n, k) -> (n, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<64x256xi4>, tensor<64x2xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%a: i4, %b: f16, %o: f16):
    %i = arith.extui %a : i4 to i32
    %f = arith.uitofp %i : i32 to f16
    %c8 = arith.constant 8.0 : f16
    %d = arith.subf %f, %c8 : f16
    %r = arith.mulf %d, %b : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %e2 = tensor.empty() : tensor<64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e2 : tensor<64xf16>) -> tensor<64xf16>
  %y = linalg.matvec ins(%w, %x : tensor<64x256xf16>, tensor<256xf16>) outs(%acc : tensor<64xf16>) -> tensor<64xf16>
  return %y : tensor<64xf16>
}

// -----

// CHECK-LABEL: func.func @decode_f32_scales(
// CHECK:         linalg.generic
// CHECK:         linalg.vecmat
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: named-matvec.mlir:[[@LINE+18]]:8: remark: w4a16: not fused: scales are f32, expected f16 or bf16
func.func @decode_f32_scales(%x: tensor<256xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf32>) -> tensor<64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>,
                                        affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<256x64xi4>, tensor<2x64xf32>) outs(%e : tensor<256x64xf16>) {
  ^bb0(%a: i4, %b: f32, %o: f16):
    %i = arith.extui %a : i4 to i32
    %f = arith.uitofp %i : i32 to f32
    %c8 = arith.constant 8.0 : f32
    %d = arith.subf %f, %c8 : f32
    %r = arith.mulf %d, %b : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x64xf16>
  %e2 = tensor.empty() : tensor<64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e2 : tensor<64xf16>) -> tensor<64xf16>
  %y = linalg.vecmat ins(%x, %w : tensor<256xf16>, tensor<256x64xf16>) outs(%acc : tensor<64xf16>) -> tensor<64xf16>
  return %y : tensor<64xf16>
}

// -----

// Decode step of a rank-3 model: x [1, 1, K] collapsed to (K), linalg.matvec on the (N, K) weight, the (N) result
// expanded back to [1, 1, N], then bias, silu (as v / (1 + exp(-v))) and a [1, 1, N] residual.
// CHECK-LABEL: func.func @decode_matvec_rank3_epilogue(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<1x1x256xf16>
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<64x256xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<64x2xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<1x1x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<64xf16>
// CHECK-DAG:     %[[X2:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]]
// CHECK-DAG:     %[[R2:.+]] = tensor.collapse_shape %[[RES]] {{\[\[}}0, 1], [2]]
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[X2]], %[[Q]], %[[S]], %[[B]], %[[R2]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      -> tensor<1x64xf16>
// CHECK:         %[[O:.+]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [1, 1, 64]
// CHECK-NOT:     linalg.
// CHECK:         return %[[O]]
// REMARK: named-matvec.mlir:[[@LINE+19]]:8: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul -> bias -> silu -> residual
func.func @decode_matvec_rank3_epilogue(%x: tensor<1x1x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x2xf16>,
                                        %res: tensor<1x1x64xf16>, %bias: tensor<64xf16>) -> tensor<1x1x64xf16> {
  %c8 = arith.constant 8.0 : f16
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k floordiv 128)>,
                                        affine_map<(n, k) -> (n, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<64x256xi4>, tensor<64x2xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %i = arith.extui %c : i4 to i32
    %f = arith.uitofp %i : i32 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %xv = tensor.collapse_shape %x [[0, 1, 2]] : tensor<1x1x256xf16> into tensor<256xf16>
  %ey = tensor.empty() : tensor<64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<64xf16>) -> tensor<64xf16>
  %y = linalg.matvec ins(%w, %xv : tensor<64x256xf16>, tensor<256xf16>) outs(%acc : tensor<64xf16>) -> tensor<64xf16>
  %y3 = tensor.expand_shape %y [[0, 1, 2]] output_shape [1, 1, 64] : tensor<64xf16> into tensor<1x1x64xf16>
  %eo = tensor.empty() : tensor<1x1x64xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (c)>,
                                        affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y3, %bias, %res : tensor<1x1x64xf16>, tensor<64xf16>, tensor<1x1x64xf16>) outs(%eo : tensor<1x1x64xf16>) {
  ^bb0(%v0: f16, %bb: f16, %r: f16, %oo: f16):
    %one = arith.constant 1.0 : f16
    %v = arith.addf %v0, %bb : f16
    %n = arith.negf %v : f16
    %ex = math.exp %n : f16
    %den = arith.addf %ex, %one : f16
    %sl = arith.divf %v, %den : f16
    %t = arith.addf %sl, %r : f16
    linalg.yield %t : f16
  } -> tensor<1x1x64xf16>
  return %o : tensor<1x1x64xf16>
}
