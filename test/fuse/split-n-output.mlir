// N split over the output's last two dims: y[m, h, d] = sum_k x[m, k] * W[k, h * D + d], a [.., H, D] view of a
// projection's output (attention heads) that upstream's --linalg-fuse-elementwise-ops folds into the
// contraction when it propagates the reshape. The fused op computes (M, N) and the result is expanded back to
// [M, H, D] (or [H, D] for a matvec); an [H, D] bias is a bias of N elements.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --split-input-file %S/multi-chain.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=MULTI
// (llama_mlp_torch's gate and up, their outputs split [32, 112, 128] by the fused reshape, fuse; its down
// and llama_mlp_gptq's down do not: upstream moved silu(gate) * up into down's body, so x is no tensor)
// MULTI-COUNT-10: remark: w4a16: fused as

#mq = affine_map<(k, h, d) -> (k, h, d)>
#ms = affine_map<(k, h, d) -> (k floordiv 128, h, d)>
#mx = affine_map<(m, h, d, k) -> (m, k)>
#mw = affine_map<(m, h, d, k) -> (k, h, d)>
#mo = affine_map<(m, h, d, k) -> (m, h, d)>
// CHECK-LABEL: func.func @heads_output(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x512xf16>
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<512x4x64xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<4x4x64xf16>
// CHECK-NOT:     linalg.
// CHECK-DAG:     %[[QC:.+]] = tensor.collapse_shape %[[Q]] {{\[\[}}0], [1, 2]] : tensor<512x4x64xi4> into tensor<512x256xi4>
// CHECK-DAG:     %[[SC:.+]] = tensor.collapse_shape %[[S]] {{\[\[}}0], [1, 2]] : tensor<4x4x64xf16> into tensor<4x256xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QC]], %[[SC]])
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<?x512xf16>, tensor<512x256xi4>, tensor<4x256xf16>) -> tensor<?x256xf16>
// CHECK:         %[[E:.+]] = tensor.expand_shape %[[R]] {{\[\[}}0], [1, 2]] output_shape [%{{.+}}, 4, 64] : tensor<?x256xf16> into tensor<?x4x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[E]] : tensor<?x4x64xf16>
func.func @heads_output(%x: tensor<?x512xf16>, %q: tensor<512x4x64xi4>, %s: tensor<4x4x64xf16>) -> tensor<?x4x64xf16> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e0 = tensor.empty() : tensor<512x4x64xf16>
  %w = linalg.generic {indexing_maps = [#mq, #ms, #mq], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q, %s : tensor<512x4x64xi4>, tensor<4x4x64xf16>) outs(%e0 : tensor<512x4x64xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    linalg.yield %3 : f16
  } -> tensor<512x4x64xf16>
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %e = tensor.empty(%m) : tensor<?x4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<?x4x64xf16>) -> tensor<?x4x64xf16>
  %y = linalg.generic {indexing_maps = [#mx, #mw, #mo], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x512xf16>, tensor<512x4x64xf16>) outs(%f : tensor<?x4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %p = arith.mulf %a, %b : f16
    %r = arith.addf %acc, %p : f16
    linalg.yield %r : f16
  } -> tensor<?x4x64xf16>
  return %y : tensor<?x4x64xf16>
}

// -----

// A decode matvec (no M) with a [H, D] output and an [H, D] bias.

#mq = affine_map<(k, h, d) -> (k, h, d)>
#ms = affine_map<(k, h, d) -> (k floordiv 128, h, d)>
#mx = affine_map<(h, d, k) -> (k)>
#mw = affine_map<(h, d, k) -> (k, h, d)>
#mo = affine_map<(h, d, k) -> (h, d)>
#id = affine_map<(h, d) -> (h, d)>
// CHECK-LABEL: func.func @heads_matvec_bias(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<512xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<4x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      : (tensor<1x512xf16>, tensor<512x256xi4>, tensor<4x256xf16>, tensor<256xf16>) -> tensor<1x256xf16>
// CHECK:         %[[V:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1]] : tensor<1x256xf16> into tensor<256xf16>
// CHECK:         %[[E:.+]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1]] output_shape [4, 64] : tensor<256xf16> into tensor<4x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[E]] : tensor<4x64xf16>
func.func @heads_matvec_bias(%x: tensor<512xf16>, %q: tensor<512x4x64xi4>, %s: tensor<4x4x64xf16>, %b: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e0 = tensor.empty() : tensor<512x4x64xf16>
  %w = linalg.generic {indexing_maps = [#mq, #ms, #mq], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q, %s : tensor<512x4x64xi4>, tensor<4x4x64xf16>) outs(%e0 : tensor<512x4x64xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    linalg.yield %3 : f16
  } -> tensor<512x4x64xf16>
  %e = tensor.empty() : tensor<4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.generic {indexing_maps = [#mx, #mw, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<512xf16>, tensor<512x4x64xf16>) outs(%f : tensor<4x64xf16>) {
  ^bb0(%a: f16, %wb: f16, %acc: f16):
    %p = arith.mulf %a, %wb : f16
    %r = arith.addf %acc, %p : f16
    linalg.yield %r : f16
  } -> tensor<4x64xf16>
  %e2 = tensor.empty() : tensor<4x64xf16>
  %out = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %b : tensor<4x64xf16>, tensor<4x64xf16>) outs(%e2 : tensor<4x64xf16>) {
  ^bb0(%v: f16, %bv: f16, %o: f16):
    %r = arith.addf %v, %bv : f16
    linalg.yield %r : f16
  } -> tensor<4x64xf16>
  return %out : tensor<4x64xf16>
}
