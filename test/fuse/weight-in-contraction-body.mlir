// The dequantisation computed inside the contraction's own body: what upstream's --linalg-fuse-elementwise-ops
// (and IREE's dequantisation fusion) leave when they fold the dequant generic into the contraction generic. The
// body yields acc + x * w, w computed from the other inputs (IREE's grouped form) or from tensors the body reads
// with tensor.extract at linalg.index positions (x the only input: GPTQ's packed words). The fill written as a
// generic (--linalg-generalize-named-ops) is a zero init like linalg.fill.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
//
// Whole suite files through the upstream passes first: every chain fuses as it does unfused.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --split-input-file %S/iree-contraction.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=IREE
// IREE-COUNT-5: remark: w4a16: fused as dequant
// IREE-NOT:     remark:
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --split-input-file %S/epilogue-bias.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BIAS
// BIAS-COUNT-6: remark: w4a16: fused as dequant({{.*}} -> matmul -> bias
// BIAS-NOT:     remark:
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --split-input-file %S/gptq-packed.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPTQ
// GPTQ-COUNT-5: remark: w4a16: fused as dequant(packed_k8_n
// GPTQ-NOT:     remark:
// AutoAWQ's torch fallback: the fused body reads codes and zero points at affine.apply positions.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/autoawq-torch-fallback.mlir \
// RUN:   | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=AWQ
// AWQ:     remark: w4a16: fused as dequant(packed_k_n8_awq, scales g_n, zero points packed_g_n8_awq
// AWQ-NOT: remark:
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/autoawq-torch-fallback-3d.mlir \
// RUN:   | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=AWQ3D
// AWQ3D:     remark: w4a16: fused as dequant(packed_k_n8_awq, scales g_n, zero points packed_g_n8_awq
// AWQ3D-NOT: remark:
// With the unit-dim folding and clean-up IREE runs around that fusion (--linalg-fold-unit-extent-dims, --canonicalize,
// --cse): a static M = 1 becomes a unit reduction loop over x's unit dim, or both unit dims are dropped; a unit batch
// can leave a contraction over 7 loops, 4 of them unit; CSE reads the rows of every (M, .) tensor from x.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fold-unit-extent-dims --linalg-fuse-elementwise-ops \
// RUN:   --canonicalize --cse --split-input-file %S/gptq-g-idx.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNITGIDX
// UNITGIDX-COUNT-3: remark: w4a16: fused as dequant
// UNITGIDX-NOT:     remark:
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fold-unit-extent-dims --linalg-fuse-elementwise-ops \
// RUN:   --canonicalize --cse --split-input-file %S/iree-contraction.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNITIREE
// UNITIREE-COUNT-5: remark: w4a16: fused as dequant
// UNITIREE-NOT:     remark:
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fold-unit-extent-dims --linalg-fuse-elementwise-ops \
// RUN:   --canonicalize --cse --split-input-file %S/exporter-shapes.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNITSHAPES
// UNITSHAPES-COUNT-4: remark: w4a16: fused as dequant
// UNITSHAPES-NOT:     remark:
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fold-unit-extent-dims --linalg-fuse-elementwise-ops \
// RUN:   --canonicalize --cse %S/../../examples/phi3_mlp.mlir \
// RUN:   | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNITPHI3
// UNITPHI3-COUNT-2: remark: w4a16: fused as dequant
// UNITPHI3-NEXT:    remark: w4a16: split the gate_up projection (N = 1024) into its halves for a glu
// UNITPHI3-NEXT:    remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
// UNITPHI3-NOT:     remark:

// IREE's grouped contraction with the dequantisation in its body: x [M, K/128, 128], codes [N, K/128, 128],
// scales [N, K/128], zero point 8.

#mx = affine_map<(m, n, g, k) -> (m, g, k)>
#mq = affine_map<(m, n, g, k) -> (n, g, k)>
#ms = affine_map<(m, n, g, k) -> (n, g)>
#mo = affine_map<(m, n, g, k) -> (m, n)>
#fill = affine_map<(m, n) -> (m, n)>
// CHECK-LABEL: func.func @grouped_three_inputs(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<16x4096xf16>
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<2048x32x128xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<2048x32xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[QC:.+]] = tensor.collapse_shape %[[Q]] {{\[\[}}0], [1, 2]] : tensor<2048x32x128xi4> into tensor<2048x4096xi4>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QC]], %[[S]])
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<16x2048xf16>
func.func @grouped_three_inputs(%x: tensor<16x4096xf16>, %q: tensor<2048x32x128xi4>, %s: tensor<2048x32xf16>) -> tensor<16x2048xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %xe = tensor.expand_shape %x [[0], [1, 2]] output_shape [16, 32, 128] : tensor<16x4096xf16> into tensor<16x32x128xf16>
  %e = tensor.empty() : tensor<16x2048xf16>
  %f = linalg.generic {indexing_maps = [#fill], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<16x2048xf16>) {
  ^bb0(%o: f16):
    linalg.yield %zero : f16
  } -> tensor<16x2048xf16>
  %y = linalg.generic {indexing_maps = [#mx, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%xe, %q, %s : tensor<16x32x128xf16>, tensor<2048x32x128xi4>, tensor<2048x32xf16>) outs(%f : tensor<16x2048xf16>) {
  ^bb0(%a: f16, %c: i4, %sc: f16, %acc: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %4 = arith.mulf %a, %3 : f16
    %5 = arith.addf %acc, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<16x2048xf16>
  return %y : tensor<16x2048xf16>
}

// -----

// x the only input; the body reads GPTQ's packed words and the scales itself, accumulates in f32 (x and w
// widened), and an f16 bias follows. Dynamic M.

#mx = affine_map<(m, n, k) -> (m, k)>
#mo = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#bias = affine_map<(m, n) -> (n)>
// CHECK-LABEL: func.func @captured_packed_words_f32(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x1024xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<128x512xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x512xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: tensor<512xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<?x512xf16>
func.func @captured_packed_words_f32(%x: tensor<?x1024xf16>, %qw: tensor<128x512xi32>, %s: tensor<8x512xf16>, %b: tensor<512xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %z = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %m = tensor.dim %x, %c0 : tensor<?x1024xf16>
  %e = tensor.empty(%m) : tensor<?x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y = linalg.generic {indexing_maps = [#mx, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<?x1024xf16>) outs(%f : tensor<?x512xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %n = linalg.index 1 : index
    %k = linalg.index 2 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<128x512xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %z : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<8x512xf16>
    %w = arith.mulf %cz, %sc : f16
    %a32 = arith.extf %a : f16 to f32
    %w32 = arith.extf %w : f16 to f32
    %p = arith.mulf %w32, %a32 : f32
    %sum = arith.addf %p, %acc : f32
    linalg.yield %sum : f32
  } -> tensor<?x512xf32>
  %e2 = tensor.empty(%m) : tensor<?x512xf16>
  %out = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %b : tensor<?x512xf32>, tensor<512xf16>) outs(%e2 : tensor<?x512xf16>) {
  ^bb0(%v: f32, %bv: f16, %o: f16):
    %v16 = arith.truncf %v : f32 to f16
    %r = arith.addf %v16, %bv : f16
    linalg.yield %r : f16
  } -> tensor<?x512xf16>
  return %out : tensor<?x512xf16>
}

// -----

// An f32 x narrowed to f16 inside the body: the fused op takes arith.truncf of x (each element rounded as the
// body rounded it).

#mx = affine_map<(m, n, k) -> (m, k)>
#mq = affine_map<(m, n, k) -> (k, n)>
#ms = affine_map<(m, n, k) -> (k floordiv 128, n)>
#mo = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @x_narrowed_in_body(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf32>
// CHECK:         %[[XN:.+]] = arith.truncf %[[X]] : tensor<4x256xf32> to tensor<4x256xf16>
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[XN]],
// CHECK-SAME:      : (tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) -> tensor<4x64xf16>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]] : tensor<4x64xf16>
func.func @x_narrowed_in_body(%x: tensor<4x256xf32>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.generic {indexing_maps = [#mx, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %q, %s : tensor<4x256xf32>, tensor<256x64xi4>, tensor<2x64xf16>) outs(%f : tensor<4x64xf16>) {
  ^bb0(%a: f32, %c: i4, %sc: f16, %acc: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %a16 = arith.truncf %a : f32 to f16
    %4 = arith.mulf %a16, %3 : f16
    %5 = arith.addf %acc, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
