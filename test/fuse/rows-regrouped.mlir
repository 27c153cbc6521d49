// An epilogue on y with its rows regrouped by a reshape: torch-mlir's rank-3 aten.linear computes y as (B*S, N)
// and expands it to [B, S, N] before adding the residual; a JAX dot_general with a unit batch and
// preferred_element_type f32 collapses the [1, M, N] f32 result before truncating it to the io type. The
// reshape keeps the row-major order of the rows, so the epilogue is the same formula: these fuse, the residual
// collapsed to (M, N) and the op's (M, N) result expanded back. Until session 42 the first stayed fused without its
// residual (no remark) and the others stayed unfused ("matmul result is f32 and never truncated to f16"); found by
// session 42's probe of exporter forms. Every row dim but the outermost must be static (the shared row order is
// then known); the outermost may be dynamic (torch.export's dynamic batch). Or all of them are dynamic where an
// expand_shape of y's one row dim made them (torch.export with a dynamic batch and sequence: the expand's sizes
// give the fused result its shape); until session 43 that residual was dropped with no remark (session 43's
// whole-model probe: every o_proj and down_proj of a dynamic-shape LLaMA layer).
// Look-alike: a residual read with its two row dims swapped is not residual[m, n]; the chain stops before it.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK-LABEL: func.func @residual_after_row_expand(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x256xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<32x64xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x64xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<2x16x64xf16>
// CHECK:         %[[R2:.+]] = tensor.collapse_shape %[[RES]] {{\[}}[0, 1], [2]] : tensor<2x16x64xf16> into tensor<32x64xf16>
// CHECK-NEXT:    %[[Y:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[R2]])
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      -> tensor<32x64xf16>
// CHECK-NEXT:    %[[Y3:.+]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [2, 16, 64] : tensor<32x64xf16> into tensor<2x16x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y3]]
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, group 32) -> matmul -> residual
func.func @residual_after_row_expand(%x: tensor<32x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<8x64xf16>, %res: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  %we = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x64xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %ye = tensor.empty() : tensor<32x64xf16>
  %zero = arith.constant 0.0 : f16
  %yf = linalg.fill ins(%zero : f16) outs(%ye : tensor<32x64xf16>) -> tensor<32x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<32x256xf16>, tensor<256x64xf16>) outs(%yf : tensor<32x64xf16>) -> tensor<32x64xf16>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [2, 16, 64] : tensor<32x64xf16> into tensor<2x16x64xf16>
  %e3 = tensor.empty() : tensor<2x16x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y3, %res : tensor<2x16x64xf16>, tensor<2x16x64xf16>) outs(%e3 : tensor<2x16x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %t = arith.addf %a, %b : f16
    linalg.yield %t : f16
  } -> tensor<2x16x64xf16>
  return %out : tensor<2x16x64xf16>
}

// -----

// CHECK-LABEL: func.func @unit_batch_f32_collapsed_then_truncated(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<1x8x256xf16>
// CHECK:         %[[XM:.+]] = tensor.collapse_shape %[[X]]
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[XM]],
// CHECK-SAME:      -> tensor<8x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y]] : tensor<8x64xf16>
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, group 32) -> matmul
func.func @unit_batch_f32_collapsed_then_truncated(%x: tensor<1x8x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %we = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x64xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %w3 = tensor.expand_shape %w [[0, 1], [2]] output_shape [1, 256, 64] : tensor<256x64xf16> into tensor<1x256x64xf16>
  %ye = tensor.empty() : tensor<1x8x64xf32>
  %zero = arith.constant 0.0 : f32
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %y = linalg.batch_matmul ins(%x, %w3 : tensor<1x8x256xf16>, tensor<1x256x64xf16>) outs(%yf : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %y2 = tensor.collapse_shape %y [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
  %e2 = tensor.empty() : tensor<8x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]} ins(%y2 : tensor<8x64xf32>) outs(%e2 : tensor<8x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x64xf16>
  return %out : tensor<8x64xf16>
}

// -----

// CHECK-LABEL: func.func @f32_expanded_then_truncated(
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(
// CHECK-SAME:      -> tensor<8x64xf16>
// CHECK-NEXT:    %[[Y3:.+]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [1, 8, 64]
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y3]] : tensor<1x8x64xf16>
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, group 32) -> matmul
func.func @f32_expanded_then_truncated(%x: tensor<8x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<8x64xf16>) -> tensor<1x8x64xf16> {
  %we = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x64xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %ye = tensor.empty() : tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x256xf16>, tensor<256x64xf16>) outs(%yf : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xf32> into tensor<1x8x64xf32>
  %e3 = tensor.empty() : tensor<1x8x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y3 : tensor<1x8x64xf32>) outs(%e3 : tensor<1x8x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1x8x64xf16>
  return %out : tensor<1x8x64xf16>
}

