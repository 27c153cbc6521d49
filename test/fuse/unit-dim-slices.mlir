// Unit dims dropped by tensor.extract_slice / tensor.insert_slice instead of reshapes: what upstream's
// --linalg-fold-unit-extent-dims=use-rank-reducing-slices makes of a batch of one, a decode step's M = 1, scales
// stored [K/G, 1, N] or [N*K/G, 1] and the zero-filled accumulators of such contractions (the ExtractInsertSlice
// rank-reduction strategy of MLIR's dropUnitDims). A slice with offsets 0 and strides 1 that covers its whole
// tensor and only drops or adds unit dims is a reshape in all but name; the matcher reads it as one (until then:
// "scales are computed by tensor.extract_slice, which the matcher does not see through", "matmul accumulates into
// a non-zero init", "weight element reads 3 integer and 1 float tensors" -- 14 chains of 10 test files lost).
// Other slices keep their meaning: a column picked from a pair of scales is per-column scaling; a row of x is x.
//
// The chunks below are written with their unit dims; the RUN lines make the slices with the upstream pass.
// RUN: mlir-opt --linalg-fold-unit-extent-dims=use-rank-reducing-slices --canonicalize --cse --split-input-file %s \
// RUN:   | w4a16-opt --w4a16-fuse --split-input-file | FileCheck %s
// RUN: mlir-opt --linalg-fold-unit-extent-dims=use-rank-reducing-slices --canonicalize --cse --split-input-file %s \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=RAW
// Elementwise fusion before and after unit-dim folding (as pipelines that fuse more than once run it) leaves a
// fill sized by a tensor.dim of an expand_shape and sliced by the size that expand_shape was given: one size.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --linalg-fold-unit-extent-dims \
// RUN:   --canonicalize --cse --linalg-fuse-elementwise-ops --split-input-file %s \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
//
// The suite's real-exporter files through the same pipeline fuse as they do plain (HQQ's [N*K/64, 1] scales and
// zero points, AutoGPTQ's and GPTQModel's unsqueezed shift tables, the Phi-3 chunk, IREE's M = 1 contractions).
// RUN: mlir-opt --linalg-fold-unit-extent-dims=use-rank-reducing-slices --canonicalize --cse --split-input-file \
// RUN:   %S/hqq-halves.mlir | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 \
// RUN:   | FileCheck %S/hqq-halves.mlir --check-prefix=REMARK
// RUN: mlir-opt --linalg-fold-unit-extent-dims=use-rank-reducing-slices --canonicalize --cse --split-input-file \
// RUN:   %S/autogptq-torch-fallback.mlir | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GPTQ
// RUN: mlir-opt --linalg-fold-unit-extent-dims=use-rank-reducing-slices --canonicalize --cse --split-input-file \
// RUN:   %S/gptqmodel-act-order.mlir | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ACT-ORDER
// RUN: mlir-opt --linalg-fold-unit-extent-dims=use-rank-reducing-slices --canonicalize --cse --split-input-file \
// RUN:   %S/phi3-mlp.mlir | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 \
// RUN:   | FileCheck %S/phi3-mlp.mlir --check-prefix=CANON
// RUN: mlir-opt --linalg-fold-unit-extent-dims=use-rank-reducing-slices --canonicalize --cse --split-input-file \
// RUN:   %S/iree-contraction.mlir | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 \
// RUN:   | grep -c 'remark: w4a16: fused as' | FileCheck %s --check-prefix=IREE
// GPTQ: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points packed_g_n8 tensor<32x512xi32>) -> matmul -> bias
// IREE: {{^}}5{{$}}
// ACT-ORDER: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points packed_g_n8 tensor<8x128xi32>, act-order g_idx) -> matmul -> bias

