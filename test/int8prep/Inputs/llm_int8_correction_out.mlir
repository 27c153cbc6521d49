// The LLM.int8 correction of Inputs/llm_int8_correction.mlir, returning only the corrected output: with subA
// and subB used by nothing else, upstream's elementwise fusion (--linalg-generalize-named-ops
// --linalg-fuse-elementwise-ops) moves both gathers and CB's dequantisation into the correction's contraction
// body. Used by int8prep-e2e --upstream-fusion: both builds run upstream's fusion first, the w4a16 build then
// fuses the preparation out of that body again; the outputs are compared bit for bit. K = 256, N = 264.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Dynamic M and L, one op per eager op (gather, .float(), * SCB, * 1/127, .half(), .t(), out + subA @ subB).
func.func @corr_dyn(%A: tensor<?x256xf16>, %CB: tensor<264x256xi8>, %SCB: tensor<264xf32>, %cols: tensor<?xi64>,
                    %out: tensor<?x264xf16>) -> tensor<?x264xf16> {
  %c0 = arith.constant 0 : index
  %M = tensor.dim %A, %c0 : tensor<?x256xf16>
  %L = tensor.dim %cols, %c0 : tensor<?xi64>
  %ea = tensor.empty(%M, %L) : tensor<?x?xf16>
  %subA = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<?xi64>) outs(%ea : tensor<?x?xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<?x256xf16>
    linalg.yield %v : f16
  } -> tensor<?x?xf16>
  %eg = tensor.empty(%L) : tensor<264x?xi8>
  %g = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<?xi64>) outs(%eg : tensor<264x?xi8>) {
  ^bb0(%c: i64, %o: i8):
    %i = arith.index_cast %c : i64 to index
    %n = linalg.index 0 : index
    %v = tensor.extract %CB[%n, %i] : tensor<264x256xi8>
    linalg.yield %v : i8
  } -> tensor<264x?xi8>
  %ef = tensor.empty(%L) : tensor<264x?xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<264x?xi8>) outs(%ef : tensor<264x?xf32>) {
  ^bb0(%x: i8, %o: f32):
    %y = arith.sitofp %x : i8 to f32
    linalg.yield %y : f32
  } -> tensor<264x?xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f, %SCB : tensor<264x?xf32>, tensor<264xf32>) outs(%ef : tensor<264x?xf32>) {
  ^bb0(%x: f32, %sc: f32, %o: f32):
    %y = arith.mulf %x, %sc : f32
    linalg.yield %y : f32
  } -> tensor<264x?xf32>
  %k = arith.constant 7.874015718698502e-3 : f32
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<264x?xf32>) outs(%ef : tensor<264x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %k : f32
    linalg.yield %y : f32
  } -> tensor<264x?xf32>
  %eh = tensor.empty(%L) : tensor<264x?xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<264x?xf32>) outs(%eh : tensor<264x?xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<264x?xf16>
  %et = tensor.empty(%L) : tensor<?x264xf16>
  %subB = linalg.transpose ins(%h : tensor<264x?xf16>) outs(%et : tensor<?x264xf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%subA, %subB : tensor<?x?xf16>, tensor<?x264xf16>) outs(%out : tensor<?x264xf16>) -> tensor<?x264xf16>
  return %r : tensor<?x264xf16>
}

// Static L = 5, accumulated in f32 (subA and subB widened, the sum rounded to f16 once per element at the end).
func.func @corr_l5_f32(%A: tensor<?x256xf16>, %CB: tensor<264x256xi8>, %SCB: tensor<264xf32>, %cols: tensor<5xi64>,
                       %out: tensor<?x264xf16>) -> tensor<?x264xf16> {
  %c0 = arith.constant 0 : index
  %M = tensor.dim %A, %c0 : tensor<?x256xf16>
  %ea = tensor.empty(%M) : tensor<?x5xf16>
  %subA = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<?x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<?x256xf16>
    linalg.yield %v : f16
  } -> tensor<?x5xf16>
  %k = arith.constant 7.874015718698502e-3 : f32
  %eb = tensor.empty() : tensor<5x264xf16>
  %subB = linalg.generic {indexing_maps = [#row, affine_map<(d0, d1) -> (d1)>, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%cols, %SCB : tensor<5xi64>, tensor<264xf32>) outs(%eb : tensor<5x264xf16>) {
  ^bb0(%c: i64, %sc: f32, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %n = linalg.index 1 : index
    %q = tensor.extract %CB[%n, %i] : tensor<264x256xi8>
    %qf = arith.sitofp %q : i8 to f32
    %y = arith.mulf %qf, %sc : f32
    %z = arith.mulf %y, %k : f32
    %h = arith.truncf %z : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x264xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, l) -> (m, l)>, affine_map<(m, n, l) -> (l, n)>,
                                        affine_map<(m, n, l) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%subA, %subB : tensor<?x5xf16>, tensor<5x264xf16>) outs(%out : tensor<?x264xf16>) {
  ^bb0(%a: f16, %b: f16, %acc: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %acc32 = arith.extf %acc : f16 to f32
    %s = arith.addf %acc32, %p : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x264xf16>
  return %r : tensor<?x264xf16>
}