// -----

// The residual's two row dims swapped: element (b, s) of the sum reads residual[s, b], not the residual of row
// b * 16 + s. The matmul fuses alone and the sum stays.
// CHECK-LABEL: func.func @residual_rows_swapped(
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(
// CHECK-SAME:      -> tensor<32x64xf16>
// CHECK:         tensor.expand_shape %[[Y]]
// CHECK:         linalg.generic
// CHECK:         arith.addf
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, group 32) -> matmul
// EXPLAIN-SAME:  chain ends
// EXPLAIN-SAME:  neither a bias (N) nor a residual (M, N)
func.func @residual_rows_swapped(%x: tensor<32x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<8x64xf16>, %res: tensor<16x2x64xf16>) -> tensor<2x16x64xf16> {
  %we = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x64xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %ye = tensor.empty() : tensor<32x64xf16>
  %zero = arith.constant 0.0 : f16
  %yf = linalg.fill ins(%zero : f16) outs(%ye : tensor<32x64xf16>) -> tensor<32x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<32x256xf16>, tensor<256x64xf16>) outs(%yf : tensor<32x64xf16>) -> tensor<32x64xf16>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [2, 16, 64] : tensor<32x64xf16> into tensor<2x16x64xf16>
  %e3 = tensor.empty() : tensor<2x16x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (b, a, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y3, %res : tensor<2x16x64xf16>, tensor<16x2x64xf16>) outs(%e3 : tensor<2x16x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %t = arith.addf %a, %b : f16
    linalg.yield %t : f16
  } -> tensor<2x16x64xf16>
  return %out : tensor<2x16x64xf16>
}

// -----

// The same with a dynamic batch (torch.export's dynamic B): x [?, 16, K] collapsed, y (?, N) expanded to
// [?, 16, N] with output_shape from x's dim. The outermost row dim may be dynamic in both (the others are static);
// the result is expanded with the chain's own size for it (x's dim), so that siblings stay alike.
// CHECK-LABEL: func.func @dynamic_batch_residual(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x16x256xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<?x16x64xf16>
// CHECK:         %[[B:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x16x256xf16>
// CHECK-DAG:     %[[XM:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<?x16x256xf16> into tensor<?x256xf16>
// CHECK-DAG:     %[[R2:.+]] = tensor.collapse_shape %[[RES]] {{\[}}[0, 1], [2]] : tensor<?x16x64xf16> into tensor<?x64xf16>
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[XM]], %{{.+}}, %{{.+}}, %[[R2]])
// CHECK-SAME:      -> tensor<?x64xf16>
// CHECK-NEXT:    %[[Y3:.+]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [%[[B]], 16, 64]
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y3]]
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, group 32) -> matmul -> residual
func.func @dynamic_batch_residual(%x3: tensor<?x16x256xf16>, %qw: tensor<32x64xi32>, %s: tensor<8x64xf16>, %res: tensor<?x16x64xf16>) -> tensor<?x16x64xf16> {
  %c0 = arith.constant 0 : index
  %B = tensor.dim %x3, %c0 : tensor<?x16x256xf16>
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<?x16x256xf16> into tensor<?x256xf16>
  %we = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c32 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x64xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %M = tensor.dim %x, %c0 : tensor<?x256xf16>
  %ye = tensor.empty(%M) : tensor<?x64xf16>
  %zero = arith.constant 0.0 : f16
  %yf = linalg.fill ins(%zero : f16) outs(%ye : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x64xf16>) outs(%yf : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [%B, 16, 64] : tensor<?x64xf16> into tensor<?x16x64xf16>
  %e3 = tensor.empty(%B) : tensor<?x16x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y3, %res : tensor<?x16x64xf16>, tensor<?x16x64xf16>) outs(%e3 : tensor<?x16x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %t = arith.addf %a, %b : f16
    linalg.yield %t : f16
  } -> tensor<?x16x64xf16>
  return %out : tensor<?x16x64xf16>
}

// -----