// A batch of one, x [1, S, K] and y [1, S, N] with S dynamic, scales stored [K/G, 1, N]: x, the scales, the
// accumulator's fill and the result each pass through a slice sized by tensor.dim or by the tensor.empty's size.
// CHECK-LABEL: func.func @batch_of_one(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<1x?x512xf16>, %[[Q:[a-zA-Z0-9_]+]]: tensor<512x512xi4>, %[[S:[a-zA-Z0-9_]+]]: tensor<4x1x512xf16>
// CHECK:         %[[XV:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<1x?x512xf16> into tensor<?x512xf16>
// CHECK:         %[[SV:.+]] = tensor.collapse_shape %[[S]] {{\[}}[0], [1, 2]] : tensor<4x1x512xf16> into tensor<4x512xf16>
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[XV]], %[[Q]], %[[SV]])
// CHECK-SAME:      scales_layout = "g_n", weight_layout = "k_n"
// CHECK:         tensor.insert_slice %[[Y]] into
// CHECK-NOT:     linalg.generic
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
#x3 = affine_map<(b, m, n, k) -> (b, m, k)>
#w2 = affine_map<(b, m, n, k) -> (k, n)>
#y3 = affine_map<(b, m, n, k) -> (b, m, n)>
#id2 = affine_map<(k, n) -> (k, n)>
#sg = affine_map<(k, n) -> (k floordiv 128, 0, n)>
func.func @batch_of_one(%x: tensor<1x?x512xf16>, %q: tensor<512x512xi4>, %s: tensor<4x1x512xf16>) -> tensor<1x?x512xf16> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %seq = tensor.dim %x, %c1 : tensor<1x?x512xf16>
  %ew = tensor.empty() : tensor<512x512xf16>
  %w = linalg.generic {indexing_maps = [#id2, #sg, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<512x512xi4>, tensor<4x1x512xf16>) outs(%ew : tensor<512x512xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %e = arith.extui %c : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %eight = arith.constant 8.0 : f16
    %d = arith.subf %f, %eight : f16
    %r = arith.mulf %d, %sc : f16
    linalg.yield %r : f16
  } -> tensor<512x512xf16>
  %ey = tensor.empty(%seq) : tensor<1x?x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<1x?x512xf16>) -> tensor<1x?x512xf16>
  %y = linalg.generic {indexing_maps = [#x3, #w2, #y3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<1x?x512xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %p = arith.mulf %a, %b : f16
    %t = arith.addf %o, %p : f16
    linalg.yield %t : f16
  } -> tensor<1x?x512xf16>
  return %y : tensor<1x?x512xf16>
}

// -----

// A decode step as IREE writes it (x [1, K/G, G] against codes [N, K/G, G], f32 accumulation): the M = 1 loop
// goes, x's row and the f32 fill are sliced to rank 1, and the truncated result is inserted back into [1, N].
// CHECK-LABEL: func.func @decode_one_token(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<1x512xf16>, %[[Q:[a-zA-Z0-9_]+]]: tensor<512x4x128xi4>, %[[S:[a-zA-Z0-9_]+]]: tensor<512x4xf16>
// CHECK:         %[[QV:.+]] = tensor.collapse_shape %[[Q]] {{\[}}[0], [1, 2]] : tensor<512x4x128xi4> into tensor<512x512xi4>
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QV]], %[[S]])
// CHECK-SAME:      scales_layout = "n_g", weight_layout = "n_k"
// CHECK-SAME:      (tensor<1x512xf16>, tensor<512x512xi4>, tensor<512x4xf16>) -> tensor<1x512xf16>
// CHECK:         %[[YV:.+]] = tensor.collapse_shape %[[Y]] {{\[}}[0, 1]] : tensor<1x512xf16> into tensor<512xf16>
// CHECK:         tensor.insert_slice %[[YV]] into
// CHECK-NOT:     linalg.generic
// REMARK: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
#xm = affine_map<(m, n, g, i) -> (m, g, i)>
#wm = affine_map<(m, n, g, i) -> (n, g, i)>
#ym = affine_map<(m, n, g, i) -> (m, n)>
#id3 = affine_map<(n, g, i) -> (n, g, i)>
#sc3 = affine_map<(n, g, i) -> (n, g)>
#id2 = affine_map<(m, n) -> (m, n)>
func.func @decode_one_token(%x: tensor<1x512xf16>, %q: tensor<512x4x128xi4>, %s: tensor<512x4xf16>) -> tensor<1x512xf16> {
  %zero = arith.constant 0.0 : f32
  %xg = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 4, 128] : tensor<1x512xf16> into tensor<1x4x128xf16>
  %ew = tensor.empty() : tensor<512x4x128xf16>
  %w = linalg.generic {indexing_maps = [#id3, #sc3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %s : tensor<512x4x128xi4>, tensor<512x4xf16>) outs(%ew : tensor<512x4x128xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %e = arith.extui %c : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %eight = arith.constant 8.0 : f16
    %d = arith.subf %f, %eight : f16
    %r = arith.mulf %d, %sc : f16
    linalg.yield %r : f16
  } -> tensor<512x4x128xf16>
  %ea = tensor.empty() : tensor<1x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<1x512xf32>) -> tensor<1x512xf32>
  %y = linalg.generic {indexing_maps = [#xm, #wm, #ym], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%xg, %w : tensor<1x4x128xf16>, tensor<512x4x128xf16>) outs(%acc : tensor<1x512xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %t = arith.addf %o, %p : f32
    linalg.yield %t : f32
  } -> tensor<1x512xf32>
  %eo = tensor.empty() : tensor<1x512xf16>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<1x512xf32>) outs(%eo : tensor<1x512xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1x512xf16>
  return %out : tensor<1x512xf16>
}

