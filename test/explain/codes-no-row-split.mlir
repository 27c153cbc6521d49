// --w4a16-explain: codes stored as [N * K / 64, 64] (HQQ's storage) hold (N, K) in row-major order although no
// leading dims of that shape form the N rows of the op's 2-D operand: that is no obstacle any more (the rewrite
// reshapes such a tensor through one dim; test/fuse/grouped-storage.mlir), so the remark is about what does
// stop this chain: it uses the whole i8 element as the code (until then it was "no leading dims of it form its
// 512 rows").
//
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: w4a16: not fused: codes wider than 4 bits: the i8 code element is used whole
// CHECK-NOT: remark:
//
#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d0, 0)>
func.func @p(%x: tensor<?x512xf16>, %c: tensor<4096x64xi8>, %scale: tensor<4096x1xf16>, %zero: tensor<4096x1xf16>) -> tensor<?x512xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %ef = tensor.empty() : tensor<4096x64xf16>
  %qf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4096x64xi8>) outs(%ef : tensor<4096x64xf16>) {
  ^bb0(%a: i8, %o: f16):
    %r = arith.uitofp %a : i8 to f16
    linalg.yield %r : f16
  } -> tensor<4096x64xf16>
  %sub = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%qf, %zero : tensor<4096x64xf16>, tensor<4096x1xf16>) outs(%ef : tensor<4096x64xf16>) {
  ^bb0(%a: f16, %z: f16, %o: f16):
    %r = arith.subf %a, %z : f16
    linalg.yield %r : f16
  } -> tensor<4096x64xf16>
  %mul = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel"]} ins(%sub, %scale : tensor<4096x64xf16>, tensor<4096x1xf16>) outs(%ef : tensor<4096x64xf16>) {
  ^bb0(%a: f16, %s: f16, %o: f16):
    %r = arith.mulf %a, %s : f16
    linalg.yield %r : f16
  } -> tensor<4096x64xf16>
  %e3 = tensor.expand_shape %mul [[0, 1], [2]] output_shape [512, 8, 64] : tensor<4096x64xf16> into tensor<512x8x64xf16>
  %w = tensor.collapse_shape %e3 [[0], [1, 2]] : tensor<512x8x64xf16> into tensor<512x512xf16>
  %zf = arith.constant 0.0 : f16
  %eo = tensor.empty(%m) : tensor<?x512xf16>
  %acc = linalg.fill ins(%zf : f16) outs(%eo : tensor<?x512xf16>) -> tensor<?x512xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<?x512xf16>, tensor<512x512xf16>) outs(%acc : tensor<?x512xf16>) -> tensor<?x512xf16>
  return %y : tensor<?x512xf16>
}