// CHECK-LABEL: func.func @residual_dynamic_batch_and_sequence(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x?x256xf16>
// CHECK:         %[[B:.+]] = tensor.dim %[[X]], %c0
// CHECK:         %[[SEQ:.+]] = tensor.dim %[[X]], %c1
// CHECK:         %[[X2:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
// CHECK:         %[[R2:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
// CHECK-NEXT:    %[[Y:.+]] = "w4a16.fused_matmul"(%[[X2]], %{{.+}}, %{{.+}}, %[[R2]])
// CHECK-SAME:      -> tensor<?x256xf16>
// CHECK-NEXT:    %[[Y3:.+]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [%[[B]], %[[SEQ]], 256] : tensor<?x256xf16> into tensor<?x?x256xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y3]]
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> residual
func.func @residual_dynamic_batch_and_sequence(%x: tensor<?x?x256xf16>, %qw: tensor<32x256xi32>, %s: tensor<2x256xf16>) -> tensor<?x?x256xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x256xf16>
  %seq = tensor.dim %x, %c1 : tensor<?x?x256xf16>
  %m = arith.muli %b, %seq : index
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
  %we = tensor.empty() : tensor<256x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x256xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x256xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<2x256xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x256xf16>
  %ye = tensor.empty(%m) : tensor<?x256xf32>
  %zero = arith.constant 0.0 : f32
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<?x256xf32>) -> tensor<?x256xf32>
  %y = linalg.matmul ins(%x2, %w : tensor<?x256xf16>, tensor<256x256xf16>) outs(%yf : tensor<?x256xf32>) -> tensor<?x256xf32>
  %he = tensor.empty(%m) : tensor<?x256xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x256xf32>) outs(%he : tensor<?x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x256xf16>
  %h3 = tensor.expand_shape %h [[0, 1], [2]] output_shape [%b, %seq, 256] : tensor<?x256xf16> into tensor<?x?x256xf16>
  %oe = tensor.empty(%b, %seq) : tensor<?x?x256xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h3, %x : tensor<?x?x256xf16>, tensor<?x?x256xf16>) outs(%oe : tensor<?x?x256xf16>) {
  ^bb0(%a: f16, %r: f16, %o: f16):
    %sum = arith.addf %a, %r : f16
    linalg.yield %sum : f16
  } -> tensor<?x?x256xf16>
  return %out : tensor<?x?x256xf16>
}

// -----

// Look-alike: the same with the residual read as [S, B] -- not residual[m, n]; the chain stops before it.
// CHECK-LABEL: func.func @residual_dynamic_rows_swapped(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      -> tensor<?x256xf16>
// CHECK:         linalg.generic
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul; chain ends before {{.*}}: reads a tensor<?x?x256xf16> tensor that is neither a bias (N) nor a residual (M, N)
func.func @residual_dynamic_rows_swapped(%x: tensor<?x?x256xf16>, %qw: tensor<32x256xi32>, %s: tensor<2x256xf16>) -> tensor<?x?x256xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x256xf16>
  %seq = tensor.dim %x, %c1 : tensor<?x?x256xf16>
  %m = arith.muli %b, %seq : index
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x256xf16> into tensor<?x256xf16>
  %we = tensor.empty() : tensor<256x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x256xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x256xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<2x256xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x256xf16>
  %ye = tensor.empty(%m) : tensor<?x256xf32>
  %zero = arith.constant 0.0 : f32
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<?x256xf32>) -> tensor<?x256xf32>
  %y = linalg.matmul ins(%x2, %w : tensor<?x256xf16>, tensor<256x256xf16>) outs(%yf : tensor<?x256xf32>) -> tensor<?x256xf32>
  %he = tensor.empty(%m) : tensor<?x256xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x256xf32>) outs(%he : tensor<?x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x256xf16>
  %h3 = tensor.expand_shape %h [[0, 1], [2]] output_shape [%b, %seq, 256] : tensor<?x256xf16> into tensor<?x?x256xf16>
  %oe = tensor.empty(%b, %seq) : tensor<?x?x256xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (b, a, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h3, %x : tensor<?x?x256xf16>, tensor<?x?x256xf16>) outs(%oe : tensor<?x?x256xf16>) {
  ^bb0(%a: f16, %r: f16, %o: f16):
    %sum = arith.addf %a, %r : f16
    linalg.yield %sum : f16
  } -> tensor<?x?x256xf16>
  return %out : tensor<?x?x256xf16>
}
