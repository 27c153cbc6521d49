// K split over three contraction loops: GGUF's super-block formats (Q4_K, Q5_K, Q6_K) contract x expanded to
// [B, S, K/256, 8, 32] against a [N, K/256, 8, 32] weight over (super-block, block, element). The loop structure,
// operand maps and body below are those of sharktank's mmt_super_block_scaled_offset_q4_unsigned template
// (nod-ai/SHARK-Platform, sharktank/sharktank/kernels/templates/), made small (K = 512, N = 64) and with f16
// throughout (the template's extf f16 -> f16 is not valid there: it is dropped). K is the loops' mixed-radix
// number in x's order, read row-major, so the chain is the plain (B * S, K) x (K, N) one; the dequantisation
// decides the rest. Here each 32-element block has its own scale and minimum tensors (Q4_1's formula over
// the super-block loops: hand-modified from the template), which fuses; Q4_K's own formula -- block scale and
// minimum each the product of a super-block factor and a 6-bit code split over two tensors -- stays unfused with
// the remark below (test/explain/derived-scales.mlir has its hand-written twin). Until this rule every such
// contraction got "contraction over 3 loops (expected K, or K split into groups)".
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @super_blocks_q4_1(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x?x512xf16>
// CHECK:         %[[XC:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x?x512xf16> into tensor<?x512xf16>
// CHECK:         %[[F:.+]] = "w4a16.fused_matmul"(%[[XC]],
// CHECK-SAME:      group_size = 32
// CHECK-SAME:      -> tensor<?x64xf16>
// CHECK:         %[[E:.+]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1], [2]]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[E]]
// REMARK: k-three-loops.mlir:[[@LINE+28]]:13: remark: w4a16: fused
func.func @super_blocks_q4_1(%a: tensor<?x?x512xf16>, %d: tensor<64x2x8x1xf16>, %m: tensor<64x2x8x1xf16>,
                             %qs: tensor<64x2x8x32xi4>) -> tensor<?x?x64xf16> {
  %zero = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = tensor.dim %a, %c0 : tensor<?x?x512xf16>
  %rows = tensor.dim %a, %c1 : tensor<?x?x512xf16>
  %b_grouped = tensor.empty() : tensor<64x2x8x32xf16>
  %b = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%qs, %d, %m : tensor<64x2x8x32xi4>, tensor<64x2x8x1xf16>, tensor<64x2x8x1xf16>)
      outs(%b_grouped : tensor<64x2x8x32xf16>) {
  ^bb0(%q: i4, %scale: f16, %min: f16, %out: f16):
    %q32 = arith.extui %q : i4 to i32
    %qf = arith.uitofp %q32 : i32 to f16
    %qs_scaled = arith.mulf %scale, %qf : f16
    %w = arith.addf %qs_scaled, %min : f16
    linalg.yield %w : f16
  } -> tensor<64x2x8x32xf16>
  %aexp = tensor.expand_shape %a [[0], [1], [2, 3, 4]] output_shape [%batch, %rows, 2, 8, 32]
      : tensor<?x?x512xf16> into tensor<?x?x2x8x32xf16>
  %empty = tensor.empty(%batch, %rows) : tensor<?x?x64xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%empty : tensor<?x?x64xf16>) -> tensor<?x?x64xf16>
  %result = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4, d5)>,
                       affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3, d4, d5)>,
                       affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%aexp, %b : tensor<?x?x2x8x32xf16>, tensor<64x2x8x32xf16>) outs(%fill : tensor<?x?x64xf16>) {
  ^bb0(%ae: f16, %be: f16, %out: f16):
    %p = arith.mulf %ae, %be : f16
    %s = arith.addf %p, %out : f16
    linalg.yield %s : f16
  } -> tensor<?x?x64xf16>
  return %result : tensor<?x?x64xf16>
}

// -----

