// w4a16-fuse-int8-prep: the LLM.int8 correction-operand preparation, in the spellings frontends write,
// becomes one w4a16.int8_prep with two results; the correction matmul stays and reads them. Ops of the
// preparation left without users are erased.
// RUN: w4a16-opt --w4a16-fuse-int8-prep --split-input-file %s | FileCheck %s
// The result verifies.
// RUN: w4a16-opt --w4a16-fuse-int8-prep --w4a16-verify --split-input-file %s > /dev/null

// One generic per eager op (index_select as tensor.extract at an index read from cols, .float(), * SCB,
// * 1/127, .half()), then linalg.transpose; dynamic M and L; the matmul accumulates into out.
// CHECK-LABEL: func.func @eager_chain(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<?x4096xf16>, %[[CB:[^:]+]]: tensor<4096x4096xi8>, %[[SCB:[^:]+]]: tensor<4096xf32>, %[[COLS:[^:]+]]: tensor<?xi64>, %[[OUT:[^:]+]]: tensor<?x4096xf16>)
// CHECK-NEXT:    %[[P:.+]]:2 = "w4a16.int8_prep"(%[[A]], %[[CB]], %[[SCB]], %[[COLS]]) : (tensor<?x4096xf16>, tensor<4096x4096xi8>, tensor<4096xf32>, tensor<?xi64>) -> (tensor<?x?xf16>, tensor<?x4096xf16>)
// CHECK-NEXT:    %[[R:.+]] = linalg.matmul ins(%[[P]]#0, %[[P]]#1 : tensor<?x?xf16>, tensor<?x4096xf16>) outs(%[[OUT]] : tensor<?x4096xf16>)
// CHECK-NEXT:    return %[[R]]
func.func @eager_chain(%A: tensor<?x4096xf16>, %CB: tensor<4096x4096xi8>, %SCB: tensor<4096xf32>, %cols: tensor<?xi64>,
                       %out: tensor<?x4096xf16>) -> tensor<?x4096xf16> {
  %c0 = arith.constant 0 : index
  %M = tensor.dim %A, %c0 : tensor<?x4096xf16>
  %L = tensor.dim %cols, %c0 : tensor<?xi64>
  %ea = tensor.empty(%M, %L) : tensor<?x?xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<?xi64>) outs(%ea : tensor<?x?xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<?x4096xf16>
    linalg.yield %v : f16
  } -> tensor<?x?xf16>
  %eg = tensor.empty(%L) : tensor<4096x?xi8>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<?xi64>) outs(%eg : tensor<4096x?xi8>) {
  ^bb0(%c: i64, %o: i8):
    %i = arith.index_cast %c : i64 to index
    %n = linalg.index 0 : index
    %v = tensor.extract %CB[%n, %i] : tensor<4096x4096xi8>
    linalg.yield %v : i8
  } -> tensor<4096x?xi8>
  %ef = tensor.empty(%L) : tensor<4096x?xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<4096x?xi8>) outs(%ef : tensor<4096x?xf32>) {
  ^bb0(%x: i8, %o: f32):
    %y = arith.sitofp %x : i8 to f32
    linalg.yield %y : f32
  } -> tensor<4096x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%f, %SCB : tensor<4096x?xf32>, tensor<4096xf32>) outs(%ef : tensor<4096x?xf32>) {
  ^bb0(%x: f32, %sc: f32, %o: f32):
    %y = arith.mulf %x, %sc : f32
    linalg.yield %y : f32
  } -> tensor<4096x?xf32>
  %k = arith.constant 7.874015718698502e-3 : f32
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4096x?xf32>) outs(%ef : tensor<4096x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %k : f32
    linalg.yield %y : f32
  } -> tensor<4096x?xf32>
  %eh = tensor.empty(%L) : tensor<4096x?xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<4096x?xf32>) outs(%eh : tensor<4096x?xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<4096x?xf16>
  %et = tensor.empty(%L) : tensor<?x4096xf16>
  %subB = linalg.transpose ins(%h : tensor<4096x?xf16>) outs(%et : tensor<?x4096xf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%subA, %subB : tensor<?x?xf16>, tensor<?x4096xf16>) outs(%out : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  return %r : tensor<?x4096xf16>
}

// -----

// Static L = 16; gather, dequant and transpose in one generic (a permuted output map; SCB first in the
// product, the constant first in the second); cols read with tensor.extract; addmm as matmul from zero + add.
// CHECK-LABEL: func.func @one_generic(
// CHECK:         %[[P:.+]]:2 = "w4a16.int8_prep"(%arg0, %arg1, %arg2, %arg3) : (tensor<8x3584xf16>, tensor<3584x3584xi8>, tensor<3584xf32>, tensor<16xi64>) -> (tensor<8x16xf16>, tensor<16x3584xf16>)
// CHECK-NOT:     linalg.generic
// CHECK:         linalg.fill
// CHECK:         %[[MM:.+]] = linalg.matmul ins(%[[P]]#0, %[[P]]#1 : tensor<8x16xf16>, tensor<16x3584xf16>)
// CHECK:         linalg.add ins(%arg4, %[[MM]]
func.func @one_generic(%A: tensor<8x3584xf16>, %CB: tensor<3584x3584xi8>, %SCB: tensor<3584xf32>, %cols: tensor<16xi64>,
                       %out: tensor<8x3584xf16>) -> tensor<8x3584xf16> {
  %ea = tensor.empty() : tensor<8x16xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%ea : tensor<8x16xf16>) {
  ^bb0(%o: f16):
    %m = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<16xi64>
    %i = arith.index_cast %c : i64 to index
    %v = tensor.extract %A[%m, %i] : tensor<8x3584xf16>
    linalg.yield %v : f16
  } -> tensor<8x16xf16>
  %k = arith.constant 7.874015718698502e-3 : f32
  %eb = tensor.empty() : tensor<16x3584xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<3584xf32>) outs(%eb : tensor<16x3584xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<16xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<3584x3584xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %sc, %x : f32
    %q = arith.mulf %k, %p : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<16x3584xf16>
  %zero = arith.constant 0.0 : f16
  %ez = tensor.empty() : tensor<8x3584xf16>
  %z = linalg.fill ins(%zero : f16) outs(%ez : tensor<8x3584xf16>) -> tensor<8x3584xf16>
  %mm = linalg.matmul ins(%subA, %subB : tensor<8x16xf16>, tensor<16x3584xf16>) outs(%z : tensor<8x3584xf16>) -> tensor<8x3584xf16>
  %r = linalg.add ins(%out, %mm : tensor<8x3584xf16>, tensor<8x3584xf16>) outs(%ez : tensor<8x3584xf16>) -> tensor<8x3584xf16>
  return %r : tensor<8x3584xf16>
}

