// Multi-chain functions. A llama MLP is three chains: gate (fused with silu), up (fused plain) and down
// (fused with the residual). The elementwise silu(gate) * up between them is NOT part of any chain and must
// stay a separate op reading the two fused results. Also: independent chains in one function, chains sharing
// x, and a chain whose x is another chain's fused result.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// llama-7B MLP, GPTQ-packed weights, dynamic M; silu as one f16 generic; down projection + residual.

// CHECK-LABEL: func.func @llama_mlp_gptq(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[H:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-SAME:    %[[GQ:[a-zA-Z0-9_]+]]: tensor<512x11008xi32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-SAME:    %[[UQ:[a-zA-Z0-9_]+]]: tensor<512x11008xi32>, %[[US:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK-SAME:    %[[DQ:[a-zA-Z0-9_]+]]: tensor<1376x4096xi32>, %[[DS:[a-zA-Z0-9_]+]]: tensor<86x4096xf16>
// CHECK-NOT:     linalg.matmul
// CHECK-DAG:     %[[G:.+]] = "w4a16.fused_matmul"(%[[X]], %[[GQ]], %[[GS]]) {{.*}}activation = "silu"{{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>{{.*}}weight_layout = "packed_k8_n"
// CHECK-DAG:     %[[U:.+]] = "w4a16.fused_matmul"(%[[X]], %[[UQ]], %[[US]]) {{.*}}activation = "none"{{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>{{.*}}weight_layout = "packed_k8_n"
// CHECK:         %[[P:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[G]], %[[U]] : tensor<?x11008xf16>, tensor<?x11008xf16>)
// CHECK:           arith.mulf
// CHECK-NOT:       math.exp
// CHECK:         } -> tensor<?x11008xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[D:.+]] = "w4a16.fused_matmul"(%[[P]], %[[DQ]], %[[DS]], %[[H]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      : (tensor<?x11008xf16>, tensor<1376x4096xi32>, tensor<86x4096xf16>, tensor<?x4096xf16>) -> tensor<?x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[D]] : tensor<?x4096xf16>
func.func @llama_mlp_gptq(%x: tensor<?x4096xf16>, %h: tensor<?x4096xf16>, %gate_qw: tensor<512x11008xi32>, %gate_s: tensor<32x11008xf16>, %up_qw: tensor<512x11008xi32>, %up_s: tensor<32x11008xf16>, %down_qw: tensor<1376x4096xi32>, %down_s: tensor<86x4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.000000e+00 : f16
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de_g = tensor.empty() : tensor<4096x11008xf16>
  %gate_w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_g : tensor<4096x11008xf16>) {
  ^bb0(%out: f16):
    %c8_g_i = arith.constant 8 : index
    %c128_g_i = arith.constant 128 : index
    %c4_g_i32 = arith.constant 4 : i32
    %c15_g_i32 = arith.constant 15 : i32
    %zp_g = arith.constant 8.000000e+00 : f16
    %k_g = linalg.index 0 : index
    %n_g = linalg.index 1 : index
    %kw_g = arith.divui %k_g, %c8_g_i : index
    %word_g = tensor.extract %gate_qw[%kw_g, %n_g] : tensor<512x11008xi32>
    %lane_g = arith.remui %k_g, %c8_g_i : index
    %lane_g_i32 = arith.index_cast %lane_g : index to i32
    %sh_g = arith.muli %lane_g_i32, %c4_g_i32 : i32
    %v_g = arith.shrui %word_g, %sh_g : i32
    %code_g = arith.andi %v_g, %c15_g_i32 : i32
    %cf_g = arith.uitofp %code_g : i32 to f16
    %cz_g = arith.subf %cf_g, %zp_g : f16
    %g_g = arith.divui %k_g, %c128_g_i : index
    %sc_g = tensor.extract %gate_s[%g_g, %n_g] : tensor<32x11008xf16>
    %w_g = arith.mulf %cz_g, %sc_g : f16
    linalg.yield %w_g : f16
  } -> tensor<4096x11008xf16>
  %zero_g = arith.constant 0.000000e+00 : f16
  %acc_e_g = tensor.empty(%m) : tensor<?x11008xf16>
  %acc_g = linalg.fill ins(%zero_g : f16) outs(%acc_e_g : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %gate = linalg.matmul ins(%x, %gate_w : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc_g : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %se = tensor.empty(%m) : tensor<?x11008xf16>
  %gate_act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x11008xf16>) outs(%se : tensor<?x11008xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %in, %3 : f16
    linalg.yield %4 : f16
  } -> tensor<?x11008xf16>
  %de_u = tensor.empty() : tensor<4096x11008xf16>
  %up_w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_u : tensor<4096x11008xf16>) {
  ^bb0(%out: f16):
    %c8_u_i = arith.constant 8 : index
    %c128_u_i = arith.constant 128 : index
    %c4_u_i32 = arith.constant 4 : i32
    %c15_u_i32 = arith.constant 15 : i32
    %zp_u = arith.constant 8.000000e+00 : f16
    %k_u = linalg.index 0 : index
    %n_u = linalg.index 1 : index
    %kw_u = arith.divui %k_u, %c8_u_i : index
    %word_u = tensor.extract %up_qw[%kw_u, %n_u] : tensor<512x11008xi32>
    %lane_u = arith.remui %k_u, %c8_u_i : index
    %lane_u_i32 = arith.index_cast %lane_u : index to i32
    %sh_u = arith.muli %lane_u_i32, %c4_u_i32 : i32
    %v_u = arith.shrui %word_u, %sh_u : i32
    %code_u = arith.andi %v_u, %c15_u_i32 : i32
    %cf_u = arith.uitofp %code_u : i32 to f16
    %cz_u = arith.subf %cf_u, %zp_u : f16
    %g_u = arith.divui %k_u, %c128_u_i : index
    %sc_u = tensor.extract %up_s[%g_u, %n_u] : tensor<32x11008xf16>
    %w_u = arith.mulf %cz_u, %sc_u : f16
    linalg.yield %w_u : f16
  } -> tensor<4096x11008xf16>
  %zero_u = arith.constant 0.000000e+00 : f16
  %acc_e_u = tensor.empty(%m) : tensor<?x11008xf16>
  %acc_u = linalg.fill ins(%zero_u : f16) outs(%acc_e_u : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %up = linalg.matmul ins(%x, %up_w : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc_u : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %pe = tensor.empty(%m) : tensor<?x11008xf16>
  %prod = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate_act, %up : tensor<?x11008xf16>, tensor<?x11008xf16>) outs(%pe : tensor<?x11008xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %0 = arith.mulf %a, %b : f16
    linalg.yield %0 : f16
  } -> tensor<?x11008xf16>
  %de_d = tensor.empty() : tensor<11008x4096xf16>
  %down_w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_d : tensor<11008x4096xf16>) {
  ^bb0(%out: f16):
    %c8_d_i = arith.constant 8 : index
    %c128_d_i = arith.constant 128 : index
    %c4_d_i32 = arith.constant 4 : i32
    %c15_d_i32 = arith.constant 15 : i32
    %zp_d = arith.constant 8.000000e+00 : f16
    %k_d = linalg.index 0 : index
    %n_d = linalg.index 1 : index
    %kw_d = arith.divui %k_d, %c8_d_i : index
    %word_d = tensor.extract %down_qw[%kw_d, %n_d] : tensor<1376x4096xi32>
    %lane_d = arith.remui %k_d, %c8_d_i : index
    %lane_d_i32 = arith.index_cast %lane_d : index to i32
    %sh_d = arith.muli %lane_d_i32, %c4_d_i32 : i32
    %v_d = arith.shrui %word_d, %sh_d : i32
    %code_d = arith.andi %v_d, %c15_d_i32 : i32
    %cf_d = arith.uitofp %code_d : i32 to f16
    %cz_d = arith.subf %cf_d, %zp_d : f16
    %g_d = arith.divui %k_d, %c128_d_i : index
    %sc_d = tensor.extract %down_s[%g_d, %n_d] : tensor<86x4096xf16>
    %w_d = arith.mulf %cz_d, %sc_d : f16
    linalg.yield %w_d : f16
  } -> tensor<11008x4096xf16>
  %zero_d = arith.constant 0.000000e+00 : f16
  %acc_e_d = tensor.empty(%m) : tensor<?x4096xf16>
  %acc_d = linalg.fill ins(%zero_d : f16) outs(%acc_e_d : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %down = linalg.matmul ins(%prod, %down_w : tensor<?x11008xf16>, tensor<11008x4096xf16>) outs(%acc_d : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %re = tensor.empty(%m) : tensor<?x4096xf16>
  %res = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%down, %h : tensor<?x4096xf16>, tensor<?x4096xf16>) outs(%re : tensor<?x4096xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %0 = arith.addf %a, %b : f16
    linalg.yield %0 : f16
  } -> tensor<?x4096xf16>
  return %res : tensor<?x4096xf16>
}

