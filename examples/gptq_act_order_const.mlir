// examples/gptq_act_order.mlir with g_idx folded into the IR as a constant (torch.export with the checkpoint's
// buffers frozen): a fixed random permutation puts 128 rows in each of the 16 groups. The matcher tries the table
// as act-order's g_idx; the fused op takes the constant as its g_idx operand, which the runtime sorts when the
// weight is prepared.
//
// Expected: one fused chain, act-order, packed zero points.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bw = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#bz = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#wfw = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#wfz = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @gptq_act_order_const(%x: tensor<?x2048xf16>, %qweight: tensor<256x2048xi32>, %qzeros: tensor<16x256xi32>,
                                %scales: tensor<16x2048xf16>, %bias: tensor<2048xf16>) -> tensor<?x2048xf16> {
  %g_idx = arith.constant dense<[3, 9, 9, 3, 6, 7, 15, 13, 6, 0, 6, 14, 9, 3, 8, 5, 14, 13, 6, 10, 7, 15, 1, 12, 3, 2, 1, 12, 13, 10, 9, 14, 7, 10, 13, 9, 7, 2, 10, 3, 14, 13, 5, 0, 6, 10, 7, 1, 4, 14, 11, 11, 13, 4, 0, 4, 10, 3, 9, 9, 4, 14, 14, 0, 0, 8, 14, 2, 5, 8, 2, 12, 10, 7, 2, 10, 1, 3, 9, 9, 4, 14, 11, 0, 3, 5, 10, 11, 1, 12, 0, 8, 5, 14, 12, 12, 4, 0, 10, 6, 15, 14, 4, 1, 7, 1, 2, 5, 6, 2, 11, 13, 6, 13, 14, 11, 12, 0, 4, 12, 12, 14, 15, 11, 15, 15, 8, 15, 15, 13, 15, 11, 10, 10, 15, 5, 12, 5, 13, 11, 13, 4, 0, 1, 0, 3, 0, 5, 8, 4, 13, 4, 10, 13, 8, 5, 12, 0, 7, 3, 9, 14, 0, 12, 15, 3, 8, 11, 14, 15, 3, 6, 6, 11, 5, 4, 9, 12, 11, 14, 15, 9, 9, 8, 8, 4, 0, 13, 7, 2, 9, 0, 9, 6, 5, 1, 4, 10, 0, 4, 9, 10, 10, 5, 13, 8, 0, 7, 14, 7, 10, 2, 15, 9, 11, 9, 4, 15, 0, 11, 15, 9, 5, 15, 15, 5, 15, 7, 4, 2, 8, 6, 11, 0, 15, 14, 13, 8, 9, 7, 8, 4, 11, 7, 15, 15, 10, 11, 10, 0, 8, 12, 10, 1, 10, 7, 12, 13, 15, 8, 11, 13, 1, 6, 13, 3, 1, 5, 4, 14, 6, 7, 12, 14, 7, 15, 9, 6, 1, 7, 9, 5, 7, 8, 1, 14, 5, 2, 2, 10, 15, 15, 14, 14, 12, 5, 11, 12, 15, 9, 8, 13, 5, 11, 12, 7, 5, 7, 15, 10, 13, 6, 0, 10, 3, 12, 2, 13, 11, 1, 2, 8, 5, 10, 0, 2, 6, 0, 0, 7, 11, 14, 14, 3, 10, 6, 12, 0, 8, 10, 6, 12, 3, 4, 8, 6, 13, 11, 5, 5, 3, 11, 15, 2, 14, 5, 3, 13, 4, 5, 5, 1, 4, 8, 1, 2, 14, 6, 15, 12, 10, 7, 5, 11, 0, 7, 12, 4, 9, 5, 6, 8, 10, 6, 3, 12, 15, 1, 4, 0, 2, 0, 14, 12, 10, 15, 10, 5, 4, 15, 15, 4, 13, 12, 2, 13, 7, 4, 5, 8, 2, 8, 15, 8, 10, 5, 6, 8, 2, 10, 0, 11, 5, 9, 15, 12, 5, 13, 1, 13, 9, 7, 11, 2, 10, 7, 5, 12, 12, 15, 15, 3, 9, 14, 0, 10, 2, 8, 6, 14, 2, 1, 8, 2, 5, 1, 7, 7, 7, 9, 3, 1, 8, 5, 6, 3, 2, 14, 2, 12, 9, 15, 11, 15, 5, 0, 11, 1, 9, 4, 3, 7, 7, 0, 0, 11, 8, 4, 2, 1, 12, 13, 7, 10, 15, 9, 15, 3, 12, 9, 11, 4, 2, 2, 3, 4, 5, 2, 11, 1, 8, 14, 0, 13, 4, 7, 11, 7, 10, 11, 7, 6, 13, 4, 4, 9, 0, 4, 0, 3, 2, 12, 3, 15, 11, 12, 13, 0, 6, 9, 15, 0, 3, 6, 7, 12, 14, 6, 13, 12, 14, 1, 14, 3, 13, 10, 7, 11, 9, 13, 4, 10, 13, 0, 3, 9, 1, 8, 1, 5, 14, 2, 4, 1, 8, 2, 4, 13, 14, 8, 3, 6, 5, 15, 4, 9, 13, 15, 5, 15, 1, 1, 5, 4, 1, 4, 5, 5, 11, 2, 10, 2, 12, 0, 8, 13, 8, 4, 10, 13, 14, 7, 9, 8, 11, 8, 4, 11, 12, 3, 3, 15, 9, 8, 12, 2, 4, 6, 13, 4, 3, 8, 0, 9, 0, 9, 8, 4, 5, 10, 2, 11, 12, 14, 14, 8, 6, 5, 8, 1, 12, 14, 9, 5, 15, 10, 13, 13, 4, 9, 15, 12, 9, 13, 10, 0, 4, 5, 7, 13, 15, 6, 3, 5, 2, 8, 0, 2, 4, 9, 10, 1, 12, 8, 8, 10, 11, 15, 6, 7, 6, 2, 6, 15, 0, 13, 13, 5, 0, 14, 14, 14, 4, 4, 1, 5, 5, 6, 10, 5, 10, 2, 10, 12, 14, 14, 12, 3, 13, 5, 7, 6, 4, 10, 12, 9, 5, 13, 7, 9, 5, 14, 1, 7, 0, 12, 13, 13, 8, 1, 2, 12, 6, 1, 8, 12, 12, 9, 14, 5, 10, 4, 14, 14, 2, 8, 3, 8, 5, 2, 14, 15, 6, 11, 2, 11, 11, 13, 13, 11, 8, 6, 14, 1, 13, 11, 11, 2, 7, 3, 7, 2, 6, 14, 2, 10, 13, 0, 8, 12, 6, 1, 10, 1, 0, 3, 14, 4, 11, 10, 13, 8, 2, 7, 7, 15, 1, 1, 4, 9, 1, 0, 10, 2, 4, 15, 1, 10, 6, 2, 2, 14, 10, 13, 5, 7, 6, 12, 15, 15, 4, 4, 15, 15, 5, 8, 9, 15, 2, 9, 9, 1, 2, 9, 2, 6, 0, 5, 0, 12, 9, 1, 7, 4, 14, 9, 11, 6, 10, 3, 6, 0, 0, 13, 10, 1, 5, 5, 11, 12, 11, 1, 1, 5, 0, 15, 15, 13, 11, 15, 2, 0, 12, 15, 15, 0, 0, 15, 12, 15, 14, 1, 3, 1, 7, 7, 14, 13, 11, 2, 4, 4, 14, 3, 8, 0, 1, 1, 1, 15, 9, 3, 0, 6, 9, 14, 3, 2, 6, 10, 14, 0, 14, 5, 10, 3, 2, 5, 3, 2, 1, 14, 14, 10, 9, 13, 5, 0, 2, 3, 5, 8, 2, 1, 7, 4, 7, 6, 6, 9, 5, 7, 12, 6, 9, 14, 13, 2, 12, 4, 15, 8, 13, 0, 10, 4, 13, 15, 11, 8, 5, 3, 3, 5, 12, 4, 15, 9, 6, 3, 13, 12, 6, 10, 12, 14, 2, 13, 11, 0, 2, 8, 14, 5, 4, 2, 9, 7, 8, 14, 8, 3, 9, 6, 6, 9, 9, 6, 7, 6, 13, 11, 4, 9, 10, 5, 7, 2, 10, 10, 11, 15, 4, 14, 11, 12, 8, 2, 6, 11, 7, 11, 13, 2, 11, 10, 7, 5, 8, 1, 9, 11, 0, 7, 12, 15, 14, 11, 12, 5, 9, 3, 0, 2, 1, 12, 7, 2, 7, 4, 3, 14, 4, 7, 6, 10, 4, 10, 7, 11, 6, 12, 10, 4, 2, 7, 12, 6, 7, 14, 9, 10, 8, 9, 5, 15, 1, 1, 8, 3, 13, 13, 11, 2, 5, 5, 15, 3, 3, 4, 2, 8, 0, 13, 13, 10, 14, 10, 3, 5, 1, 4, 11, 4, 15, 6, 15, 1, 3, 8, 13, 2, 12, 8, 12, 15, 5, 10, 0, 12, 2, 3, 13, 13, 3, 0, 1, 12, 12, 14, 0, 0, 0, 14, 4, 5, 4, 4, 15, 15, 4, 15, 1, 14, 13, 13, 3, 6, 10, 0, 10, 6, 8, 7, 3, 14, 10, 2, 13, 10, 10, 8, 15, 10, 6, 1, 4, 11, 9, 14, 13, 11, 1, 9, 12, 1, 0, 13, 9, 12, 12, 11, 15, 1, 11, 8, 7, 14, 10, 7, 4, 9, 8, 14, 10, 15, 15, 6, 11, 9, 3, 6, 12, 2, 13, 5, 1, 12, 12, 0, 11, 0, 10, 1, 15, 4, 6, 11, 6, 7, 9, 11, 2, 4, 10, 10, 1, 3, 2, 11, 4, 4, 8, 5, 9, 6, 7, 10, 3, 15, 1, 11, 11, 5, 3, 3, 1, 10, 5, 7, 14, 1, 8, 3, 10, 6, 11, 3, 3, 3, 14, 4, 1, 12, 15, 10, 3, 15, 11, 8, 5, 6, 2, 3, 3, 2, 5, 4, 13, 0, 3, 13, 9, 1, 9, 13, 9, 2, 9, 11, 5, 11, 11, 0, 4, 12, 14, 12, 3, 7, 9, 5, 6, 5, 12, 6, 4, 4, 2, 0, 1, 9, 7, 10, 2, 1, 7, 7, 5, 11, 8, 6, 1, 7, 6, 13, 14, 8, 15, 12, 2, 13, 12, 6, 13, 15, 13, 8, 10, 11, 1, 10, 12, 0, 10, 0, 11, 12, 1, 3, 1, 11, 3, 6, 4, 5, 5, 8, 4, 10, 2, 7, 6, 1, 14, 10, 10, 3, 7, 0, 9, 7, 8, 14, 12, 14, 7, 8, 3, 2, 8, 6, 1, 5, 8, 14, 9, 8, 13, 9, 3, 6, 7, 13, 14, 8, 12, 13, 9, 12, 10, 13, 9, 12, 2, 10, 12, 6, 10, 14, 4, 8, 13, 11, 10, 0, 2, 7, 15, 4, 2, 15, 1, 12, 4, 9, 3, 3, 5, 14, 2, 10, 15, 0, 7, 3, 2, 15, 14, 1, 7, 1, 7, 0, 15, 2, 3, 14, 15, 5, 6, 12, 11, 1, 4, 5, 0, 4, 13, 7, 8, 6, 2, 5, 9, 3, 8, 10, 10, 2, 0, 7, 3, 13, 7, 8, 8, 13, 11, 8, 3, 6, 10, 9, 11, 12, 2, 3, 0, 4, 4, 9, 12, 1, 8, 14, 10, 5, 1, 2, 5, 9, 0, 14, 2, 4, 12, 13, 7, 2, 2, 15, 9, 14, 2, 14, 6, 14, 14, 14, 3, 6, 8, 1, 12, 12, 2, 14, 5, 12, 0, 8, 8, 15, 5, 13, 10, 8, 6, 13, 0, 7, 8, 15, 9, 6, 5, 11, 4, 15, 11, 14, 1, 13, 7, 10, 11, 3, 13, 14, 15, 1, 6, 9, 9, 12, 7, 14, 9, 9, 5, 6, 5, 3, 12, 1, 1, 14, 7, 12, 3, 12, 9, 9, 5, 5, 4, 9, 4, 15, 1, 10, 14, 9, 5, 5, 14, 14, 1, 9, 0, 1, 0, 4, 15, 0, 9, 1, 6, 0, 4, 4, 2, 0, 8, 8, 3, 2, 1, 10, 10, 0, 4, 7, 7, 7, 5, 9, 6, 6, 12, 15, 7, 11, 4, 4, 2, 12, 12, 13, 2, 7, 1, 10, 8, 14, 1, 9, 13, 3, 6, 13, 14, 7, 15, 1, 13, 10, 15, 3, 12, 3, 12, 8, 2, 1, 13, 2, 11, 1, 3, 3, 4, 8, 8, 8, 3, 2, 13, 1, 2, 14, 4, 3, 11, 0, 4, 0, 3, 10, 11, 12, 7, 11, 6, 6, 4, 7, 11, 2, 0, 11, 14, 2, 11, 7, 6, 15, 4, 6, 6, 13, 0, 8, 7, 10, 8, 0, 12, 4, 9, 8, 5, 9, 3, 0, 11, 5, 4, 15, 13, 11, 11, 13, 5, 9, 8, 11, 5, 6, 9, 12, 9, 3, 8, 4, 6, 2, 3, 8, 6, 7, 3, 15, 1, 1, 10, 13, 3, 11, 0, 3, 8, 4, 11, 1, 12, 3, 9, 2, 12, 11, 1, 13, 11, 6, 15, 0, 0, 0, 3, 13, 10, 2, 1, 4, 4, 12, 10, 0, 7, 10, 9, 11, 8, 10, 10, 11, 0, 12, 7, 3, 5, 12, 9, 13, 3, 4, 5, 11, 2, 3, 0, 5, 3, 11, 8, 0, 11, 5, 3, 10, 12, 12, 12, 8, 7, 1, 14, 3, 4, 9, 15, 11, 1, 13, 9, 5, 8, 15, 6, 3, 5, 8, 5, 7, 2, 13, 15, 14, 15, 4, 9, 14, 15, 1, 13, 2, 13, 3, 14, 6, 6, 9, 15, 14, 15, 8, 7, 6, 6, 14, 8, 6, 15, 10, 3, 5, 6, 12, 0, 6, 7, 13, 14, 0, 14, 12, 14, 7, 11, 6, 11, 12, 9, 11, 12, 13, 14, 2, 15, 0, 0, 12, 6, 4, 3, 10, 7, 5, 13, 2, 11, 6, 7, 14, 11, 9, 12, 4, 9, 13, 11, 0, 11, 6, 1, 9, 8, 6, 6, 0, 2, 11, 12, 11, 1, 1, 13, 1, 6, 3, 7, 3, 8, 0, 3, 11, 7, 4, 5, 2, 2, 15, 1, 6, 15, 10, 7, 1, 0, 1, 5, 1, 0, 13, 7, 6, 8, 13, 7, 8, 13, 15, 12, 1, 3, 4, 6, 15, 10, 10, 1, 8, 3, 2, 14, 15, 14, 9, 0, 7, 9, 6, 1, 14, 0, 7, 9, 0, 6, 7, 5, 1, 2, 11, 7, 3, 0, 8, 3, 11, 9, 3, 15, 0, 0, 0, 7, 8, 2, 10, 9, 7, 7, 7, 13, 4, 15, 8, 1, 14, 8, 6, 13, 14, 11, 5]> : tensor<2048xi32>
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