// The same loops with x's block and super-block loops swapped against the weight's (x[.., sub, sup, e] read
// where W has [.., sup, sub, e]): K taken in x's row-major order walks W's codes in an order no layout of the
// op stores (a K permutation of the weight), so the chain stays unfused with the layout rule's remark.
// CHECK-LABEL: func.func @super_blocks_crossed(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: k-three-loops.mlir:[[@LINE+28]]:13: remark: w4a16: not fused: i4 codes are not laid out as (K, N) or (N, K)
func.func @super_blocks_crossed(%a: tensor<?x?x512xf16>, %d: tensor<64x2x8x1xf16>, %m: tensor<64x2x8x1xf16>,
                                %qs: tensor<64x2x8x32xi4>) -> tensor<?x?x64xf16> {
  %zero = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = tensor.dim %a, %c0 : tensor<?x?x512xf16>
  %rows = tensor.dim %a, %c1 : tensor<?x?x512xf16>
  %b_grouped = tensor.empty() : tensor<64x2x8x32xf16>
  %b = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>,
                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%qs, %d, %m : tensor<64x2x8x32xi4>, tensor<64x2x8x1xf16>, tensor<64x2x8x1xf16>)
      outs(%b_grouped : tensor<64x2x8x32xf16>) {
  ^bb0(%q: i4, %scale: f16, %min: f16, %out: f16):
    %q32 = arith.extui %q : i4 to i32
    %qf = arith.uitofp %q32 : i32 to f16
    %qs_scaled = arith.mulf %scale, %qf : f16
    %w = arith.addf %qs_scaled, %min : f16
    linalg.yield %w : f16
  } -> tensor<64x2x8x32xf16>
  %aexp = tensor.expand_shape %a [[0], [1], [2, 3, 4]] output_shape [%batch, %rows, 8, 2, 32]
      : tensor<?x?x512xf16> into tensor<?x?x8x2x32xf16>
  %empty = tensor.empty(%batch, %rows) : tensor<?x?x64xf16>
  %fill = linalg.fill ins(%zero : f16) outs(%empty : tensor<?x?x64xf16>) -> tensor<?x?x64xf16>
  %result = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3, d5)>,
                       affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3, d4, d5)>,
                       affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%aexp, %b : tensor<?x?x8x2x32xf16>, tensor<64x2x8x32xf16>) outs(%fill : tensor<?x?x64xf16>) {
  ^bb0(%ae: f16, %be: f16, %out: f16):
    %p = arith.mulf %ae, %be : f16
    %s = arith.addf %p, %out : f16
    linalg.yield %s : f16
  } -> tensor<?x?x64xf16>
  return %result : tensor<?x?x64xf16>
}

// -----

