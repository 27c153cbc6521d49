// Codes, scales and zero points stored in HQQ's grouped view -- codes [N * K / G, G], scales and zero points
// [N * K / G, 1] for an (N, K) weight, G = 64 -- hold the op's layouts in row-major order, but no leading dims of
// those shapes form the op's 2-D operands' rows (N = 512 codes rows, N scale rows). The rewrite reshapes each
// through one dim: collapsed to 1-D, expanded to (N, K) codes and (N, K/G) scales and zero points. (Before, such a
// chain stayed unfused: "no leading dims of it form its 512 rows".)
//
// RUN: w4a16-opt --w4a16-fuse %s | FileCheck %s
// CHECK-LABEL: func.func @hqq_grouped_storage(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x512xf16>, %[[C:[a-zA-Z0-9_]+]]: tensor<4096x64xi8>, %[[S:[a-zA-Z0-9_]+]]: tensor<4096x1xf16>, %[[Z:[a-zA-Z0-9_]+]]: tensor<4096x1xf16>
// CHECK-DAG:     %[[C1:.+]] = tensor.collapse_shape %[[C]] {{\[}}[0, 1]] : tensor<4096x64xi8> into tensor<262144xi8>
// CHECK-DAG:     %[[C2:.+]] = tensor.expand_shape %[[C1]] {{\[}}[0, 1]] output_shape [512, 512] : tensor<262144xi8> into tensor<512x512xi8>
// CHECK-DAG:     %[[S1:.+]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<4096x1xf16> into tensor<4096xf16>
// CHECK-DAG:     %[[S2:.+]] = tensor.expand_shape %[[S1]] {{\[}}[0, 1]] output_shape [512, 8] : tensor<4096xf16> into tensor<512x8xf16>
// CHECK-DAG:     %[[Z1:.+]] = tensor.collapse_shape %[[Z]] {{\[}}[0, 1]] : tensor<4096x1xf16> into tensor<4096xf16>
// CHECK-DAG:     %[[Z2:.+]] = tensor.expand_shape %[[Z1]] {{\[}}[0, 1]] output_shape [512, 8] : tensor<4096xf16> into tensor<512x8xf16>
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[C2]], %[[S2]], %[[Z2]])
// CHECK-SAME:      group_size = 64 : i64
// CHECK-SAME:      scales_layout = "n_g", weight_layout = "n_k", zero_point_layout = "n_g"
// CHECK-NOT:     linalg.
#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
func.func @hqq_grouped_storage(%x: tensor<?x512xf16>, %c: tensor<4096x64xi8>, %scale: tensor<4096x1xf16>, %zero: tensor<4096x1xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %ef = tensor.empty() : tensor<4096x64xf16>
  %qf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4096x64xi8>) outs(%ef : tensor<4096x64xf16>) {
  ^bb0(%a: i8, %o: f16):
    %c15 = arith.constant 15 : i8
    %lo = arith.andi %a, %c15 : i8
    %r = arith.uitofp %lo : i8 to f16
    linalg.yield %r : f16
  } -> tensor<4096x64xf16>
  %sub = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%qf, %zero : tensor<4096x64xf16>, tensor<4096x1xf16>) outs(%ef : tensor<4096x64xf16>) {
  ^bb0(%a: f16, %z: f16, %o: f16):
    %r = arith.subf %a, %z : f16
    linalg.yield %r : f16
  } -> tensor<4096x64xf16>
  %mul = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%sub, %scale : tensor<4096x64xf16>, tensor<4096x1xf16>) outs(%ef : tensor<4096x64xf16>) {
  ^bb0(%a: f16, %s: f16, %o: f16):
    %r = arith.mulf %a, %s : f16
    linalg.yield %r : f16
  } -> tensor<4096x64xf16>
  %e3 = tensor.expand_shape %mul [[0, 1], [2]] output_shape [512, 8, 64] : tensor<4096x64xf16> into tensor<512x8x64xf16>
  %w = tensor.collapse_shape %e3 [[0], [1, 2]] : tensor<512x8x64xf16> into tensor<512x512xf16>
  %zf = arith.constant 0.0 : f16
  %eo = tensor.empty(%m) : tensor<?x512xf16>
  %acc = linalg.fill ins(%zf : f16) outs(%eo : tensor<?x512xf16>) -> tensor<?x512xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}
