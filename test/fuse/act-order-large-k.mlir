// examples/gptq_act_order.mlir at K = N = 16384 (LLaMA-class sizes): the matcher checks every k of an act-order
// (or constant-table) chain, K evaluations; they drew on the one evaluation budget of the whole match, which ran
// out from K of a few thousand ("expression too large to analyse", K = 16384 unfused). Each of those evaluations
// now has its own budget (kElementEvalBudget).
//
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points packed_g_n8 tensor<128x2048xi32>, act-order g_idx) -> matmul -> bias

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bw = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#bz = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#wfw = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#wfz = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @gptq_act_order(%x: tensor<?x16384xf16>, %qweight: tensor<2048x16384xi32>, %qzeros: tensor<128x2048xi32>,
                          %scales: tensor<128x16384xf16>, %g_idx: tensor<16384xi32>, %bias: tensor<16384xf16>) -> tensor<?x16384xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x16384xf16>
  %wf_w = arith.constant dense<[[[0], [4], [8], [12], [16], [20], [24], [28]]]> : tensor<1x8x1xi32>
  %wf_z = arith.constant dense<[[[0, 4, 8, 12, 16, 20, 24, 28]]]> : tensor<1x1x8xi32>
  // zeros
  %qz3 = tensor.expand_shape %qzeros [[0], [1, 2]] output_shape [128, 2048, 1] : tensor<128x2048xi32> into tensor<128x2048x1xi32>
  %ez32 = tensor.empty() : tensor<128x2048x8xi32>
  %zx = linalg.generic {indexing_maps = [#bz, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qz3 : tensor<128x2048x1xi32>) outs(%ez32 : tensor<128x2048x8xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<128x2048x8xi32>
  %zs = linalg.generic {indexing_maps = [#id3, #wfz, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zx, %wf_z : tensor<128x2048x8xi32>, tensor<1x1x8xi32>) outs(%ez32 : tensor<128x2048x8xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %r = arith.shrsi %a, %b : i32
    linalg.yield %r : i32
  } -> tensor<128x2048x8xi32>
  %ez8 = tensor.empty() : tensor<128x2048x8xi8>
  %zt = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zs : tensor<128x2048x8xi32>) outs(%ez8 : tensor<128x2048x8xi8>) {
  ^bb0(%a: i32, %o: i8):
    %r = arith.trunci %a : i32 to i8
    linalg.yield %r : i8
  } -> tensor<128x2048x8xi8>
  %zm = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zt : tensor<128x2048x8xi8>) outs(%ez8 : tensor<128x2048x8xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c15 = arith.constant 15 : i8
    %r = arith.andi %a, %c15 : i8
    linalg.yield %r : i8
  } -> tensor<128x2048x8xi8>
  %zeros = tensor.collapse_shape %zm [[0], [1, 2]] : tensor<128x2048x8xi8> into tensor<128x16384xi8>
  // weight
  %qw3 = tensor.expand_shape %qweight [[0, 1], [2]] output_shape [2048, 1, 16384] : tensor<2048x16384xi32> into tensor<2048x1x16384xi32>
  %ew32 = tensor.empty() : tensor<2048x8x16384xi32>
  %wx = linalg.generic {indexing_maps = [#bw, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qw3 : tensor<2048x1x16384xi32>) outs(%ew32 : tensor<2048x8x16384xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<2048x8x16384xi32>
  %ws = linalg.generic {indexing_maps = [#id3, #wfw, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wx, %wf_w : tensor<2048x8x16384xi32>, tensor<1x8x1xi32>) outs(%ew32 : tensor<2048x8x16384xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %r = arith.shrsi %a, %b : i32
    linalg.yield %r : i32
  } -> tensor<2048x8x16384xi32>
  %ew8 = tensor.empty() : tensor<2048x8x16384xi8>
  %wt8 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ws : tensor<2048x8x16384xi32>) outs(%ew8 : tensor<2048x8x16384xi8>) {
  ^bb0(%a: i32, %o: i8):
    %r = arith.trunci %a : i32 to i8
    linalg.yield %r : i8
  } -> tensor<2048x8x16384xi8>
  %wm = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt8 : tensor<2048x8x16384xi8>) outs(%ew8 : tensor<2048x8x16384xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c15 = arith.constant 15 : i8
    %r = arith.andi %a, %c15 : i8
    linalg.yield %r : i8
  } -> tensor<2048x8x16384xi8>
  %weight = tensor.collapse_shape %wm [[0, 1], [2]] : tensor<2048x8x16384xi8> into tensor<16384x16384xi8>
  // g_idx.long()
  %e64 = tensor.empty() : tensor<16384xi64>
  %gl = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%g_idx : tensor<16384xi32>) outs(%e64 : tensor<16384xi64>) {
  ^bb0(%a: i32, %o: i64):
    %r = arith.extsi %a : i32 to i64
    linalg.yield %r : i64
  } -> tensor<16384xi64>
  // zeros[g_idx], scales[g_idx]
  %ezg = tensor.empty() : tensor<16384x16384xi8>
  %zg = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%gl : tensor<16384xi64>) outs(%ezg : tensor<16384x16384xi8>) {
  ^bb0(%gi: i64, %o: i8):
    %i = arith.index_cast %gi : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %zeros[%i, %j] : tensor<128x16384xi8>
    linalg.yield %v : i8
  } -> tensor<16384x16384xi8>
  %esg = tensor.empty() : tensor<16384x16384xf16>
  %sg = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%gl : tensor<16384xi64>) outs(%esg : tensor<16384x16384xf16>) {
  ^bb0(%gi: i64, %o: f16):
    %i = arith.index_cast %gi : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %scales[%i, %j] : tensor<128x16384xf16>
    linalg.yield %v : f16
  } -> tensor<16384x16384xf16>
  %diff = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%weight, %zg : tensor<16384x16384xi8>, tensor<16384x16384xi8>) outs(%ezg : tensor<16384x16384xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %one = arith.constant 1 : i8
    %bb = arith.muli %b, %one : i8
    %r = arith.subi %a, %bb : i8
    linalg.yield %r : i8
  } -> tensor<16384x16384xi8>
  %wd = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sg, %diff : tensor<16384x16384xf16>, tensor<16384x16384xi8>) outs(%esg : tensor<16384x16384xf16>) {
  ^bb0(%s: f16, %d: i8, %o: f16):
    %df = arith.sitofp %d : i8 to f16
    %r = arith.mulf %s, %df : f16
    linalg.yield %r : f16
  } -> tensor<16384x16384xf16>
  // matmul (f32 accumulation) + bias
  %zf = arith.constant 0.0 : f32
  %eo = tensor.empty(%m) : tensor<?x16384xf16>
  %eo32 = tensor.empty(%m) : tensor<?x16384xf32>
  %acc = linalg.fill ins(%zf : f32) outs(%eo32 : tensor<?x16384xf32>) -> tensor<?x16384xf32>
  %mm = linalg.matmul ins(%x, %wd : tensor<?x16384xf16>, tensor<16384x16384xf16>) outs(%acc : tensor<?x16384xf32>) -> tensor<?x16384xf32>
  %out = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x16384xf32>, tensor<16384xf16>) outs(%eo : tensor<?x16384xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %bf = arith.extf %b : f16 to f32
    %r = arith.addf %a, %bf : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x16384xf16>
  return %out : tensor<?x16384xf16>
}
