// The LLM.int8 mixed-decomposition correction of bitsandbytes' Linear8bitLt, as a frontend lowers the eager
//   subA = A[:, cols]; subB = (CB[:, cols].float() * SCB[:, None] * 7.874015718698502e-3).half().t()
//   out  = out + subA @ subB
// Used by the CPU end-to-end test (int8prep-e2e): compiled with the w4a16 pipeline (fused: one
// w4a16.int8_prep per function, the runtime's CPU reference) and with upstream MLIR only, then compared bit
// for bit. K = 256, N = 264; each function returns (subA, subB, out + subA @ subB).
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Dynamic M and L; one generic per eager op (gather, .float(), * SCB, * 1/127, .half()), linalg.transpose,
// the matmul accumulating into out.
func.func @prep_dyn(%A: tensor<?x256xf16>, %CB: tensor<264x256xi8>, %SCB: tensor<264xf32>, %cols: tensor<?xi64>,
                    %out: tensor<?x264xf16>) -> (tensor<?x?xf16>, tensor<?x264xf16>, tensor<?x264xf16>) {
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
  return %subA, %subB, %r : tensor<?x?xf16>, tensor<?x264xf16>, tensor<?x264xf16>
}

// Static L = 5; gather, dequant and transpose in one generic (a permuted output map, SCB first in the
// product, cols read with tensor.extract); addmm as a matmul from zero plus an add.
func.func @prep_l5(%A: tensor<?x256xf16>, %CB: tensor<264x256xi8>, %SCB: tensor<264xf32>, %cols: tensor<5xi64>,
                   %out: tensor<?x264xf16>) -> (tensor<?x5xf16>, tensor<5x264xf16>, tensor<?x264xf16>) {
  %c0 = arith.constant 0 : index
  %M = tensor.dim %A, %c0 : tensor<?x256xf16>
  %ea = tensor.empty(%M) : tensor<?x5xf16>
  %subA = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%ea : tensor<?x5xf16>) {
  ^bb0(%o: f16):
    %m = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %v = tensor.extract %A[%m, %i] : tensor<?x256xf16>
    linalg.yield %v : f16
  } -> tensor<?x5xf16>
  %k = arith.constant 7.874015718698502e-3 : f32
  %eb = tensor.empty() : tensor<5x264xf16>
  %subB = linalg.generic {indexing_maps = [#row, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<264xf32>) outs(%eb : tensor<5x264xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<264x256xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %sc, %x : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x264xf16>
  %zero = arith.constant 0.0 : f16
  %ez = tensor.empty(%M) : tensor<?x264xf16>
  %z = linalg.fill ins(%zero : f16) outs(%ez : tensor<?x264xf16>) -> tensor<?x264xf16>
  %mm = linalg.matmul ins(%subA, %subB : tensor<?x5xf16>, tensor<5x264xf16>) outs(%z : tensor<?x264xf16>) -> tensor<?x264xf16>
  %r = linalg.add ins(%out, %mm : tensor<?x264xf16>, tensor<?x264xf16>) outs(%ez : tensor<?x264xf16>) -> tensor<?x264xf16>
  return %subA, %subB, %r : tensor<?x5xf16>, tensor<5x264xf16>, tensor<?x264xf16>
}

// Static L = 0: the fused code allocates the two empty results and calls nothing.
func.func @prep_l0(%A: tensor<?x256xf16>, %CB: tensor<264x256xi8>, %SCB: tensor<264xf32>, %cols: tensor<0xi64>,
                   %out: tensor<?x264xf16>) -> (tensor<?x0xf16>, tensor<0x264xf16>, tensor<?x264xf16>) {
  %c0 = arith.constant 0 : index
  %M = tensor.dim %A, %c0 : tensor<?x256xf16>
  %ea = tensor.empty(%M) : tensor<?x0xf16>
  %subA = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<0xi64>) outs(%ea : tensor<?x0xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<?x256xf16>
    linalg.yield %v : f16
  } -> tensor<?x0xf16>
  %k = arith.constant 7.874015718698502e-3 : f32
  %eb = tensor.empty() : tensor<264x0xf16>
  %h = linalg.generic {indexing_maps = [#col, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cols, %SCB : tensor<0xi64>, tensor<264xf32>) outs(%eb : tensor<264x0xf16>) {
  ^bb0(%c: i64, %sc: f32, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %n = linalg.index 0 : index
    %code = tensor.extract %CB[%n, %i] : tensor<264x256xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %q = arith.mulf %p, %k : f32
    %y = arith.truncf %q : f32 to f16
    linalg.yield %y : f16
  } -> tensor<264x0xf16>
  %et = tensor.empty() : tensor<0x264xf16>
  %subB = linalg.transpose ins(%h : tensor<264x0xf16>) outs(%et : tensor<0x264xf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%subA, %subB : tensor<?x0xf16>, tensor<0x264xf16>) outs(%out : tensor<?x264xf16>) -> tensor<?x264xf16>
  return %subA, %subB, %r : tensor<?x0xf16>, tensor<0x264xf16>, tensor<?x264xf16>
}
