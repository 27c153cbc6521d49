// w4a16-merge-siblings on fused ops: siblings that read the same x become one w4a16.merged_matmul (issue #21).
// gate * up -> one GLU result; other same-form siblings -> one op with a result each; everything else stays,
// each with a remark in explain mode saying why.
//
// RUN: w4a16-opt --allow-unregistered-dialect --w4a16-merge-siblings --w4a16-verify --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --allow-unregistered-dialect --pass-pipeline='builtin.module(w4a16-merge-siblings)' --split-input-file %s -o /dev/null
// RUN: w4a16-opt --allow-unregistered-dialect --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// QKV: three siblings, no activation, no bias -> one op, a result per sibling, uses rewired in order.
// CHECK-LABEL: func.func @qkv(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<?x256xf16>, %[[WQ:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SQ:[a-z0-9_]+]]: tensor<2x64xf16>, %[[WK:[a-z0-9_]+]]: tensor<32x32xi32>, %[[SK:[a-z0-9_]+]]: tensor<2x32xf16>, %[[WV:[a-z0-9_]+]]: tensor<32x32xi32>, %[[SV:[a-z0-9_]+]]: tensor<2x32xf16>
// CHECK:         %[[M:.+]]:3 = "w4a16.merged_matmul"(%[[X]], %[[WQ]], %[[WK]], %[[WV]], %[[SQ]], %[[SK]], %[[SV]])
// CHECK-SAME:      activation = "none", combine = "outputs", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>
// CHECK-SAME:      -> (tensor<?x64xf16>, tensor<?x32xf16>, tensor<?x32xf16>)
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         return %[[M]]#0, %[[M]]#1, %[[M]]#2
// REMARK: merge-siblings.mlir:[[# @LINE + 2]]:8: remark: w4a16: merged 3 sibling projections of one x into one launch (outputs): {{.*}}:[[# @LINE + 2]]:8 (N = 64), {{.*}}:[[# @LINE + 3]]:8 (N = 32), {{.*}}:[[# @LINE + 5]]:8 (N = 32)
func.func @qkv(%x: tensor<?x256xf16>, %wq: tensor<32x64xi32>, %sq: tensor<2x64xf16>, %wk: tensor<32x32xi32>, %sk: tensor<2x32xf16>, %wv: tensor<32x32xi32>, %sv: tensor<2x32xf16>) -> (tensor<?x64xf16>, tensor<?x32xf16>, tensor<?x32xf16>) {
  %q = "w4a16.fused_matmul"(%x, %wq, %sq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<?x64xf16>
  %k = "w4a16.fused_matmul"(%x, %wk, %sk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x32xi32>, tensor<2x32xf16>) -> tensor<?x32xf16>

  %v = "w4a16.fused_matmul"(%x, %wv, %sv) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x32xi32>, tensor<2x32xf16>) -> tensor<?x32xf16>
  return %q, %k, %v : tensor<?x64xf16>, tensor<?x32xf16>, tensor<?x32xf16>
}

// -----

// v reads x through tensor.cast to a dynamic shape and back (torch-mlir's casts, before --canonicalize): the same x,
// so all three merge (v was left out, without a remark, until session 56). The merged op reads q's x.
// CHECK-LABEL: func.func @qkv_cast_round_trip(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<?x256xf16>
// CHECK:         %[[M:.+]]:3 = "w4a16.merged_matmul"(%[[X]],
// CHECK-SAME:      combine = "outputs"
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         return %[[M]]#0, %[[M]]#1, %[[M]]#2
// REMARK: merge-siblings.mlir:[[# @LINE + 2]]:8: remark: w4a16: merged 3 sibling projections of one x into one launch (outputs)
func.func @qkv_cast_round_trip(%x: tensor<?x256xf16>, %wq: tensor<32x64xi32>, %sq: tensor<2x64xf16>, %wk: tensor<32x32xi32>, %sk: tensor<2x32xf16>, %wv: tensor<32x32xi32>, %sv: tensor<2x32xf16>) -> (tensor<?x64xf16>, tensor<?x32xf16>, tensor<?x32xf16>) {
  %q = "w4a16.fused_matmul"(%x, %wq, %sq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<?x64xf16>
  %k = "w4a16.fused_matmul"(%x, %wk, %sk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x32xi32>, tensor<2x32xf16>) -> tensor<?x32xf16>
  %xd = tensor.cast %x : tensor<?x256xf16> to tensor<?x?xf16>
  %xc = tensor.cast %xd : tensor<?x?xf16> to tensor<?x256xf16>
  %v = "w4a16.fused_matmul"(%xc, %wv, %sv) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x32xi32>, tensor<2x32xf16>) -> tensor<?x32xf16>
  return %q, %k, %v : tensor<?x64xf16>, tensor<?x32xf16>, tensor<?x32xf16>
}

// -----

// QKV with biases (Qwen2): one bias per member, after the weights and scales.
// CHECK-LABEL: func.func @qkv_bias(
// CHECK:         "w4a16.merged_matmul"(%{{.+}}, %[[WQ:[^,]+]], %[[WK:[^,]+]], %[[SQ:[^,]+]], %[[SK:[^,]+]], %[[BQ:[^,]+]], %[[BK:[^)]+]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0>
// CHECK-NOT:     w4a16.fused_matmul
func.func @qkv_bias(%x: tensor<4x256xf16>, %wq: tensor<32x64xi32>, %sq: tensor<2x64xf16>, %bq: tensor<64xf16>, %wk: tensor<32x64xi32>, %sk: tensor<2x64xf16>, %bk: tensor<64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %q = "w4a16.fused_matmul"(%x, %wq, %sq, %bq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
  %k = "w4a16.fused_matmul"(%x, %wk, %sk, %bk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
  return %q, %k : tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// SwiGLU: silu(gate) * up, the product a linalg.generic -> one GLU op; the product and its init disappear.
// CHECK-LABEL: func.func @swiglu(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<?x256xf16>, %[[WG:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SG:[a-z0-9_]+]]: tensor<2x64xf16>, %[[WU:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SU:[a-z0-9_]+]]: tensor<2x64xf16>
// CHECK-NEXT:    %[[G:.+]] = "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-SAME:      -> tensor<?x64xf16>
// CHECK-NEXT:    return %[[G]]
// REMARK: merge-siblings.mlir:[[# @LINE + 4]]:11: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
func.func @swiglu(%x: tensor<?x256xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<?x64xf16>
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<?x64xf16>
  %init = tensor.empty(%m) : tensor<?x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<?x64xf16>, tensor<?x64xf16>) outs(%init : tensor<?x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %p = arith.mulf %a, %b : f16
    linalg.yield %p : f16
  } -> tensor<?x64xf16>
  return %h : tensor<?x64xf16>
}

// -----

// GeGLU with the factors the other way round (up * gelu_tanh(gate)), up listed first, the product in f32
// through extf/truncf, and both seen through the same expand_shape to (B, S, N) (a rank-3 model): the gate
// still comes first in the merged op, and the result is expanded the same way.
// CHECK-LABEL: func.func @geglu_rank3(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<8x256xf16>, %[[WU:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SU:[a-z0-9_]+]]: tensor<2x64xf16>, %[[WG:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SG:[a-z0-9_]+]]: tensor<2x64xf16>
// CHECK:         %[[G:.+]] = "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]])
// CHECK-SAME:      activation = "gelu_tanh", combine = "glu"
// CHECK-NEXT:    %[[E:.+]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 64] : tensor<8x64xf16> into tensor<2x4x64xf16>
// CHECK-NEXT:    return %[[E]]
func.func @geglu_rank3(%x: tensor<8x256xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>) -> tensor<2x4x64xf16> {
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<8x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<8x64xf16>
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "gelu_tanh", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<8x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<8x64xf16>
  %u3 = tensor.expand_shape %up [[0, 1], [2]] output_shape [2, 4, 64] : tensor<8x64xf16> into tensor<2x4x64xf16>
  %g3 = tensor.expand_shape %gate [[0, 1], [2]] output_shape [2, 4, 64] : tensor<8x64xf16> into tensor<2x4x64xf16>
  %init = tensor.empty() : tensor<2x4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%u3, %g3 : tensor<2x4x64xf16>, tensor<2x4x64xf16>) outs(%init : tensor<2x4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %t = arith.truncf %p : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x4x64xf16>
  return %h : tensor<2x4x64xf16>
}

// -----

// Each sibling reshapes the same rank-3 x itself (as w4a16-fuse leaves it): the same x all the same.
// CHECK-LABEL: func.func @x_reshaped_twice(
// CHECK:         tensor.collapse_shape
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         "w4a16.merged_matmul"
// CHECK-SAME:      combine = "outputs"
func.func @x_reshaped_twice(%x3: tensor<2x4x256xf16>, %wq: tensor<32x64xi32>, %sq: tensor<2x64xf16>, %wk: tensor<32x64xi32>, %sk: tensor<2x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  %xa = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<2x4x256xf16> into tensor<8x256xf16>
  %q = "w4a16.fused_matmul"(%xa, %wq, %sq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<8x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<8x64xf16>
  %xb = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<2x4x256xf16> into tensor<8x256xf16>
  %k = "w4a16.fused_matmul"(%xb, %wk, %sk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<8x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<8x64xf16>
  return %q, %k : tensor<8x64xf16>, tensor<8x64xf16>
}

// -----

// Not siblings: different x.
// CHECK-LABEL: func.func @different_x(
// CHECK-COUNT-2: "w4a16.fused_matmul"
// CHECK-NOT:     merged_matmul
func.func @different_x(%x: tensor<4x256xf16>, %y: tensor<4x256xf16>, %wq: tensor<32x64xi32>, %sq: tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %q = "w4a16.fused_matmul"(%x, %wq, %sq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %k = "w4a16.fused_matmul"(%y, %wq, %sq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %q, %k : tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// Siblings of different forms stay apart: group size 64 vs 128, f16 vs bf16 scales, a residual.
// CHECK-LABEL: func.func @different_forms(
// CHECK-COUNT-4: "w4a16.fused_matmul"
// CHECK-NOT:     merged_matmul
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 6]]:8: remark: w4a16: not merged with the sibling at {{.*}}: group sizes differ
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 6]]:8: remark: w4a16: not merged with the sibling at {{.*}}: scales element types differ
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 6]]:8: remark: w4a16: not merged with the sibling at {{.*}}: it adds a residual
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 2]]:8: remark: w4a16: not merged with the sibling at {{.*}}: group sizes differ
func.func @different_forms(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s128: tensor<2x64xf16>, %s64: tensor<4x64xf16>, %sbf: tensor<2x64xbf16>, %r: tensor<4x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) {
  %a = "w4a16.fused_matmul"(%x, %w, %s128) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %b = "w4a16.fused_matmul"(%x, %w, %s64) {activation = "none", group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<4x64xf16>) -> tensor<4x64xf16>
  %c = "w4a16.fused_matmul"(%x, %w, %sbf) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xbf16>) -> tensor<4x64xf16>
  %d = "w4a16.fused_matmul"(%x, %w, %s128, %r) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
  return %a, %b, %c, %d : tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// The merged op carries its lead's attributes, so siblings whose weight elements mean different things stay apart:
// signed (two's-complement) codes beside unsigned ones, a tensor of added offsets beside one of zero points of the
// same type and layout (merged, one member would be dequantised by the other's formula).
// CHECK-LABEL: func.func @different_weight_meaning(
// CHECK-COUNT-6: "w4a16.fused_matmul"
// CHECK-NOT:     merged_matmul
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 4]]:8: remark: w4a16: not merged with the sibling at {{.*}}: one has signed codes, the other unsigned
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 6]]:8: remark: w4a16: not merged with the sibling at {{.*}}: one adds offsets, the other subtracts zero points
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 9]]:8: remark: w4a16: not merged with the sibling at {{.*}}: one subtracts its offsets, the other adds them
func.func @different_weight_meaning(%x: tensor<4x256xf16>, %wq: tensor<256x64xi4>, %sq: tensor<2x64xf16>, %wk: tensor<256x32xi4>, %sk: tensor<2x32xf16>, %zq: tensor<2x64xf16>, %zk: tensor<2x32xf16>) -> (tensor<4x64xf16>, tensor<4x32xf16>, tensor<4x64xf16>, tensor<4x32xf16>, tensor<4x64xf16>, tensor<4x32xf16>) {
  %a = "w4a16.fused_matmul"(%x, %wq, %sq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", signed_codes, weight_layout = "k_n"} : (tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %b = "w4a16.fused_matmul"(%x, %wk, %sk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "k_n"} : (tensor<4x256xf16>, tensor<256x32xi4>, tensor<2x32xf16>) -> tensor<4x32xf16>
  %y = arith.addf %x, %x : tensor<4x256xf16>
  %c = "w4a16.fused_matmul"(%y, %wq, %sq, %zq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "k_n", zero_point_layout = "g_n", zero_points_are_offsets} : (tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %d = "w4a16.fused_matmul"(%y, %wk, %sk, %zk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "k_n", zero_point_layout = "g_n"} : (tensor<4x256xf16>, tensor<256x32xi4>, tensor<2x32xf16>, tensor<2x32xf16>) -> tensor<4x32xf16>
  %u = arith.mulf %x, %x : tensor<4x256xf16>
  %e = "w4a16.fused_matmul"(%u, %wq, %sq, %zq) {activation = "none", group_size = 128 : i64, offsets_subtracted, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "k_n", zero_point_layout = "g_n", zero_points_are_offsets} : (tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %f = "w4a16.fused_matmul"(%u, %wk, %sk, %zk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "k_n", zero_point_layout = "g_n", zero_points_are_offsets} : (tensor<4x256xf16>, tensor<256x32xi4>, tensor<2x32xf16>, tensor<2x32xf16>) -> tensor<4x32xf16>
  return %a, %b, %c, %d, %e, %f : tensor<4x64xf16>, tensor<4x32xf16>, tensor<4x64xf16>, tensor<4x32xf16>, tensor<4x64xf16>, tensor<4x32xf16>
}

// -----

// A sibling of another group size comes first (a LoRA-style or tensor-parallel neighbour); gate and up are the
// pair that could have merged, and the remarks name why they did not instead of the unrelated group-size
// difference.
// CHECK-LABEL: func.func @gate_used_twice_beside_other_group_size(
// CHECK-COUNT-3: "w4a16.fused_matmul"
// CHECK-NOT:     merged_matmul
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 5]]:8: remark: w4a16: not merged with the sibling at {{.*}}: group sizes differ
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 5]]:11: remark: w4a16: not merged with the sibling at {{.*}}:[[# @LINE + 6]]:{{.*}}: activations differ and they are not a gate and up whose product is all that uses them
// REMARK-DAG: merge-siblings.mlir:[[# @LINE + 5]]:9: remark: w4a16: not merged with the sibling at {{.*}}:[[# @LINE + 4]]:{{.*}}: activations differ and they are not a gate and up whose product is all that uses them
// REMARK-NOT: not merged
func.func @gate_used_twice_beside_other_group_size(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s64: tensor<4x64xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) {
  %l = "w4a16.fused_matmul"(%x, %w, %s64) {activation = "none", group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<4x64xf16>) -> tensor<4x64xf16>
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %init = tensor.empty() : tensor<4x64xf16>
  %h = linalg.mul ins(%gate, %up : tensor<4x64xf16>, tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %h, %gate, %l : tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// The gate's result has another user: no GLU (the product is not all that uses it), and gate (silu) and up
// (none) differ in activation: nothing merges.
// CHECK-LABEL: func.func @gate_used_twice(
// CHECK-COUNT-2: "w4a16.fused_matmul"
// CHECK-NOT:     merged_matmul
// REMARK: merge-siblings.mlir:[[# @LINE + 2]]:11: remark: w4a16: not merged with the sibling at {{.*}}: activations differ and they are not a gate and up whose product is all that uses them
func.func @gate_used_twice(%x: tensor<4x256xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %init = tensor.empty() : tensor<4x64xf16>
  %h = linalg.mul ins(%gate, %up : tensor<4x64xf16>, tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %h, %gate : tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// silu(x Wg + bg) * (x Wu): a GLU whose gate adds a bias -> one GLU op, up's bias zeros. Until session 46 the two
// stayed apart ("one of them adds a bias: a merged GLU takes none").
// CHECK-LABEL: func.func @glu_gate_bias(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4x256xf16>, %[[WG:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SG:[a-z0-9_]+]]: tensor<2x64xf16>, %[[BG:[a-z0-9_]+]]: tensor<64xf16>, %[[WU:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SU:[a-z0-9_]+]]: tensor<2x64xf16>
// CHECK:         %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<64xf16>
// CHECK-NEXT:    %[[G:.+]] = "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]], %[[BG]], %[[ZERO]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0>
// CHECK-NOT:     fused_matmul
// CHECK:         return %[[G]]
// REMARK: merge-siblings.mlir:[[# @LINE + 2]]:11: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
func.func @glu_gate_bias(%x: tensor<4x256xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %bg: tensor<64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg, %bg) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %init = tensor.empty() : tensor<4x64xf16>
  %h = linalg.mul ins(%gate, %up : tensor<4x64xf16>, tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %h : tensor<4x64xf16>
}

// -----

// Both biased, the activation on the product's way (torch-mlir: silu as a generic of its own, up first in the
// product): silu(x Wg + bg) * (x Wu + bu) -> one GLU op, gate's members and bias first.
// CHECK-LABEL: func.func @glu_both_biases(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4x256xf16>, %[[WG:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SG:[a-z0-9_]+]]: tensor<2x64xf16>, %[[BG:[a-z0-9_]+]]: tensor<64xf16>, %[[WU:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SU:[a-z0-9_]+]]: tensor<2x64xf16>, %[[BU:[a-z0-9_]+]]: tensor<64xf16>
// CHECK-NEXT:    %[[G:.+]] = "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]], %[[BG]], %[[BU]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-NEXT:    return %[[G]]
func.func @glu_both_biases(%x: tensor<4x256xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %bg: tensor<64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>, %bu: tensor<64xf16>) -> tensor<4x64xf16> {
  %up = "w4a16.fused_matmul"(%x, %wu, %su, %bu) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg, %bg) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
  %init = tensor.empty() : tensor<4x64xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %neg = arith.negf %a : f16
    %e = math.exp %neg : f16
    %one = arith.constant 1.0 : f16
    %d = arith.addf %one, %e : f16
    %y = arith.divf %a, %d : f16
    linalg.yield %y : f16
  } -> tensor<4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<4x64xf16>, tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %p = arith.mulf %a, %b : f16
    linalg.yield %p : f16
  } -> tensor<4x64xf16>
  return %h : tensor<4x64xf16>
}

// -----

// A consumer that is not the product (gate + up; gate * up + 1) is no GLU.
// CHECK-LABEL: func.func @not_a_product(
// CHECK-COUNT-2: "w4a16.fused_matmul"
// CHECK-NOT:     merged_matmul
func.func @not_a_product(%x: tensor<4x256xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %init = tensor.empty() : tensor<4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<4x64xf16>, tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %p = arith.mulf %a, %b : f16
    %q = arith.addf %p, %one : f16
    linalg.yield %q : f16
  } -> tensor<4x64xf16>
  return %h : tensor<4x64xf16>
}

// -----

// Placement: k's weight is made after q, and q's result is used before k: no point in the block where the
// merged op could go, so nothing merges (the IR stays valid).
// CHECK-LABEL: func.func @no_place(
// CHECK-COUNT-2: "w4a16.fused_matmul"
// CHECK-NOT:     merged_matmul
// REMARK: merge-siblings.mlir:[[# @LINE + 2]]:8: remark: w4a16: not merged with the sibling at {{.*}}: no place in the block
func.func @no_place(%x: tensor<4x256xf16>, %wq: tensor<32x64xi32>, %sq: tensor<2x64xf16>, %sk: tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %q = "w4a16.fused_matmul"(%x, %wq, %sq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %e = tensor.extract_slice %q[0, 0] [4, 32] [1, 1] : tensor<4x64xf16> to tensor<4x32xf16>
  %wk = "test.make_weight"(%e) : (tensor<4x32xf16>) -> tensor<32x64xi32>
  %k = "w4a16.fused_matmul"(%x, %wk, %sk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %q, %k : tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// ReGLU spelled with no activation on the gate: relu(gate) * up is no bilinear GLU (gate * up). Both have no
// activation, so they still merge, as two outputs, and the product stays.
// CHECK-LABEL: func.func @relu_times_up(
// CHECK:         %[[M:.+]]:2 = "w4a16.merged_matmul"
// CHECK-SAME:      combine = "outputs"
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[M]]#0, %[[M]]#1
func.func @relu_times_up(%x: tensor<4x256xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %init = tensor.empty() : tensor<4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<4x64xf16>, tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %zero = arith.constant 0.0 : f16
    %r = arith.maximumf %a, %zero : f16
    %p = arith.mulf %r, %b : f16
    linalg.yield %p : f16
  } -> tensor<4x64xf16>
  return %h : tensor<4x64xf16>
}

// -----

// Weights as constants defined right before each use (some frontends do), and q's result used before k: the
// merged op goes where q was, k's constants move up to it.
// CHECK-LABEL: func.func @inline_constants(
// CHECK:         arith.constant dense<1> : tensor<32x64xi32>
// CHECK:         arith.constant dense<1.000000e+00> : tensor<2x64xf16>
// CHECK:         arith.constant dense<2> : tensor<32x64xi32>
// CHECK:         arith.constant dense<2.000000e+00> : tensor<2x64xf16>
// CHECK:         %[[M:.+]]:2 = "w4a16.merged_matmul"
// CHECK:         tensor.extract_slice %[[M]]#0
// CHECK-NOT:     w4a16.fused_matmul
func.func @inline_constants(%x: tensor<4x256xf16>) -> (tensor<4x32xf16>, tensor<4x64xf16>) {
  %wq = arith.constant dense<1> : tensor<32x64xi32>
  %sq = arith.constant dense<1.0> : tensor<2x64xf16>
  %q = "w4a16.fused_matmul"(%x, %wq, %sq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %e = tensor.extract_slice %q[0, 0] [4, 32] [1, 1] : tensor<4x64xf16> to tensor<4x32xf16>
  %wk = arith.constant dense<2> : tensor<32x64xi32>
  %sk = arith.constant dense<2.0> : tensor<2x64xf16>
  %k = "w4a16.fused_matmul"(%x, %wk, %sk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %e, %k : tensor<4x32xf16>, tensor<4x64xf16>
}

// -----

// Each projection's own view of its weight right before it, and the gate's result reshaped before the up's view
// (what --w4a16-fuse leaves for a torch-mlir MLP after upstream's elementwise fusion, x-in-contraction-body.mlir):
// the view (and the shape query its expand_shape takes) moves up with the merged op; the product is a GLU.
// CHECK-LABEL: func.func @weight_view_after_first_use(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<?x256xf16>, %[[WG:[a-z0-9_]+]]: tensor<64x2x128xi4>, %[[SG:[a-z0-9_]+]]: tensor<64x2xf16>, %[[WU:[a-z0-9_]+]]: tensor<64x2x128xi4>
// CHECK:         %[[CG:.+]] = tensor.collapse_shape %[[WG]]
// CHECK:         %[[CU:.+]] = tensor.collapse_shape %[[WU]]
// CHECK:         %[[M:.+]] = "w4a16.merged_matmul"(%[[X]], %[[CG]], %[[CU]], %[[SG]],
// CHECK-SAME:      combine = "glu"
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         tensor.expand_shape %[[M]]
// REMARK: merge-siblings.mlir:[[# @LINE + 4]]:11: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
func.func @weight_view_after_first_use(%x: tensor<?x256xf16>, %wg: tensor<64x2x128xi4>, %sg: tensor<64x2xf16>, %wu: tensor<64x2x128xi4>, %su: tensor<64x2xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %cg = tensor.collapse_shape %wg [[0], [1, 2]] : tensor<64x2x128xi4> into tensor<64x256xi4>
  %gate = "w4a16.fused_matmul"(%x, %cg, %sg) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<?x256xf16>, tensor<64x256xi4>, tensor<64x2xf16>) -> tensor<?x64xf16>
  %m = tensor.dim %gate, %c0 : tensor<?x64xf16>
  %ge = tensor.expand_shape %gate [[0], [1, 2]] output_shape [%m, 2, 32] : tensor<?x64xf16> into tensor<?x2x32xf16>
  %cu = tensor.collapse_shape %wu [[0], [1, 2]] : tensor<64x2x128xi4> into tensor<64x256xi4>
  %up = "w4a16.fused_matmul"(%x, %cu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<?x256xf16>, tensor<64x256xi4>, tensor<64x2xf16>) -> tensor<?x64xf16>
  %ue = tensor.expand_shape %up [[0], [1, 2]] output_shape [%m, 2, 32] : tensor<?x64xf16> into tensor<?x2x32xf16>
  %init = tensor.empty(%m) : tensor<?x2x32xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ge, %ue : tensor<?x2x32xf16>, tensor<?x2x32xf16>) outs(%init : tensor<?x2x32xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %r = arith.divf %one, %d : f16
    %g = arith.mulf %a, %r : f16
    %p = arith.mulf %g, %b : f16
    linalg.yield %p : f16
  } -> tensor<?x2x32xf16>
  %hc = tensor.collapse_shape %h [[0], [1, 2]] : tensor<?x2x32xf16> into tensor<?x64xf16>
  return %hc : tensor<?x64xf16>
}

// -----

// The same with the weights' views as slices that drop a unit dim (upstream's --linalg-fold-unit-extent-dims
// with rank-reducing slices): such a slice is a reshape, and it moves up with the merged op as the collapse did.
// CHECK-LABEL: func.func @weight_slice_after_first_use(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<?x256xf16>, %[[WG:[a-z0-9_]+]]: tensor<1x64x256xi4>, %[[SG:[a-z0-9_]+]]: tensor<64x2xf16>, %[[WU:[a-z0-9_]+]]: tensor<1x64x256xi4>
// CHECK:         %[[CG:.+]] = tensor.extract_slice %[[WG]]
// CHECK:         %[[CU:.+]] = tensor.extract_slice %[[WU]]
// CHECK:         %[[M:.+]] = "w4a16.merged_matmul"(%[[X]], %[[CG]], %[[CU]], %[[SG]],
// CHECK-SAME:      combine = "glu"
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: merge-siblings.mlir:[[# @LINE + 4]]:11: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
func.func @weight_slice_after_first_use(%x: tensor<?x256xf16>, %wg: tensor<1x64x256xi4>, %sg: tensor<64x2xf16>, %wu: tensor<1x64x256xi4>, %su: tensor<64x2xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %cg = tensor.extract_slice %wg[0, 0, 0] [1, 64, 256] [1, 1, 1] : tensor<1x64x256xi4> to tensor<64x256xi4>
  %gate = "w4a16.fused_matmul"(%x, %cg, %sg) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<?x256xf16>, tensor<64x256xi4>, tensor<64x2xf16>) -> tensor<?x64xf16>
  %m = tensor.dim %gate, %c0 : tensor<?x64xf16>
  %cu = tensor.extract_slice %wu[0, 0, 0] [1, 64, 256] [1, 1, 1] : tensor<1x64x256xi4> to tensor<64x256xi4>
  %up = "w4a16.fused_matmul"(%x, %cu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<?x256xf16>, tensor<64x256xi4>, tensor<64x2xf16>) -> tensor<?x64xf16>
  %init = tensor.empty(%m) : tensor<?x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<?x64xf16>, tensor<?x64xf16>) outs(%init : tensor<?x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %r = arith.divf %one, %d : f16
    %g = arith.mulf %a, %r : f16
    %p = arith.mulf %g, %b : f16
    linalg.yield %p : f16
  } -> tensor<?x64xf16>
  return %h : tensor<?x64xf16>
}

// -----

// Bias on q only: k gets a zero bias, so that they still run as one launch.
// CHECK-LABEL: func.func @bias_on_one(
// CHECK-SAME:    %[[BQ:[a-z0-9_]+]]: tensor<64xf16>
// CHECK:         %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<32xf16>
// CHECK:         "w4a16.merged_matmul"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[BQ]], %[[ZERO]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0>
func.func @bias_on_one(%x: tensor<4x256xf16>, %wq: tensor<32x64xi32>, %sq: tensor<2x64xf16>, %bq: tensor<64xf16>, %wk: tensor<32x32xi32>, %sk: tensor<2x32xf16>) -> (tensor<4x64xf16>, tensor<4x32xf16>) {
  %q = "w4a16.fused_matmul"(%x, %wq, %sq, %bq) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
  %k = "w4a16.fused_matmul"(%x, %wk, %sk) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x32xi32>, tensor<2x32xf16>) -> tensor<4x32xf16>
  return %q, %k : tensor<4x64xf16>, tensor<4x32xf16>
}

// -----

// Five siblings: the first four merge, the fifth stays, and says why.
// CHECK-LABEL: func.func @five(
// CHECK:         "w4a16.merged_matmul"
// CHECK-SAME:      resultSegmentSizes = array<i32: 1, 1, 1, 1>
// CHECK:         "w4a16.fused_matmul"
// REMARK: merge-siblings.mlir:[[# @LINE + 6]]:8: remark: w4a16: not merged with the sibling at {{.*}}: its siblings merged without it: a merged op holds at most 4
func.func @five(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) {
  %a = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %b = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %c = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %d = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %e = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %a, %b, %c, %d, %e : tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>
}

// -----

// Neither fused op applies the activation: silu(gate) is its own generic on the way to the product (torch-mlir
// lowers aten.silu and aten.mul to one generic each). The path's activation becomes the glu's; both generics go.
// CHECK-LABEL: func.func @silu_on_the_path(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4x256xf16>, %[[WG:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SG:[a-z0-9_]+]]: tensor<2x64xf16>, %[[WU:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SU:[a-z0-9_]+]]: tensor<2x64xf16>
// CHECK-NEXT:    %[[G:.+]] = "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-NEXT:    return %[[G]]
// REMARK: merge-siblings.mlir:[[# @LINE + 2]]:11: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
func.func @silu_on_the_path(%x: tensor<4x256xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %init = tensor.empty() : tensor<4x64xf16>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %one, %e : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %sig, %a : f16
    linalg.yield %v : f16
  } -> tensor<4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %s : tensor<4x64xf16>, tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %p = arith.mulf %a, %b : f16
    linalg.yield %p : f16
  } -> tensor<4x64xf16>
  return %h : tensor<4x64xf16>
}

