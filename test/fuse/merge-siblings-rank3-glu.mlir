// LLaMA's gate and up projections as torch-mlir exports a rank-3 Linear with a dynamic batch: x [B, 4, K] collapsed
// to (B*4, K) by each Linear, each (B*4, N) result expanded back to [B, 4, N] with B from x's dim, then
// silu(gate) * up on rank 3. The gate's silu is behind its expand_shape, so the gate's chain takes the reshape
// (test/fuse/rows-regrouped.mlir); its fused result is expanded back with the chain's own B, so both members' views
// stay alike and they merge into one GLU launch. Until session 42's fix the regrouped result took its B as rows / 4
// from a tensor.dim of its own, the two views differed and merge-siblings kept two launches (found by session 42's
// probe of rank-3 MLPs).
//
// The same for Phi-3's gate_up_proj (one weight of 2I columns, its rank-3 result chunked by extract_slice whose row
// size is x's batch): split into its halves on column windows of the weight, then one GLU launch.
//
// RUN: w4a16-opt --w4a16-fuse --w4a16-split-chunked-glu --w4a16-merge-siblings --w4a16-verify --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4x256xf16>
// CHECK:         %[[B:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4x256xf16>
// CHECK:         %[[XC:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x4x256xf16> into tensor<?x256xf16>
// CHECK-NEXT:    %[[H:.+]] = "w4a16.merged_matmul"(%[[XC]],
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-SAME:      -> tensor<?x256xf16>
// CHECK-NEXT:    %[[H3:.+]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1], [2]] output_shape [%[[B]], 4, 256]
// CHECK-NOT:     linalg.
// CHECK:         return %[[H3]]
// REMARK: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
func.func @mlp(%x: tensor<?x4x256xf16>, %gate_qweight: tensor<32x256xi32>, %gate_scales: tensor<2x256xf16>, %up_qweight: tensor<32x256xi32>, %up_scales: tensor<2x256xf16>) -> (tensor<?x4x256xf16>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  %B = tensor.dim %x, %c0 : tensor<?x4x256xf16>
  %gate_de = tensor.empty() : tensor<256x256xf16>
  %gate_w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%gate_de : tensor<256x256xf16>) {
    ^bb0(%out: f16):
      %c8 = arith.constant 8 : index
      %cG = arith.constant 128 : index
      %c4 = arith.constant 4 : i32
      %c15 = arith.constant 15 : i32
      %k = linalg.index 0 : index
      %n = linalg.index 1 : index
      %kw = arith.divui %k, %c8 : index
      %word = tensor.extract %gate_qweight[%kw, %n] : tensor<32x256xi32>
      %lane = arith.remui %k, %c8 : index
      %lane32 = arith.index_cast %lane : index to i32
      %sh = arith.muli %lane32, %c4 : i32
      %v = arith.shrui %word, %sh : i32
      %code = arith.andi %v, %c15 : i32
      %g = arith.divui %k, %cG : index
      %zp = arith.constant 8.000000e+00 : f16
      %cf = arith.uitofp %code : i32 to f16
      %cz = arith.subf %cf, %zp : f16
      %sc0 = tensor.extract %gate_scales[%g, %n] : tensor<2x256xf16>
      %sc = arith.addf %sc0, %sc0 : f16
      %half = arith.constant 5.000000e-01 : f16
      %sch = arith.mulf %sc, %half : f16
      %wv = arith.mulf %cz, %sch : f16
      linalg.yield %wv : f16
  } -> tensor<256x256xf16>
  %gate_x = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x4x256xf16> into tensor<?x256xf16>
  %gate_m = tensor.dim %gate_x, %c0 : tensor<?x256xf16>
  %gate_e = tensor.empty(%gate_m) : tensor<?x256xf16>
  %gate_acc = linalg.fill ins(%zero : f16) outs(%gate_e : tensor<?x256xf16>) -> tensor<?x256xf16>
  %gate_mm = linalg.matmul ins(%gate_x, %gate_w : tensor<?x256xf16>, tensor<256x256xf16>) outs(%gate_acc : tensor<?x256xf16>) -> tensor<?x256xf16>
  %gate_y3 = tensor.expand_shape %gate_mm [[0, 1], [2]] output_shape [%B, 4, 256] : tensor<?x256xf16> into tensor<?x4x256xf16>
  %up_de = tensor.empty() : tensor<256x256xf16>
  %up_w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%up_de : tensor<256x256xf16>) {
    ^bb0(%out: f16):
      %c8 = arith.constant 8 : index
      %cG = arith.constant 128 : index
      %c4 = arith.constant 4 : i32
      %c15 = arith.constant 15 : i32
      %k = linalg.index 0 : index
      %n = linalg.index 1 : index
      %kw = arith.divui %k, %c8 : index
      %word = tensor.extract %up_qweight[%kw, %n] : tensor<32x256xi32>
      %lane = arith.remui %k, %c8 : index
      %lane32 = arith.index_cast %lane : index to i32
      %sh = arith.muli %lane32, %c4 : i32
      %v = arith.shrui %word, %sh : i32
      %code = arith.andi %v, %c15 : i32
      %g = arith.divui %k, %cG : index
      %zp = arith.constant 8.000000e+00 : f16
      %cf = arith.uitofp %code : i32 to f16
      %cz = arith.subf %cf, %zp : f16
      %sc0 = tensor.extract %up_scales[%g, %n] : tensor<2x256xf16>
      %sc = arith.addf %sc0, %sc0 : f16
      %half = arith.constant 5.000000e-01 : f16
      %sch = arith.mulf %sc, %half : f16
      %wv = arith.mulf %cz, %sch : f16
      linalg.yield %wv : f16
  } -> tensor<256x256xf16>
  %up_x = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x4x256xf16> into tensor<?x256xf16>
  %up_m = tensor.dim %up_x, %c0 : tensor<?x256xf16>
  %up_e = tensor.empty(%up_m) : tensor<?x256xf16>
  %up_acc = linalg.fill ins(%zero : f16) outs(%up_e : tensor<?x256xf16>) -> tensor<?x256xf16>
  %up_mm = linalg.matmul ins(%up_x, %up_w : tensor<?x256xf16>, tensor<256x256xf16>) outs(%up_acc : tensor<?x256xf16>) -> tensor<?x256xf16>
  %up_y3 = tensor.expand_shape %up_mm [[0, 1], [2]] output_shape [%B, 4, 256] : tensor<?x256xf16> into tensor<?x4x256xf16>
  %h_e = tensor.empty(%B) : tensor<?x4x256xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gate_y3, %up_y3 : tensor<?x4x256xf16>, tensor<?x4x256xf16>) outs(%h_e : tensor<?x4x256xf16>) {
  ^bb0(%a0: f16, %a1: f16, %o: f16):
    %one = arith.constant 1.000000e+00 : f16
    %ng = arith.negf %a0 : f16
    %ex = math.exp %ng : f16
    %den = arith.addf %ex, %one : f16
    %sv = arith.divf %a0, %den : f16
    %r = arith.mulf %sv, %a1 : f16
    linalg.yield %r : f16
  } -> tensor<?x4x256xf16>
  return %h : tensor<?x4x256xf16>
}

// -----

// CHECK-LABEL: func.func @phi3_gate_up_r3(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4x256xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x256xi32>
// CHECK:         %[[B:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4x256xf16>
// CHECK-DAG:     %[[WG:.+]] = tensor.extract_slice %[[W]][0, 0] [32, 128] [1, 1]
// CHECK-DAG:     %[[WU:.+]] = tensor.extract_slice %[[W]][0, 128] [32, 128] [1, 1]
// CHECK:         %[[H:.+]] = "w4a16.merged_matmul"(%{{.+}}, %[[WG]], %[[WU]],
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-NEXT:    %[[H3:.+]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1], [2]] output_shape [%[[B]], 4, 128]
// CHECK-NOT:     linalg.
// CHECK:         return %[[H3]]
// REMARK: remark: w4a16: split the gate_up projection (N = 256) into its halves for a glu: gate columns [0, 128), up [128, 256), silu(gate) * up
// REMARK: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
func.func @phi3_gate_up_r3(%x: tensor<?x4x256xf16>, %gu_qweight: tensor<32x256xi32>, %gu_scales: tensor<2x256xf16>) -> (tensor<?x4x128xf16>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  %B = tensor.dim %x, %c0 : tensor<?x4x256xf16>
  %gu_de = tensor.empty() : tensor<256x256xf16>
  %gu_w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%gu_de : tensor<256x256xf16>) {
    ^bb0(%out: f16):
      %c8 = arith.constant 8 : index
      %cG = arith.constant 128 : index
      %c4 = arith.constant 4 : i32
      %c15 = arith.constant 15 : i32
      %k = linalg.index 0 : index
      %n = linalg.index 1 : index
      %kw = arith.divui %k, %c8 : index
      %word = tensor.extract %gu_qweight[%kw, %n] : tensor<32x256xi32>
      %lane = arith.remui %k, %c8 : index
      %lane32 = arith.index_cast %lane : index to i32
      %sh = arith.muli %lane32, %c4 : i32
      %v = arith.shrui %word, %sh : i32
      %code = arith.andi %v, %c15 : i32
      %g = arith.divui %k, %cG : index
      %zp = arith.constant 8.000000e+00 : f16
      %cf = arith.uitofp %code : i32 to f16
      %cz = arith.subf %cf, %zp : f16
      %sc0 = tensor.extract %gu_scales[%g, %n] : tensor<2x256xf16>
      %sc = arith.addf %sc0, %sc0 : f16
      %half = arith.constant 5.000000e-01 : f16
      %sch = arith.mulf %sc, %half : f16
      %wv = arith.mulf %cz, %sch : f16
      linalg.yield %wv : f16
  } -> tensor<256x256xf16>
  %gu_x = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x4x256xf16> into tensor<?x256xf16>
  %gu_m = tensor.dim %gu_x, %c0 : tensor<?x256xf16>
  %gu_e = tensor.empty(%gu_m) : tensor<?x256xf16>
  %gu_acc = linalg.fill ins(%zero : f16) outs(%gu_e : tensor<?x256xf16>) -> tensor<?x256xf16>
  %gu_mm = linalg.matmul ins(%gu_x, %gu_w : tensor<?x256xf16>, tensor<256x256xf16>) outs(%gu_acc : tensor<?x256xf16>) -> tensor<?x256xf16>
  %gu_y3 = tensor.expand_shape %gu_mm [[0, 1], [2]] output_shape [%B, 4, 256] : tensor<?x256xf16> into tensor<?x4x256xf16>
  %gs = tensor.extract_slice %gu_y3[0, 0, 0] [%B, 4, 128] [1, 1, 1] : tensor<?x4x256xf16> to tensor<?x4x128xf16>
  %us = tensor.extract_slice %gu_y3[0, 0, 128] [%B, 4, 128] [1, 1, 1] : tensor<?x4x256xf16> to tensor<?x4x128xf16>
  %act_e = tensor.empty(%B) : tensor<?x4x128xf16>
  %act = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%gs : tensor<?x4x128xf16>) outs(%act_e : tensor<?x4x128xf16>) {
  ^bb0(%a0: f16, %o: f16):
    %one = arith.constant 1.000000e+00 : f16
    %ng = arith.negf %a0 : f16
    %ex = math.exp %ng : f16
    %den = arith.addf %ex, %one : f16
    %r = arith.divf %a0, %den : f16
    linalg.yield %r : f16
  } -> tensor<?x4x128xf16>
  %h_e = tensor.empty(%B) : tensor<?x4x128xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%us, %act : tensor<?x4x128xf16>, tensor<?x4x128xf16>) outs(%h_e : tensor<?x4x128xf16>) {
  ^bb0(%a0: f16, %a1: f16, %o: f16):
    %r = arith.mulf %a0, %a1 : f16
    linalg.yield %r : f16
  } -> tensor<?x4x128xf16>
  return %h : tensor<?x4x128xf16>
}
