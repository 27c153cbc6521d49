// Several row dims: a contraction y[b, s, n] = sum_k x[b, s, k] * W[k, n] over rank-3 activations (x
// and y share the loops b and s, the weight does not) is the chain with M = B * S when x and y hold the
// rows in the same order, row-major. sharktank's kernel templates (nod-ai/SHARK-Platform,
// sharktank/sharktank/kernels/templates/mmt_*.mlir) contract [?, ?, K] activations this way; until this
// rule they got "batched matmul is not supported". The op takes x collapsed to (B * S, K) and the
// residual to (B * S, N); its result is expanded back, dynamic B and S read from x.
// (CPU end to end: test/e2e/q4_1_rows_test.c.)
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Dynamic B and S, bias, silu and a [B, S, N] residual.
// CHECK-LABEL: func.func @rows_dynamic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x?x256xf16>
// CHECK-SAME:    %[[R:[a-zA-Z0-9_]+]]: tensor<?x?x64xf16>
// CHECK-DAG:     %[[XC:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
// CHECK-DAG:     %[[RC:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1], [2]] : tensor<?x?x64xf16> into tensor<?x64xf16>
// CHECK:         %[[F:.+]] = "w4a16.fused_matmul"(%[[XC]], %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %[[RC]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      -> tensor<?x64xf16>
// CHECK-DAG:     %[[B:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x?x256xf16>
// CHECK-DAG:     %[[S:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x?x256xf16>
// CHECK:         %[[E:.+]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1], [2]] output_shape [%[[B]], %[[S]], 64] : tensor<?x64xf16> into tensor<?x?x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[E]]
// REMARK: row-dims.mlir:[[@LINE+30]]:10: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias -> silu -> residual
func.func @rows_dynamic(%x: tensor<?x?x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %bias: tensor<64xf16>,
                        %res: tensor<?x?x64xf16>) -> tensor<?x?x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x256xf16>
  %sq = tensor.dim %x, %c1 : tensor<?x?x256xf16>
  %e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k floordiv 8, n)>, affine_map<(k, n) -> (k floordiv 128, n)>,
                                        affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%qw, %s : tensor<32x64xi32>, tensor<2x64xf16>) outs(%e : tensor<256x64xf16>) {
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
  } -> tensor<256x64xf16>
  %a0 = tensor.empty(%b, %sq) : tensor<?x?x64xf32>
  %a1 = linalg.fill ins(%zero : f32) outs(%a0 : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %acc = linalg.generic {indexing_maps = [affine_map<(b, s, n, k) -> (b, s, k)>, affine_map<(b, s, n, k) -> (k, n)>,
                                          affine_map<(b, s, n, k) -> (b, s, n)>],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x?x256xf16>, tensor<256x64xf16>) outs(%a1 : tensor<?x?x64xf32>) {
  ^bb0(%xe: f16, %we: f16, %o: f32):
    %xf = arith.extf %xe : f16 to f32
    %wf = arith.extf %we : f16 to f32
    %p = arith.mulf %xf, %wf : f32
    %sum = arith.addf %p, %o : f32
    linalg.yield %sum : f32
  } -> tensor<?x?x64xf32>
  %h0 = tensor.empty(%b, %sq) : tensor<?x?x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(b, s, n) -> (b, s, n)>, affine_map<(b, s, n) -> (n)>,
                                        affine_map<(b, s, n) -> (b, s, n)>, affine_map<(b, s, n) -> (b, s, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%acc, %bias, %res : tensor<?x?x64xf32>, tensor<64xf16>, tensor<?x?x64xf16>) outs(%h0 : tensor<?x?x64xf16>) {
  ^bb0(%y: f32, %bb: f16, %rr: f16, %out: f16):
    %bf = arith.extf %bb : f16 to f32
    %t = arith.addf %y, %bf : f32
    %one = arith.constant 1.0 : f32
    %nt = arith.negf %t : f32
    %ex = math.exp %nt : f32
    %den = arith.addf %one, %ex : f32
    %act = arith.divf %t, %den : f32
    %rf = arith.extf %rr : f16 to f32
    %o = arith.addf %act, %rf : f32
    %oh = arith.truncf %o : f32 to f16
    linalg.yield %oh : f16
  } -> tensor<?x?x64xf16>
  return %h : tensor<?x?x64xf16>
}

// -----

// Static rows, 2 x 3: M = 6.
// CHECK-LABEL: func.func @rows_static(
// CHECK:         tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2]] : tensor<2x3x256xf16> into tensor<6x256xf16>
// CHECK:         %[[F:.+]] = "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<6x64xf16>
// CHECK:         tensor.expand_shape %[[F]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 64] : tensor<6x64xf16> into tensor<2x3x64xf16>
// REMARK: row-dims.mlir:[[@LINE+16]]:8: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
func.func @rows_static(%x: tensor<2x3x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x2xf16>) -> tensor<2x3x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k floordiv 128)>,
                                        affine_map<(n, k) -> (n, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<64x256xi4>, tensor<64x2xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%c: i4, %scale: f16, %out: f16):
    %cf = arith.uitofp %c : i4 to f16
    %z = arith.constant 8.0 : f16
    %d = arith.subf %cf, %z : f16
    %r = arith.mulf %d, %scale : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %a0 = tensor.empty() : tensor<2x3x64xf16>
  %a1 = linalg.fill ins(%zero : f16) outs(%a0 : tensor<2x3x64xf16>) -> tensor<2x3x64xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(b, s, n, k) -> (b, s, k)>, affine_map<(b, s, n, k) -> (n, k)>,
                                        affine_map<(b, s, n, k) -> (b, s, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3x256xf16>, tensor<64x256xf16>) outs(%a1 : tensor<2x3x64xf16>) {
  ^bb0(%xe: f16, %we: f16, %o: f16):
    %p = arith.mulf %xe, %we : f16
    %sum = arith.addf %p, %o : f16
    linalg.yield %sum : f16
  } -> tensor<2x3x64xf16>
  return %y : tensor<2x3x64xf16>
}