// -----

// gelu_tanh(gate) * up in one generic, in f32, with up listed first and as the product's first factor: the
// second sibling is the gate.
// CHECK-LABEL: func.func @gelu_in_the_product(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4x256xf16>, %[[WU:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SU:[a-z0-9_]+]]: tensor<2x64xf16>, %[[WG:[a-z0-9_]+]]: tensor<32x64xi32>, %[[SG:[a-z0-9_]+]]: tensor<2x64xf16>
// CHECK-NEXT:    %[[G:.+]] = "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]])
// CHECK-SAME:      activation = "gelu_tanh", combine = "glu"
// CHECK-NEXT:    return %[[G]]
func.func @gelu_in_the_product(%x: tensor<4x256xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %init = tensor.empty() : tensor<4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %gate : tensor<4x64xf16>, tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
  ^bb0(%u16: f16, %g16: f16, %o: f16):
    %u = arith.extf %u16 : f16 to f32
    %v = arith.extf %g16 : f16 to f32
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %beta = arith.constant 0.797884583 : f32
    %kappa = arith.constant 4.471500e-02 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %kv3 = arith.mulf %kappa, %v3 : f32
    %inner = arith.addf %v, %kv3 : f32
    %arg = arith.mulf %beta, %inner : f32
    %t = math.tanh %arg : f32
    %onept = arith.addf %one, %t : f32
    %hv = arith.mulf %half, %v : f32
    %gl = arith.mulf %hv, %onept : f32
    %p = arith.mulf %u, %gl : f32
    %r = arith.truncf %p : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x64xf16>
  return %h : tensor<4x64xf16>
}

