// How a contraction's body may accumulate the product: besides acc + x * w (arith.addf of arith.mulf), as
// math.fma(x, w, acc), and as acc + extf(x * w) with the product rounded to f16 first (sharktank's templates
// multiply in f16 and accumulate in f32). Both stayed unfused ("not a multiply-accumulate contraction") until
// session 56's probes found them. The product's f16 rounding is within the op's tolerance, as the weight's own is.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// A contraction generic whose body is math.fma, over a separately dequantised (K, N) weight.
// CHECK-LABEL: func.func @fma_body(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x1024xf16>
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<1024x256xi4>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<8x256xf16>
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[Q]], %[[S]])
// CHECK-SAME:      group_size = 128 : i64
// CHECK-SAME:      scales_layout = "g_n"
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-NEXT:    return %[[R]]
func.func @fma_body(%x: tensor<4x1024xf16>, %q: tensor<1024x256xi4>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c8 = arith.constant 8.0 : f16
  %c0 = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1024x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>,
                                        affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<1024x256xi4>, tensor<8x256xf16>) outs(%e : tensor<1024x256xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<1024x256xf16>
  %ey = tensor.empty() : tensor<4x256xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x256xf16>) -> tensor<4x256xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x1024xf16>, tensor<1024x256xf16>) outs(%f0 : tensor<4x256xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %t = math.fma %a, %b, %acc : f16
    linalg.yield %t : f16
  } -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}

// -----

// sharktank's mmt_block_scaled_offset_q4_unsigned template (nod-ai/shark-ai,
// sharktank/sharktank/kernels/templates/), GGUF Q4_1 blocks of 32: W = d * q + m, after upstream's
// linalg-fuse-elementwise-ops has moved the dequantisation into the contraction's body. The product is an f16
// mulf widened to f32 before the accumulation.
// CHECK-LABEL: func.func @sharktank_q4_1_fused_body(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<?x?x1024xf16>
// CHECK-SAME:    %[[D:[a-zA-Z0-9_]+]]: tensor<256x32x1xf16>
// CHECK-SAME:    %[[QS:[a-zA-Z0-9_]+]]: tensor<256x32x32xi4>
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: tensor<256x32x1xf16>
// CHECK-DAG:     %[[X:.+]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]]
// CHECK-DAG:     %[[W:.+]] = tensor.collapse_shape %[[QS]] {{\[\[}}0], [1, 2]]
// CHECK-DAG:     %[[S:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0], [1, 2]]
// CHECK-DAG:     %[[O:.+]] = tensor.collapse_shape %[[M]] {{\[\[}}0], [1, 2]]
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]], %[[O]])
// CHECK-SAME:      group_size = 32 : i64
// CHECK-SAME:      scales_layout = "n_g"
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-SAME:      zero_point_layout = "n_g", zero_points_are_offsets
// CHECK-NOT:     linalg.generic
#x = affine_map<(b, s, n, g, i) -> (b, s, g, i)>
#per_block = affine_map<(b, s, n, g, i) -> (n, g, 0)>
#codes = affine_map<(b, s, n, g, i) -> (n, g, i)>
#out = affine_map<(b, s, n, g, i) -> (b, s, n)>
func.func @sharktank_q4_1_fused_body(%a: tensor<?x?x1024xf16>, %d: tensor<256x32x1xf16>, %qs: tensor<256x32x32xi4>,
                                     %m: tensor<256x32x1xf16>) -> tensor<?x?x256xf16> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %a, %c0 : tensor<?x?x1024xf16>
  %s = tensor.dim %a, %c1 : tensor<?x?x1024xf16>
  %blocks = tensor.expand_shape %a [[0], [1], [2, 3]] output_shape [%b, %s, 32, 32]
      : tensor<?x?x1024xf16> into tensor<?x?x32x32xf16>
  %e = tensor.empty(%b, %s) : tensor<?x?x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x256xf32>) -> tensor<?x?x256xf32>
  %y = linalg.generic {indexing_maps = [#x, #per_block, #per_block, #codes, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%blocks, %d, %m, %qs : tensor<?x?x32x32xf16>, tensor<256x32x1xf16>, tensor<256x32x1xf16>,
                                 tensor<256x32x32xi4>) outs(%acc : tensor<?x?x256xf32>) {
  ^bb0(%xv: f16, %dv: f16, %mv: f16, %q: i4, %sum: f32):
    %qi = arith.extui %q : i4 to i32
    %qf = arith.uitofp %qi : i32 to f16
    %scaled = arith.mulf %qf, %dv : f16
    %wv = arith.addf %scaled, %mv : f16
    %p = arith.mulf %xv, %wv : f16
    %p32 = arith.extf %p : f16 to f32
    %next = arith.addf %p32, %sum : f32
    linalg.yield %next : f32
  } -> tensor<?x?x256xf32>
  %e16 = tensor.empty(%b, %s) : tensor<?x?x256xf16>
  %r = linalg.copy ins(%y : tensor<?x?x256xf32>) outs(%e16 : tensor<?x?x256xf16>) -> tensor<?x?x256xf16>
  return %r : tensor<?x?x256xf16>
}