// -----

// x holds the rows transposed, [S, B, K], while y is [B, S, N]: y's rows are not x's rows in row-major order, so no
// (M, K) view of x gives them. Until session 56 it stayed unfused ("x is not read as a row-major (M, K) tensor");
// now x is transposed to [B, S, K] first and the chain fuses.
// CHECK-DAG:     #[[ROWS_SWAPPED:.+]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @rows_transposed(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<3x2x256xf16>
// CHECK:         %[[XT:.+]] = linalg.generic {indexing_maps = [#[[ROWS_SWAPPED]], #{{.+}}]
// CHECK-SAME:      ins(%[[X]] : tensor<3x2x256xf16>) outs(%{{.+}} : tensor<2x3x256xf16>)
// CHECK:         %[[X2:.+]] = tensor.collapse_shape %[[XT]] {{\[\[}}0, 1], [2]] : tensor<2x3x256xf16> into tensor<6x256xf16>
// CHECK:         "w4a16.fused_matmul"(%[[X2]],
// CHECK-SAME:      -> tensor<6x64xf16>
// REMARK: row-dims.mlir:[[@LINE+16]]:8: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
func.func @rows_transposed(%x: tensor<3x2x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x2xf16>) -> tensor<2x3x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k floordiv 128)>,
                                        affine_map<(n, k) -> (n, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<64x256xi4>, tensor<64x2xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%c: i4, %scale: f16, %out: f16):
    %cf = arith.uitofp %c : i4 to f16
    %z = arith.constant 8.0 : f16
    %d = arith.subf %cf, %z : f16
    %r = arith.mulf %d, %scale : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %a0 = tensor.empty() : tensor<2x3x64xf16>
  %a1 = linalg.fill ins(%zero : f16) outs(%a0 : tensor<2x3x64xf16>) -> tensor<2x3x64xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(b, s, n, k) -> (s, b, k)>, affine_map<(b, s, n, k) -> (n, k)>,
                                        affine_map<(b, s, n, k) -> (b, s, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<3x2x256xf16>, tensor<64x256xf16>) outs(%a1 : tensor<2x3x64xf16>) {
  ^bb0(%xe: f16, %we: f16, %o: f16):
    %p = arith.mulf %xe, %we : f16
    %sum = arith.addf %p, %o : f16
    linalg.yield %sum : f16
  } -> tensor<2x3x64xf16>
  return %y : tensor<2x3x64xf16>
}

// -----

// A weight with a batch dim of its own (a different W per b): a batched matmul, not the chain.
// CHECK-LABEL: func.func @weight_per_batch(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: row-dims.mlir:[[@LINE+16]]:8: remark: w4a16: not fused: batched matmul is not supported
func.func @weight_per_batch(%x: tensor<2x3x256xf16>, %q: tensor<2x64x256xi4>, %s: tensor<2x64x2xf16>) -> tensor<2x3x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(b, n, k) -> (b, n, k)>, affine_map<(b, n, k) -> (b, n, k floordiv 128)>,
                                        affine_map<(b, n, k) -> (b, n, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %s : tensor<2x64x256xi4>, tensor<2x64x2xf16>) outs(%e : tensor<2x64x256xf16>) {
  ^bb0(%c: i4, %scale: f16, %out: f16):
    %cf = arith.uitofp %c : i4 to f16
    %z = arith.constant 8.0 : f16
    %d = arith.subf %cf, %z : f16
    %r = arith.mulf %d, %scale : f16
    linalg.yield %r : f16
  } -> tensor<2x64x256xf16>
  %a0 = tensor.empty() : tensor<2x3x64xf16>
  %a1 = linalg.fill ins(%zero : f16) outs(%a0 : tensor<2x3x64xf16>) -> tensor<2x3x64xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(b, s, n, k) -> (b, s, k)>, affine_map<(b, s, n, k) -> (b, n, k)>,
                                        affine_map<(b, s, n, k) -> (b, s, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3x256xf16>, tensor<2x64x256xf16>) outs(%a1 : tensor<2x3x64xf16>) {
  ^bb0(%xe: f16, %we: f16, %o: f16):
    %p = arith.mulf %xe, %we : f16
    %sum = arith.addf %p, %o : f16
    linalg.yield %sum : f16
  } -> tensor<2x3x64xf16>
  return %y : tensor<2x3x64xf16>
}
