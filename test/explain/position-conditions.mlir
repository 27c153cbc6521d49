// --w4a16-explain: comparisons of positions inside the chain. Sample points cannot see IR that computes
// another formula at one row, column or k (select(n == 5, ...)); such a chain fused and then computed the
// plain formula everywhere (found by an adversarial hunt: rel L2 1.2e-1 from what the IR computes). A
// comparison whose operands depend on positions alone must now give the same result over each loop's range;
// comparisons of data (signed codes) and position tests that never fire (an index made positive) still fuse.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s

#id2 = affine_map<(d0, d1) -> (d0, d1)>
// Column 5 alone uses the zero point 7: another formula in one column. Not fused.
func.func @column_5_zero_point_7(%x: tensor<?x256xf16>, %qw: tensor<32x16xi32>, %sc: tensor<2x16xf16>) -> tensor<?x16xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x16xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x16xf16>) {
  ^bb0(%out: f16):
    %c0i = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c5 = arith.constant 5 : index
    %c256 = arith.constant 256 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %c8i = arith.constant 8 : i32
    %c16i = arith.constant 16 : i32
    %z8 = arith.constant 8.0 : f16
    %z7 = arith.constant 7.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x16xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %is5 = arith.cmpi eq, %n, %c5 : index
    %z = arith.select %is5, %z7, %z8 : f16
    %cz = arith.subf %cf, %z : f16
    %kk = arith.addi %k, %c0i : index
    %g = arith.divui %kk, %c128 : index
    %s = tensor.extract %sc[%g, %n] : tensor<2x16xf16>
    %wv = arith.mulf %cz, %s : f16
    linalg.yield %wv : f16
  } -> tensor<256x16xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: dequantisation: a comparison of positions computes another formula at some rows, columns or k
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x16xf16>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  %e2 = tensor.empty(%m) : tensor<?x16xf16>
  %o = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x16xf32>) outs(%e2 : tensor<?x16xf16>) {
  ^bb0(%a: f32, %b: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x16xf16>
  return %o : tensor<?x16xf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
// Row k = 5 of W alone uses the zero point 7. Not fused.
func.func @row_k_5_zero_point_7(%x: tensor<?x256xf16>, %qw: tensor<32x16xi32>, %sc: tensor<2x16xf16>) -> tensor<?x16xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x16xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x16xf16>) {
  ^bb0(%out: f16):
    %c0i = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c5 = arith.constant 5 : index
    %c256 = arith.constant 256 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %c8i = arith.constant 8 : i32
    %c16i = arith.constant 16 : i32
    %z8 = arith.constant 8.0 : f16
    %z7 = arith.constant 7.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x16xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %isk = arith.cmpi eq, %k, %c5 : index
    %z = arith.select %isk, %z7, %z8 : f16
    %cz = arith.subf %cf, %z : f16
    %kk = arith.addi %k, %c0i : index
    %g = arith.divui %kk, %c128 : index
    %s = tensor.extract %sc[%g, %n] : tensor<2x16xf16>
    %wv = arith.mulf %cz, %s : f16
    linalg.yield %wv : f16
  } -> tensor<256x16xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: dequantisation: a comparison of positions computes another formula at some rows, columns or k
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x16xf16>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  %e2 = tensor.empty(%m) : tensor<?x16xf16>
  %o = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x16xf32>) outs(%e2 : tensor<?x16xf16>) {
  ^bb0(%a: f32, %b: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x16xf16>
  return %o : tensor<?x16xf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
// torch-mlir's aten.index lowering makes an index positive: select(k < 0, k + K, k). The comparison is
// false at every k, so it changes nothing: fused.
func.func @index_made_positive(%x: tensor<?x256xf16>, %qw: tensor<32x16xi32>, %sc: tensor<2x16xf16>) -> tensor<?x16xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x16xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x16xf16>) {
  ^bb0(%out: f16):
    %c0i = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c5 = arith.constant 5 : index
    %c256 = arith.constant 256 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %c8i = arith.constant 8 : i32
    %c16i = arith.constant 16 : i32
    %z8 = arith.constant 8.0 : f16
    %z7 = arith.constant 7.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x16xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %z8 : f16
    %neg = arith.cmpi slt, %k, %c0i : index
    %wrapped = arith.addi %k, %c256 : index
    %kk = arith.select %neg, %wrapped, %k : index
    %g = arith.divui %kk, %c128 : index
    %s = tensor.extract %sc[%g, %n] : tensor<2x16xf16>
    %wv = arith.mulf %cz, %s : f16
    linalg.yield %wv : f16
  } -> tensor<256x16xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x16xf16>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  %e2 = tensor.empty(%m) : tensor<?x16xf16>
  %o = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x16xf32>) outs(%e2 : tensor<?x16xf16>) {
  ^bb0(%a: f32, %b: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x16xf16>
  return %o : tensor<?x16xf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
// Two's-complement codes decoded with a data comparison: select(code >= 8, code - 16, code). It depends
// on the codes, not on the position: the formula's to judge (signed codes), fused.
func.func @signed_by_select(%x: tensor<?x256xf16>, %qw: tensor<32x16xi32>, %sc: tensor<2x16xf16>) -> tensor<?x16xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<256x16xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x16xf16>) {
  ^bb0(%out: f16):
    %c0i = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c5 = arith.constant 5 : index
    %c256 = arith.constant 256 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %c8i = arith.constant 8 : i32
    %c16i = arith.constant 16 : i32
    %z8 = arith.constant 8.0 : f16
    %z7 = arith.constant 7.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x16xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %hi = arith.cmpi uge, %code, %c8i : i32
    %wrap = arith.subi %code, %c16i : i32
    %sv = arith.select %hi, %wrap, %code : i32
    %cz = arith.sitofp %sv : i32 to f16
    %kk = arith.addi %k, %c0i : index
    %g = arith.divui %kk, %c128 : index
    %s = tensor.extract %sc[%g, %n] : tensor<2x16xf16>
    %wv = arith.mulf %cz, %s : f16
    linalg.yield %wv : f16
  } -> tensor<256x16xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, signed codes) -> matmul
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x16xf16>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  %e2 = tensor.empty(%m) : tensor<?x16xf16>
  %o = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x16xf32>) outs(%e2 : tensor<?x16xf16>) {
  ^bb0(%a: f32, %b: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x16xf16>
  return %o : tensor<?x16xf16>
}

// -----

// The epilogue adds the residual on every row but row 3: y + bias + (m == 3 ? 0 : res). Not fused (the
// chain has no fused prefix either: only the epilogue truncates the f32 product).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @residual_skips_row_3(%x: tensor<?x256xf16>, %q: tensor<16x256xi4>, %sc: tensor<16x2xf16>,
                                %bias: tensor<16xf16>, %res: tensor<?x16xf16>) -> tensor<?x16xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<16x256xf16>
  %w = linalg.generic {indexing_maps = [#id2, affine_map<(n, k) -> (n, k floordiv 128)>, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q, %sc : tensor<16x256xi4>, tensor<16x2xf16>) outs(%de : tensor<16x256xf16>) {
  ^bb0(%c: i4, %s: f16, %out: f16):
    %cf = arith.uitofp %c : i4 to f16
    %z = arith.constant 8.0 : f16
    %d = arith.subf %cf, %z : f16
    %v = arith.mulf %d, %s : f16
    linalg.yield %v : f16
  } -> tensor<16x256xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: matmul result is f32, and the ops that truncate it to f16 are not a fused epilogue: epilogue: a comparison of positions
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x256xf16>, tensor<16x256xf16>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  %e2 = tensor.empty(%m) : tensor<?x16xf16>
  %o = linalg.generic {indexing_maps = [#id2, #bias, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias, %res : tensor<?x16xf32>, tensor<16xf16>, tensor<?x16xf16>) outs(%e2 : tensor<?x16xf16>) {
  ^bb0(%a: f32, %b: f16, %r: f16, %oo: f16):
    %c3 = arith.constant 3 : index
    %row = linalg.index 0 : index
    %b32 = arith.extf %b : f16 to f32
    %r32 = arith.extf %r : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %tr = arith.addf %t, %r32 : f32
    %is3 = arith.cmpi eq, %row, %c3 : index
    %fin = arith.select %is3, %t, %tr : f32
    %h = arith.truncf %fin : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x16xf16>
  return %o : tensor<?x16xf16>
}

// -----

// Rows 600..699 read the next group's scale: k / 128 + [600 <= k < 700], the band written with clamps
// (min(max(k - 599, 0), 1) - min(max(k - 699, 0), 1)) instead of a comparison (session 56's probe: it fused).
// A min / max of positions is a comparison too, and must pick the same operand over each loop's range.
func.func @band_by_clamps(%x: tensor<4x1024xf16>, %q: tensor<1024x256xi4>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c8 = arith.constant 8.0 : f16
  %c0 = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1024x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<1024x256xi4>) outs(%e : tensor<1024x256xf16>) {
  ^bb0(%c: i4, %o: f16):
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i128 = arith.constant 128 : index
    %i599 = arith.constant 599 : index
    %i699 = arith.constant 699 : index
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %g0 = arith.divui %k, %i128 : index
    %a0 = arith.subi %k, %i599 : index
    %a1 = arith.maxsi %a0, %i0 : index
    %a = arith.minsi %a1, %i1 : index
    %b0 = arith.subi %k, %i699 : index
    %b1 = arith.maxsi %b0, %i0 : index
    %b = arith.minsi %b1, %i1 : index
    %band = arith.subi %a, %b : index
    %g = arith.addi %g0, %band : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x256xf16>
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x256xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: dequantisation: a min / max of positions computes another formula at some rows, columns or k
  %y = linalg.matmul ins(%x, %w : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}

// -----

// A clamp of the group index that never fires (min(k / 128, 7) with K = 1024) changes nothing: fused.
func.func @clamp_never_fires(%x: tensor<4x1024xf16>, %q: tensor<1024x256xi4>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c8 = arith.constant 8.0 : f16
  %c0 = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1024x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<1024x256xi4>) outs(%e : tensor<1024x256xf16>) {
  ^bb0(%c: i4, %o: f16):
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i128 = arith.constant 128 : index
    %i7 = arith.constant 7 : index
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %g0 = arith.divui %k, %i128 : index
    %g = arith.minui %g0, %i7 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x256xf16>
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x256xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
  %y = linalg.matmul ins(%x, %w : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}

// -----

// The same band of rows without a comparison or a clamp: k / 128 + k / 600 - k / 700 (session 56's probe wrote it
// with a product, (k / 600) * (1 - k / 700); both fused). Samples can step over the band; divisions of one
// loop's positions by constants of which neither divides the other (600, 700) send the chain to the check of every
// row and column, which finds it.
func.func @band_by_divisions(%x: tensor<4x1024xf16>, %q: tensor<1024x256xi4>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c8 = arith.constant 8.0 : f16
  %c0 = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1024x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<1024x256xi4>) outs(%e : tensor<1024x256xf16>) {
  ^bb0(%c: i4, %o: f16):
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i128 = arith.constant 128 : index
    %i600 = arith.constant 600 : index
    %i700 = arith.constant 700 : index
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %g0 = arith.divui %k, %i128 : index
    %a = arith.divui %k, %i600 : index
    %b = arith.divui %k, %i700 : index
    %band = arith.subi %a, %b : index
    %g = arith.addi %g0, %band : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x256xf16>
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x256xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: integer arithmetic on positions maps (k = 600, n = 0) to another group or column than (k / G = 4, n) (scales)
  %y = linalg.matmul ins(%x, %w : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}

// -----

// Nested divisions that every packed layout has (k / 8 / 16: the word, then its group) fuse.
func.func @nested_divisions(%x: tensor<4x1024xf16>, %q: tensor<1024x256xi4>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c8 = arith.constant 8.0 : f16
  %c0 = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1024x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<1024x256xi4>) outs(%e : tensor<1024x256xf16>) {
  ^bb0(%c: i4, %o: f16):
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i128 = arith.constant 128 : index
    %i8 = arith.constant 8 : index
    %i16 = arith.constant 16 : index
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %g0 = arith.divui %k, %i128 : index
    %w8 = arith.divui %k, %i8 : index
    %g = arith.divui %w8, %i16 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x256xf16>
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x256xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
  %y = linalg.matmul ins(%x, %w : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}

// -----

// Zero point 9 instead of 8 in columns 100..199, the band (n / 100) * (1 - n / 200) a product of two values that
// both move with n (session 56's probe: it fused). Checked at every row and column, column 100 differs.
func.func @band_zp(%x: tensor<4x1024xf16>, %q: tensor<1024x256xi4>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c8 = arith.constant 8 : i32
  %c0 = arith.constant 0.0 : f16
  %i1 = arith.constant 1 : index
  %i100 = arith.constant 100 : index
  %i200 = arith.constant 200 : index
  %e = tensor.empty() : tensor<1024x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<1024x256xi4>, tensor<8x256xf16>) outs(%e : tensor<1024x256xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %n = linalg.index 1 : index
    %a = arith.divui %n, %i100 : index
    %b = arith.divui %n, %i200 : index
    %nb = arith.subi %i1, %b : index
    %band = arith.muli %a, %nb : index
    %band32 = arith.index_cast %band : index to i32
    %z = arith.addi %c8, %band32 : i32
    %ci = arith.extui %c : i4 to i32
    %d = arith.subi %ci, %z : i32
    %f = arith.sitofp %d : i32 to f16
    %r = arith.mulf %f, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x256xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  // CHECK: {{.*}}position-conditions.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: integer arithmetic on positions changes what (k = 0, n = 100) computes
  %y = linalg.matmul ins(%x, %w : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}
// CHECK-NOT: remark:
