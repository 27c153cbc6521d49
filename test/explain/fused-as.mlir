// --w4a16-explain on a llama MLP: one "fused as" remark per matmul, at that matmul, naming what was fused
// (silu for gate, residual for down), then one remark for gate and up merged into one GLU launch (issue #21:
// explain runs w4a16-merge-siblings too; before it, this test expected three remarks and three fused ops);
// exactly four remarks; explain mode produces the same IR as --w4a16-fuse --w4a16-merge-siblings.
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | grep -c "remark: w4a16: " | FileCheck %s --check-prefix=COUNT
// RUN: w4a16-opt --w4a16-fuse --w4a16-merge-siblings %s -o %t.fuse
// RUN: diff %t %t.fuse
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// COUNT: {{^}}4{{$}}
// IR-COUNT-1: "w4a16.merged_matmul"
// IR-SAME:    combine = "glu"
// IR-COUNT-1: "w4a16.fused_matmul"
// IR-NOT:     linalg.matmul

func.func @mlp(%x: tensor<?x4096xf16>, %h: tensor<?x4096xf16>, %gate_qw: tensor<512x11008xi32>, %gate_s: tensor<32x11008xf16>, %up_qw: tensor<512x11008xi32>, %up_s: tensor<32x11008xf16>, %down_qw: tensor<1376x4096xi32>, %down_s: tensor<86x4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
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
  // CHECK-DAG: {{.*}}fused-as.mlir:[[@LINE+2]]:11: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up): {{.*}}fused-as.mlir:[[@LINE+2]]:11 (N = 11008), {{.*}} (N = 11008)
  // CHECK-DAG: {{.*}}fused-as.mlir:[[@LINE+1]]:11: remark: w4a16: fused as {{.*}}silu
  %gate = linalg.matmul ins(%x, %gate_w : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc_g : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %se = tensor.empty(%m) : tensor<?x11008xf16>
  %gate_act = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%gate : tensor<?x11008xf16>) outs(%se : tensor<?x11008xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
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
  // CHECK-DAG: {{.*}}fused-as.mlir:[[@LINE+1]]:9: remark: w4a16: fused as{{ }}
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
  // CHECK-DAG: {{.*}}fused-as.mlir:[[@LINE+1]]:11: remark: w4a16: fused as {{.*}}residual
  %down = linalg.matmul ins(%prod, %down_w : tensor<?x11008xf16>, tensor<11008x4096xf16>) outs(%acc_d : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  %re = tensor.empty(%m) : tensor<?x4096xf16>
  %res = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%down, %h : tensor<?x4096xf16>, tensor<?x4096xf16>) outs(%re : tensor<?x4096xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %0 = arith.addf %a, %b : f16
    linalg.yield %0 : f16
  } -> tensor<?x4096xf16>
  return %res : tensor<?x4096xf16>
}
