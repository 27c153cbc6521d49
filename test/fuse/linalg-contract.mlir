// linalg.contract (upstream's generic named contraction, MLIR 20 and later) as the matmul of the chain: the matcher
// reads what a contraction computes from its indexing maps, so linalg.contract with the maps of x @ W (the (K, N)
// weight) or x @ W^T (nn.Linear's (N, K) storage) fuses like linalg.matmul; one that reads x transposed is not the
// op's formula and stays unfused with the rule named. Hand-written in the form of test/fuse/dequant-linalg-matmul.mlir.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// x @ W, W dequantised as (K/128, 128, N) and collapsed to (K, N). Static M = 32.

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
// CHECK-LABEL: func.func @contract_kn(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<32x128x11008xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<32x11008xf16>
// CHECK:         %[[WC:.+]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]]
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[WC]], %[[S]])
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-NOT:     linalg.contract
// CHECK:         return %[[R]]
func.func @contract_kn(%arg0: tensor<32x4096xf16>, %arg1: tensor<32x128x11008xi4>, %arg2: tensor<32x11008xf16>) -> tensor<32x11008xf16> {
  %cst = arith.constant 8.000000e+00 : f16
  %cst_0 = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<32x128x11008xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg2 : tensor<32x128x11008xi4>, tensor<32x11008xf16>) outs(%0 : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_1: f16, %out: f16):
    %6 = arith.extui %in : i4 to i32
    %7 = arith.uitofp %6 : i32 to f16
    %8 = arith.subf %7, %cst : f16
    %9 = arith.mulf %8, %in_1 : f16
    linalg.yield %9 : f16
  } -> tensor<32x128x11008xf16>
  %collapsed = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %2 = tensor.empty() : tensor<32x11008xf16>
  %3 = linalg.fill ins(%cst_0 : f16) outs(%2 : tensor<32x11008xf16>) -> tensor<32x11008xf16>
  %4 = linalg.contract indexing_maps = [#mA, #mB, #mC] ins(%arg0, %collapsed : tensor<32x4096xf16>, tensor<4096x11008xf16>) outs(%3 : tensor<32x11008xf16>) -> tensor<32x11008xf16>
  return %4 : tensor<32x11008xf16>
}

// -----

// x @ W^T with W stored (N, K/128, 128) and collapsed to (N, K). Dynamic M.

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
// REMARK: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
// CHECK-LABEL: func.func @contract_nk(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}})
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      -> tensor<?x11008xf16>
// CHECK-NOT:     linalg.contract
// CHECK:         return %[[R]]
func.func @contract_nk(%x: tensor<?x4096xf16>, %w: tensor<11008x32x128xi4>, %s: tensor<11008x32xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 8.000000e+00 : f16
  %z = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<11008x32x128xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<11008x32x128xi4>, tensor<11008x32xf16>) outs(%0 : tensor<11008x32x128xf16>) {
  ^bb0(%in: i4, %in_1: f16, %out: f16):
    %6 = arith.extui %in : i4 to i32
    %7 = arith.uitofp %6 : i32 to f16
    %8 = arith.subf %7, %cst : f16
    %9 = arith.mulf %8, %in_1 : f16
    linalg.yield %9 : f16
  } -> tensor<11008x32x128xf16>
  %c = tensor.collapse_shape %1 [[0], [1, 2]] : tensor<11008x32x128xf16> into tensor<11008x4096xf16>
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %2 = tensor.empty(%m) : tensor<?x11008xf16>
  %3 = linalg.fill ins(%z : f16) outs(%2 : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %4 = linalg.contract indexing_maps = [#mA, #mBt, #mC] ins(%x, %c : tensor<?x4096xf16>, tensor<11008x4096xf16>) outs(%3 : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %4 : tensor<?x11008xf16>
}

// -----

// x read as (K, M): x^T @ W^T. Until session 56 it stayed unfused ("x is not read as a row-major (M, K) tensor");
// now x is transposed to (M, K) first (the op's only copy, M * K values) and the chain fuses.

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#mA = affine_map<(m, n, k) -> (k, m)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
// REMARK: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
// CHECK-DAG:     #[[XT_READ:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @contract_x_transposed(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4096x?xf16>
// CHECK:         %[[XT:.+]] = linalg.generic {indexing_maps = [#[[XT_READ]], #{{.+}}]
// CHECK-SAME:      ins(%[[X]] : tensor<4096x?xf16>) outs(%{{.+}} : tensor<?x4096xf16>)
// CHECK:         "w4a16.fused_matmul"(%[[XT]],
// CHECK-NOT:     linalg.contract
func.func @contract_x_transposed(%x: tensor<4096x?xf16>, %w: tensor<11008x32x128xi4>, %s: tensor<11008x32xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 8.000000e+00 : f16
  %z = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<11008x32x128xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<11008x32x128xi4>, tensor<11008x32xf16>) outs(%0 : tensor<11008x32x128xf16>) {
  ^bb0(%in: i4, %in_1: f16, %out: f16):
    %6 = arith.extui %in : i4 to i32
    %7 = arith.uitofp %6 : i32 to f16
    %8 = arith.subf %7, %cst : f16
    %9 = arith.mulf %8, %in_1 : f16
    linalg.yield %9 : f16
  } -> tensor<11008x32x128xf16>
  %c = tensor.collapse_shape %1 [[0], [1, 2]] : tensor<11008x32x128xf16> into tensor<11008x4096xf16>
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c1 : tensor<4096x?xf16>
  %2 = tensor.empty(%m) : tensor<?x11008xf16>
  %3 = linalg.fill ins(%z : f16) outs(%2 : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %4 = linalg.contract indexing_maps = [#mA, #mBt, #mC] ins(%x, %c : tensor<4096x?xf16>, tensor<11008x4096xf16>) outs(%3 : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %4 : tensor<?x11008xf16>
}