// -----

// The transpose as the matmul's own permuted map (subA @ h.t() with h the (N, L) f16 dequant): the fused op
// still returns subB as (L, N) and the matmul's map for it becomes the plain one. SCB[:, None] is an
// expand_shape broadcast over L; the dequant is one generic (sitofp, mulf, mulf, truncf) after the gather.
// CHECK-LABEL: func.func @transposed_map(
// CHECK:         %[[P:.+]]:2 = "w4a16.int8_prep"(%arg0, %arg1, %arg2, %arg3) : (tensor<?x4096xf16>, tensor<1024x4096xi8>, tensor<1024xf32>, tensor<?xi64>) -> (tensor<?x?xf16>, tensor<?x1024xf16>)
// CHECK-NOT:     linalg.generic
// CHECK:         linalg.matmul ins(%[[P]]#0, %[[P]]#1 : tensor<?x?xf16>, tensor<?x1024xf16>)
// CHECK-NOT:     tensor.expand_shape
func.func @transposed_map(%A: tensor<?x4096xf16>, %CB: tensor<1024x4096xi8>, %SCB: tensor<1024xf32>, %cols: tensor<?xi64>,
                          %out: tensor<?x1024xf16>) -> tensor<?x1024xf16> {
  %c0 = arith.constant 0 : index
  %M = tensor.dim %A, %c0 : tensor<?x4096xf16>
  %L = tensor.dim %cols, %c0 : tensor<?xi64>
  %ea = tensor.empty(%M, %L) : tensor<?x?xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<?xi64>) outs(%ea : tensor<?x?xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<?x4096xf16>
    linalg.yield %v : f16
  } -> tensor<?x?xf16>
  %eg = tensor.empty(%L) : tensor<1024x?xi8>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<?xi64>) outs(%eg : tensor<1024x?xi8>) {
  ^bb0(%c: i64, %o: i8):
    %i = arith.index_cast %c : i64 to index
    %n = linalg.index 0 : index
    %v = tensor.extract %CB[%n, %i] : tensor<1024x4096xi8>
    linalg.yield %v : i8
  } -> tensor<1024x?xi8>
  %scb2 = tensor.expand_shape %SCB [[0, 1]] output_shape [1024, 1] : tensor<1024xf32> into tensor<1024x1xf32>
  %k = arith.constant 7.874015718698502e-3 : f32
  %eh = tensor.empty(%L) : tensor<1024x?xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%g, %scb2 : tensor<1024x?xi8>, tensor<1024x1xf32>) outs(%eh : tensor<1024x?xf16>) {
  ^bb0(%x: i8, %sc: f32, %o: f16):
    %xf = arith.sitofp %x : i8 to f32
    %p = arith.mulf %xf, %sc : f32
    %q = arith.mulf %p, %k : f32
    %y = arith.truncf %q : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1024x?xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%subA, %h : tensor<?x?xf16>, tensor<1024x?xf16>) outs(%out : tensor<?x1024xf16>) -> tensor<?x1024xf16>
  return %r : tensor<?x1024xf16>
}

// -----

// f32 accumulation: the matmul reads extf'd operands into an f32 out; the f16 tensors before the casts are
// what the preparation produces, and the casts stay.
// CHECK-LABEL: func.func @f32_accumulation(
// CHECK:         %[[P:.+]]:2 = "w4a16.int8_prep"(%arg0, %arg1, %arg2, %arg3)
// CHECK-DAG:     arith.extf %[[P]]#0 : tensor<4x5xf16> to tensor<4x5xf32>
// CHECK-DAG:     arith.extf %[[P]]#1 : tensor<5x256xf16> to tensor<5x256xf32>
// CHECK:         linalg.matmul
func.func @f32_accumulation(%A: tensor<4x512xf16>, %CB: tensor<256x512xi8>, %SCB: tensor<256xf32>, %cols: tensor<5xi64>,
                            %out: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x512xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %k = arith.constant 7.874015718698502e-3 : f32
  %eb = tensor.empty() : tensor<5x256xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols, %SCB : tensor<5xi64>, tensor<256xf32>) outs(%eb : tensor<5x256xf16>) {
  ^bb0(%c: i64, %sc: f32, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %n = linalg.index 1 : index
    %code = tensor.extract %CB[%n, %i] : tensor<256x512xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x256xf16>
  %a32 = arith.extf %subA : tensor<4x5xf16> to tensor<4x5xf32>
  %b32 = arith.extf %subB : tensor<5x256xf16> to tensor<5x256xf32>
  %r = linalg.matmul ins(%a32, %b32 : tensor<4x5xf32>, tensor<5x256xf32>) outs(%out : tensor<4x256xf32>) -> tensor<4x256xf32>
  return %r : tensor<4x256xf32>
}

// -----

// Static L = 0 fuses like any L (the op's results are empty); an intermediate with another user (the f32
// dequant, returned) stays for that user.
// CHECK-LABEL: func.func @empty_and_shared(
// CHECK:         "w4a16.int8_prep"(%arg0, %arg1, %arg2, %arg3) : (tensor<2x64xf16>, tensor<32x64xi8>, tensor<32xf32>, tensor<0xi64>) -> (tensor<2x0xf16>, tensor<0x32xf16>)
// CHECK:         %[[D:.+]] = linalg.generic
// CHECK:         arith.mulf
// CHECK-NOT:     arith.truncf
// CHECK:         linalg.matmul
// CHECK:         return %{{.+}}, %[[D]]
func.func @empty_and_shared(%A: tensor<2x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<0xi64>,
                            %out: tensor<2x32xf16>) -> (tensor<2x32xf16>, tensor<32x0xf32>) {
  %ea = tensor.empty() : tensor<2x0xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<0xi64>) outs(%ea : tensor<2x0xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<2x64xf16>
    linalg.yield %v : f16
  } -> tensor<2x0xf16>
  %k = arith.constant 7.874015718698502e-3 : f32
  %ef = tensor.empty() : tensor<32x0xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols, %SCB : tensor<0xi64>, tensor<32xf32>) outs(%ef : tensor<32x0xf32>) {
  ^bb0(%c: i64, %sc: f32, %o: f32):
    %i = arith.index_cast %c : i64 to index
    %n = linalg.index 0 : index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %q = arith.mulf %p, %k : f32
    linalg.yield %q : f32
  } -> tensor<32x0xf32>
  %eb = tensor.empty() : tensor<0x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<32x0xf32>) outs(%eb : tensor<0x32xf16>) {
  ^bb0(%x: f32, %o: f16):
    %y = arith.truncf %x : f32 to f16
    linalg.yield %y : f16
  } -> tensor<0x32xf16>
  %r = linalg.matmul ins(%subA, %subB : tensor<2x0xf16>, tensor<0x32xf16>) outs(%out : tensor<2x32xf16>) -> tensor<2x32xf16>
  return %r, %d : tensor<2x32xf16>, tensor<32x0xf32>
}
