// Conditions on positions inside a dequantisation. A select whose condition holds at some rows, columns or k
// computes another formula there (samples alone would miss it: semantic-traps.mlir, int8prep/look-alikes.mlir);
// a condition that holds nowhere in the loops' ranges changes nothing. Upstream's --arith-expand writes
// arith.floordivsi(k, 8) as k / 8 - (k % 8 != 0 && k < 0 ? 1 : 0) (as a select of k / 8 - 1 and k / 8): the `k < 0`
// conjunct is false at every k, so the select always takes k / 8 although `k % 8 != 0` alone varies. Until the
// conditions were judged where they decide a value, with false conjuncts (true disjuncts) deciding alone, that
// chunk of gptq-packed.mlir stopped fusing after --arith-expand ("a comparison of positions computes another formula").
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mlir-opt --arith-expand --canonicalize --split-input-file %S/gptq-packed.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | grep -c 'remark: w4a16: fused as' \
// RUN:   | FileCheck %s --check-prefix=EXPANDED
// EXPANDED: {{^}}5{{$}}

// The expanded floordivsi: fuses.
// CHECK-LABEL: func.func @expanded_floordivsi(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// REMARK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul
func.func @expanded_floordivsi(%x: tensor<?x256xf16>, %q: tensor<32x512xi32>, %s: tensor<2x512xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %cm1 = arith.constant -1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %eight = arith.constant 8.0 : f16
  %zero = arith.constant 0.0 : f16
  %ew = tensor.empty() : tensor<256x512xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} outs(%ew : tensor<256x512xf16>) {
  ^bb0(%out: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %quot = arith.divsi %k, %c8 : index
    %back = arith.muli %quot, %c8 : index
    %inexact = arith.cmpi ne, %k, %back : index
    %negative = arith.cmpi slt, %k, %c0 : index
    %fix = arith.andi %inexact, %negative : i1
    %lower = arith.addi %quot, %cm1 : index
    %row = arith.select %fix, %lower, %quot : index
    %word = tensor.extract %q[%row, %n] : tensor<32x512xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centred = arith.subf %codef, %eight : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %s[%g, %n] : tensor<2x512xf16>
    %v = arith.mulf %centred, %scale : f16
    linalg.yield %v : f16
  } -> tensor<256x512xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %ey = tensor.empty(%m) : tensor<?x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<?x512xf16>) -> tensor<?x512xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}

// -----

// Look-alike: the same select with `k < 64` for `k < 0`: at k = 1..63 off a multiple of 8 the row is one lower
// (another formula on part of K).
// CHECK-LABEL: func.func @fixup_that_holds(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: dequantisation: a comparison of positions computes another formula at some rows, columns or k
func.func @fixup_that_holds(%x: tensor<?x256xf16>, %q: tensor<32x512xi32>, %s: tensor<2x512xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %cm1 = arith.constant -1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %eight = arith.constant 8.0 : f16
  %zero = arith.constant 0.0 : f16
  %ew = tensor.empty() : tensor<256x512xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} outs(%ew : tensor<256x512xf16>) {
  ^bb0(%out: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %quot = arith.divsi %k, %c8 : index
    %back = arith.muli %quot, %c8 : index
    %inexact = arith.cmpi ne, %k, %back : index
    %low = arith.cmpi slt, %k, %c64 : index
    %fix = arith.andi %inexact, %low : i1
    %lower = arith.addi %quot, %cm1 : index
    %row0 = arith.select %fix, %lower, %quot : index
    %row = arith.maxsi %row0, %c0 : index
    %word = tensor.extract %q[%row, %n] : tensor<32x512xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centred = arith.subf %codef, %eight : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %s[%g, %n] : tensor<2x512xf16>
    %v = arith.mulf %centred, %scale : f16
    linalg.yield %v : f16
  } -> tensor<256x512xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %ey = tensor.empty(%m) : tensor<?x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<?x512xf16>) -> tensor<?x512xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}

// -----

// Look-alike: a disjunction that a position decides (`n == 77 || code > 20`, the code never above 15): column 77
// is zeroed. The data-dependent disjunct is false here, yet cannot decide the or alone: it reads data.
// CHECK-LABEL: func.func @column_zeroed_by_or(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: dequantisation: a comparison of positions computes another formula at some rows, columns or k
func.func @column_zeroed_by_or(%x: tensor<?x256xf16>, %q: tensor<256x512xi4>, %s: tensor<2x512xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %c77 = arith.constant 77 : index
  %c20 = arith.constant 20 : i32
  %c128 = arith.constant 128 : index
  %eight = arith.constant 8.0 : f16
  %zero = arith.constant 0.0 : f16
  %ew = tensor.empty() : tensor<256x512xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<256x512xi4>) outs(%ew : tensor<256x512xf16>) {
  ^bb0(%c: i4, %out: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %code = arith.extui %c : i4 to i32
    %codef = arith.uitofp %code : i32 to f16
    %centred = arith.subf %codef, %eight : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %s[%g, %n] : tensor<2x512xf16>
    %v = arith.mulf %centred, %scale : f16
    %is77 = arith.cmpi eq, %n, %c77 : index
    %big = arith.cmpi ugt, %code, %c20 : i32
    %either = arith.ori %is77, %big : i1
    %r = arith.select %either, %zero, %v : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %ey = tensor.empty(%m) : tensor<?x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<?x512xf16>) -> tensor<?x512xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}
