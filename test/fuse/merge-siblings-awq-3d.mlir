// Two projections of one rank-3 x in AutoAWQ's torch fallback form (test/fuse/autoawq-torch-fallback-3d.mlir,
// the same function body twice with their own weights, as an attention's q and k would be): each fuses (each
// collapses x to (B*S, K) itself, with zero points), and the two merge into one w4a16.merged_matmul with a zero-point
// tensor per member; each result is expanded back to (B, S, N) as before.
//
// RUN: w4a16-opt --w4a16-fuse --w4a16-merge-siblings --w4a16-verify %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// CHECK-LABEL: func.func @q_and_k(
// CHECK:         %[[XC:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<?x?x4096xf16> into tensor<?x4096xf16>
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[M:.+]]:2 = "w4a16.merged_matmul"(%[[XC]], %arg1, %arg4, %arg3, %arg6, %arg2, %arg5)
// CHECK-SAME:      combine = "outputs"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0>
// CHECK-SAME:      weight_layout = "packed_k_n8_awq", zero_point_layout = "packed_g_n8_awq"
// CHECK:         tensor.expand_shape %[[M]]#0
// CHECK:         tensor.expand_shape %[[M]]#1
// CHECK-NOT:     w4a16.fused_matmul
// CHECK-NOT:     linalg.
// REMARK-COUNT-2: remark: w4a16: fused as dequant(packed_k_n8_awq, scales g_n, zero points packed_g_n8_awq tensor<32x512xi32>) -> matmul
// REMARK: remark: w4a16: merged 2 sibling projections of one x into one launch (outputs)

