// Matmuls written to accumulate into a tensor of their own (no upstream pass involved): `acc += x @ W` on an
// argument is y with a residual; an init that is a bias or residual but followed by an op the epilogue cannot take
// fuses up to y; an init that is neither a bias nor a residual, or that nothing wrote, stays unfused with a remark.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// acc += x @ W on an argument: the residual.
// CHECK-LABEL: func.func @accumulate_into_argument(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<256x512xi4>, %[[S:[a-zA-Z0-9_]+]]: tensor<2x512xf16>,
// CHECK-SAME:    %[[ACC:[a-zA-Z0-9_]+]]: tensor<4x512xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]], %[[ACC]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-NEXT:    return %[[R]]
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> residual
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @accumulate_into_argument(%x: tensor<4x256xf16>, %w: tensor<256x512xi4>, %s: tensor<2x512xf16>, %acc: tensor<4x512xf16>) -> tensor<4x512xf16> {
  %e = tensor.empty() : tensor<256x512xf16>
  %d = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %y = linalg.matmul ins(%x, %d : tensor<4x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<4x512xf16>) -> tensor<4x512xf16>
  return %y : tensor<4x512xf16>
}

// -----

// The same followed by silu: silu(y + acc) adds the (M, N) init inside the activation, which the fused op cannot;
// the op ends at y (with its residual) and the silu stays.
// CHECK-LABEL: func.func @residual_init_then_silu(
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[R]] :
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> residual; chain ends before {{.*}}: combines the matmul result with an (M, N) tensor other than by adding it last
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @residual_init_then_silu(%x: tensor<4x256xf16>, %w: tensor<256x512xi4>, %s: tensor<2x512xf16>, %acc: tensor<4x512xf16>) -> tensor<4x512xf16> {
  %e = tensor.empty() : tensor<256x512xf16>
  %d = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %y = linalg.matmul ins(%x, %d : tensor<4x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<4x512xf16>) -> tensor<4x512xf16>
  %oe = tensor.empty() : tensor<4x512xf16>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x512xf16>) outs(%oe : tensor<4x512xf16>) {
  ^bb0(%v: f16, %o: f16):
    %n = arith.negf %v : f16
    %ex = math.exp %n : f16
    %one = arith.constant 1.0 : f16
    %den = arith.addf %ex, %one : f16
    %r = arith.divf %v, %den : f16
    linalg.yield %r : f16
  } -> tensor<4x512xf16>
  return %z : tensor<4x512xf16>
}

// -----

// A bias in the init and a second one added after: the op takes the first, the add of the second stays.
// CHECK-LABEL: func.func @two_biases(
// CHECK-SAME:    %[[B1:[a-zA-Z0-9_]+]]: tensor<512xf16>, %[[B2:[a-zA-Z0-9_]+]]: tensor<512xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"({{.*}}, %[[B1]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[R]], %[[B2]] :
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> bias; chain ends before {{.*}}: adds more than one bias
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @two_biases(%x: tensor<4x256xf16>, %w: tensor<256x512xi4>, %s: tensor<2x512xf16>, %b1: tensor<512xf16>, %b2: tensor<512xf16>) -> tensor<4x512xf16> {
  %e = tensor.empty() : tensor<256x512xf16>
  %d = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %oe = tensor.empty() : tensor<4x512xf16>
  %bb = linalg.broadcast ins(%b1 : tensor<512xf16>) outs(%oe : tensor<4x512xf16>) dimensions = [0]
  %y = linalg.matmul ins(%x, %d : tensor<4x256xf16>, tensor<256x512xf16>) outs(%bb : tensor<4x512xf16>) -> tensor<4x512xf16>
  %oe2 = tensor.empty() : tensor<4x512xf16>
  %z = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %b2 : tensor<4x512xf16>, tensor<512xf16>) outs(%oe2 : tensor<4x512xf16>) {
  ^bb0(%v: f16, %bv: f16, %o: f16):
    %r = arith.addf %v, %bv : f16
    linalg.yield %r : f16
  } -> tensor<4x512xf16>
  return %z : tensor<4x512xf16>
}

// -----

// Look-alike: the init broadcasts a per-row tensor (M), neither a bias nor a residual.
// CHECK-LABEL: func.func @per_row_init(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: matmul accumulates into a non-zero init that is not a bias or residual: reads a tensor<4xf16> tensor that is neither a bias (N) nor a residual (M, N)
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @per_row_init(%x: tensor<4x256xf16>, %w: tensor<256x512xi4>, %s: tensor<2x512xf16>, %r1: tensor<4xf16>) -> tensor<4x512xf16> {
  %e = tensor.empty() : tensor<256x512xf16>
  %d = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %oe = tensor.empty() : tensor<4x512xf16>
  %bb = linalg.broadcast ins(%r1 : tensor<4xf16>) outs(%oe : tensor<4x512xf16>) dimensions = [1]
  %y = linalg.matmul ins(%x, %d : tensor<4x256xf16>, tensor<256x512xf16>) outs(%bb : tensor<4x512xf16>) -> tensor<4x512xf16>
  return %y : tensor<4x512xf16>
}

// -----

// Look-alike: the init is a tensor.empty nothing wrote (its elements are undefined).
// CHECK-LABEL: func.func @unwritten_init(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: matmul's init: reads an element that no op wrote (of a tensor.empty)
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @unwritten_init(%x: tensor<4x256xf16>, %w: tensor<256x512xi4>, %s: tensor<2x512xf16>) -> tensor<4x512xf16> {
  %e = tensor.empty() : tensor<256x512xf16>
  %d = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %oe = tensor.empty() : tensor<4x512xf16>
  %y = linalg.matmul ins(%x, %d : tensor<4x256xf16>, tensor<256x512xf16>) outs(%oe : tensor<4x512xf16>) -> tensor<4x512xf16>
  return %y : tensor<4x512xf16>
}

// -----

// Look-alike: an f32 accumulator argument is an f32 residual; the op takes residuals in x's type.
// CHECK-LABEL: func.func @f32_accumulator_argument(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: matmul result is f32, and the ops that truncate it to f16 are not a fused epilogue: residual is f32, expected f16 (x's type)
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @f32_accumulator_argument(%x: tensor<4x256xf16>, %w: tensor<256x512xi4>, %s: tensor<2x512xf16>, %acc: tensor<4x512xf32>) -> tensor<4x512xf16> {
  %e = tensor.empty() : tensor<256x512xf16>
  %d = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %y = linalg.matmul ins(%x, %d : tensor<4x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<4x512xf32>) -> tensor<4x512xf32>
  %oe2 = tensor.empty() : tensor<4x512xf16>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x512xf32>) outs(%oe2 : tensor<4x512xf16>) {
  ^bb0(%v: f32, %o: f16):
    %r = arith.truncf %v : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x512xf16>
  return %z : tensor<4x512xf16>
}