// Q4_K as the template computes it (the operands' element types as its flow.tensor.bitcast gives them: i4 codes,
// i2 / i4 halves of the 6-bit block scales and minimums): the block scale d * (low | hi << 4) and minimum
// dmin * (low | hi) (as written: the minimum's high bits unshifted) are computed from four integer and two float
// tensors. K's three loops are read right; the dequantisation is what stays unfused.
// CHECK-LABEL: func.func @q4_k_template(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: k-three-loops.mlir:[[@LINE+52]]:13: remark: w4a16: not fused: weight element reads 5 integer and 2 float tensors
func.func @q4_k_template(%a: tensor<?x?x512xf16>, %d: tensor<64x2x1xf16>, %dmin: tensor<64x2x1xf16>,
    %sb_scales_hi: tensor<64x2x8xi2>, %sb_scales_low: tensor<64x2x8xi4>,
    %sb_mins_hi: tensor<64x2x8xi2>, %sb_mins_low: tensor<64x2x8xi4>,
    %qs: tensor<64x2x8x32xi4>) -> tensor<?x?x64xf16> {
  %zero = arith.constant 0.0: f16
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch0_dim = tensor.dim %a, %c0 : tensor<?x?x512xf16>
  %m_dim = tensor.dim %a, %c1 : tensor<?x?x512xf16>
  %b_grouped = tensor.empty() : tensor<64x2x8x32xf16>
  %b_grouped_dequant = linalg.generic {
      indexing_maps = [
          affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
          affine_map<(d0, d1, d2, d3) -> (d0, d1, 0)>,
          affine_map<(d0, d1, d2, d3) -> (d0, d1, 0)>,
          affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>,
          affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>,
          affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>,
          affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>,
          affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
      ],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"] }
      ins(%qs, %d, %dmin, %sb_scales_hi, %sb_scales_low, %sb_mins_hi, %sb_mins_low :
        tensor<64x2x8x32xi4>, tensor<64x2x1xf16>, tensor<64x2x1xf16>,
        tensor<64x2x8xi2>, tensor<64x2x8xi4>, tensor<64x2x8xi2>, tensor<64x2x8xi4>)
      outs(%b_grouped : tensor<64x2x8x32xf16>) {
  ^bb0(%q_element: i4, %d_element: f16, %dmin_element: f16,
       %sb_scales_hi_element: i2, %sb_scales_low_element: i4,
       %sb_mins_hi_element: i2, %sb_mins_low_element: i4, %out: f16):
      %shift_4 = arith.constant 4 : i32
      %sb_scale_low_i32 = arith.extui %sb_scales_low_element : i4 to i32
      %sb_scale_hi_i32 = arith.extui %sb_scales_hi_element : i2 to i32
      %sb_scale_hi_i32_shift = arith.shli %sb_scale_hi_i32, %shift_4 : i32
      %sb_scale_i32 = arith.ori %sb_scale_low_i32, %sb_scale_hi_i32_shift : i32
      %sb_scale_float = arith.uitofp %sb_scale_i32 : i32 to f16
      %sb_min_low_i32 = arith.extui %sb_mins_low_element : i4 to i32
      %sb_min_hi_i32 = arith.extui %sb_mins_hi_element : i2 to i32
      %sb_min_hi_i32_shift = arith.shli %sb_min_hi_i32, %shift_4 : i32
      %sb_min_i32 = arith.ori %sb_min_low_i32, %sb_min_hi_i32 : i32
      %sb_min_float = arith.uitofp %sb_min_i32 : i32 to f16
      %q_element_i32 = arith.extui %q_element : i4 to i32
      %q_element_ext = arith.uitofp %q_element_i32 : i32 to f16
      %d_scaled = arith.mulf %d_element, %sb_scale_float : f16
      %dmin_scaled = arith.mulf %dmin_element, %sb_min_float : f16
      %q_scaled = arith.mulf %d_scaled, %q_element_ext : f16
      %q_shifted = arith.subf %q_scaled, %dmin_scaled : f16
      linalg.yield %q_shifted : f16
  } -> tensor<64x2x8x32xf16>
  %aexp = tensor.expand_shape %a [[0], [1], [2, 3, 4]] output_shape [%batch0_dim, %m_dim, 2, 8, 32] : tensor<?x?x512xf16> into tensor<?x?x2x8x32xf16>
  %result_empty = tensor.empty(%batch0_dim, %m_dim) : tensor<?x?x64xf16>
  %result_fill = linalg.fill ins(%zero: f16) outs(%result_empty: tensor<?x?x64xf16>) -> tensor<?x?x64xf16>
  %result = linalg.generic {
      indexing_maps = [
          affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4, d5)>,
          affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3, d4, d5)>,
          affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
      ],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"] }
      ins(%aexp, %b_grouped_dequant : tensor<?x?x2x8x32xf16>, tensor<64x2x8x32xf16>)
      outs(%result_fill : tensor<?x?x64xf16>) {
  ^bb0(%a_element: f16, %b_element: f16, %out: f16):
      %bmm_mul = arith.mulf %a_element, %b_element : f16
      %bmm_accum = arith.addf %bmm_mul, %out : f16
      linalg.yield %bmm_accum : f16
  } -> tensor<?x?x64xf16>
  return %result : tensor<?x?x64xf16>
}
