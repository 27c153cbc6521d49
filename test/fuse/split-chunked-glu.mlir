// w4a16-split-chunked-glu on fused ops: a gate_up projection of 2I columns whose result is chunked into gate and up
// halves feeding act(gate) * up becomes two fused ops on column windows of its stored operands, which
// w4a16-merge-siblings merges into one glu; look-alikes stay whole, each with a remark naming the rule.
// test/fuse/phi3-mlp.mlir runs the same from a Phi-3 MLP as torch-mlir lowers it.
//
// RUN: w4a16-opt --w4a16-split-chunked-glu --w4a16-merge-siblings --w4a16-verify --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-split-chunked-glu --w4a16-verify --split-input-file %s | FileCheck %s --check-prefix=SPLIT
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-split-chunked-glu,w4a16-merge-siblings)' --split-input-file %s -o /dev/null
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: w4a16-opt --w4a16-pipeline --split-input-file %s -o /dev/null

// GPTQ packed along K (K/8, N) words and (K/G, N) scales, dynamic M read back by tensor.dim (as torch-mlir
// sizes its slices and outputs): columns [0, I) are the gate (silu), [I, 2I) up. Split into two fused ops on
// column windows, then merged into one glu; the silu and the product disappear.
// CHECK-LABEL: func.func @gptq(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x256xf16>, %[[W:[a-z0-9]+]]: tensor<32x1024xi32>, %[[S:[a-z0-9]+]]: tensor<2x1024xf16>
// CHECK:         %[[WG:.+]] = tensor.extract_slice %[[W]][0, 0] [32, 512] [1, 1]
// CHECK:         %[[SG:.+]] = tensor.extract_slice %[[S]][0, 0] [2, 512] [1, 1]
// CHECK:         %[[WU:.+]] = tensor.extract_slice %[[W]][0, 512] [32, 512] [1, 1]
// CHECK:         %[[SU:.+]] = tensor.extract_slice %[[S]][0, 512] [2, 512] [1, 1]
// CHECK:         %[[H:.+]] = "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-NEXT:    return %[[H]]
// SPLIT-LABEL: func.func @gptq(
// SPLIT:         %[[G:.+]] = "w4a16.fused_matmul"({{.+}}) {{.+}} -> tensor<?x512xf16>
// SPLIT:         %[[U:.+]] = "w4a16.fused_matmul"({{.+}}) {{.+}} -> tensor<?x512xf16>
// SPLIT-NOT:     tensor<?x1024xf16>
// SPLIT:         tensor.dim %[[G]]
// SPLIT:         linalg.generic {{.+}} ins(%[[G]] :
// SPLIT:         linalg.generic {{.+}} ins(%[[U]], %{{.+}} :
// SPLIT-NEXT:    ^bb0
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu: gate columns [0, 512), up [512, 1024), silu(gate) * up
func.func @gptq(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> (tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// The rows read from x (what --cse leaves: one tensor.dim of x for every (M, .) tensor of the block, as in
// examples/phi3_mlp.mlir through --canonicalize --cse): x's dim 0 is the result's; the same split and glu.
// CHECK-LABEL: func.func @rows_from_x(
// CHECK:         %[[H:.+]] = "w4a16.merged_matmul"
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-NEXT:    return %[[H]]
// REMARK: split-chunked-glu.mlir:[[# @LINE + 4]]:9: remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu
func.func @rows_from_x(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> (tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// A [B, S, K] x: the chunks of the result's [B, S, 2I] view sized by x's own dims (what --canonicalize leaves: the
// row dims read back from x), computed apart from the ones the view names; the same split and glu.
// CHECK-LABEL: func.func @rank3_rows_from_x(
// CHECK:         %[[H:.+]] = "w4a16.merged_matmul"
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 7]]:9: remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu
func.func @rank3_rows_from_x(%x3: tensor<?x?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> tensor<?x?x512xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x3, %c0 : tensor<?x?x256xf16>
  %l = tensor.dim %x3, %c1 : tensor<?x?x256xf16>
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %c0a = arith.constant 0 : index
  %c1a = arith.constant 1 : index
  %ba = tensor.dim %x3, %c0a : tensor<?x?x256xf16>
  %la = tensor.dim %x3, %c1a : tensor<?x?x256xf16>
  %gu3 = tensor.expand_shape %gu [[0, 1], [2]] output_shape [%ba, %la, 1024] : tensor<?x1024xf16> into tensor<?x?x1024xf16>
  %gate = tensor.extract_slice %gu3[0, 0, 0] [%b, %l, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  %up = tensor.extract_slice %gu3[0, 0, 512] [%b, %l, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  %init = tensor.empty(%b, %l) : tensor<?x?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate : tensor<?x?x512xf16>) outs(%init : tensor<?x?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%up, %act : tensor<?x?x512xf16>, tensor<?x?x512xf16>) outs(%init : tensor<?x?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x?x512xf16>
  return %h : tensor<?x?x512xf16>
}

// -----

// Look-alike: the same with silu read from the gate's row 0 of every sequence (a broadcast along the dynamic dim):
// act(gate[b, 0]) * up[b, s] is no glu of matching rows, so the projection stays whole (found by
// test/robustness/differential.test: sampled at row 0 only, a dynamic dim hid the broadcast).
// CHECK-LABEL: func.func @rank3_gate_of_row_0(
// CHECK-NOT:     w4a16.merged_matmul
// CHECK:         "w4a16.fused_matmul"
// CHECK-NOT:     w4a16.merged_matmul
// CHECK:         return
// REMARK: split-chunked-glu.mlir:[[# @LINE + 7]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: the halves feed no glu product: the op they meet in does not compute act(gate) * up
func.func @rank3_gate_of_row_0(%x3: tensor<?x?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> tensor<?x?x512xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x3, %c0 : tensor<?x?x256xf16>
  %l = tensor.dim %x3, %c1 : tensor<?x?x256xf16>
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %c0a = arith.constant 0 : index
  %c1a = arith.constant 1 : index
  %ba = tensor.dim %x3, %c0a : tensor<?x?x256xf16>
  %la = tensor.dim %x3, %c1a : tensor<?x?x256xf16>
  %gu3 = tensor.expand_shape %gu [[0, 1], [2]] output_shape [%ba, %la, 1024] : tensor<?x1024xf16> into tensor<?x?x1024xf16>
  %gate = tensor.extract_slice %gu3[0, 0, 0] [%b, %l, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  %up = tensor.extract_slice %gu3[0, 0, 512] [%b, %l, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  %init = tensor.empty(%b, %l) : tensor<?x?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate : tensor<?x?x512xf16>) outs(%init : tensor<?x?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%up, %act : tensor<?x?x512xf16>, tensor<?x?x512xf16>) outs(%init : tensor<?x?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x?x512xf16>
  return %h : tensor<?x?x512xf16>
}

// -----

// AWQ packed along N: (K, N/8) words in AWQ's nibble order and (K/G, N/8) packed zero points: each half is whole
// words [0, I/8) and [I/8, I/4) (the nibble order holds within a word); the scales are columns.
// CHECK-LABEL: func.func @awq(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x256xf16>, %[[W:[a-z0-9]+]]: tensor<256x128xi32>, %[[Z:[a-z0-9]+]]: tensor<2x128xi32>, %[[S:[a-z0-9]+]]: tensor<2x1024xf16>
// CHECK-DAG:     %[[WG:.+]] = tensor.extract_slice %[[W]][0, 0] [256, 64] [1, 1] : tensor<256x128xi32> to tensor<256x64xi32>
// CHECK-DAG:     %[[ZG:.+]] = tensor.extract_slice %[[Z]][0, 0] [2, 64] [1, 1] : tensor<2x128xi32> to tensor<2x64xi32>
// CHECK-DAG:     %[[SG:.+]] = tensor.extract_slice %[[S]][0, 0] [2, 512] [1, 1]
// CHECK-DAG:     %[[WU:.+]] = tensor.extract_slice %[[W]][0, 64] [256, 64] [1, 1] : tensor<256x128xi32> to tensor<256x64xi32>
// CHECK-DAG:     %[[ZU:.+]] = tensor.extract_slice %[[Z]][0, 64] [2, 64] [1, 1] : tensor<2x128xi32> to tensor<2x64xi32>
// CHECK-DAG:     %[[SU:.+]] = tensor.extract_slice %[[S]][0, 512] [2, 512] [1, 1]
// CHECK:         "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]], %[[ZG]], %[[ZU]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-SAME:      weight_layout = "packed_k_n8_awq", zero_point_layout = "packed_g_n8_awq"
func.func @awq(%x: tensor<?x256xf16>, %w: tensor<256x128xi32>, %z: tensor<2x128xi32>, %s: tensor<2x1024xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "g_n", weight_layout = "packed_k_n8_awq", zero_point_layout = "packed_g_n8_awq"} : (tensor<?x256xf16>, tensor<256x128xi32>, tensor<2x1024xf16>, tensor<2x128xi32>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// compressed-tensors: (N, K/8) words and zero points packed along N as (N/8, K/G) words (packed_n8_g): each half is
// rows of both, [0, I) and [I, 2I) of the weight, [0, I/8) and [I/8, I/4) of the zero points; the scales (N, K/G)
// are rows.
// CHECK-LABEL: func.func @compressed_tensors_asym(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x256xf16>, %[[W:[a-z0-9]+]]: tensor<1024x32xi32>, %[[Z:[a-z0-9]+]]: tensor<128x2xi32>, %[[S:[a-z0-9]+]]: tensor<1024x2xf16>
// CHECK-DAG:     %[[WG:.+]] = tensor.extract_slice %[[W]][0, 0] [512, 32] [1, 1] : tensor<1024x32xi32> to tensor<512x32xi32>
// CHECK-DAG:     %[[ZG:.+]] = tensor.extract_slice %[[Z]][0, 0] [64, 2] [1, 1] : tensor<128x2xi32> to tensor<64x2xi32>
// CHECK-DAG:     %[[SG:.+]] = tensor.extract_slice %[[S]][0, 0] [512, 2] [1, 1]
// CHECK-DAG:     %[[WU:.+]] = tensor.extract_slice %[[W]][512, 0] [512, 32] [1, 1] : tensor<1024x32xi32> to tensor<512x32xi32>
// CHECK-DAG:     %[[ZU:.+]] = tensor.extract_slice %[[Z]][64, 0] [64, 2] [1, 1] : tensor<128x2xi32> to tensor<64x2xi32>
// CHECK-DAG:     %[[SU:.+]] = tensor.extract_slice %[[S]][512, 0] [512, 2] [1, 1]
// CHECK:         "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]], %[[ZG]], %[[ZU]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-SAME:      weight_layout = "packed_n_k8", zero_point_layout = "packed_n8_g"
func.func @compressed_tensors_asym(%x: tensor<?x256xf16>, %w: tensor<1024x32xi32>, %z: tensor<128x2xi32>, %s: tensor<1024x2xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "n_g", weight_layout = "packed_n_k8", zero_point_layout = "packed_n8_g"} : (tensor<?x256xf16>, tensor<1024x32xi32>, tensor<1024x2xf16>, tensor<128x2xi32>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// Rank-3 views [B, S, 2I]: the fused op's (B*S, 2I) result is expanded twice (once per slice, identical), each
// half sliced with every row, tensor.dim of the views sizing the slices. Each half is expanded as the slice was.
// CHECK-LABEL: func.func @rank3_views(
// CHECK:         %[[H:.+]] = "w4a16.merged_matmul"
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-SAME:      -> tensor<?x512xf16>
// CHECK-NEXT:    %[[H3:.+]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1], [2]] output_shape [%{{.+}}, %{{.+}}, 512] : tensor<?x512xf16> into tensor<?x?x512xf16>
// CHECK-NEXT:    return %[[H3]]
// REMARK: split-chunked-glu.mlir:[[# @LINE + 7]]:9: remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu: gate columns [0, 512), up [512, 1024), silu(gate) * up
func.func @rank3_views(%x3: tensor<?x?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> tensor<?x?x512xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x3, %c0 : tensor<?x?x256xf16>
  %l = tensor.dim %x3, %c1 : tensor<?x?x256xf16>
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %gu3a = tensor.expand_shape %gu [[0, 1], [2]] output_shape [%b, %l, 1024] : tensor<?x1024xf16> into tensor<?x?x1024xf16>
  %ba = tensor.dim %gu3a, %c0 : tensor<?x?x1024xf16>
  %la = tensor.dim %gu3a, %c1 : tensor<?x?x1024xf16>
  %gate = tensor.extract_slice %gu3a[0, 0, 0] [%ba, %la, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  %gu3b = tensor.expand_shape %gu [[0, 1], [2]] output_shape [%b, %l, 1024] : tensor<?x1024xf16> into tensor<?x?x1024xf16>
  %bb = tensor.dim %gu3b, %c0 : tensor<?x?x1024xf16>
  %lb = tensor.dim %gu3b, %c1 : tensor<?x?x1024xf16>
  %up = tensor.extract_slice %gu3b[0, 0, 512] [%bb, %lb, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  %init = tensor.empty(%ba, %la) : tensor<?x?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate : tensor<?x?x512xf16>) outs(%init : tensor<?x?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%act, %up : tensor<?x?x512xf16>, tensor<?x?x512xf16>) outs(%init : tensor<?x?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x?x512xf16>
  return %h : tensor<?x?x512xf16>
}

// -----

// The columns split and merged back on the way: the fuse pass expands the (B*S, 2I) result to the [B, S, 128, 8] its
// contraction wrote (after --linalg-fold-unit-extent-dims and elementwise fusion, Phi-3's gate_up does), and the
// model collapses [128, 8] back before chunking. Each half gets the same views with the outer column dim halved.
// CHECK-LABEL: func.func @columns_split_and_merged(
// CHECK:         %[[H:.+]] = "w4a16.merged_matmul"
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-SAME:      -> tensor<?x512xf16>
// CHECK-NEXT:    %[[E:.+]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1], [2, 3]] output_shape [%{{.+}}, %{{.+}}, 64, 8] : tensor<?x512xf16> into tensor<?x?x64x8xf16>
// CHECK-NEXT:    %[[C:.+]] = tensor.collapse_shape %[[E]] {{\[\[}}0], [1], [2, 3]] : tensor<?x?x64x8xf16> into tensor<?x?x512xf16>
// CHECK-NEXT:    return %[[C]]
// REMARK: split-chunked-glu.mlir:[[# @LINE + 7]]:9: remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu: gate columns [0, 512), up [512, 1024), silu(gate) * up
func.func @columns_split_and_merged(%x3: tensor<?x?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> tensor<?x?x512xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x3, %c0 : tensor<?x?x256xf16>
  %l = tensor.dim %x3, %c1 : tensor<?x?x256xf16>
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %gu4 = tensor.expand_shape %gu [[0, 1], [2, 3]] output_shape [%b, %l, 128, 8] : tensor<?x1024xf16> into tensor<?x?x128x8xf16>
  %gu3 = tensor.collapse_shape %gu4 [[0], [1], [2, 3]] : tensor<?x?x128x8xf16> into tensor<?x?x1024xf16>
  %gate = tensor.extract_slice %gu3[0, 0, 0] [%b, %l, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  %up = tensor.extract_slice %gu3[0, 0, 512] [%b, %l, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  %init = tensor.empty(%b, %l) : tensor<?x?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate : tensor<?x?x512xf16>) outs(%init : tensor<?x?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%act, %up : tensor<?x?x512xf16>, tensor<?x?x512xf16>) outs(%init : tensor<?x?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x?x512xf16>
  return %h : tensor<?x?x512xf16>
}

// -----

// Look-alike: N = 768 split as [3, 256] on the way: a half (384 columns) is no box of [3, 256], so no split.
// CHECK-LABEL: func.func @columns_split_oddly(
// CHECK:         "w4a16.fused_matmul"
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 7]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: a reshape on the way splits the columns so that a half of them is no box of its result
func.func @columns_split_oddly(%x3: tensor<?x?x256xf16>, %w: tensor<32x768xi32>, %s: tensor<2x768xf16>) -> tensor<?x?x384xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x3, %c0 : tensor<?x?x256xf16>
  %l = tensor.dim %x3, %c1 : tensor<?x?x256xf16>
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x768xi32>, tensor<2x768xf16>) -> tensor<?x768xf16>
  %gu4 = tensor.expand_shape %gu [[0, 1], [2, 3]] output_shape [%b, %l, 3, 256] : tensor<?x768xf16> into tensor<?x?x3x256xf16>
  %gu3 = tensor.collapse_shape %gu4 [[0], [1], [2, 3]] : tensor<?x?x3x256xf16> into tensor<?x?x768xf16>
  %gate = tensor.extract_slice %gu3[0, 0, 0] [%b, %l, 384] [1, 1, 1] : tensor<?x?x768xf16> to tensor<?x?x384xf16>
  %up = tensor.extract_slice %gu3[0, 0, 384] [%b, %l, 384] [1, 1, 1] : tensor<?x?x768xf16> to tensor<?x?x384xf16>
  %init = tensor.empty(%b, %l) : tensor<?x?x384xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate : tensor<?x?x384xf16>) outs(%init : tensor<?x?x384xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x?x384xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%act, %up : tensor<?x?x384xf16>, tensor<?x?x384xf16>) outs(%init : tensor<?x?x384xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x?x384xf16>
  return %h : tensor<?x?x384xf16>
}

// -----

// The halves the other way round (`up, gate = gate_up.chunk(2, dim=-1)`): silu applies to columns [I, 2I), so the
// second window is the gate, the merged op's first member.
// CHECK-LABEL: func.func @up_first(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x256xf16>, %[[W:[a-z0-9]+]]: tensor<32x1024xi32>, %[[S:[a-z0-9]+]]: tensor<2x1024xf16>
// CHECK-DAG:     %[[WA:.+]] = tensor.extract_slice %[[W]][0, 0] [32, 512] [1, 1]
// CHECK-DAG:     %[[SA:.+]] = tensor.extract_slice %[[S]][0, 0] [2, 512] [1, 1]
// CHECK-DAG:     %[[WB:.+]] = tensor.extract_slice %[[W]][0, 512] [32, 512] [1, 1]
// CHECK-DAG:     %[[SB:.+]] = tensor.extract_slice %[[S]][0, 512] [2, 512] [1, 1]
// CHECK:         "w4a16.merged_matmul"(%[[X]], %[[WB]], %[[WA]], %[[SB]], %[[SA]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu: gate columns [512, 1024), up [0, 512), silu(gate) * up
func.func @up_first(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %up = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %gate = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// (N, K) i8 codes with (N, K/G) scales (the nn.Linear orientation): the halves are row windows; gelu_tanh(gate) * up
// in one generic, in f32, static M.
// CHECK-LABEL: func.func @n_k_geglu(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<4x256xf16>, %[[W:[a-z0-9]+]]: tensor<1024x256xi8>, %[[S:[a-z0-9]+]]: tensor<1024x2xf16>
// CHECK-DAG:     %[[WG:.+]] = tensor.extract_slice %[[W]][0, 0] [512, 256] [1, 1]
// CHECK-DAG:     %[[SG:.+]] = tensor.extract_slice %[[S]][0, 0] [512, 2] [1, 1]
// CHECK-DAG:     %[[WU:.+]] = tensor.extract_slice %[[W]][512, 0] [512, 256] [1, 1]
// CHECK-DAG:     %[[SU:.+]] = tensor.extract_slice %[[S]][512, 0] [512, 2] [1, 1]
// CHECK:         "w4a16.merged_matmul"(%[[X]], %[[WG]], %[[WU]], %[[SG]], %[[SU]])
// CHECK-SAME:      activation = "gelu_tanh", combine = "glu"
func.func @n_k_geglu(%x: tensor<4x256xf16>, %w: tensor<1024x256xi8>, %s: tensor<1024x2xf16>) -> tensor<4x512xf16> {
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "n_g", weight_layout = "n_k"} : (tensor<4x256xf16>, tensor<1024x256xi8>, tensor<1024x2xf16>) -> tensor<4x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [4, 512] [1, 1] : tensor<4x1024xf16> to tensor<4x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [4, 512] [1, 1] : tensor<4x1024xf16> to tensor<4x512xf16>
  %init = tensor.empty() : tensor<4x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<4x512xf16>, tensor<4x512xf16>) outs(%init : tensor<4x512xf16>) {
  ^bb0(%g16: f16, %u16: f16, %o: f16):
    %v = arith.extf %g16 : f16 to f32
    %u = arith.extf %u16 : f16 to f32
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
    %p = arith.mulf %gl, %u : f32
    %r = arith.truncf %p : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x512xf16>
  return %h : tensor<4x512xf16>
}

// -----

// Look-alike: an uneven split, [0, 384) and [384, 1024), is no pair of halves; the slices are returned apart, as
// no glu's are, so explain says nothing of a glu (it did before session 57: the remark misled on every RoPE
// rotate_half and q/k/v split).
// CHECK-LABEL: func.func @uneven(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x1024xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK-NOT: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark:
func.func @uneven(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> (tensor<?x384xf16>, tensor<?x640xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 384] [1, 1] : tensor<?x1024xf16> to tensor<?x384xf16>
  %up = tensor.extract_slice %gu[0, 384] [%m, 640] [1, 1] : tensor<?x1024xf16> to tensor<?x640xf16>
  return %gate, %up : tensor<?x384xf16>, tensor<?x640xf16>
}

// -----

// Look-alike: the result has a third user (it is also returned whole).
// CHECK-LABEL: func.func @third_user(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x1024xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: its result has a user other than the two halves: func.return
func.func @third_user(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> (tensor<?x512xf16>, tensor<?x1024xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h, %gu : tensor<?x512xf16>, tensor<?x1024xf16>
}


// -----

// An uneven split whose slices meet in one elementwise op, as a glu's would: explain says why it is no glu.
// CHECK-LABEL: func.func @uneven_product(
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: a slice (384 of 1024 columns from 0) is not a half [0, I) or [I, 2I) of N = 1024 with every row and unit steps
func.func @uneven_product(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> tensor<?x384xf16> {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 384] [1, 1] : tensor<?x1024xf16> to tensor<?x384xf16>
  %up = tensor.extract_slice %gu[0, 640] [%m, 384] [1, 1] : tensor<?x1024xf16> to tensor<?x384xf16>
  %init = tensor.empty(%m) : tensor<?x384xf16>
  %h = linalg.mul ins(%gate, %up : tensor<?x384xf16>, tensor<?x384xf16>) outs(%init : tensor<?x384xf16>) -> tensor<?x384xf16>
  return %h : tensor<?x384xf16>
}

// -----

// q, k and v of one fused projection, sliced three ways (GPT-NeoX's query_key_value): no glu, no remark of one.
// CHECK-LABEL: func.func @qkv_three_ways(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x768xf16>
// REMARK-NOT: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark:
func.func @qkv_three_ways(%x: tensor<?x256xf16>, %w: tensor<32x768xi32>, %s: tensor<2x768xf16>) -> (tensor<?x256xf16>, tensor<?x256xf16>, tensor<?x256xf16>) {
  %c0 = arith.constant 0 : index
  %qkv = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x768xi32>, tensor<2x768xf16>) -> tensor<?x768xf16>
  %m = tensor.dim %qkv, %c0 : tensor<?x768xf16>
  %q = tensor.extract_slice %qkv[0, 0] [%m, 256] [1, 1] : tensor<?x768xf16> to tensor<?x256xf16>
  %k = tensor.extract_slice %qkv[0, 256] [%m, 256] [1, 1] : tensor<?x768xf16> to tensor<?x256xf16>
  %v = tensor.extract_slice %qkv[0, 512] [%m, 256] [1, 1] : tensor<?x768xf16> to tensor<?x256xf16>
  return %q, %k, %v : tensor<?x256xf16>, tensor<?x256xf16>, tensor<?x256xf16>
}
// -----

// Look-alike: a third slice of the result.
// CHECK-LABEL: func.func @three_slices(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x1024xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: its result is sliced 3 times, not into two halves
func.func @three_slices(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> (tensor<?x512xf16>, tensor<?x8xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %more = tensor.extract_slice %gu[0, 0] [%m, 8] [1, 1] : tensor<?x1024xf16> to tensor<?x8xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h, %more : tensor<?x512xf16>, tensor<?x8xf16>
}

// -----

// Look-alike: relu(gate) * up (ReGLU) is no activation a glu takes.
// CHECK-LABEL: func.func @relu_gate(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x1024xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: the halves feed no glu product: the op they meet in does not compute act(gate) * up (act none, silu or gelu_tanh)
func.func @relu_gate(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> (tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %zero = arith.constant 0.0 : f16
    %v = arith.maximumf %a, %zero : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// Look-alike: the halves are used apart (no product of the two): no glu, and no remark of one (since session 57).
// CHECK-LABEL: func.func @not_a_product(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x1024xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK-NOT: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark:
func.func @not_a_product(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> (tensor<?x512xf16>, tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  return %act, %up : tensor<?x512xf16>, tensor<?x512xf16>
}

// -----

// Look-alike: the fused op adds a residual to all 2I columns before the chunk.
// CHECK-LABEL: func.func @residual_on_fused(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x1024xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: it adds a residual to all its columns
func.func @residual_on_fused(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>, %r: tensor<?x1024xf16>) -> (tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s, %r) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>, tensor<?x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// Look-alike: the fused op applies silu to all 2I columns (silu(gate) * silu(up) is no glu).
// CHECK-LABEL: func.func @silu_on_fused(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x1024xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: it applies silu to all 1024 columns (a gate_up projection applies none; its gate half gets the activation)
func.func @silu_on_fused(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>) -> (tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "silu", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %gate : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// A bias on the gate_up projection (Megatron-Core's linear_fc1 with add_bias_linear): each half reads its window of
// the bias too, and the glu adds both. Until session 46 the op stayed whole ("a glu takes none").
// CHECK-LABEL: func.func @bias(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x256xf16>, %[[W:[a-z0-9]+]]: tensor<32x1024xi32>, %[[S:[a-z0-9]+]]: tensor<2x1024xf16>, %[[B:[a-z0-9]+]]: tensor<1024xf16>
// CHECK-DAG:     %[[BG:.+]] = tensor.extract_slice %[[B]][0] [512] [1] : tensor<1024xf16> to tensor<512xf16>
// CHECK-DAG:     %[[BU:.+]] = tensor.extract_slice %[[B]][512] [512] [1] : tensor<1024xf16> to tensor<512xf16>
// CHECK:         %[[H:.+]] = "w4a16.merged_matmul"(%[[X]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[BG]], %[[BU]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0>
// CHECK-NEXT:    return %[[H]]
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu: gate columns [0, 512), up [512, 1024), silu(gate) * up
func.func @bias(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>, %b: tensor<1024xf16>) -> (tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s, %b) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>, tensor<1024xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// Act-order GPTQ (a g_idx): no glu takes one.
// CHECK-LABEL: func.func @act_order(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x1024xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: it has an act-order g_idx
func.func @act_order(%x: tensor<?x256xf16>, %w: tensor<32x1024xi32>, %s: tensor<2x1024xf16>, %z: tensor<2x128xi32>, %g: tensor<256xi32>) -> (tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s, %z, %g) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1>, scales_layout = "g_n", weight_layout = "packed_k8_n", zero_point_layout = "packed_g_n8"} : (tensor<?x256xf16>, tensor<32x1024xi32>, tensor<2x1024xf16>, tensor<2x128xi32>, tensor<256xi32>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// HQQ's halves_n_k pairs column n with n + N/2 in one byte: a half of the columns is no window of it.
// CHECK-LABEL: func.func @hqq_halves(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x1024xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: weight layout halves_n_k: a half of its columns is no window of the stored tensor
func.func @hqq_halves(%x: tensor<?x256xf16>, %w: tensor<512x256xi8>, %s: tensor<1024x4xf16>, %z: tensor<1024x4xf16>) -> (tensor<?x512xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "n_g", weight_layout = "halves_n_k", zero_point_layout = "n_g", zero_points_are_offsets} : (tensor<?x256xf16>, tensor<512x256xi8>, tensor<1024x4xf16>, tensor<1024x4xf16>) -> tensor<?x1024xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x1024xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %up = tensor.extract_slice %gu[0, 512] [%m, 512] [1, 1] : tensor<?x1024xf16> to tensor<?x512xf16>
  %init = tensor.empty(%m) : tensor<?x512xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x512xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x512xf16>, tensor<?x512xf16>) outs(%init : tensor<?x512xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x512xf16>
  return %h : tensor<?x512xf16>
}

// -----

// N = 2I with I = 12: a half would not be a multiple of 8 columns (nor whole words packed along N).
// CHECK-LABEL: func.func @odd_half(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<{{.+}}x24xf16>
// CHECK-NOT:     w4a16.merged_matmul
// REMARK: split-chunked-glu.mlir:[[# @LINE + 3]]:9: remark: w4a16: sliced result not split into a glu's gate and up halves: a half of I = 12 columns: N must be a positive multiple of 8
func.func @odd_half(%x: tensor<?x256xf16>, %w: tensor<32x24xi32>, %s: tensor<2x24xf16>) -> (tensor<?x12xf16>) {
  %c0 = arith.constant 0 : index
  %gu = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<?x256xf16>, tensor<32x24xi32>, tensor<2x24xf16>) -> tensor<?x24xf16>
  %m = tensor.dim %gu, %c0 : tensor<?x24xf16>
  %gate = tensor.extract_slice %gu[0, 0] [%m, 12] [1, 1] : tensor<?x24xf16> to tensor<?x12xf16>
  %up = tensor.extract_slice %gu[0, 12] [%m, 12] [1, 1] : tensor<?x24xf16> to tensor<?x12xf16>
  %init = tensor.empty(%m) : tensor<?x12xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x12xf16>) outs(%init : tensor<?x12xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %sig = arith.divf %one, %d : f16
    %v = arith.mulf %a, %sig : f16
    linalg.yield %v : f16
  } -> tensor<?x12xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%up, %act : tensor<?x12xf16>, tensor<?x12xf16>) outs(%init : tensor<?x12xf16>) {
  ^bb0(%in0: f16, %in1: f16, %o: f16):
    %p = arith.mulf %in0, %in1 : f16
    linalg.yield %p : f16
  } -> tensor<?x12xf16>
  return %h : tensor<?x12xf16>
}