#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#lhs_b = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#sh_b = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#bc_g = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#bc_w = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @q_and_k(%x: tensor<?x?x4096xf16>, %qweight_q: tensor<4096x512xi32>, %qzeros_q: tensor<32x512xi32>, %scales_q: tensor<32x4096xf16>, %qweight_k: tensor<4096x512xi32>, %qzeros_k: tensor<32x512xi32>, %scales_k: tensor<32x4096xf16>) -> (tensor<?x?x4096xf16>, tensor<?x?x4096xf16>) {
  %c0_i64_q = arith.constant 0 : i64
  %c4_i64_q = arith.constant 4 : i64
  %c1_i64_q = arith.constant 1 : i64
  %c15_i64_q = arith.constant 15 : i64
  %c0_i32_q = arith.constant 0 : i32
  %c1_i32_q = arith.constant 1 : i32
  // shifts = arange(0, 32, 4) : int64
  %e_sh_q = tensor.empty() : tensor<8xi64>
  %shifts_q = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%e_sh_q : tensor<8xi64>) {
  ^bb0(%out_q: i64):
    %i_q = linalg.index 0 : index
    %ii_q = arith.index_cast %i_q : index to i64
    %m_q = arith.muli %ii_q, %c4_i64_q : i64
    %a_q = arith.addi %c0_i64_q, %m_q : i64
    linalg.yield %a_q : i64
  } -> tensor<8xi64>
  %sh3_q = tensor.expand_shape %shifts_q [[0, 1, 2]] output_shape [1, 1, 8] : tensor<8xi64> into tensor<1x1x8xi64>
  %weight_u_q = tensor.expand_shape %qweight_q [[0], [1, 2]] output_shape [4096, 512, 1] : tensor<4096x512xi32> into tensor<4096x512x1xi32>
  %weight_e64_q = tensor.empty() : tensor<4096x512x8xi64>
  %weight_sh_q = linalg.generic {indexing_maps = [#lhs_b, #sh_b, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%weight_u_q, %sh3_q : tensor<4096x512x1xi32>, tensor<1x1x8xi64>) outs(%weight_e64_q : tensor<4096x512x8xi64>) {
  ^bb0(%a_q: i32, %b_q: i64, %out_q: i64):
    %a64_q = arith.extsi %a_q : i32 to i64
    %r_q = arith.shrsi %a64_q, %b_q : i64
    linalg.yield %r_q : i64
  } -> tensor<4096x512x8xi64>
  %weight_e8_q = tensor.empty() : tensor<4096x512x8xi8>
  %weight_i8_q = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%weight_sh_q : tensor<4096x512x8xi64>) outs(%weight_e8_q : tensor<4096x512x8xi8>) {
  ^bb0(%a_q: i64, %out_q: i8):
    %t_q = arith.trunci %a_q : i64 to i8
    linalg.yield %t_q : i8
  } -> tensor<4096x512x8xi8>
  %weight_flat_q = tensor.collapse_shape %weight_i8_q [[0], [1, 2]] : tensor<4096x512x8xi8> into tensor<4096x4096xi8>
  %zeros_u_q = tensor.expand_shape %qzeros_q [[0], [1, 2]] output_shape [32, 512, 1] : tensor<32x512xi32> into tensor<32x512x1xi32>
  %zeros_e64_q = tensor.empty() : tensor<32x512x8xi64>
  %zeros_sh_q = linalg.generic {indexing_maps = [#lhs_b, #sh_b, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zeros_u_q, %sh3_q : tensor<32x512x1xi32>, tensor<1x1x8xi64>) outs(%zeros_e64_q : tensor<32x512x8xi64>) {
  ^bb0(%a_q: i32, %b_q: i64, %out_q: i64):
    %a64_q = arith.extsi %a_q : i32 to i64
    %r_q = arith.shrsi %a64_q, %b_q : i64
    linalg.yield %r_q : i64
  } -> tensor<32x512x8xi64>
  %zeros_e8_q = tensor.empty() : tensor<32x512x8xi8>
  %zeros_i8_q = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zeros_sh_q : tensor<32x512x8xi64>) outs(%zeros_e8_q : tensor<32x512x8xi8>) {
  ^bb0(%a_q: i64, %out_q: i8):
    %t_q = arith.trunci %a_q : i64 to i8
    linalg.yield %t_q : i8
  } -> tensor<32x512x8xi8>
  %zeros_flat_q = tensor.collapse_shape %zeros_i8_q [[0], [1, 2]] : tensor<32x512x8xi8> into tensor<32x4096xi8>
  // rot = arange(N, int32).view(-1, 8)[:, AWQ_REVERSE_ORDER].view(-1)
  %e_r_q = tensor.empty() : tensor<4096xi32>
  %ar_q = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%e_r_q : tensor<4096xi32>) {
  ^bb0(%out_q: i32):
    %i_q = linalg.index 0 : index
    %ii_q = arith.index_cast %i_q : index to i32
    %m_q = arith.muli %ii_q, %c1_i32_q : i32
    %a_q = arith.addi %c0_i32_q, %m_q : i32
    linalg.yield %a_q : i32
  } -> tensor<4096xi32>
  %ar2_q = tensor.expand_shape %ar_q [[0, 1]] output_shape [512, 8] : tensor<4096xi32> into tensor<512x8xi32>
  %order_q = arith.constant dense<[0, 4, 1, 5, 2, 6, 3, 7]> : tensor<8xi64>
  %e_r2_q = tensor.empty() : tensor<512x8xi32>
  %rot2_q = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%order_q : tensor<8xi64>) outs(%e_r2_q : tensor<512x8xi32>) {
  ^bb0(%o_q: i64, %out_q: i32):
    %i0_q = linalg.index 0 : index
    %c0_q = arith.constant 0 : i64
    %neg_q = arith.cmpi slt, %o_q, %c0_q : i64
    %c8_q = arith.constant 8 : i64
    %pos_q = arith.addi %o_q, %c8_q : i64
    %sel_q = arith.select %neg_q, %pos_q, %o_q : i64
    %ix_q = arith.index_cast %sel_q : i64 to index
    %v_q = tensor.extract %ar2_q[%i0_q, %ix_q] : tensor<512x8xi32>
    linalg.yield %v_q : i32
  } -> tensor<512x8xi32>
  %rot_q = tensor.collapse_shape %rot2_q [[0, 1]] : tensor<512x8xi32> into tensor<4096xi32>
  %weight_ge_q = tensor.empty() : tensor<4096x4096xi8>
  %weight_g_q = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%rot_q : tensor<4096xi32>) outs(%weight_ge_q : tensor<4096x4096xi8>) {
  ^bb0(%r_q: i32, %out_q: i8):
    %i0_q = linalg.index 0 : index
    %r64_q = arith.extsi %r_q : i32 to i64
    %c0_q = arith.constant 0 : i64
    %neg_q = arith.cmpi slt, %r64_q, %c0_q : i64
    %cN_q = arith.constant 4096 : i64
    %pos_q = arith.addi %r64_q, %cN_q : i64
    %sel_q = arith.select %neg_q, %pos_q, %r64_q : i64
    %ix_q = arith.index_cast %sel_q : i64 to index
    %v_q = tensor.extract %weight_flat_q[%i0_q, %ix_q] : tensor<4096x4096xi8>
    linalg.yield %v_q : i8
  } -> tensor<4096x4096xi8>
  %weight_and_q = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%weight_g_q : tensor<4096x4096xi8>) outs(%weight_ge_q : tensor<4096x4096xi8>) {
  ^bb0(%a_q: i8, %out_q: i8):
    %m_q = arith.trunci %c15_i64_q : i64 to i8
    %r_q = arith.andi %a_q, %m_q : i8
    linalg.yield %r_q : i8
  } -> tensor<4096x4096xi8>
  %zeros_ge_q = tensor.empty() : tensor<32x4096xi8>
  %zeros_g_q = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%rot_q : tensor<4096xi32>) outs(%zeros_ge_q : tensor<32x4096xi8>) {
  ^bb0(%r_q: i32, %out_q: i8):
    %i0_q = linalg.index 0 : index
    %r64_q = arith.extsi %r_q : i32 to i64
    %c0_q = arith.constant 0 : i64
    %neg_q = arith.cmpi slt, %r64_q, %c0_q : i64
    %cN_q = arith.constant 4096 : i64
    %pos_q = arith.addi %r64_q, %cN_q : i64
    %sel_q = arith.select %neg_q, %pos_q, %r64_q : i64
    %ix_q = arith.index_cast %sel_q : i64 to index
    %v_q = tensor.extract %zeros_flat_q[%i0_q, %ix_q] : tensor<32x4096xi8>
    linalg.yield %v_q : i8
  } -> tensor<32x4096xi8>
  %zeros_and_q = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%zeros_g_q : tensor<32x4096xi8>) outs(%zeros_ge_q : tensor<32x4096xi8>) {
  ^bb0(%a_q: i8, %out_q: i8):
    %m_q = arith.trunci %c15_i64_q : i64 to i8
    %r_q = arith.andi %a_q, %m_q : i8
    linalg.yield %r_q : i8
  } -> tensor<32x4096xi8>
  // repeat_interleave(128, dim=0) of scales and zeros: unsqueeze, broadcast, collapse
  %s_u_q = tensor.expand_shape %scales_q [[0], [1, 2]] output_shape [32, 1, 4096] : tensor<32x4096xf16> into tensor<32x1x4096xf16>
  %s_be_q = tensor.empty() : tensor<32x128x4096xf16>
  %s_b_q = linalg.generic {indexing_maps = [#bc_g, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s_u_q : tensor<32x1x4096xf16>) outs(%s_be_q : tensor<32x128x4096xf16>) {
  ^bb0(%a_q: f16, %out_q: f16):
    linalg.yield %a_q : f16
  } -> tensor<32x128x4096xf16>
  %s_r_q = tensor.collapse_shape %s_b_q [[0, 1], [2]] : tensor<32x128x4096xf16> into tensor<4096x4096xf16>
  %z_u_q = tensor.expand_shape %zeros_and_q [[0], [1, 2]] output_shape [32, 1, 4096] : tensor<32x4096xi8> into tensor<32x1x4096xi8>
  %z_be_q = tensor.empty() : tensor<32x128x4096xi8>
  %z_b_q = linalg.generic {indexing_maps = [#bc_g, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%z_u_q : tensor<32x1x4096xi8>) outs(%z_be_q : tensor<32x128x4096xi8>) {
  ^bb0(%a_q: i8, %out_q: i8):
    linalg.yield %a_q : i8
  } -> tensor<32x128x4096xi8>
  %z_r_q = tensor.collapse_shape %z_b_q [[0, 1], [2]] : tensor<32x128x4096xi8> into tensor<4096x4096xi8>
  // (iweight - izeros) * scales
  %d_e_q = tensor.empty() : tensor<4096x4096xi8>
  %diff_q = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%weight_and_q, %z_r_q : tensor<4096x4096xi8>, tensor<4096x4096xi8>) outs(%d_e_q : tensor<4096x4096xi8>) {
  ^bb0(%a_q: i8, %b_q: i8, %out_q: i8):
    %al_q = arith.trunci %c1_i64_q : i64 to i8
    %sc_q = arith.muli %b_q, %al_q : i8
    %r_q = arith.subi %a_q, %sc_q : i8
    linalg.yield %r_q : i8
  } -> tensor<4096x4096xi8>
  %w_e_q = tensor.empty() : tensor<4096x4096xf16>
  %w_q = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%diff_q, %s_r_q : tensor<4096x4096xi8>, tensor<4096x4096xf16>) outs(%w_e_q : tensor<4096x4096xf16>) {
  ^bb0(%d_q: i8, %sv_q: f16, %out_q: f16):
    %df_q = arith.sitofp %d_q : i8 to f16
    %r_q = arith.mulf %df_q, %sv_q : f16
    linalg.yield %r_q : f16
  } -> tensor<4096x4096xf16>
  %cst_q = arith.constant 0.000000e+00 : f16
  %c0_q = arith.constant 0 : index
  %c1_q = arith.constant 1 : index
  %B_q = tensor.dim %x, %c0_q : tensor<?x?x4096xf16>
  %S_q = tensor.dim %x, %c1_q : tensor<?x?x4096xf16>
  %wb_e_q = tensor.empty(%B_q) : tensor<?x4096x4096xf16>
  %wb_q = linalg.generic {indexing_maps = [#bc_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w_q : tensor<4096x4096xf16>) outs(%wb_e_q : tensor<?x4096x4096xf16>) {
  ^bb0(%a_q: f16, %out_q: f16):
    linalg.yield %a_q : f16
  } -> tensor<?x4096x4096xf16>
  %o_e_q = tensor.empty(%B_q, %S_q) : tensor<?x?x4096xf16>
  %fill_q = linalg.fill ins(%cst_q : f16) outs(%o_e_q : tensor<?x?x4096xf16>) -> tensor<?x?x4096xf16>
  %mm_q = linalg.batch_matmul ins(%x, %wb_q : tensor<?x?x4096xf16>, tensor<?x4096x4096xf16>) outs(%fill_q : tensor<?x?x4096xf16>) -> tensor<?x?x4096xf16>
  %res_q = tensor.cast %mm_q : tensor<?x?x4096xf16> to tensor<?x?x4096xf16>
  %c0_i64_k = arith.constant 0 : i64
  %c4_i64_k = arith.constant 4 : i64
  %c1_i64_k = arith.constant 1 : i64
  %c15_i64_k = arith.constant 15 : i64
  %c0_i32_k = arith.constant 0 : i32
  %c1_i32_k = arith.constant 1 : i32
  // shifts = arange(0, 32, 4) : int64
  %e_sh_k = tensor.empty() : tensor<8xi64>
  %shifts_k = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%e_sh_k : tensor<8xi64>) {
  ^bb0(%out_k: i64):
    %i_k = linalg.index 0 : index
    %ii_k = arith.index_cast %i_k : index to i64
    %m_k = arith.muli %ii_k, %c4_i64_k : i64
    %a_k = arith.addi %c0_i64_k, %m_k : i64
    linalg.yield %a_k : i64
  } -> tensor<8xi64>
  %sh3_k = tensor.expand_shape %shifts_k [[0, 1, 2]] output_shape [1, 1, 8] : tensor<8xi64> into tensor<1x1x8xi64>
  %weight_u_k = tensor.expand_shape %qweight_k [[0], [1, 2]] output_shape [4096, 512, 1] : tensor<4096x512xi32> into tensor<4096x512x1xi32>
  %weight_e64_k = tensor.empty() : tensor<4096x512x8xi64>
  %weight_sh_k = linalg.generic {indexing_maps = [#lhs_b, #sh_b, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%weight_u_k, %sh3_k : tensor<4096x512x1xi32>, tensor<1x1x8xi64>) outs(%weight_e64_k : tensor<4096x512x8xi64>) {
  ^bb0(%a_k: i32, %b_k: i64, %out_k: i64):
    %a64_k = arith.extsi %a_k : i32 to i64
    %r_k = arith.shrsi %a64_k, %b_k : i64
    linalg.yield %r_k : i64
  } -> tensor<4096x512x8xi64>
  %weight_e8_k = tensor.empty() : tensor<4096x512x8xi8>
  %weight_i8_k = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%weight_sh_k : tensor<4096x512x8xi64>) outs(%weight_e8_k : tensor<4096x512x8xi8>) {
  ^bb0(%a_k: i64, %out_k: i8):
    %t_k = arith.trunci %a_k : i64 to i8
    linalg.yield %t_k : i8
  } -> tensor<4096x512x8xi8>
  %weight_flat_k = tensor.collapse_shape %weight_i8_k [[0], [1, 2]] : tensor<4096x512x8xi8> into tensor<4096x4096xi8>
  %zeros_u_k = tensor.expand_shape %qzeros_k [[0], [1, 2]] output_shape [32, 512, 1] : tensor<32x512xi32> into tensor<32x512x1xi32>
  %zeros_e64_k = tensor.empty() : tensor<32x512x8xi64>
  %zeros_sh_k = linalg.generic {indexing_maps = [#lhs_b, #sh_b, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zeros_u_k, %sh3_k : tensor<32x512x1xi32>, tensor<1x1x8xi64>) outs(%zeros_e64_k : tensor<32x512x8xi64>) {
  ^bb0(%a_k: i32, %b_k: i64, %out_k: i64):
    %a64_k = arith.extsi %a_k : i32 to i64
    %r_k = arith.shrsi %a64_k, %b_k : i64
    linalg.yield %r_k : i64
  } -> tensor<32x512x8xi64>
  %zeros_e8_k = tensor.empty() : tensor<32x512x8xi8>
  %zeros_i8_k = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zeros_sh_k : tensor<32x512x8xi64>) outs(%zeros_e8_k : tensor<32x512x8xi8>) {
  ^bb0(%a_k: i64, %out_k: i8):
    %t_k = arith.trunci %a_k : i64 to i8
    linalg.yield %t_k : i8
  } -> tensor<32x512x8xi8>
  %zeros_flat_k = tensor.collapse_shape %zeros_i8_k [[0], [1, 2]] : tensor<32x512x8xi8> into tensor<32x4096xi8>
  // rot = arange(N, int32).view(-1, 8)[:, AWQ_REVERSE_ORDER].view(-1)
  %e_r_k = tensor.empty() : tensor<4096xi32>
  %ar_k = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%e_r_k : tensor<4096xi32>) {
  ^bb0(%out_k: i32):
    %i_k = linalg.index 0 : index
    %ii_k = arith.index_cast %i_k : index to i32
    %m_k = arith.muli %ii_k, %c1_i32_k : i32
    %a_k = arith.addi %c0_i32_k, %m_k : i32
    linalg.yield %a_k : i32
  } -> tensor<4096xi32>
  %ar2_k = tensor.expand_shape %ar_k [[0, 1]] output_shape [512, 8] : tensor<4096xi32> into tensor<512x8xi32>
  %order_k = arith.constant dense<[0, 4, 1, 5, 2, 6, 3, 7]> : tensor<8xi64>
  %e_r2_k = tensor.empty() : tensor<512x8xi32>
  %rot2_k = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%order_k : tensor<8xi64>) outs(%e_r2_k : tensor<512x8xi32>) {
  ^bb0(%o_k: i64, %out_k: i32):
    %i0_k = linalg.index 0 : index
    %c0_k = arith.constant 0 : i64
    %neg_k = arith.cmpi slt, %o_k, %c0_k : i64
    %c8_k = arith.constant 8 : i64
    %pos_k = arith.addi %o_k, %c8_k : i64
    %sel_k = arith.select %neg_k, %pos_k, %o_k : i64
    %ix_k = arith.index_cast %sel_k : i64 to index
    %v_k = tensor.extract %ar2_k[%i0_k, %ix_k] : tensor<512x8xi32>
    linalg.yield %v_k : i32
  } -> tensor<512x8xi32>
  %rot_k = tensor.collapse_shape %rot2_k [[0, 1]] : tensor<512x8xi32> into tensor<4096xi32>
  %weight_ge_k = tensor.empty() : tensor<4096x4096xi8>
  %weight_g_k = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%rot_k : tensor<4096xi32>) outs(%weight_ge_k : tensor<4096x4096xi8>) {
  ^bb0(%r_k: i32, %out_k: i8):
    %i0_k = linalg.index 0 : index
    %r64_k = arith.extsi %r_k : i32 to i64
    %c0_k = arith.constant 0 : i64
    %neg_k = arith.cmpi slt, %r64_k, %c0_k : i64
    %cN_k = arith.constant 4096 : i64
    %pos_k = arith.addi %r64_k, %cN_k : i64
    %sel_k = arith.select %neg_k, %pos_k, %r64_k : i64
    %ix_k = arith.index_cast %sel_k : i64 to index
    %v_k = tensor.extract %weight_flat_k[%i0_k, %ix_k] : tensor<4096x4096xi8>
    linalg.yield %v_k : i8
  } -> tensor<4096x4096xi8>
  %weight_and_k = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%weight_g_k : tensor<4096x4096xi8>) outs(%weight_ge_k : tensor<4096x4096xi8>) {
  ^bb0(%a_k: i8, %out_k: i8):
    %m_k = arith.trunci %c15_i64_k : i64 to i8
    %r_k = arith.andi %a_k, %m_k : i8
    linalg.yield %r_k : i8
  } -> tensor<4096x4096xi8>
  %zeros_ge_k = tensor.empty() : tensor<32x4096xi8>
  %zeros_g_k = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%rot_k : tensor<4096xi32>) outs(%zeros_ge_k : tensor<32x4096xi8>) {
  ^bb0(%r_k: i32, %out_k: i8):
    %i0_k = linalg.index 0 : index
    %r64_k = arith.extsi %r_k : i32 to i64
    %c0_k = arith.constant 0 : i64
    %neg_k = arith.cmpi slt, %r64_k, %c0_k : i64
    %cN_k = arith.constant 4096 : i64
    %pos_k = arith.addi %r64_k, %cN_k : i64
    %sel_k = arith.select %neg_k, %pos_k, %r64_k : i64
    %ix_k = arith.index_cast %sel_k : i64 to index
    %v_k = tensor.extract %zeros_flat_k[%i0_k, %ix_k] : tensor<32x4096xi8>
    linalg.yield %v_k : i8
  } -> tensor<32x4096xi8>
  %zeros_and_k = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%zeros_g_k : tensor<32x4096xi8>) outs(%zeros_ge_k : tensor<32x4096xi8>) {
  ^bb0(%a_k: i8, %out_k: i8):
    %m_k = arith.trunci %c15_i64_k : i64 to i8
    %r_k = arith.andi %a_k, %m_k : i8
    linalg.yield %r_k : i8
  } -> tensor<32x4096xi8>
  // repeat_interleave(128, dim=0) of scales and zeros: unsqueeze, broadcast, collapse
  %s_u_k = tensor.expand_shape %scales_k [[0], [1, 2]] output_shape [32, 1, 4096] : tensor<32x4096xf16> into tensor<32x1x4096xf16>
  %s_be_k = tensor.empty() : tensor<32x128x4096xf16>
  %s_b_k = linalg.generic {indexing_maps = [#bc_g, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s_u_k : tensor<32x1x4096xf16>) outs(%s_be_k : tensor<32x128x4096xf16>) {
  ^bb0(%a_k: f16, %out_k: f16):
    linalg.yield %a_k : f16
  } -> tensor<32x128x4096xf16>
  %s_r_k = tensor.collapse_shape %s_b_k [[0, 1], [2]] : tensor<32x128x4096xf16> into tensor<4096x4096xf16>
  %z_u_k = tensor.expand_shape %zeros_and_k [[0], [1, 2]] output_shape [32, 1, 4096] : tensor<32x4096xi8> into tensor<32x1x4096xi8>
  %z_be_k = tensor.empty() : tensor<32x128x4096xi8>
  %z_b_k = linalg.generic {indexing_maps = [#bc_g, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%z_u_k : tensor<32x1x4096xi8>) outs(%z_be_k : tensor<32x128x4096xi8>) {
  ^bb0(%a_k: i8, %out_k: i8):
    linalg.yield %a_k : i8
  } -> tensor<32x128x4096xi8>
  %z_r_k = tensor.collapse_shape %z_b_k [[0, 1], [2]] : tensor<32x128x4096xi8> into tensor<4096x4096xi8>
  // (iweight - izeros) * scales
  %d_e_k = tensor.empty() : tensor<4096x4096xi8>
  %diff_k = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%weight_and_k, %z_r_k : tensor<4096x4096xi8>, tensor<4096x4096xi8>) outs(%d_e_k : tensor<4096x4096xi8>) {
  ^bb0(%a_k: i8, %b_k: i8, %out_k: i8):
    %al_k = arith.trunci %c1_i64_k : i64 to i8
    %sc_k = arith.muli %b_k, %al_k : i8
    %r_k = arith.subi %a_k, %sc_k : i8
    linalg.yield %r_k : i8
  } -> tensor<4096x4096xi8>
  %w_e_k = tensor.empty() : tensor<4096x4096xf16>
  %w_k = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%diff_k, %s_r_k : tensor<4096x4096xi8>, tensor<4096x4096xf16>) outs(%w_e_k : tensor<4096x4096xf16>) {
  ^bb0(%d_k: i8, %sv_k: f16, %out_k: f16):
    %df_k = arith.sitofp %d_k : i8 to f16
    %r_k = arith.mulf %df_k, %sv_k : f16
    linalg.yield %r_k : f16
  } -> tensor<4096x4096xf16>
  %cst_k = arith.constant 0.000000e+00 : f16
  %c0_k = arith.constant 0 : index
  %c1_k = arith.constant 1 : index
  %B_k = tensor.dim %x, %c0_k : tensor<?x?x4096xf16>
  %S_k = tensor.dim %x, %c1_k : tensor<?x?x4096xf16>
  %wb_e_k = tensor.empty(%B_k) : tensor<?x4096x4096xf16>
  %wb_k = linalg.generic {indexing_maps = [#bc_w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w_k : tensor<4096x4096xf16>) outs(%wb_e_k : tensor<?x4096x4096xf16>) {
  ^bb0(%a_k: f16, %out_k: f16):
    linalg.yield %a_k : f16
  } -> tensor<?x4096x4096xf16>
  %o_e_k = tensor.empty(%B_k, %S_k) : tensor<?x?x4096xf16>
  %fill_k = linalg.fill ins(%cst_k : f16) outs(%o_e_k : tensor<?x?x4096xf16>) -> tensor<?x?x4096xf16>
  %mm_k = linalg.batch_matmul ins(%x, %wb_k : tensor<?x?x4096xf16>, tensor<?x4096x4096xf16>) outs(%fill_k : tensor<?x?x4096xf16>) -> tensor<?x?x4096xf16>
  %res_k = tensor.cast %mm_k : tensor<?x?x4096xf16> to tensor<?x?x4096xf16>
  return %res_q, %res_k : tensor<?x?x4096xf16>, tensor<?x?x4096xf16>
}
