// Phi-3's MLP with GPTQ-quantised projections, as torch-mlir lowers it: gate_up_proj is ONE QuantLinear of
// 2I columns whose result is chunked into gate and up; w4a16-split-chunked-glu rewrites the fused gate_up op
// into two fused ops on column windows of its qweight, qzeros and scales, and w4a16-merge-siblings makes them
// one glu launch: silu(x Wg) * (x Wu). down_proj stays its own fused call.
//
// RUN: w4a16-opt --w4a16-fuse --w4a16-split-chunked-glu --w4a16-merge-siblings --w4a16-verify %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: w4a16-opt --w4a16-pipeline %s -o /dev/null
// RUN: w4a16-opt --w4a16-fuse --w4a16-verify %s | FileCheck %s --check-prefix=NOSPLIT
// After --canonicalize (which reads the chunks' row dims back from x's own dims) the same split and merge:
// RUN: mlir-opt --canonicalize --cse %s | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=CANON
// Through unit-dim folding and elementwise fusion, the gate_up result reaches the chunks as [B, S, 128, 8] merged
// back to [B, S, 1024] (the columns split on the way): the same split and merge.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fold-unit-extent-dims --linalg-fuse-elementwise-ops --canonicalize \
// RUN:   --cse %s | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=CANON
// CANON-COUNT-2: remark: w4a16: fused as dequant
// CANON-NEXT:    remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu
// CANON-NEXT:    remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
// CANON-NOT:     remark:
//
// Source: huggingface/transformers, src/transformers/models/phi3/modeling_phi3.py (stored commit
// 43c2b4816a6507cb08a18b402c6b053453651daf), Phi3MLP (hidden_act "silu", both projections bias=False):
//   up_states = self.gate_up_proj(hidden_states)          # nn.Linear(hidden, 2 * intermediate)
//   gate, up_states = up_states.chunk(2, dim=-1)
//   up_states = up_states * self.activation_fn(gate)
//   return self.down_proj(up_states)
// with each nn.Linear replaced by AutoGPTQ's QuantLinear, torch fallback (test/fuse/autogptq-torch-fallback.mlir
// cites its source: qweight (K/8, N) i32 packed along K, qzeros (K/128, N/8) i32 packed along N, f16 scales).
// Lowered BY HAND the way torch-mlir emits these ops, then canonicalized (torch-mlir's backend pipeline runs
// canonicalize): torch.matmul of the [B, S, K] hidden states and a 2-D weight broadcasts the weight to [B, K, N]
// for linalg.batch_matmul (test/fuse/autoawq-torch-fallback-3d.mlir); chunk(2, dim=-1) is recomposed into two
// aten.slice.Tensor (llvm/torch-mlir lib/Dialect/Torch/Transforms/RecomposeComplexOps.cpp,
// RecomposeChunkListUnpack, stored commit 394035a55e2bc8864614691a958c404533251bfc), each lowered to a
// tensor.extract_slice whose sizes are tensor.dim of its input (lib/Conversion/TorchToLinalg/DataMovement.cpp,
// prepareArgumentsForSlicingOp / ConvertAtenSliceTensorOp, stored commit fc76f0380eaf20c04fb80962c73b9b29ed258dd8;
// the constant start/end arithmetic and the tensor.cast fold away in canonicalize); aten.silu and aten.mul.Tensor
// are one generic each, their outputs sized by tensor.dim of their first input. Instantiated small: hidden 256,
// intermediate I = 512 (gate_up N = 1024), G = 128, B and S dynamic.
//
// CHECK-LABEL: func.func @phi3_mlp(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x?x256xf16>, %[[QW:[a-z0-9]+]]: tensor<32x1024xi32>, %[[QZ:[a-z0-9]+]]: tensor<2x128xi32>, %[[S:[a-z0-9]+]]: tensor<2x1024xf16>
// CHECK-DAG:     %[[XC:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
// CHECK-DAG:     %[[WG:.+]] = tensor.extract_slice %[[QW]][0, 0] [32, 512] [1, 1] : tensor<32x1024xi32> to tensor<32x512xi32>
// CHECK-DAG:     %[[SG:.+]] = tensor.extract_slice %[[S]][0, 0] [2, 512] [1, 1] : tensor<2x1024xf16> to tensor<2x512xf16>
// CHECK-DAG:     %[[ZG:.+]] = tensor.extract_slice %[[QZ]][0, 0] [2, 64] [1, 1] : tensor<2x128xi32> to tensor<2x64xi32>
// CHECK-DAG:     %[[WU:.+]] = tensor.extract_slice %[[QW]][0, 512] [32, 512] [1, 1] : tensor<32x1024xi32> to tensor<32x512xi32>
// CHECK-DAG:     %[[SU:.+]] = tensor.extract_slice %[[S]][0, 512] [2, 512] [1, 1] : tensor<2x1024xf16> to tensor<2x512xf16>
// CHECK-DAG:     %[[ZU:.+]] = tensor.extract_slice %[[QZ]][0, 64] [2, 64] [1, 1] : tensor<2x128xi32> to tensor<2x64xi32>
// CHECK:         %[[H:.+]] = "w4a16.merged_matmul"(%[[XC]], %[[WG]], %[[WU]], %[[SG]], %[[SU]], %[[ZG]], %[[ZU]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-SAME:      weight_layout = "packed_k8_n", zero_point_layout = "packed_g_n8"
// CHECK-SAME:      -> tensor<?x512xf16>
// CHECK:         %[[H3:.+]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1], [2]] output_shape [%{{.+}}, %{{.+}}, 512] : tensor<?x512xf16> into tensor<?x?x512xf16>
// CHECK:         %[[HC:.+]] = tensor.collapse_shape %[[H3]] {{\[\[}}0, 1], [2]] : tensor<?x?x512xf16> into tensor<?x512xf16>
// CHECK:         %[[D:.+]] = "w4a16.fused_matmul"(%[[HC]],
// CHECK-SAME:      -> tensor<?x256xf16>
// CHECK:         %[[D3:.+]] = tensor.expand_shape %[[D]]
// CHECK:         return %[[D3]]
// CHECK-NOT:     linalg.
// CHECK-NOT:     w4a16.fused_matmul"(%[[XC]]
//
// Without the split, gate_up is one fused op of N = 1024 whose halves are sliced, and silu and the product stay.
// NOSPLIT-LABEL: func.func @phi3_mlp(
// NOSPLIT:         %[[GU:.+]] = "w4a16.fused_matmul"
// NOSPLIT-SAME:      -> tensor<?x1024xf16>
// NOSPLIT:         tensor.extract_slice
// NOSPLIT:         tensor.extract_slice
// NOSPLIT:         linalg.generic
// NOSPLIT:         linalg.generic
//
// REMARK-DAG: phi3-mlp.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points packed_g_n8 tensor<2x128xi32>) -> matmul
// REMARK-DAG: remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu: gate columns [0, 512), up [512, 1024), silu(gate) * up
// REMARK-DAG: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bc_w = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#bc_z = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#wf_w = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#wf_z = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#bc_mm = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @phi3_mlp(%x: tensor<?x?x256xf16>,
                    %gate_up_qweight: tensor<32x1024xi32>, %gate_up_qzeros: tensor<2x128xi32>, %gate_up_scales: tensor<2x1024xf16>,
                    %down_qweight: tensor<64x256xi32>, %down_qzeros: tensor<4x32xi32>, %down_scales: tensor<4x256xf16>)
    -> tensor<?x?x256xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1_i64 = arith.constant 1 : i64
  %c15_i64 = arith.constant 15 : i64
  %zero = arith.constant 0.000000e+00 : f16
  %wf = arith.constant dense<[[0, 4, 8, 12, 16, 20, 24, 28]]> : tensor<1x8xi32>
  // ==== up_states = self.gate_up_proj(hidden_states) ====
  // ---- gate_up: zeros = (qzeros >> wf) & 15, weight = (qweight >> wf) & 15, W = scales * (weight - zeros) ----
  %gate_up_qz_u = tensor.expand_shape %gate_up_qzeros [[0], [1, 2]] output_shape [2, 128, 1] : tensor<2x128xi32> into tensor<2x128x1xi32>
  %gate_up_e0 = tensor.empty() : tensor<2x128x8xi32>
  %gate_up_qz_b = linalg.generic {indexing_maps = [#bc_z, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_qz_u : tensor<2x128x1xi32>) outs(%gate_up_e0 : tensor<2x128x8xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  } -> tensor<2x128x8xi32>
  %gate_up_wf_z = tensor.expand_shape %wf [[0, 1], [2]] output_shape [1, 1, 8] : tensor<1x8xi32> into tensor<1x1x8xi32>
  %gate_up_z_sh = linalg.generic {indexing_maps = [#id3, #wf_z, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_qz_b, %gate_up_wf_z : tensor<2x128x8xi32>, tensor<1x1x8xi32>) outs(%gate_up_e0 : tensor<2x128x8xi32>) {
  ^bb0(%a: i32, %s: i32, %out: i32):
    %r = arith.shrsi %a, %s : i32
    linalg.yield %r : i32
  } -> tensor<2x128x8xi32>
  %gate_up_e1 = tensor.empty() : tensor<2x128x8xi8>
  %gate_up_z_i8 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_z_sh : tensor<2x128x8xi32>) outs(%gate_up_e1 : tensor<2x128x8xi8>) {
  ^bb0(%a: i32, %out: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  } -> tensor<2x128x8xi8>
  %gate_up_z_and = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_z_i8 : tensor<2x128x8xi8>) outs(%gate_up_e1 : tensor<2x128x8xi8>) {
  ^bb0(%a: i8, %out: i8):
    %m = arith.trunci %c15_i64 : i64 to i8
    %r = arith.andi %a, %m : i8
    linalg.yield %r : i8
  } -> tensor<2x128x8xi8>
  %gate_up_z_flat = tensor.collapse_shape %gate_up_z_and [[0], [1, 2]] : tensor<2x128x8xi8> into tensor<2x1024xi8>
  %gate_up_z3 = tensor.expand_shape %gate_up_z_flat [[0], [1, 2]] output_shape [2, 1, 1024] : tensor<2x1024xi8> into tensor<2x1x1024xi8>
  %gate_up_s3 = tensor.expand_shape %gate_up_scales [[0], [1, 2]] output_shape [2, 1, 1024] : tensor<2x1024xf16> into tensor<2x1x1024xf16>
  %gate_up_qw_u = tensor.expand_shape %gate_up_qweight [[0, 1], [2]] output_shape [32, 1, 1024] : tensor<32x1024xi32> into tensor<32x1x1024xi32>
  %gate_up_e2 = tensor.empty() : tensor<32x8x1024xi32>
  %gate_up_qw_b = linalg.generic {indexing_maps = [#bc_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_qw_u : tensor<32x1x1024xi32>) outs(%gate_up_e2 : tensor<32x8x1024xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  } -> tensor<32x8x1024xi32>
  %gate_up_wf_w = tensor.expand_shape %wf [[0], [1, 2]] output_shape [1, 8, 1] : tensor<1x8xi32> into tensor<1x8x1xi32>
  %gate_up_w_sh = linalg.generic {indexing_maps = [#id3, #wf_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_qw_b, %gate_up_wf_w : tensor<32x8x1024xi32>, tensor<1x8x1xi32>) outs(%gate_up_e2 : tensor<32x8x1024xi32>) {
  ^bb0(%a: i32, %s: i32, %out: i32):
    %r = arith.shrsi %a, %s : i32
    linalg.yield %r : i32
  } -> tensor<32x8x1024xi32>
  %gate_up_e3 = tensor.empty() : tensor<32x8x1024xi8>
  %gate_up_w_i8 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_w_sh : tensor<32x8x1024xi32>) outs(%gate_up_e3 : tensor<32x8x1024xi8>) {
  ^bb0(%a: i32, %out: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  } -> tensor<32x8x1024xi8>
  %gate_up_w_and = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_w_i8 : tensor<32x8x1024xi8>) outs(%gate_up_e3 : tensor<32x8x1024xi8>) {
  ^bb0(%a: i8, %out: i8):
    %m = arith.trunci %c15_i64 : i64 to i8
    %r = arith.andi %a, %m : i8
    linalg.yield %r : i8
  } -> tensor<32x8x1024xi8>
  %gate_up_w_flat = tensor.collapse_shape %gate_up_w_and [[0, 1], [2]] : tensor<32x8x1024xi8> into tensor<256x1024xi8>
  %gate_up_w3 = tensor.expand_shape %gate_up_w_flat [[0, 1], [2]] output_shape [2, 128, 1024] : tensor<256x1024xi8> into tensor<2x128x1024xi8>
  %gate_up_e4 = tensor.empty() : tensor<2x128x1024xi8>
  %gate_up_diff = linalg.generic {indexing_maps = [#id3, #bc_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_w3, %gate_up_z3 : tensor<2x128x1024xi8>, tensor<2x1x1024xi8>) outs(%gate_up_e4 : tensor<2x128x1024xi8>) {
  ^bb0(%a: i8, %b: i8, %out: i8):
    %al = arith.trunci %c1_i64 : i64 to i8
    %sc = arith.muli %b, %al : i8
    %r = arith.subi %a, %sc : i8
    linalg.yield %r : i8
  } -> tensor<2x128x1024xi8>
  %gate_up_e5 = tensor.empty() : tensor<2x128x1024xf16>
  %gate_up_dq = linalg.generic {indexing_maps = [#bc_w, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_s3, %gate_up_diff : tensor<2x1x1024xf16>, tensor<2x128x1024xi8>) outs(%gate_up_e5 : tensor<2x128x1024xf16>) {
  ^bb0(%s: f16, %d: i8, %out: f16):
    %df = arith.sitofp %d : i8 to f16
    %r = arith.mulf %s, %df : f16
    linalg.yield %r : f16
  } -> tensor<2x128x1024xf16>
  %gate_up_w = tensor.collapse_shape %gate_up_dq [[0, 1], [2]] : tensor<2x128x1024xf16> into tensor<256x1024xf16>
  // ---- gate_up: torch.matmul(x [B, S, 256], W [256, 1024]): W broadcast to [B, 256, 1024], linalg.batch_matmul ----
  %gate_up_B = tensor.dim %x, %c0 : tensor<?x?x256xf16>
  %gate_up_S = tensor.dim %x, %c1 : tensor<?x?x256xf16>
  %gate_up_wb_e = tensor.empty(%gate_up_B) : tensor<?x256x1024xf16>
  %gate_up_wb = linalg.generic {indexing_maps = [#bc_mm, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_up_w : tensor<256x1024xf16>) outs(%gate_up_wb_e : tensor<?x256x1024xf16>) {
  ^bb0(%a: f16, %out: f16):
    linalg.yield %a : f16
  } -> tensor<?x256x1024xf16>
  %gate_up_o_e = tensor.empty(%gate_up_B, %gate_up_S) : tensor<?x?x1024xf16>
  %gate_up_fill = linalg.fill ins(%zero : f16) outs(%gate_up_o_e : tensor<?x?x1024xf16>) -> tensor<?x?x1024xf16>
  %gate_up_mm = linalg.batch_matmul ins(%x, %gate_up_wb : tensor<?x?x256xf16>, tensor<?x256x1024xf16>) outs(%gate_up_fill : tensor<?x?x1024xf16>) -> tensor<?x?x1024xf16>
  // ==== gate, up_states = up_states.chunk(2, dim=-1): two slices of the last dim ====
  %gu_b = tensor.dim %gate_up_mm, %c0 : tensor<?x?x1024xf16>
  %gu_s = tensor.dim %gate_up_mm, %c1 : tensor<?x?x1024xf16>
  %gate = tensor.extract_slice %gate_up_mm[0, 0, 0] [%gu_b, %gu_s, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  %up = tensor.extract_slice %gate_up_mm[0, 0, 512] [%gu_b, %gu_s, 512] [1, 1, 1] : tensor<?x?x1024xf16> to tensor<?x?x512xf16>
  // ==== self.activation_fn(gate): aten.silu, x * sigmoid(x) ====
  %g_b = tensor.dim %gate, %c0 : tensor<?x?x512xf16>
  %g_s = tensor.dim %gate, %c1 : tensor<?x?x512xf16>
  %act_e = tensor.empty(%g_b, %g_s) : tensor<?x?x512xf16>
  %act = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate : tensor<?x?x512xf16>) outs(%act_e : tensor<?x?x512xf16>) {
  ^bb0(%a: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %neg = arith.negf %a : f16
    %exp = math.exp %neg : f16
    %den = arith.addf %exp, %one : f16
    %sig = arith.divf %one, %den : f16
    %r = arith.mulf %a, %sig : f16
    linalg.yield %r : f16
  } -> tensor<?x?x512xf16>
  // ==== up_states = up_states * act: aten.mul.Tensor ====
  %u_b = tensor.dim %up, %c0 : tensor<?x?x512xf16>
  %u_s = tensor.dim %up, %c1 : tensor<?x?x512xf16>
  %prod_e = tensor.empty(%u_b, %u_s) : tensor<?x?x512xf16>
  %prod = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%up, %act : tensor<?x?x512xf16>, tensor<?x?x512xf16>) outs(%prod_e : tensor<?x?x512xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %r = arith.mulf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<?x?x512xf16>
  // ==== return self.down_proj(up_states) ====
  // ---- down: zeros = (qzeros >> wf) & 15, weight = (qweight >> wf) & 15, W = scales * (weight - zeros) ----
  %down_qz_u = tensor.expand_shape %down_qzeros [[0], [1, 2]] output_shape [4, 32, 1] : tensor<4x32xi32> into tensor<4x32x1xi32>
  %down_e0 = tensor.empty() : tensor<4x32x8xi32>
  %down_qz_b = linalg.generic {indexing_maps = [#bc_z, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_qz_u : tensor<4x32x1xi32>) outs(%down_e0 : tensor<4x32x8xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  } -> tensor<4x32x8xi32>
  %down_wf_z = tensor.expand_shape %wf [[0, 1], [2]] output_shape [1, 1, 8] : tensor<1x8xi32> into tensor<1x1x8xi32>
  %down_z_sh = linalg.generic {indexing_maps = [#id3, #wf_z, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_qz_b, %down_wf_z : tensor<4x32x8xi32>, tensor<1x1x8xi32>) outs(%down_e0 : tensor<4x32x8xi32>) {
  ^bb0(%a: i32, %s: i32, %out: i32):
    %r = arith.shrsi %a, %s : i32
    linalg.yield %r : i32
  } -> tensor<4x32x8xi32>
  %down_e1 = tensor.empty() : tensor<4x32x8xi8>
  %down_z_i8 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_z_sh : tensor<4x32x8xi32>) outs(%down_e1 : tensor<4x32x8xi8>) {
  ^bb0(%a: i32, %out: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  } -> tensor<4x32x8xi8>
  %down_z_and = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_z_i8 : tensor<4x32x8xi8>) outs(%down_e1 : tensor<4x32x8xi8>) {
  ^bb0(%a: i8, %out: i8):
    %m = arith.trunci %c15_i64 : i64 to i8
    %r = arith.andi %a, %m : i8
    linalg.yield %r : i8
  } -> tensor<4x32x8xi8>
  %down_z_flat = tensor.collapse_shape %down_z_and [[0], [1, 2]] : tensor<4x32x8xi8> into tensor<4x256xi8>
  %down_z3 = tensor.expand_shape %down_z_flat [[0], [1, 2]] output_shape [4, 1, 256] : tensor<4x256xi8> into tensor<4x1x256xi8>
  %down_s3 = tensor.expand_shape %down_scales [[0], [1, 2]] output_shape [4, 1, 256] : tensor<4x256xf16> into tensor<4x1x256xf16>
  %down_qw_u = tensor.expand_shape %down_qweight [[0, 1], [2]] output_shape [64, 1, 256] : tensor<64x256xi32> into tensor<64x1x256xi32>
  %down_e2 = tensor.empty() : tensor<64x8x256xi32>
  %down_qw_b = linalg.generic {indexing_maps = [#bc_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_qw_u : tensor<64x1x256xi32>) outs(%down_e2 : tensor<64x8x256xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  } -> tensor<64x8x256xi32>
  %down_wf_w = tensor.expand_shape %wf [[0], [1, 2]] output_shape [1, 8, 1] : tensor<1x8xi32> into tensor<1x8x1xi32>
  %down_w_sh = linalg.generic {indexing_maps = [#id3, #wf_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_qw_b, %down_wf_w : tensor<64x8x256xi32>, tensor<1x8x1xi32>) outs(%down_e2 : tensor<64x8x256xi32>) {
  ^bb0(%a: i32, %s: i32, %out: i32):
    %r = arith.shrsi %a, %s : i32
    linalg.yield %r : i32
  } -> tensor<64x8x256xi32>
  %down_e3 = tensor.empty() : tensor<64x8x256xi8>
  %down_w_i8 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_w_sh : tensor<64x8x256xi32>) outs(%down_e3 : tensor<64x8x256xi8>) {
  ^bb0(%a: i32, %out: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  } -> tensor<64x8x256xi8>
  %down_w_and = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_w_i8 : tensor<64x8x256xi8>) outs(%down_e3 : tensor<64x8x256xi8>) {
  ^bb0(%a: i8, %out: i8):
    %m = arith.trunci %c15_i64 : i64 to i8
    %r = arith.andi %a, %m : i8
    linalg.yield %r : i8
  } -> tensor<64x8x256xi8>
  %down_w_flat = tensor.collapse_shape %down_w_and [[0, 1], [2]] : tensor<64x8x256xi8> into tensor<512x256xi8>
  %down_w3 = tensor.expand_shape %down_w_flat [[0, 1], [2]] output_shape [4, 128, 256] : tensor<512x256xi8> into tensor<4x128x256xi8>
  %down_e4 = tensor.empty() : tensor<4x128x256xi8>
  %down_diff = linalg.generic {indexing_maps = [#id3, #bc_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_w3, %down_z3 : tensor<4x128x256xi8>, tensor<4x1x256xi8>) outs(%down_e4 : tensor<4x128x256xi8>) {
  ^bb0(%a: i8, %b: i8, %out: i8):
    %al = arith.trunci %c1_i64 : i64 to i8
    %sc = arith.muli %b, %al : i8
    %r = arith.subi %a, %sc : i8
    linalg.yield %r : i8
  } -> tensor<4x128x256xi8>
  %down_e5 = tensor.empty() : tensor<4x128x256xf16>
  %down_dq = linalg.generic {indexing_maps = [#bc_w, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_s3, %down_diff : tensor<4x1x256xf16>, tensor<4x128x256xi8>) outs(%down_e5 : tensor<4x128x256xf16>) {
  ^bb0(%s: f16, %d: i8, %out: f16):
    %df = arith.sitofp %d : i8 to f16
    %r = arith.mulf %s, %df : f16
    linalg.yield %r : f16
  } -> tensor<4x128x256xf16>
  %down_w = tensor.collapse_shape %down_dq [[0, 1], [2]] : tensor<4x128x256xf16> into tensor<512x256xf16>
  // ---- down: torch.matmul(x [B, S, 512], W [512, 256]): W broadcast to [B, 512, 256], linalg.batch_matmul ----
  %down_B = tensor.dim %prod, %c0 : tensor<?x?x512xf16>
  %down_S = tensor.dim %prod, %c1 : tensor<?x?x512xf16>
  %down_wb_e = tensor.empty(%down_B) : tensor<?x512x256xf16>
  %down_wb = linalg.generic {indexing_maps = [#bc_mm, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%down_w : tensor<512x256xf16>) outs(%down_wb_e : tensor<?x512x256xf16>) {
  ^bb0(%a: f16, %out: f16):
    linalg.yield %a : f16
  } -> tensor<?x512x256xf16>
  %down_o_e = tensor.empty(%down_B, %down_S) : tensor<?x?x256xf16>
  %down_fill = linalg.fill ins(%zero : f16) outs(%down_o_e : tensor<?x?x256xf16>) -> tensor<?x?x256xf16>
  %down_mm = linalg.batch_matmul ins(%prod, %down_wb : tensor<?x?x512xf16>, tensor<?x512x256xf16>) outs(%down_fill : tensor<?x?x256xf16>) -> tensor<?x?x256xf16>
  return %down_mm : tensor<?x?x256xf16>
}
