// x read with its dims in another order: attention's output [B, H, S, D] transposed to [B, S, H, D] and collapsed to
// (B * S, H * D) before the output projection, after upstream's linalg-generalize-named-ops and
// linalg-fuse-elementwise-ops have folded the transpose into the contraction's map (x read at (b, h, s, d) for row
// (b, s) and k = h * D + d) and moved the GPTQ unpacking into its body. The chain fuses; the rewrite transposes x
// into [B, S, H, D] by a linalg.generic first (the op reads x as a row-major (M, K) tensor). Before session 56 it
// stayed unfused ("x is not read as a row-major (M, K) tensor") though the same IR before the fusion fused.
// The order is taken from where single steps of each row and of k move x's read, then every sample of x is checked
// in it, as any x is. K's loops are still numbered in x's own order (outer dims first), so x's K dims may move
// against its rows but not against each other ([S, D, H] for k = h * D + d stays unfused, on the weight's layout).
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-DAG:   #[[XREAD:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-DAG:   #[[ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @o_proj_bhsd(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x8x3x128xf16>
// CHECK-SAME:    %[[QW:[a-zA-Z0-9_]+]]: tensor<128x256xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x256xf16>
// CHECK-SAME:    %[[RES:[a-zA-Z0-9_]+]]: tensor<2x3x256xf16>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x3x8x128xf16>
// CHECK:         %[[XT:.+]] = linalg.generic {indexing_maps = [#[[XREAD]], #[[ID4]]]
// CHECK-SAME:      ins(%[[X]] : tensor<2x8x3x128xf16>) outs(%[[E]] : tensor<2x3x8x128xf16>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      linalg.yield %[[IN]] : f16
// CHECK:         %[[X2:.+]] = tensor.collapse_shape %[[XT]] {{\[\[}}0, 1], [2, 3]] : tensor<2x3x8x128xf16> into tensor<6x1024xf16>
// CHECK:         %[[R2:.+]] = tensor.collapse_shape %[[RES]] {{\[\[}}0, 1], [2]]
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[X2]], %[[QW]], %[[S]], %[[R2]])
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK:         %[[O:.+]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 256]
// CHECK-NEXT:    return %[[O]]
// REMARK: x-transposed.mlir:[[@LINE+11]]:8: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> residual
func.func @o_proj_bhsd(%x: tensor<2x8x3x128xf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>,
                       %res: tensor<2x3x256xf16>) -> tensor<2x3x256xf16> {
  %eight = arith.constant 8.0 : f16
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x3x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<2x3x256xf16>) -> tensor<2x3x256xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(b, s, n, h, d) -> (b, h, s, d)>,
                                        affine_map<(b, s, n, h, d) -> (b, s, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<2x8x3x128xf16>) outs(%acc : tensor<2x3x256xf16>) {
  ^bb0(%xv: f16, %sum: f16):
    %n = linalg.index 2 : index
    %h = linalg.index 3 : index
    %d = linalg.index 4 : index
    %hk = arith.muli %h, %c128 : index
    %k = arith.addi %hk, %d : index
    %row = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%row, %n] : tensor<128x256xi32>
    %nib = arith.remui %k, %c8 : index
    %nib32 = arith.index_cast %nib : index to i32
    %shift = arith.muli %nib32, %c4_i32 : i32
    %sh = arith.shrui %word, %shift : i32
    %code = arith.andi %sh, %c15_i32 : i32
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %eight : f16
    %w = arith.mulf %c, %sc : f16
    %p = arith.mulf %xv, %w : f16
    %next = arith.addf %sum, %p : f16
    linalg.yield %next : f16
  } -> tensor<2x3x256xf16>
  %e2 = tensor.empty() : tensor<2x3x256xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>,
                                        affine_map<(a, b, c) -> (a, b, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%res, %y : tensor<2x3x256xf16>, tensor<2x3x256xf16>) outs(%e2 : tensor<2x3x256xf16>) {
  ^bb0(%r: f16, %v: f16, %oo: f16):
    %t = arith.addf %r, %v : f16
    linalg.yield %t : f16
  } -> tensor<2x3x256xf16>
  return %o : tensor<2x3x256xf16>
}

