// Act-order (issue #22): which runtime gathers are a group index g_idx -- one entry per row k, read at k,
// selecting the row of the scales (and of the zero points) -- and which look alike but are not. Every case
// is the GPTQ act-order chain of gptq-g-idx.mlir with one change: three forms that fuse (zero points through
// the same g_idx, v1's zero points + 1, scales stored (N, K/G)) and eight look-alikes.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// The plain act-order form with unpacked i8 zero points read through the same g_idx (AutoGPTQ's
// zeros[g_idx] after unpacking): both gathers use one group index, so it fuses.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @zero_points_through_g_idx(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1>
// CHECK-SAME:      zero_point_layout = "g_n"
// REMARK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points g_n tensor<2x64xi8>, act-order g_idx) -> matmul -> bias
func.func @zero_points_through_g_idx(%g_idx: tensor<256xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %z: tensor<2x64xi8>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %gz = tensor.extract %g_idx[%k] : tensor<256xi32>
    %gzi = arith.index_cast %gz : i32 to index
    %z8 = tensor.extract %z[%gzi, %n] : tensor<2x64xi8>
    %zf = arith.uitofp %z8 : i8 to f16
    %cz = arith.subf %cf, %zf : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// Look-alike: zero points read at k / G while the scales follow g_idx -- two different groupings of K.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @zero_points_at_k_over_g(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: zero points are not read once per (group, column) (a zero point varying inside a group?)
func.func @zero_points_at_k_over_g(%g_idx: tensor<256xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %z: tensor<2x64xi8>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %kg = arith.divui %k, %c128 : index
    %z8 = tensor.extract %z[%kg, %n] : tensor<2x64xi8>
    %zf = arith.uitofp %z8 : i8 to f16
    %cz = arith.subf %cf, %zf : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// Look-alike: the index tensor is read at k / 2, not at k: not one group number per row.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @g_idx_read_at_half_k(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: act-order: row k = 1 reads entry 0 of the runtime index tensor (a group index g_idx is read at k)
func.func @g_idx_read_at_half_k(%g_idx: tensor<256xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %kh = arith.divui %k, %c2 : index
    %gi = tensor.extract %g_idx[%kh] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// Look-alike: a different group per element (an index tensor of shape (K, N)): no per-row group index.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @group_per_element(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: an index is read from a runtime tensor (tensor<256x64xi32>) that is no group index: a group index (act-order g_idx) has one entry per row, K = 256
func.func @group_per_element(%g_idx: tensor<256x64xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %gi = tensor.extract %g_idx[%k, %n] : tensor<256x64xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// Look-alike: the runtime index selects the scales' column (a gather along N), not the group.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @index_into_columns(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: an index is read from a runtime tensor (tensor<64xi32>) that is no group index: a group index (act-order g_idx) has one entry per row, K = 256
func.func @index_into_columns(%g_idx: tensor<64xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %kg = arith.divui %k, %c128 : index
    %ci = tensor.extract %g_idx[%n] : tensor<64xi32>
    %c = arith.index_cast %ci : i32 to index
    %sc = tensor.extract %s[%kg, %c] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// Look-alike: g_idx picks among 16 rows of scales, groups of 16: not a group size the runtime takes.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @groups_of_16(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: an index read from a runtime tensor (tensor<256xi32>) picks among the 16 rows of a tensor<16x64xf16>: as act-order's g_idx into the scales or zero points, not groups of 32, 64 or 128 of K = 256
func.func @groups_of_16(%g_idx: tensor<256xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<16x64xf16>, %b: tensor<64xf16>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%g, %n] : tensor<16x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// An i64 g_idx computes the same chain, but the runtime takes GPTQ's int32 g_idx: unfused, and said so.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @g_idx_i64(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: act-order: g_idx is tensor<256xi64>; the runtime takes i32 group indices (GPTQ's g_idx)
func.func @g_idx_i64(%g_idx: tensor<256xi64>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi64>
    %g = arith.index_cast %gi : i64 to index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// Look-alike: g_idx for the first group's rows only, k / G after -- another formula at some k.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @g_idx_for_some_rows(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: dequantisation: a comparison of positions computes another formula at some rows, columns or k
func.func @g_idx_for_some_rows(%g_idx: tensor<256xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %zp : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi32>
    %ga = arith.index_cast %gi : i32 to index
    %kg = arith.divui %k, %c128 : index
    %first = arith.cmpi ult, %k, %c128 : index
    %g = arith.select %first, %ga, %kg : index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// Scales stored (N, K/G), read at [n, g_idx[k]] (the group index in their second dim): fuses with scales n_g.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @scales_n_g_through_g_idx(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1>
// CHECK-SAME:      scales_layout = "n_g"
// REMARK: remark: w4a16: fused as dequant(packed_k8_n, scales n_g, zero points g_n tensor<2x64xi8>, act-order g_idx) -> matmul -> bias
func.func @scales_n_g_through_g_idx(%g_idx: tensor<256xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<64x2xf16>, %b: tensor<64xf16>, %z: tensor<2x64xi8>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %gz = tensor.extract %g_idx[%k] : tensor<256xi32>
    %gzi = arith.index_cast %gz : i32 to index
    %z8 = tensor.extract %z[%gzi, %n] : tensor<2x64xi8>
    %zf = arith.uitofp %z8 : i8 to f16
    %cz = arith.subf %cf, %zf : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%n, %g] : tensor<64x2xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// GPTQ's v1 zero points (stored z - 1, the dequantisation adds 1 back), read through g_idx: zero_point_offset 1.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @zero_points_v1_through_g_idx(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1>
// CHECK-SAME:      zero_point_layout = "g_n", zero_point_offset = 1 : i64
// REMARK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points g_n tensor<2x64xi8> + 1, act-order g_idx) -> matmul -> bias
func.func @zero_points_v1_through_g_idx(%g_idx: tensor<256xi32>, %x: tensor<1x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xf16>, %z: tensor<2x64xi8>) -> tensor<1x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %gz = tensor.extract %g_idx[%k] : tensor<256xi32>
    %gzi = arith.index_cast %gz : i32 to index
    %z8 = tensor.extract %z[%gzi, %n] : tensor<2x64xi8>
    %one8 = arith.constant 1 : i8
    %z1 = arith.addi %z8, %one8 : i8
    %zf = arith.uitofp %z1 : i8 to f16
    %cz = arith.subf %cf, %zf : f16
    %gi = tensor.extract %g_idx[%k] : tensor<256xi32>
    %g = arith.index_cast %gi : i32 to index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %cz, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<1x64xf16>) -> tensor<1x64xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x64xf16>, tensor<64xf16>) outs(%e : tensor<1x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %t = arith.addf %a, %bb : f16
    linalg.yield %t : f16
  } -> tensor<1x64xf16>
  return %y : tensor<1x64xf16>
}

// -----

// Look-alike: a runtime permutation of K read into the codes' rows (qweight[perm[k] / 8, n]), not a group index into
// the scales. Until session 39 the remark called it "g_idx ... selects among 32 rows of the scales or zero points".
// CHECK-LABEL: func.func @runtime_row_permutation(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: an index read from a runtime tensor (tensor<256xi32>) picks among the 32 rows of a tensor<32x64xi32>: as act-order's g_idx into the scales or zero points, not groups of 32, 64 or 128 of K = 256
func.func @runtime_row_permutation(%x: tensor<8x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>, %perm: tensor<256xi32>) -> tensor<8x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %lanes = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]> : tensor<256xi32>
    %lane = tensor.extract %lanes[%k] : tensor<256xi32>
    %pk = tensor.extract %perm[%k] : tensor<256xi32>
    %pki = arith.index_cast %pk : i32 to index
    %kw = arith.divui %pki, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %sh = arith.muli %lane, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zp : f16
    %g = arith.divui %k, %cg_i : index
    %s = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %c, %s : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<8x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = linalg.matmul ins(%x, %deq : tensor<8x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}