// -----

// The same MLP the way torch-mlir lowers a HF LlamaMLP: nn.Linear (N, K) storage with transposed-B matmuls,
// up computed before gate's activation, silu as a sigmoid generic + multiply generic (gate * sigmoid(gate)),
// then (silu * up), down, and residual + down (commuted). Static M = 32, llama-3-8B sizes.

// CHECK-LABEL: func.func @llama_mlp_torch(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[H:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[GW:[a-zA-Z0-9_]+]]: tensor<14336x32x128xi4>, %[[GS:[a-zA-Z0-9_]+]]: tensor<14336x32xf16>
// CHECK-SAME:    %[[UW:[a-zA-Z0-9_]+]]: tensor<14336x32x128xi4>, %[[US:[a-zA-Z0-9_]+]]: tensor<14336x32xf16>
// CHECK-SAME:    %[[DW:[a-zA-Z0-9_]+]]: tensor<4096x112x128xi4>, %[[DS:[a-zA-Z0-9_]+]]: tensor<4096x112xf16>
// CHECK-NOT:     linalg.matmul
// CHECK-DAG:     %[[GWC:.+]] = tensor.collapse_shape %[[GW]] {{\[\[}}0], [1, 2]] : tensor<14336x32x128xi4> into tensor<14336x4096xi4>
// CHECK-DAG:     %[[UWC:.+]] = tensor.collapse_shape %[[UW]] {{\[\[}}0], [1, 2]] : tensor<14336x32x128xi4> into tensor<14336x4096xi4>
// CHECK-DAG:     %[[G:.+]] = "w4a16.fused_matmul"(%[[X]], %[[GWC]], %[[GS]]) {{.*}}activation = "silu"{{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>{{.*}}weight_layout = "n_k"
// CHECK-DAG:     %[[U:.+]] = "w4a16.fused_matmul"(%[[X]], %[[UWC]], %[[US]]) {{.*}}activation = "none"{{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>{{.*}}weight_layout = "n_k"
// CHECK:         %[[P:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[G]], %[[U]] : tensor<32x14336xf16>, tensor<32x14336xf16>)
// CHECK:           arith.mulf
// CHECK:         } -> tensor<32x14336xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[D:.+]] = "w4a16.fused_matmul"(%[[P]], %{{[a-zA-Z0-9_]+}}, %[[DS]], %[[H]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      : (tensor<32x14336xf16>, tensor<4096x14336xi4>, tensor<4096x112xf16>, tensor<32x4096xf16>) -> tensor<32x4096xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[D]] : tensor<32x4096xf16>
func.func @llama_mlp_torch(%x: tensor<32x4096xf16>, %h: tensor<32x4096xf16>, %gw: tensor<14336x32x128xi4>, %gs: tensor<14336x32xf16>, %uw: tensor<14336x32x128xi4>, %us: tensor<14336x32xf16>, %dw: tensor<4096x112x128xi4>, %ds: tensor<4096x112xf16>) -> tensor<32x4096xf16> {
  %cst = arith.constant 1.000000e+00 : f16
  %de3_g = tensor.empty() : tensor<14336x32x128xf16>
  %deq3_g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gw, %gs : tensor<14336x32x128xi4>, tensor<14336x32xf16>) outs(%de3_g : tensor<14336x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp_g = arith.constant 8.000000e+00 : f16
    %e_g = arith.extui %in : i4 to i32
    %f_g = arith.uitofp %e_g : i32 to f16
    %c_g = arith.subf %f_g, %zp_g : f16
    %r_g = arith.mulf %c_g, %in_0 : f16
    linalg.yield %r_g : f16
  } -> tensor<14336x32x128xf16>
  %gate_w = tensor.collapse_shape %deq3_g [[0], [1, 2]] : tensor<14336x32x128xf16> into tensor<14336x4096xf16>
  %zero_g = arith.constant 0.000000e+00 : f16
  %acc_e_g = tensor.empty() : tensor<32x14336xf16>
  %acc_g = linalg.fill ins(%zero_g : f16) outs(%acc_e_g : tensor<32x14336xf16>) -> tensor<32x14336xf16>
  %gate = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %gate_w : tensor<32x4096xf16>, tensor<14336x4096xf16>) outs(%acc_g : tensor<32x14336xf16>) -> tensor<32x14336xf16>
  %de3_u = tensor.empty() : tensor<14336x32x128xf16>
  %deq3_u = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%uw, %us : tensor<14336x32x128xi4>, tensor<14336x32xf16>) outs(%de3_u : tensor<14336x32x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp_u = arith.constant 8.000000e+00 : f16
    %e_u = arith.extui %in : i4 to i32
    %f_u = arith.uitofp %e_u : i32 to f16
    %c_u = arith.subf %f_u, %zp_u : f16
    %r_u = arith.mulf %c_u, %in_0 : f16
    linalg.yield %r_u : f16
  } -> tensor<14336x32x128xf16>
  %up_w = tensor.collapse_shape %deq3_u [[0], [1, 2]] : tensor<14336x32x128xf16> into tensor<14336x4096xf16>
  %zero_u = arith.constant 0.000000e+00 : f16
  %acc_e_u = tensor.empty() : tensor<32x14336xf16>
  %acc_u = linalg.fill ins(%zero_u : f16) outs(%acc_e_u : tensor<32x14336xf16>) -> tensor<32x14336xf16>
  %up = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %up_w : tensor<32x4096xf16>, tensor<14336x4096xf16>) outs(%acc_u : tensor<32x14336xf16>) -> tensor<32x14336xf16>
  %0 = tensor.empty() : tensor<32x14336xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<32x14336xf16>) outs(%0 : tensor<32x14336xf16>) {
  ^bb0(%in: f16, %out: f16):
    %8 = arith.negf %in : f16
    %9 = math.exp %8 : f16
    %10 = arith.addf %9, %cst : f16
    %11 = arith.divf %cst, %10 : f16
    linalg.yield %11 : f16
  } -> tensor<32x14336xf16>
  %2 = tensor.empty() : tensor<32x14336xf16>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate, %1 : tensor<32x14336xf16>, tensor<32x14336xf16>) outs(%2 : tensor<32x14336xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %8 = arith.mulf %in, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<32x14336xf16>
  %4 = tensor.empty() : tensor<32x14336xf16>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3, %up : tensor<32x14336xf16>, tensor<32x14336xf16>) outs(%4 : tensor<32x14336xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %8 = arith.mulf %in, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<32x14336xf16>
  %de3_d = tensor.empty() : tensor<4096x112x128xf16>
  %deq3_d = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%dw, %ds : tensor<4096x112x128xi4>, tensor<4096x112xf16>) outs(%de3_d : tensor<4096x112x128xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp_d = arith.constant 8.000000e+00 : f16
    %e_d = arith.extui %in : i4 to i32
    %f_d = arith.uitofp %e_d : i32 to f16
    %c_d = arith.subf %f_d, %zp_d : f16
    %r_d = arith.mulf %c_d, %in_0 : f16
    linalg.yield %r_d : f16
  } -> tensor<4096x112x128xf16>
  %down_w = tensor.collapse_shape %deq3_d [[0], [1, 2]] : tensor<4096x112x128xf16> into tensor<4096x14336xf16>
  %zero_d = arith.constant 0.000000e+00 : f16
  %acc_e_d = tensor.empty() : tensor<32x4096xf16>
  %acc_d = linalg.fill ins(%zero_d : f16) outs(%acc_e_d : tensor<32x4096xf16>) -> tensor<32x4096xf16>
  %down = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%5, %down_w : tensor<32x14336xf16>, tensor<4096x14336xf16>) outs(%acc_d : tensor<32x4096xf16>) -> tensor<32x4096xf16>
  %6 = tensor.empty() : tensor<32x4096xf16>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h, %down : tensor<32x4096xf16>, tensor<32x4096xf16>) outs(%6 : tensor<32x4096xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %8 = arith.addf %in, %in_0 : f16
    linalg.yield %8 : f16
  } -> tensor<32x4096xf16>
  return %7 : tensor<32x4096xf16>
}

// -----

// Two independent chains in one function: a (K, N) i4 projection with bias and a GPTQ projection with
// gelu_tanh in f32, on different inputs. Both fuse; the results come back in order.

// CHECK-LABEL: func.func @two_independent_chains(
// CHECK-SAME:    %[[XA:[a-zA-Z0-9_]+]]: tensor<4x512xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x128x256xi4>, %[[S:[a-zA-Z0-9_]+]]: tensor<4x256xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<256xf16>
// CHECK-SAME:    %[[XB:[a-zA-Z0-9_]+]]: tensor<?x1024xf16>, %[[QW:[a-zA-Z0-9_]+]]: tensor<128x768xi32>, %[[QS:[a-zA-Z0-9_]+]]: tensor<8x768xf16>
// CHECK-NOT:     linalg.
// CHECK-DAG:     %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<4x128x256xi4> into tensor<512x256xi4>
// CHECK-DAG:     %[[RA:.+]] = "w4a16.fused_matmul"(%[[XA]], %[[WC]], %[[S]], %[[B]]) {{.*}}activation = "none"{{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>{{.*}}weight_layout = "k_n"
// CHECK-DAG:     %[[RB:.+]] = "w4a16.fused_matmul"(%[[XB]], %[[QW]], %[[QS]]) {{.*}}activation = "gelu_tanh"{{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>{{.*}}weight_layout = "packed_k8_n"
// CHECK-NOT:     linalg.
// CHECK:         return %[[RA]], %[[RB]] : tensor<4x256xf16>, tensor<?x768xf16>
func.func @two_independent_chains(%xa: tensor<4x512xf16>, %w: tensor<4x128x256xi4>, %s: tensor<4x256xf16>, %bias: tensor<256xf16>, %xb: tensor<?x1024xf16>, %qweight: tensor<128x768xi32>, %scales: tensor<8x768xf16>) -> (tensor<4x256xf16>, tensor<?x768xf16>) {
  %c0 = arith.constant 0 : index
  %de3_a = tensor.empty() : tensor<4x128x256xf16>
  %deq3_a = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4x128x256xi4>, tensor<4x256xf16>) outs(%de3_a : tensor<4x128x256xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp_a = arith.constant 8.000000e+00 : f16
    %e_a = arith.extui %in : i4 to i32
    %f_a = arith.uitofp %e_a : i32 to f16
    %c_a = arith.subf %f_a, %zp_a : f16
    %r_a = arith.mulf %c_a, %in_0 : f16
    linalg.yield %r_a : f16
  } -> tensor<4x128x256xf16>
  %wa = tensor.collapse_shape %deq3_a [[0, 1], [2]] : tensor<4x128x256xf16> into tensor<512x256xf16>
  %zero_a = arith.constant 0.000000e+00 : f16
  %acc_e_a = tensor.empty() : tensor<4x256xf16>
  %acc_a = linalg.fill ins(%zero_a : f16) outs(%acc_e_a : tensor<4x256xf16>) -> tensor<4x256xf16>
  %ya = linalg.matmul ins(%xa, %wa : tensor<4x512xf16>, tensor<512x256xf16>) outs(%acc_a : tensor<4x256xf16>) -> tensor<4x256xf16>
  %be = tensor.empty() : tensor<4x256xf16>
  %ra = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ya, %bias : tensor<4x256xf16>, tensor<256xf16>) outs(%be : tensor<4x256xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<4x256xf16>
  %mb = tensor.dim %xb, %c0 : tensor<?x1024xf16>
  %de_b = tensor.empty() : tensor<1024x768xf16>
  %wb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_b : tensor<1024x768xf16>) {
  ^bb0(%out: f16):
    %c8_b_i = arith.constant 8 : index
    %c128_b_i = arith.constant 128 : index
    %c4_b_i32 = arith.constant 4 : i32
    %c15_b_i32 = arith.constant 15 : i32
    %zp_b = arith.constant 8.000000e+00 : f16
    %k_b = linalg.index 0 : index
    %n_b = linalg.index 1 : index
    %kw_b = arith.divui %k_b, %c8_b_i : index
    %word_b = tensor.extract %qweight[%kw_b, %n_b] : tensor<128x768xi32>
    %lane_b = arith.remui %k_b, %c8_b_i : index
    %lane_b_i32 = arith.index_cast %lane_b : index to i32
    %sh_b = arith.muli %lane_b_i32, %c4_b_i32 : i32
    %v_b = arith.shrui %word_b, %sh_b : i32
    %code_b = arith.andi %v_b, %c15_b_i32 : i32
    %cf_b = arith.uitofp %code_b : i32 to f16
    %cz_b = arith.subf %cf_b, %zp_b : f16
    %g_b = arith.divui %k_b, %c128_b_i : index
    %sc_b = tensor.extract %scales[%g_b, %n_b] : tensor<8x768xf16>
    %w_b = arith.mulf %cz_b, %sc_b : f16
    linalg.yield %w_b : f16
  } -> tensor<1024x768xf16>
  %zero_b = arith.constant 0.000000e+00 : f16
  %acc_e_b = tensor.empty(%mb) : tensor<?x768xf16>
  %acc_b = linalg.fill ins(%zero_b : f16) outs(%acc_e_b : tensor<?x768xf16>) -> tensor<?x768xf16>
  %yb = linalg.matmul ins(%xb, %wb : tensor<?x1024xf16>, tensor<1024x768xf16>) outs(%acc_b : tensor<?x768xf16>) -> tensor<?x768xf16>
  %ge = tensor.empty(%mb) : tensor<?x768xf16>
  %rb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<?x768xf16>) outs(%ge : tensor<?x768xf16>) {
  ^bb0(%in: f16, %out: f16):
    %c3 = arith.constant 3.000000e+00 : f32
    %kappa = arith.constant 4.471500e-02 : f32
    %beta = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %v = arith.extf %in : f16 to f32
    %0 = math.powf %v, %c3 : f32
    %1 = arith.mulf %0, %kappa : f32
    %2 = arith.addf %v, %1 : f32
    %3 = arith.mulf %2, %beta : f32
    %4 = math.tanh %3 : f32
    %5 = arith.addf %4, %one : f32
    %6 = arith.mulf %v, %half : f32
    %7 = arith.mulf %6, %5 : f32
    %8 = arith.truncf %7 : f32 to f16
    linalg.yield %8 : f16
  } -> tensor<?x768xf16>
  return %ra, %rb : tensor<4x256xf16>, tensor<?x768xf16>
}

// -----

// q/k/v projections sharing x (GPTQ, dynamic M): three chains, q with a bias; each fuses on its own and
// x stays shared.

// CHECK-LABEL: func.func @qkv_shared_x(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x2048xf16>
// CHECK-SAME:    %[[QQ:[a-zA-Z0-9_]+]]: tensor<256x2048xi32>, %[[QS:[a-zA-Z0-9_]+]]: tensor<16x2048xf16>, %[[QB:[a-zA-Z0-9_]+]]: tensor<2048xf16>
// CHECK-SAME:    %[[KQ:[a-zA-Z0-9_]+]]: tensor<256x256xi32>, %[[KS:[a-zA-Z0-9_]+]]: tensor<16x256xf16>
// CHECK-SAME:    %[[VQ:[a-zA-Z0-9_]+]]: tensor<256x256xi32>, %[[VS:[a-zA-Z0-9_]+]]: tensor<16x256xf16>
// CHECK-NOT:     linalg.
// CHECK-DAG:     %[[Q:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QQ]], %[[QS]], %[[QB]]) {{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-DAG:     %[[K:.+]] = "w4a16.fused_matmul"(%[[X]], %[[KQ]], %[[KS]]) {{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-DAG:     %[[V:.+]] = "w4a16.fused_matmul"(%[[X]], %[[VQ]], %[[VS]]) {{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-NOT:     linalg.
// CHECK:         return %[[Q]], %[[K]], %[[V]]
func.func @qkv_shared_x(%x: tensor<?x2048xf16>, %q_qw: tensor<256x2048xi32>, %q_s: tensor<16x2048xf16>, %q_b: tensor<2048xf16>, %k_qw: tensor<256x256xi32>, %k_s: tensor<16x256xf16>, %v_qw: tensor<256x256xi32>, %v_s: tensor<16x256xf16>) -> (tensor<?x2048xf16>, tensor<?x256xf16>, tensor<?x256xf16>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %de_q = tensor.empty() : tensor<2048x2048xf16>
  %wq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_q : tensor<2048x2048xf16>) {
  ^bb0(%out: f16):
    %c8_q_i = arith.constant 8 : index
    %c128_q_i = arith.constant 128 : index
    %c4_q_i32 = arith.constant 4 : i32
    %c15_q_i32 = arith.constant 15 : i32
    %zp_q = arith.constant 8.000000e+00 : f16
    %k_q = linalg.index 0 : index
    %n_q = linalg.index 1 : index
    %kw_q = arith.divui %k_q, %c8_q_i : index
    %word_q = tensor.extract %q_qw[%kw_q, %n_q] : tensor<256x2048xi32>
    %lane_q = arith.remui %k_q, %c8_q_i : index
    %lane_q_i32 = arith.index_cast %lane_q : index to i32
    %sh_q = arith.muli %lane_q_i32, %c4_q_i32 : i32
    %v_q = arith.shrui %word_q, %sh_q : i32
    %code_q = arith.andi %v_q, %c15_q_i32 : i32
    %cf_q = arith.uitofp %code_q : i32 to f16
    %cz_q = arith.subf %cf_q, %zp_q : f16
    %g_q = arith.divui %k_q, %c128_q_i : index
    %sc_q = tensor.extract %q_s[%g_q, %n_q] : tensor<16x2048xf16>
    %w_q = arith.mulf %cz_q, %sc_q : f16
    linalg.yield %w_q : f16
  } -> tensor<2048x2048xf16>
  %zero_q = arith.constant 0.000000e+00 : f16
  %acc_e_q = tensor.empty(%m) : tensor<?x2048xf16>
  %acc_q = linalg.fill ins(%zero_q : f16) outs(%acc_e_q : tensor<?x2048xf16>) -> tensor<?x2048xf16>
  %yq = linalg.matmul ins(%x, %wq : tensor<?x2048xf16>, tensor<2048x2048xf16>) outs(%acc_q : tensor<?x2048xf16>) -> tensor<?x2048xf16>
  %qe = tensor.empty(%m) : tensor<?x2048xf16>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yq, %q_b : tensor<?x2048xf16>, tensor<2048xf16>) outs(%qe : tensor<?x2048xf16>) {
  ^bb0(%in: f16, %b: f16, %out: f16):
    %0 = arith.addf %in, %b : f16
    linalg.yield %0 : f16
  } -> tensor<?x2048xf16>
  %de_k = tensor.empty() : tensor<2048x256xf16>
  %wk = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_k : tensor<2048x256xf16>) {
  ^bb0(%out: f16):
    %c8_k_i = arith.constant 8 : index
    %c128_k_i = arith.constant 128 : index
    %c4_k_i32 = arith.constant 4 : i32
    %c15_k_i32 = arith.constant 15 : i32
    %zp_k = arith.constant 8.000000e+00 : f16
    %k_k = linalg.index 0 : index
    %n_k = linalg.index 1 : index
    %kw_k = arith.divui %k_k, %c8_k_i : index
    %word_k = tensor.extract %k_qw[%kw_k, %n_k] : tensor<256x256xi32>
    %lane_k = arith.remui %k_k, %c8_k_i : index
    %lane_k_i32 = arith.index_cast %lane_k : index to i32
    %sh_k = arith.muli %lane_k_i32, %c4_k_i32 : i32
    %v_k = arith.shrui %word_k, %sh_k : i32
    %code_k = arith.andi %v_k, %c15_k_i32 : i32
    %cf_k = arith.uitofp %code_k : i32 to f16
    %cz_k = arith.subf %cf_k, %zp_k : f16
    %g_k = arith.divui %k_k, %c128_k_i : index
    %sc_k = tensor.extract %k_s[%g_k, %n_k] : tensor<16x256xf16>
    %w_k = arith.mulf %cz_k, %sc_k : f16
    linalg.yield %w_k : f16
  } -> tensor<2048x256xf16>
  %zero_k = arith.constant 0.000000e+00 : f16
  %acc_e_k = tensor.empty(%m) : tensor<?x256xf16>
  %acc_k = linalg.fill ins(%zero_k : f16) outs(%acc_e_k : tensor<?x256xf16>) -> tensor<?x256xf16>
  %yk = linalg.matmul ins(%x, %wk : tensor<?x2048xf16>, tensor<2048x256xf16>) outs(%acc_k : tensor<?x256xf16>) -> tensor<?x256xf16>
  %de_v = tensor.empty() : tensor<2048x256xf16>
  %wv = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_v : tensor<2048x256xf16>) {
  ^bb0(%out: f16):
    %c8_v_i = arith.constant 8 : index
    %c128_v_i = arith.constant 128 : index
    %c4_v_i32 = arith.constant 4 : i32
    %c15_v_i32 = arith.constant 15 : i32
    %zp_v = arith.constant 8.000000e+00 : f16
    %k_v = linalg.index 0 : index
    %n_v = linalg.index 1 : index
    %kw_v = arith.divui %k_v, %c8_v_i : index
    %word_v = tensor.extract %v_qw[%kw_v, %n_v] : tensor<256x256xi32>
    %lane_v = arith.remui %k_v, %c8_v_i : index
    %lane_v_i32 = arith.index_cast %lane_v : index to i32
    %sh_v = arith.muli %lane_v_i32, %c4_v_i32 : i32
    %v_v = arith.shrui %word_v, %sh_v : i32
    %code_v = arith.andi %v_v, %c15_v_i32 : i32
    %cf_v = arith.uitofp %code_v : i32 to f16
    %cz_v = arith.subf %cf_v, %zp_v : f16
    %g_v = arith.divui %k_v, %c128_v_i : index
    %sc_v = tensor.extract %v_s[%g_v, %n_v] : tensor<16x256xf16>
    %w_v = arith.mulf %cz_v, %sc_v : f16
    linalg.yield %w_v : f16
  } -> tensor<2048x256xf16>
  %zero_v = arith.constant 0.000000e+00 : f16
  %acc_e_v = tensor.empty(%m) : tensor<?x256xf16>
  %acc_v = linalg.fill ins(%zero_v : f16) outs(%acc_e_v : tensor<?x256xf16>) -> tensor<?x256xf16>
  %yv = linalg.matmul ins(%x, %wv : tensor<?x2048xf16>, tensor<2048x256xf16>) outs(%acc_v : tensor<?x256xf16>) -> tensor<?x256xf16>
  return %q, %yk, %yv : tensor<?x2048xf16>, tensor<?x256xf16>, tensor<?x256xf16>
}

// -----

// Two layers in sequence: the second chain's x is the first chain's (silu) output. The first fused op
// must become the x operand of the second.

// CHECK-LABEL: func.func @two_layers_in_sequence(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x256xf16>
// CHECK-SAME:    %[[Q1:[a-zA-Z0-9_]+]]: tensor<32x512xi32>, %[[S1:[a-zA-Z0-9_]+]]: tensor<2x512xf16>
// CHECK-SAME:    %[[Q2:[a-zA-Z0-9_]+]]: tensor<64x256xi32>, %[[S2:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[A:.+]] = "w4a16.fused_matmul"(%[[X]], %[[Q1]], %[[S1]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      -> tensor<2x512xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[B:.+]] = "w4a16.fused_matmul"(%[[A]], %[[Q2]], %[[S2]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      -> tensor<2x256xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[B]]
func.func @two_layers_in_sequence(%x: tensor<2x256xf16>, %qw1: tensor<32x512xi32>, %s1: tensor<2x512xf16>, %qw2: tensor<64x256xi32>, %s2: tensor<4x256xf16>) -> tensor<2x256xf16> {
  %one = arith.constant 1.000000e+00 : f16
  %de_1 = tensor.empty() : tensor<256x512xf16>
  %w1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_1 : tensor<256x512xf16>) {
  ^bb0(%out: f16):
    %c8_1_i = arith.constant 8 : index
    %c128_1_i = arith.constant 128 : index
    %c4_1_i32 = arith.constant 4 : i32
    %c15_1_i32 = arith.constant 15 : i32
    %zp_1 = arith.constant 8.000000e+00 : f16
    %k_1 = linalg.index 0 : index
    %n_1 = linalg.index 1 : index
    %kw_1 = arith.divui %k_1, %c8_1_i : index
    %word_1 = tensor.extract %qw1[%kw_1, %n_1] : tensor<32x512xi32>
    %lane_1 = arith.remui %k_1, %c8_1_i : index
    %lane_1_i32 = arith.index_cast %lane_1 : index to i32
    %sh_1 = arith.muli %lane_1_i32, %c4_1_i32 : i32
    %v_1 = arith.shrui %word_1, %sh_1 : i32
    %code_1 = arith.andi %v_1, %c15_1_i32 : i32
    %cf_1 = arith.uitofp %code_1 : i32 to f16
    %cz_1 = arith.subf %cf_1, %zp_1 : f16
    %g_1 = arith.divui %k_1, %c128_1_i : index
    %sc_1 = tensor.extract %s1[%g_1, %n_1] : tensor<2x512xf16>
    %w_1 = arith.mulf %cz_1, %sc_1 : f16
    linalg.yield %w_1 : f16
  } -> tensor<256x512xf16>
  %zero_1 = arith.constant 0.000000e+00 : f16
  %acc_e_1 = tensor.empty() : tensor<2x512xf16>
  %acc_1 = linalg.fill ins(%zero_1 : f16) outs(%acc_e_1 : tensor<2x512xf16>) -> tensor<2x512xf16>
  %y1 = linalg.matmul ins(%x, %w1 : tensor<2x256xf16>, tensor<256x512xf16>) outs(%acc_1 : tensor<2x512xf16>) -> tensor<2x512xf16>
  %ae = tensor.empty() : tensor<2x512xf16>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y1 : tensor<2x512xf16>) outs(%ae : tensor<2x512xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %one, %1 : f16
    %3 = arith.divf %one, %2 : f16
    %4 = arith.mulf %3, %in : f16
    linalg.yield %4 : f16
  } -> tensor<2x512xf16>
  %de_2 = tensor.empty() : tensor<512x256xf16>
  %w2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de_2 : tensor<512x256xf16>) {
  ^bb0(%out: f16):
    %c8_2_i = arith.constant 8 : index
    %c128_2_i = arith.constant 128 : index
    %c4_2_i32 = arith.constant 4 : i32
    %c15_2_i32 = arith.constant 15 : i32
    %zp_2 = arith.constant 8.000000e+00 : f16
    %k_2 = linalg.index 0 : index
    %n_2 = linalg.index 1 : index
    %kw_2 = arith.divui %k_2, %c8_2_i : index
    %word_2 = tensor.extract %qw2[%kw_2, %n_2] : tensor<64x256xi32>
    %lane_2 = arith.remui %k_2, %c8_2_i : index
    %lane_2_i32 = arith.index_cast %lane_2 : index to i32
    %sh_2 = arith.muli %lane_2_i32, %c4_2_i32 : i32
    %v_2 = arith.shrui %word_2, %sh_2 : i32
    %code_2 = arith.andi %v_2, %c15_2_i32 : i32
    %cf_2 = arith.uitofp %code_2 : i32 to f16
    %cz_2 = arith.subf %cf_2, %zp_2 : f16
    %g_2 = arith.divui %k_2, %c128_2_i : index
    %sc_2 = tensor.extract %s2[%g_2, %n_2] : tensor<4x256xf16>
    %w_2 = arith.mulf %cz_2, %sc_2 : f16
    linalg.yield %w_2 : f16
  } -> tensor<512x256xf16>
  %zero_2 = arith.constant 0.000000e+00 : f16
  %acc_e_2 = tensor.empty() : tensor<2x256xf16>
  %acc_2 = linalg.fill ins(%zero_2 : f16) outs(%acc_e_2 : tensor<2x256xf16>) -> tensor<2x256xf16>
  %y2 = linalg.matmul ins(%a, %w2 : tensor<2x512xf16>, tensor<512x256xf16>) outs(%acc_2 : tensor<2x256xf16>) -> tensor<2x256xf16>
  return %y2 : tensor<2x256xf16>
}
