// --w4a16-explain: look-alikes that differed from the formula where the matcher did not look, and fused
// (found by a final adversarial hunt, each fused result measured against an f64 oracle of the IR):
//  * a weight broadcast along b whose zero point is 8 + b: the broadcast check compared only which stored
//    elements b = 0 and b = 1 read; it now also compares the weight's value at every b of the range
//    (fused: rel L2 1.6e-1);
//  * a constant g_idx equal to k / G but at k = 77: samples saw only some entries; after a match that read a
//    constant index table, every k is checked (fused: rel L2 7.3e-2). Since issue #22 a constant table other
//    than k / G is tried as act-order's g_idx, and this one is refused for its groups of unequal size;
//  * x widened bf16 -> f32 through a rounding to f16: a view that narrows on the way is not a widening cast
//    (fused: rel L2 1.1e-1 on f16-subnormal x). Since session 57 x is read as the f16 values that generic yields
//    widened (x-widened-by-producer.mlir), exactly; it stays unfused as its bf16 result is not x's type.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s

func.func @zero_point_grows_with_b(%x: tensor<2x3x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<2x3x64xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(b, k, n) -> (k floordiv 8, n)>, affine_map<(b, k, n) -> (k floordiv 128, n)>,
                                        affine_map<(b, k, n) -> (b, k, n)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qw, %s : tensor<32x64xi32>, tensor<2x64xf16>) outs(%e : tensor<2x256x64xf16>) {
  ^bb0(%word: i32, %scale: f16, %out: f16):
    %k = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %kk = arith.remui %k, %c8 : index
    %four = arith.constant 4 : index
    %sh = arith.muli %kk, %four : index
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %m15 = arith.constant 15 : i32
    %code = arith.andi %v, %m15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %bi = linalg.index 0 : index
    %bi32 = arith.index_cast %bi : index to i32
    %bf = arith.uitofp %bi32 : i32 to f16
    %z0 = arith.constant 8.0 : f16
    %z = arith.addf %z0, %bf : f16
    %c = arith.subf %cf, %z : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<2x256x64xf16>
  %a0 = tensor.empty() : tensor<2x3x64xf32>
  %a1 = linalg.fill ins(%zero : f32) outs(%a0 : tensor<2x3x64xf32>) -> tensor<2x3x64xf32>
  // CHECK: {{.*}}hidden-differences.mlir:[[@LINE+1]]:10: remark: w4a16: not fused: batched matmul is not supported
  %acc = linalg.generic {indexing_maps = [affine_map<(b, s, n, k) -> (b, s, k)>, affine_map<(b, s, n, k) -> (b, k, n)>,
                                          affine_map<(b, s, n, k) -> (b, s, n)>],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3x256xf16>, tensor<2x256x64xf16>) outs(%a1 : tensor<2x3x64xf32>) {
  ^bb0(%xe: f16, %we: f16, %o: f32):
    %xf = arith.extf %xe : f16 to f32
    %wf = arith.extf %we : f16 to f32
    %p = arith.mulf %xf, %wf : f32
    %sum = arith.addf %p, %o : f32
    linalg.yield %sum : f32
  } -> tensor<2x3x64xf32>
  %h0 = tensor.empty() : tensor<2x3x64xf16>
  %h = linalg.copy ins(%acc : tensor<2x3x64xf32>) outs(%h0 : tensor<2x3x64xf16>) -> tensor<2x3x64xf16>
  return %h : tensor<2x3x64xf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @gidx_table_one_wrong_entry(%x: tensor<?x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<8x64xf16>, %qzeros: tensor<8x8xi32>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %c0i = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c7 = arith.constant 7 : i32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code0 = arith.andi %v, %c15 : i32
    %code = arith.addi %code0, %c0i : i32
    %gtab = arith.constant dense<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 5, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]> : tensor<256xi32>
    %gi = tensor.extract %gtab[%k] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %nw = arith.divui %n, %c8 : index
    %nl = arith.remui %n, %c8 : index
    %zw = tensor.extract %qzeros[%g, %nw] : tensor<8x8xi32>
    %nl32 = arith.index_cast %nl : index to i32
    %zsh = arith.muli %nl32, %c4 : i32
    %zv = arith.shrui %zw, %zsh : i32
    %zc0 = arith.andi %zv, %c15 : i32
    %zc = arith.addi %zc0, %c0i : i32
    %sc = tensor.extract %scales[%g, %n] : tensor<8x64xf16>
    %cf = arith.uitofp %code : i32 to f16
    %zf = arith.uitofp %zc : i32 to f16
    %d = arith.subf %cf, %zf : f16
    %wv = arith.mulf %d, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  // CHECK: {{.*}}hidden-differences.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: act-order: a constant g_idx puts 31 rows in group 2 of 8: every group must hold as many (K / groups)
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %r16 = arith.truncf %a : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<?x64xf16>
  return %out : tensor<?x64xf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @x_rounded_to_f16_on_the_way(%x: tensor<?x256xbf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xbf16>) -> tensor<?x64xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xbf16>
  %de = tensor.empty() : tensor<256x64xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %mid = arith.constant 8.0 : f32
    %zf = arith.constant 0.0 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xbf16>
    %s32 = arith.extf %sc : bf16 to f32
    %c = arith.subf %cf, %mid : f32
    %wv = arith.mulf %c, %s32 : f32
    %w2 = arith.addf %wv, %zf : f32
    linalg.yield %w2 : f32
  } -> tensor<256x64xf32>
  %ex = tensor.empty(%m) : tensor<?x256xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xbf16>) outs(%ex : tensor<?x256xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %a32 = arith.extf %a : bf16 to f32
    %xr = arith.truncf %a32 : f32 to f16
    %x2 = arith.extf %xr : f16 to f32
    linalg.yield %x2 : f32
  } -> tensor<?x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  // CHECK: {{.*}}hidden-differences.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: matmul result is f32 and never truncated to f16 (x's type)
  %y = linalg.matmul ins(%x32, %w : tensor<?x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%m) : tensor<?x64xbf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x64xf32>) outs(%e2 : tensor<?x64xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %r = arith.truncf %a : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<?x64xbf16>
  return %out : tensor<?x64xbf16>
}
// CHECK-NOT: remark:
