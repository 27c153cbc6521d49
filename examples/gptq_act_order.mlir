// An act-order GPTQ projection (desc_act = True): GPTQModel's TorchQuantLinear dequantisation
// (ModelCloud/GPTQModel @ 00f3d5e, gptqmodel/nn_modules/qlinear/__init__.py, dequantize_weight, qzeros v2) as
// torch-mlir lowers it -- qweight and qzeros unpacked by `>> wf`, .to(int8), & 15, then
//   weights = scales[g_idx.long()] * (weight - zeros[g_idx.long()]);  out = x @ weights + bias
// -- with g_idx the checkpoint's int32 buffer, a function argument: row k belongs to group g_idx[k], scattered
// over K (the e2e test draws g_idx from a random permutation, 128 rows per group). The matmul accumulates in
// f32. K = N = 2048, G = 128.
//
// Expected: one fused chain with packed zero points and the g_idx operand (act-order); the runtime sorts K by
// g_idx when the weight is prepared and gathers x's columns in that order on every call.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bw = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#bz = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#wfw = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#wfz = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @gptq_act_order(%x: tensor<?x2048xf16>, %qweight: tensor<256x2048xi32>, %qzeros: tensor<16x256xi32>,
                          %scales: tensor<16x2048xf16>, %g_idx: tensor<2048xi32>, %bias: tensor<2048xf16>) -> tensor<?x2048xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x2048xf16>
  %wf_w = arith.constant dense<[[[0], [4], [8], [12], [16], [20], [24], [28]]]> : tensor<1x8x1xi32>
  %wf_z = arith.constant dense<[[[0, 4, 8, 12, 16, 20, 24, 28]]]> : tensor<1x1x8xi32>
  // zeros
  %qz3 = tensor.expand_shape %qzeros [[0], [1, 2]] output_shape [16, 256, 1] : tensor<16x256xi32> into tensor<16x256x1xi32>
  %ez32 = tensor.empty() : tensor<16x256x8xi32>
  %zx = linalg.generic {indexing_maps = [#bz, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qz3 : tensor<16x256x1xi32>) outs(%ez32 : tensor<16x256x8xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<16x256x8xi32>
  %zs = linalg.generic {indexing_maps = [#id3, #wfz, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zx, %wf_z : tensor<16x256x8xi32>, tensor<1x1x8xi32>) outs(%ez32 : tensor<16x256x8xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %r = arith.shrsi %a, %b : i32
    linalg.yield %r : i32
  } -> tensor<16x256x8xi32>
  %ez8 = tensor.empty() : tensor<16x256x8xi8>
  %zt = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zs : tensor<16x256x8xi32>) outs(%ez8 : tensor<16x256x8xi8>) {
  ^bb0(%a: i32, %o: i8):
    %r = arith.trunci %a : i32 to i8
    linalg.yield %r : i8
  } -> tensor<16x256x8xi8>
  %zm = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zt : tensor<16x256x8xi8>) outs(%ez8 : tensor<16x256x8xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c15 = arith.constant 15 : i8
    %r = arith.andi %a, %c15 : i8
    linalg.yield %r : i8
  } -> tensor<16x256x8xi8>
  %zeros = tensor.collapse_shape %zm [[0], [1, 2]] : tensor<16x256x8xi8> into tensor<16x2048xi8>
  // weight
  %qw3 = tensor.expand_shape %qweight [[0, 1], [2]] output_shape [256, 1, 2048] : tensor<256x2048xi32> into tensor<256x1x2048xi32>
  %ew32 = tensor.empty() : tensor<256x8x2048xi32>
  %wx = linalg.generic {indexing_maps = [#bw, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qw3 : tensor<256x1x2048xi32>) outs(%ew32 : tensor<256x8x2048xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<256x8x2048xi32>
  %ws = linalg.generic {indexing_maps = [#id3, #wfw, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wx, %wf_w : tensor<256x8x2048xi32>, tensor<1x8x1xi32>) outs(%ew32 : tensor<256x8x2048xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %r = arith.shrsi %a, %b : i32
    linalg.yield %r : i32
  } -> tensor<256x8x2048xi32>
  %ew8 = tensor.empty() : tensor<256x8x2048xi8>
  %wt8 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ws : tensor<256x8x2048xi32>) outs(%ew8 : tensor<256x8x2048xi8>) {
  ^bb0(%a: i32, %o: i8):
    %r = arith.trunci %a : i32 to i8
    linalg.yield %r : i8
  } -> tensor<256x8x2048xi8>
  %wm = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt8 : tensor<256x8x2048xi8>) outs(%ew8 : tensor<256x8x2048xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c15 = arith.constant 15 : i8
    %r = arith.andi %a, %c15 : i8
    linalg.yield %r : i8
  } -> tensor<256x8x2048xi8>
  %weight = tensor.collapse_shape %wm [[0, 1], [2]] : tensor<256x8x2048xi8> into tensor<2048x2048xi8>
  // g_idx.long()
  %e64 = tensor.empty() : tensor<2048xi64>
  %gl = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%g_idx : tensor<2048xi32>) outs(%e64 : tensor<2048xi64>) {
  ^bb0(%a: i32, %o: i64):
    %r = arith.extsi %a : i32 to i64
    linalg.yield %r : i64
  } -> tensor<2048xi64>
  // zeros[g_idx], scales[g_idx]
  %ezg = tensor.empty() : tensor<2048x2048xi8>
  %zg = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%gl : tensor<2048xi64>) outs(%ezg : tensor<2048x2048xi8>) {
  ^bb0(%gi: i64, %o: i8):
    %i = arith.index_cast %gi : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %zeros[%i, %j] : tensor<16x2048xi8>
    linalg.yield %v : i8
  } -> tensor<2048x2048xi8>
  %esg = tensor.empty() : tensor<2048x2048xf16>
  %sg = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%gl : tensor<2048xi64>) outs(%esg : tensor<2048x2048xf16>) {
  ^bb0(%gi: i64, %o: f16):
    %i = arith.index_cast %gi : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %scales[%i, %j] : tensor<16x2048xf16>
    linalg.yield %v : f16
  } -> tensor<2048x2048xf16>
  %diff = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%weight, %zg : tensor<2048x2048xi8>, tensor<2048x2048xi8>) outs(%ezg : tensor<2048x2048xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %one = arith.constant 1 : i8
    %bb = arith.muli %b, %one : i8
    %r = arith.subi %a, %bb : i8
    linalg.yield %r : i8
  } -> tensor<2048x2048xi8>
  %wd = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sg, %diff : tensor<2048x2048xf16>, tensor<2048x2048xi8>) outs(%esg : tensor<2048x2048xf16>) {
  ^bb0(%s: f16, %d: i8, %o: f16):
    %df = arith.sitofp %d : i8 to f16
    %r = arith.mulf %s, %df : f16
    linalg.yield %r : f16
  } -> tensor<2048x2048xf16>
  // matmul (f32 accumulation) + bias
  %zf = arith.constant 0.0 : f32
  %eo = tensor.empty(%m) : tensor<?x2048xf16>
  %eo32 = tensor.empty(%m) : tensor<?x2048xf32>
  %acc = linalg.fill ins(%zf : f32) outs(%eo32 : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %mm = linalg.matmul ins(%x, %wd : tensor<?x2048xf16>, tensor<2048x2048xf16>) outs(%acc : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %out = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x2048xf32>, tensor<2048xf16>) outs(%eo : tensor<?x2048xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %bf = arith.extf %b : f16 to f32
    %r = arith.addf %a, %bf : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x2048xf16>
  return %out : tensor<?x2048xf16>
}