// -----

// relu(gate) on the path is no activation a glu takes: both have none, so they merge as two outputs and the
// relu and the product stay.
// CHECK-LABEL: func.func @relu_on_the_path(
// CHECK:         %[[M:.+]]:2 = "w4a16.merged_matmul"
// CHECK-SAME:      combine = "outputs"
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[M]]#0
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[R]], %[[M]]#1
func.func @relu_on_the_path(%x: tensor<4x256xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<4x64xf16>
  %init = tensor.empty() : tensor<4x64xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %zero = arith.constant 0.0 : f16
    %v = arith.maximumf %a, %zero : f16
    linalg.yield %v : f16
  } -> tensor<4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r, %up : tensor<4x64xf16>, tensor<4x64xf16>) outs(%init : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %p = arith.mulf %a, %b : f16
    linalg.yield %p : f16
  } -> tensor<4x64xf16>
  return %h : tensor<4x64xf16>
}

// -----

// torch-mlir sizes every output by tensor.dim of an input: the gate, the silu's result and up are also read by
// tensor.dim. Such reads see only the shape, which the merged result has: they merge all the same, and the dims
// are read from the merged result (the separate ops are gone).
// CHECK-LABEL: func.func @dims_on_the_way(
// CHECK:         %[[G:.+]] = "w4a16.merged_matmul"
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-NEXT:    %[[D:.+]] = tensor.dim %[[G]], %{{.+}} : tensor<?x64xf16>
// CHECK-NEXT:    return %[[G]], %[[D]]
// CHECK-NOT:     w4a16.fused_matmul
func.func @dims_on_the_way(%x: tensor<?x256xf16>, %wg: tensor<32x64xi32>, %sg: tensor<2x64xf16>, %wu: tensor<32x64xi32>, %su: tensor<2x64xf16>) -> (tensor<?x64xf16>, index) {
  %c0 = arith.constant 0 : index
  %gate = "w4a16.fused_matmul"(%x, %wg, %sg) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<?x64xf16>
  %up = "w4a16.fused_matmul"(%x, %wu, %su) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>) -> tensor<?x64xf16>
  %mg = tensor.dim %gate, %c0 : tensor<?x64xf16>
  %ge = tensor.empty(%mg) : tensor<?x64xf16>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x64xf16>) outs(%ge : tensor<?x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %one, %e : f16
    %v = arith.divf %a, %d : f16
    linalg.yield %v : f16
  } -> tensor<?x64xf16>
  %ms = tensor.dim %s, %c0 : tensor<?x64xf16>
  %mu = tensor.dim %up, %c0 : tensor<?x64xf16>
  %pe = tensor.empty(%mu) : tensor<?x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s, %up : tensor<?x64xf16>, tensor<?x64xf16>) outs(%pe : tensor<?x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %p = arith.mulf %a, %b : f16
    linalg.yield %p : f16
  } -> tensor<?x64xf16>
  return %h, %ms : tensor<?x64xf16>, index
}
