// A JAX-style int4 chain, hand-written in the form upstream's stablehlo-to-linalg lowering gives jnp int4 weights
// (not captured from a real export): the signed i4 weight is converted straight to bf16 (arith.sitofp, no extsi)
// and scaled per (group, column); dot_general becomes a linalg.generic contracting a pre-grouped x (M, K/G, G) with
// the (K/G, G, N) weight over both group dims in f32 (extf of both operands), and the result is truncated to bf16.
// It is x @ W with two's-complement codes in bf16: one fused op, signed_codes, bf16 x and scales. The same
// conversion with one scale per output column (per-channel, G = K: not in the op's scope) stays unfused, with the
// rule named.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ms = affine_map<(d0, d1, d2) -> (d0, d2)>
#mx = affine_map<(m, n, g, j) -> (m, g, j)>
#mw = affine_map<(m, n, g, j) -> (g, j, n)>
#mo = affine_map<(m, n, g, j) -> (m, n)>
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n, signed codes) -> matmul [x bf16, scales bf16]
// CHECK-LABEL: func.func @grouped_dot_general(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x4096xbf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x128x4096xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x4096xbf16>
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]]
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      signed_codes
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      -> tensor<8x4096xbf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
func.func @grouped_dot_general(%x: tensor<8x4096xbf16>, %w: tensor<32x128x4096xi4>, %s: tensor<32x4096xbf16>) -> tensor<8x4096xbf16> {
  %e = tensor.empty() : tensor<32x128x4096xbf16>
  %d = linalg.generic {indexing_maps = [#m3, #ms, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x4096xi4>, tensor<32x4096xbf16>) outs(%e : tensor<32x128x4096xbf16>) {
  ^bb0(%q: i4, %sc: bf16, %o: bf16):
    %f = arith.sitofp %q : i4 to bf16
    %r = arith.mulf %f, %sc : bf16
    linalg.yield %r : bf16
  } -> tensor<32x128x4096xbf16>
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [8, 32, 128] : tensor<8x4096xbf16> into tensor<8x32x128xbf16>
  %z = arith.constant 0.0 : f32
  %acc0 = tensor.empty() : tensor<8x4096xf32>
  %acc = linalg.fill ins(%z : f32) outs(%acc0 : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %mm = linalg.generic {indexing_maps = [#mx, #mw, #mo], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %d : tensor<8x32x128xbf16>, tensor<32x128x4096xbf16>) outs(%acc : tensor<8x4096xf32>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %t = arith.addf %c, %p : f32
    linalg.yield %t : f32
  } -> tensor<8x4096xf32>
  %o0 = tensor.empty() : tensor<8x4096xbf16>
  %out = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<8x4096xf32>) outs(%o0 : tensor<8x4096xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x4096xbf16>
  return %out : tensor<8x4096xbf16>
}

// -----

#m2 = affine_map<(d0, d1) -> (d0, d1)>
#ms = affine_map<(d0, d1) -> (d1)>
// REMARK: remark: w4a16: not fused: scale per column (one scale per output column, no K groups)
// CHECK-LABEL: func.func @per_channel(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
func.func @per_channel(%x: tensor<8x4096xbf16>, %w: tensor<4096x4096xi4>, %s: tensor<4096xbf16>) -> tensor<8x4096xbf16> {
  %e = tensor.empty() : tensor<4096x4096xbf16>
  %d = linalg.generic {indexing_maps = [#m2, #ms, #m2], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<4096x4096xi4>, tensor<4096xbf16>) outs(%e : tensor<4096x4096xbf16>) {
  ^bb0(%q: i4, %sc: bf16, %o: bf16):
    %f = arith.sitofp %q : i4 to bf16
    %r = arith.mulf %f, %sc : bf16
    linalg.yield %r : bf16
  } -> tensor<4096x4096xbf16>
  %z = arith.constant 0.0 : bf16
  %acc0 = tensor.empty() : tensor<8x4096xbf16>
  %acc = linalg.fill ins(%z : bf16) outs(%acc0 : tensor<8x4096xbf16>) -> tensor<8x4096xbf16>
  %mm = linalg.matmul ins(%x, %d : tensor<8x4096xbf16>, tensor<4096x4096xbf16>) outs(%acc : tensor<8x4096xbf16>) -> tensor<8x4096xbf16>
  return %mm : tensor<8x4096xbf16>
}
