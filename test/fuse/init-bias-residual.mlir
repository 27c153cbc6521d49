// A matmul that accumulates into a tensor other than zero: y = init + x @ W. Upstream's fold-add-into-dest
// (transform.apply_patterns.linalg.fold_add_into_dest, run by the first RUN line on chunks written as matmul +
// linalg.add) leaves a bias add as `outs(broadcast(bias))` and the sum of two matmuls as one accumulating into the
// other; `acc += x @ W` on an argument accumulates into a residual. The init is part of y: the epilogue takes it as
// the bias when it reads an (N) tensor per column, as the residual when it reads y's own element of an (M, N) one.
// An init that is neither (a constant, a per-row tensor, an unwritten tensor.empty) stays unfused with a remark.
//
// RUN: mlir-opt --transform-preload-library=transform-library-paths=%w4a16_test_src/e2e/Inputs/fold_add_into_dest.mlir \
// RUN:   --transform-interpreter --split-input-file %s | w4a16-opt --w4a16-fuse --split-input-file | FileCheck %s
// RUN: mlir-opt --transform-preload-library=transform-library-paths=%w4a16_test_src/e2e/Inputs/fold_add_into_dest.mlir \
// RUN:   --transform-interpreter --split-input-file %s | w4a16-opt --w4a16-explain --split-input-file 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=REMARK

// torch.addmm(bias, x, W) with an f16 matmul, then silu: after the fold the matmul accumulates into the broadcast
// bias, and the fused op takes the (N) bias itself.
// CHECK-LABEL: func.func @addmm_silu(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x256xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<256x512xi4>,
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x512xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<512xf16>
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]], %[[B]])
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> bias -> silu
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
func.func @addmm_silu(%x: tensor<8x256xf16>, %w: tensor<256x512xi4>, %s: tensor<2x512xf16>, %bias: tensor<512xf16>) -> tensor<8x512xf16> {
  %zero = arith.constant 0.0 : f16
  %eb = tensor.empty() : tensor<8x512xf16>
  %bb = linalg.broadcast ins(%bias : tensor<512xf16>) outs(%eb : tensor<8x512xf16>) dimensions = [0]
  %e = tensor.empty() : tensor<256x512xf16>
  %d = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %ey = tensor.empty() : tensor<8x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<8x512xf16>) -> tensor<8x512xf16>
  %y = linalg.matmul ins(%x, %d : tensor<8x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<8x512xf16>) -> tensor<8x512xf16>
  %es = tensor.empty() : tensor<8x512xf16>
  %sum = linalg.add ins(%y, %bb : tensor<8x512xf16>, tensor<8x512xf16>) outs(%es : tensor<8x512xf16>) -> tensor<8x512xf16>
  %ea = tensor.empty() : tensor<8x512xf16>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<8x512xf16>) outs(%ea : tensor<8x512xf16>) {
  ^bb0(%v: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %v : f16
    %ex = math.exp %n : f16
    %den = arith.addf %ex, %one : f16
    %r = arith.divf %v, %den : f16
    linalg.yield %r : f16
  } -> tensor<8x512xf16>
  return %act : tensor<8x512xf16>
}

// -----

// f32 accumulation: the bias widened and broadcast by one generic into the f32 init, truncated after the matmul;
// the dynamic batch's residual stays a linalg.add that the fused op takes too.
// CHECK-LABEL: func.func @addmm_f32_residual(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x256xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<256x512xi4>,
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x512xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<512xf16>, %[[RES:[a-zA-Z0-9_]+]]: tensor<?x512xf16>
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]], %[[B]], %[[RES]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> bias -> residual
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @addmm_f32_residual(%x: tensor<?x256xf16>, %w: tensor<256x512xi4>, %s: tensor<2x512xf16>, %bias: tensor<512xf16>, %res: tensor<?x512xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %eb = tensor.empty(%m) : tensor<?x512xf32>
  %bb = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<512xf16>) outs(%eb : tensor<?x512xf32>) {
  ^bb0(%b: f16, %o: f32):
    %b32 = arith.extf %b : f16 to f32
    linalg.yield %b32 : f32
  } -> tensor<?x512xf32>
  %e = tensor.empty() : tensor<256x512xf16>
  %d = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %ey = tensor.empty(%m) : tensor<?x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ey : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y = linalg.matmul ins(%x, %d : tensor<?x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<?x512xf32>) -> tensor<?x512xf32>
  %es = tensor.empty(%m) : tensor<?x512xf32>
  %sum = linalg.add ins(%y, %bb : tensor<?x512xf32>, tensor<?x512xf32>) outs(%es : tensor<?x512xf32>) -> tensor<?x512xf32>
  %et = tensor.empty(%m) : tensor<?x512xf16>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<?x512xf32>) outs(%et : tensor<?x512xf16>) {
  ^bb0(%v: f32, %o: f16):
    %v16 = arith.truncf %v : f32 to f16
    linalg.yield %v16 : f16
  } -> tensor<?x512xf16>
  %eo = tensor.empty(%m) : tensor<?x512xf16>
  %out = linalg.add ins(%t, %res : tensor<?x512xf16>, tensor<?x512xf16>) outs(%eo : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %out : tensor<?x512xf16>
}

// -----

// Two projections summed (x1 @ W1 + x2 @ W2): after the fold the second matmul accumulates into the first's result,
// which the second fused op takes as its residual.
// CHECK-LABEL: func.func @sum_of_two(
// CHECK-SAME:    %[[X1:[a-zA-Z0-9_]+]]: tensor<4x256xf16>, %[[X2:[a-zA-Z0-9_]+]]: tensor<4x256xf16>,
// CHECK-SAME:    %[[W1:[a-zA-Z0-9_]+]]: tensor<256x512xi4>, %[[W2:[a-zA-Z0-9_]+]]: tensor<256x512xi4>,
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2x512xf16>
// CHECK:         %[[Y1:.+]] = "w4a16.fused_matmul"(%[[X1]], %[[W1]], %[[S]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK:         %[[Y2:.+]] = "w4a16.fused_matmul"(%[[X2]], %[[W2]], %[[S]], %[[Y1]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y2]]
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> residual
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
func.func @sum_of_two(%x1: tensor<4x256xf16>, %x2: tensor<4x256xf16>, %w1: tensor<256x512xi4>, %w2: tensor<256x512xi4>, %s: tensor<2x512xf16>) -> tensor<4x512xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x512xf16>
  %d1 = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w1, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %d2 = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%w2, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%q: i4, %scale: f16, %o: f16):
    %eight = arith.constant 8.0 : f16
    %f = arith.uitofp %q : i4 to f16
    %c = arith.subf %f, %eight : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %ey = tensor.empty() : tensor<4x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<4x512xf16>) -> tensor<4x512xf16>
  %y1 = linalg.matmul ins(%x1, %d1 : tensor<4x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<4x512xf16>) -> tensor<4x512xf16>
  %y2 = linalg.matmul ins(%x2, %d2 : tensor<4x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<4x512xf16>) -> tensor<4x512xf16>
  %es = tensor.empty() : tensor<4x512xf16>
  %sum = linalg.add ins(%y1, %y2 : tensor<4x512xf16>, tensor<4x512xf16>) outs(%es : tensor<4x512xf16>) -> tensor<4x512xf16>
  return %sum : tensor<4x512xf16>
}
