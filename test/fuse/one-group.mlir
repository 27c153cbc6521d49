// K = G: one scale group, scales (1, N). The scales' row split looked for "leading dims whose product is 1"
// and found zero dims, which counted as no split: the chain stayed unfused ("no leading dims of it form its 1
// rows"; rewrite-safety hunt). Fused now; the CPU result matched the upstream build (rel L2 5.8e-4, f16
// accumulation in the IR; checked outside the suite).
//
// RUN: w4a16-opt --w4a16-fuse %s | FileCheck %s
// CHECK-LABEL: func.func @one_group(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      (tensor<4x128xf16>, tensor<16x8xi32>, tensor<1x8xf16>, tensor<8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
func.func @one_group(%x: tensor<4x128xf16>, %qw: tensor<16x8xi32>, %s: tensor<1x8xf16>, %b: tensor<8xf16>, %res: tensor<4x8xf16>) -> (tensor<4x8xf16>) {
  %w_e = tensor.empty() : tensor<128x8xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k floordiv 8, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%qw, %s : tensor<16x8xi32>, tensor<1x8xf16>) outs(%w_e : tensor<128x8xf16>) {
  ^bb0(%word: i32, %scale: f16, %out: f16):
    %k = linalg.index 0 : index
    %c8 = arith.constant 8 : index
    %kk = arith.remui %k, %c8 : index
    %four = arith.constant 4 : index
    %sh = arith.muli %kk, %four : index
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %m15 = arith.constant 15 : i32
    %code = arith.andi %v, %m15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %z = arith.constant 8.0 : f16
    %c = arith.subf %cf, %z : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<128x8xf16>
  %y_z = arith.constant 0.0 : f16
  %y_e = tensor.empty() : tensor<4x8xf16>
  %y_a = linalg.fill ins(%y_z : f16) outs(%y_e : tensor<4x8xf16>) -> tensor<4x8xf16>
  %y = linalg.matmul ins(%x, %w : tensor<4x128xf16>, tensor<128x8xf16>) outs(%y_a : tensor<4x8xf16>) -> tensor<4x8xf16>
  %yb_e = tensor.empty() : tensor<4x8xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y, %b : tensor<4x8xf16>, tensor<8xf16>) outs(%yb_e : tensor<4x8xf16>) {
  ^bb0(%in: f16, %bb: f16, %out: f16):
    %0 = arith.addf %in, %bb : f16
    linalg.yield %0 : f16
  } -> tensor<4x8xf16>
  %ya_e = tensor.empty() : tensor<4x8xf16>
  %ya = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<4x8xf16>) outs(%ya_e : tensor<4x8xf16>) {
  ^bb0(%in: f16, %out: f16):
    %one = arith.constant 1.0 : f16
    %0 = arith.negf %in : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %one : f16
    %3 = arith.divf %in, %2 : f16
    linalg.yield %3 : f16
  } -> tensor<4x8xf16>
  %o_e = tensor.empty() : tensor<4x8xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ya, %res : tensor<4x8xf16>, tensor<4x8xf16>) outs(%o_e : tensor<4x8xf16>) {
  ^bb0(%in: f16, %rr: f16, %out: f16):
    %0 = arith.addf %in, %rr : f16
    linalg.yield %0 : f16
  } -> tensor<4x8xf16>
  return %o : tensor<4x8xf16>
}
