// Act-order GPTQ (desc_act = True): GPTQModel's dequantize_weight exactly as in
// gptqmodel-const-gidx-operand.mlir (torch-mlir's lowering of `scales[g_idx.long()]` and
// `zeros[g_idx.long()]`: g_idx read as a linalg operand through an extsi generic), but g_idx is the runtime
// buffer the checkpoint stores, a function argument: row k's group is only known at run time. The matcher
// evaluates the chain with that tensor holding scattered group numbers, finds that every row k reads the
// scales and zero points of group g_idx[k], and the fused op takes g_idx as its seventh operand (issue #22;
// before, "an index is read from a runtime tensor").
//
// RUN: w4a16-opt --w4a16-fuse %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// CHECK-LABEL: func.func @gptqmodel_v2_act_order(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x1024xf16>, %[[GIDX:[a-zA-Z0-9_]+]]: tensor<1024xi32>, %[[QW:[a-zA-Z0-9_]+]]: tensor<128x1024xi32>, %[[QZ:[a-zA-Z0-9_]+]]: tensor<8x128xi32>, %[[S:[a-zA-Z0-9_]+]]: tensor<8x1024xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<1024xf16>
// CHECK-NEXT:    %[[R:.+]] = "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[B]], %[[QZ]], %[[GIDX]])
// CHECK-SAME:      group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1>
// CHECK-SAME:      weight_layout = "packed_k8_n", zero_point_layout = "packed_g_n8"
// CHECK-SAME:      (tensor<?x1024xf16>, tensor<128x1024xi32>, tensor<8x1024xf16>, tensor<1024xf16>, tensor<8x128xi32>, tensor<1024xi32>) -> tensor<?x1024xf16>
// CHECK-NEXT:    return %[[R]]
// REMARK: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points packed_g_n8 tensor<8x128xi32>, act-order g_idx) -> matmul -> bias
//
// Source: ModelCloud/GPTQModel @ 00f3d5eff6f01b64f3eac2a9109572b296a1e461, gptqmodel/nn_modules/qlinear/__init__.py,
//   PackableQuantLinear.dequantize_weight (bits 4, pack_dtype int32, dequant_dtype int8), qzeros v2, as in
//   gptqmodel-const-gidx-operand.mlir, whose header lists the torch-mlir lowering rules used; g_idx int32 [1024].
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bw = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#bz = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#wfw = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#wfz = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @gptqmodel_v2_act_order(%x: tensor<?x1024xf16>, %g_idx: tensor<1024xi32>, %qweight: tensor<128x1024xi32>, %qzeros: tensor<8x128xi32>, %scales: tensor<8x1024xf16>, %bias: tensor<1024xf16>) -> tensor<?x1024xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x1024xf16>
  %wf_w = arith.constant dense<[[[0], [4], [8], [12], [16], [20], [24], [28]]]> : tensor<1x8x1xi32>
  %wf_z = arith.constant dense<[[[0, 4, 8, 12, 16, 20, 24, 28]]]> : tensor<1x1x8xi32>
  // zeros
  %qz3 = tensor.expand_shape %qzeros [[0], [1, 2]] output_shape [8, 128, 1] : tensor<8x128xi32> into tensor<8x128x1xi32>
  %ez32 = tensor.empty() : tensor<8x128x8xi32>
  %zx = linalg.generic {indexing_maps = [#bz, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qz3 : tensor<8x128x1xi32>) outs(%ez32 : tensor<8x128x8xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<8x128x8xi32>
  %zs = linalg.generic {indexing_maps = [#id3, #wfz, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zx, %wf_z : tensor<8x128x8xi32>, tensor<1x1x8xi32>) outs(%ez32 : tensor<8x128x8xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %r = arith.shrsi %a, %b : i32
    linalg.yield %r : i32
  } -> tensor<8x128x8xi32>
  %ez8 = tensor.empty() : tensor<8x128x8xi8>
  %zt = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zs : tensor<8x128x8xi32>) outs(%ez8 : tensor<8x128x8xi8>) {
  ^bb0(%a: i32, %o: i8):
    %r = arith.trunci %a : i32 to i8
    linalg.yield %r : i8
  } -> tensor<8x128x8xi8>
  %zm = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%zt : tensor<8x128x8xi8>) outs(%ez8 : tensor<8x128x8xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c15 = arith.constant 15 : i8
    %r = arith.andi %a, %c15 : i8
    linalg.yield %r : i8
  } -> tensor<8x128x8xi8>
  %zeros = tensor.collapse_shape %zm [[0], [1, 2]] : tensor<8x128x8xi8> into tensor<8x1024xi8>
  // weight
  %qw3 = tensor.expand_shape %qweight [[0, 1], [2]] output_shape [128, 1, 1024] : tensor<128x1024xi32> into tensor<128x1x1024xi32>
  %ew32 = tensor.empty() : tensor<128x8x1024xi32>
  %wx = linalg.generic {indexing_maps = [#bw, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qw3 : tensor<128x1x1024xi32>) outs(%ew32 : tensor<128x8x1024xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<128x8x1024xi32>
  %ws = linalg.generic {indexing_maps = [#id3, #wfw, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wx, %wf_w : tensor<128x8x1024xi32>, tensor<1x8x1xi32>) outs(%ew32 : tensor<128x8x1024xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %r = arith.shrsi %a, %b : i32
    linalg.yield %r : i32
  } -> tensor<128x8x1024xi32>
  %ew8 = tensor.empty() : tensor<128x8x1024xi8>
  %wt8 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ws : tensor<128x8x1024xi32>) outs(%ew8 : tensor<128x8x1024xi8>) {
  ^bb0(%a: i32, %o: i8):
    %r = arith.trunci %a : i32 to i8
    linalg.yield %r : i8
  } -> tensor<128x8x1024xi8>
  %wm = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt8 : tensor<128x8x1024xi8>) outs(%ew8 : tensor<128x8x1024xi8>) {
  ^bb0(%a: i8, %o: i8):
    %c15 = arith.constant 15 : i8
    %r = arith.andi %a, %c15 : i8
    linalg.yield %r : i8
  } -> tensor<128x8x1024xi8>
  %weight = tensor.collapse_shape %wm [[0, 1], [2]] : tensor<128x8x1024xi8> into tensor<1024x1024xi8>
  // g_idx.long()
  %e64 = tensor.empty() : tensor<1024xi64>
  %gl = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%g_idx : tensor<1024xi32>) outs(%e64 : tensor<1024xi64>) {
  ^bb0(%a: i32, %o: i64):
    %r = arith.extsi %a : i32 to i64
    linalg.yield %r : i64
  } -> tensor<1024xi64>
  // zeros[g_idx], scales[g_idx]
  %ezg = tensor.empty() : tensor<1024x1024xi8>
  %zg = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%gl : tensor<1024xi64>) outs(%ezg : tensor<1024x1024xi8>) {
  ^bb0(%gi: i64, %o: i8):
    %i = arith.index_cast %gi : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %zeros[%i, %j] : tensor<8x1024xi8>
    linalg.yield %v : i8
  } -> tensor<1024x1024xi8>
  %esg = tensor.empty() : tensor<1024x1024xf16>
  %sg = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%gl : tensor<1024xi64>) outs(%esg : tensor<1024x1024xf16>) {
  ^bb0(%gi: i64, %o: f16):
    %i = arith.index_cast %gi : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %scales[%i, %j] : tensor<8x1024xf16>
    linalg.yield %v : f16
  } -> tensor<1024x1024xf16>
  %diff = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%weight, %zg : tensor<1024x1024xi8>, tensor<1024x1024xi8>) outs(%ezg : tensor<1024x1024xi8>) {
  ^bb0(%a: i8, %b: i8, %o: i8):
    %one = arith.constant 1 : i8
    %bb = arith.muli %b, %one : i8
    %r = arith.subi %a, %bb : i8
    linalg.yield %r : i8
  } -> tensor<1024x1024xi8>
  %wd = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sg, %diff : tensor<1024x1024xf16>, tensor<1024x1024xi8>) outs(%esg : tensor<1024x1024xf16>) {
  ^bb0(%s: f16, %d: i8, %o: f16):
    %df = arith.sitofp %d : i8 to f16
    %r = arith.mulf %s, %df : f16
    linalg.yield %r : f16
  } -> tensor<1024x1024xf16>
  %zf = arith.constant 0.0 : f16
  %eo = tensor.empty(%m) : tensor<?x1024xf16>
  %acc = linalg.fill ins(%zf : f16) outs(%eo : tensor<?x1024xf16>) -> tensor<?x1024xf16>
  %mm = linalg.matmul ins(%x, %wd : tensor<?x1024xf16>, tensor<1024x1024xf16>) outs(%acc : tensor<?x1024xf16>) -> tensor<?x1024xf16>
  %out = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x1024xf16>, tensor<1024xf16>) outs(%eo : tensor<?x1024xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %bb = arith.mulf %b, %one : f16
    %r = arith.addf %a, %bb : f16
    linalg.yield %r : f16
  } -> tensor<?x1024xf16>
  return %out : tensor<?x1024xf16>
}