// -----

// Look-alike: scales [N, 2] of which a slice picks column 1 for every k (one scale per output column), dropping
// the unit dim as the pass would. Not a reshape: the slice starts at column 1.
// CHECK-LABEL: func.func @column_of_pair(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// REMARK: remark: w4a16: not fused: scale per column (one scale per output column, no K groups)
#id2 = affine_map<(k, n) -> (k, n)>
#col = affine_map<(k, n) -> (n)>
func.func @column_of_pair(%x: tensor<?x256xf16>, %q: tensor<256x512xi4>, %s: tensor<512x2xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %column = tensor.extract_slice %s[0, 1] [512, 1] [1, 1] : tensor<512x2xf16> to tensor<512xf16>
  %ew = tensor.empty() : tensor<256x512xf16>
  %w = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q, %column : tensor<256x512xi4>, tensor<512xf16>) outs(%ew : tensor<256x512xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %e = arith.extui %c : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %eight = arith.constant 8.0 : f16
    %d = arith.subf %f, %eight : f16
    %r = arith.mulf %d, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x512xf16>
  %ey = tensor.empty(%m) : tensor<?x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<?x512xf16>) -> tensor<?x512xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}

// -----

// Look-alike: the accumulator of a batch of one is filled with 1.0, not 0 (the slice of that fill is still 1.0).
// CHECK-LABEL: func.func @batch_of_one_filled_with_one(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: remark: w4a16: not fused: matmul accumulates into a non-zero init
#x3 = affine_map<(b, m, n, k) -> (b, m, k)>
#w2 = affine_map<(b, m, n, k) -> (k, n)>
#y3 = affine_map<(b, m, n, k) -> (b, m, n)>
#id2 = affine_map<(k, n) -> (k, n)>
#sg = affine_map<(k, n) -> (k floordiv 128, n)>
func.func @batch_of_one_filled_with_one(%x: tensor<1x?x512xf16>, %q: tensor<512x512xi4>, %s: tensor<4x512xf16>) -> tensor<1x?x512xf16> {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f16
  %seq = tensor.dim %x, %c1 : tensor<1x?x512xf16>
  %ew = tensor.empty() : tensor<512x512xf16>
  %w = linalg.generic {indexing_maps = [#id2, #sg, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<512x512xi4>, tensor<4x512xf16>) outs(%ew : tensor<512x512xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %e = arith.extui %c : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %eight = arith.constant 8.0 : f16
    %d = arith.subf %f, %eight : f16
    %r = arith.mulf %d, %sc : f16
    linalg.yield %r : f16
  } -> tensor<512x512xf16>
  %ey = tensor.empty(%seq) : tensor<1x?x512xf16>
  %acc = linalg.fill ins(%one : f16) outs(%ey : tensor<1x?x512xf16>) -> tensor<1x?x512xf16>
  %y = linalg.generic {indexing_maps = [#x3, #w2, #y3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<1x?x512xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %p = arith.mulf %a, %b : f16
    %t = arith.addf %o, %p : f16
    linalg.yield %t : f16
  } -> tensor<1x?x512xf16>
  return %y : tensor<1x?x512xf16>
}

// -----

// x is row 1 of a pair of sequences: a slice starting at offset 1 is not a reshape, so x is the slice itself.
// CHECK-LABEL: func.func @second_sequence(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x?x512xf16>
// CHECK:         %[[ROW:.+]] = tensor.extract_slice %[[X]][1, 0, 0] [1, %{{.+}}, 512] [1, 1, 1] : tensor<2x?x512xf16> to tensor<?x512xf16>
// CHECK:         "w4a16.fused_matmul"(%[[ROW]],
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
#id2 = affine_map<(k, n) -> (k, n)>
#sg = affine_map<(k, n) -> (k floordiv 128, n)>
func.func @second_sequence(%x: tensor<2x?x512xf16>, %q: tensor<512x512xi4>, %s: tensor<4x512xf16>) -> tensor<?x512xf16> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %seq = tensor.dim %x, %c1 : tensor<2x?x512xf16>
  %row = tensor.extract_slice %x[1, 0, 0] [1, %seq, 512] [1, 1, 1] : tensor<2x?x512xf16> to tensor<?x512xf16>
  %ew = tensor.empty() : tensor<512x512xf16>
  %w = linalg.generic {indexing_maps = [#id2, #sg, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<512x512xi4>, tensor<4x512xf16>) outs(%ew : tensor<512x512xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %e = arith.extui %c : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %eight = arith.constant 8.0 : f16
    %d = arith.subf %f, %eight : f16
    %r = arith.mulf %d, %sc : f16
    linalg.yield %r : f16
  } -> tensor<512x512xf16>
  %ey = tensor.empty(%seq) : tensor<?x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<?x512xf16>) -> tensor<?x512xf16>
  %y = linalg.matmul ins(%row, %w : tensor<?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}

// -----

// The slices written by hand, the accumulator's sized by a tensor.dim of the fill itself (a result is shaped as its
// init). Checked as written too (RAW), where no upstream canonicalization has folded that tensor.dim away.
// CHECK-LABEL: func.func @slices_sized_by_the_fill(
// CHECK:         "w4a16.fused_matmul"
// CHECK-NOT:     linalg.generic
// REMARK: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
// RAW: unit-dim-slices.mlir:[[# @LINE + 23]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
#id2 = affine_map<(k, n) -> (k, n)>
#sg = affine_map<(k, n) -> (k floordiv 128, n)>
func.func @slices_sized_by_the_fill(%x: tensor<1x?x512xf16>, %q: tensor<512x512xi4>, %s: tensor<4x512xf16>) -> tensor<?x512xf16> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %seq = tensor.dim %x, %c1 : tensor<1x?x512xf16>
  %ew = tensor.empty() : tensor<512x512xf16>
  %w = linalg.generic {indexing_maps = [#id2, #sg, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<512x512xi4>, tensor<4x512xf16>) outs(%ew : tensor<512x512xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %e = arith.extui %c : i4 to i32
    %f = arith.uitofp %e : i32 to f16
    %eight = arith.constant 8.0 : f16
    %d = arith.subf %f, %eight : f16
    %r = arith.mulf %d, %sc : f16
    linalg.yield %r : f16
  } -> tensor<512x512xf16>
  %ey = tensor.empty(%seq) : tensor<1x?x512xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%ey : tensor<1x?x512xf16>) -> tensor<1x?x512xf16>
  %rows = tensor.dim %fill, %c1 : tensor<1x?x512xf16>
  %acc = tensor.extract_slice %fill[0, 0, 0] [1, %rows, 512] [1, 1, 1] : tensor<1x?x512xf16> to tensor<?x512xf16>
  %x2 = tensor.extract_slice %x[0, 0, 0] [1, %seq, 512] [1, 1, 1] : tensor<1x?x512xf16> to tensor<?x512xf16>
  %y = linalg.matmul ins(%x2, %w : tensor<?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}
