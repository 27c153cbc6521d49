// --w4a16-explain-int8-prep on preparations that must not fuse: each gets a located remark at the matmul
// with the first reason, and the IR is left byte for byte as it was.
//
// RUN: w4a16-opt --w4a16-explain-int8-prep --split-input-file %s -o %t 2>&1 | FileCheck %s
// RUN: w4a16-opt --split-input-file %s -o %t.orig
// RUN: diff %t.orig %t
// The constant is 1/128, not 1/127.
func.func @constant_1_128(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 7.812500e-03 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: multiplies by 0.0078125 (f32 0x3C000000), expected 1/127 in f32 = 7.874015718698502e-3 (0x3C010204)
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// One f32 ulp above 1/127.
func.func @constant_next_float(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 0x3C010205 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: multiplies by 0.00787401665 (f32 0x3C010205), expected 1/127 in f32
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// Division by 127 instead of the multiplication by the f32 constant.
func.func @divide_by_127(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %d = arith.constant 127.0 : f32
    %q = arith.divf %p, %d : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: multiplies by 0.0078740157480314{{[0-9]+}}, which is not an f32 constant
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// The product is taken in f64 with 1/127 in f64 (not the f32 constant).
func.func @f64_constant(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %pd = arith.extf %p : f32 to f64
    %k = arith.constant 0.007874015748031496 : f64
    %qd = arith.mulf %pd, %k : f64
    %h = arith.truncf %qd : f64 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: multiplies by 0.0078740157480314{{[0-9]+}}, which is not an f32 constant
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// SCB * 1/127 first (a precomputed per-column scale), then the code.
func.func @scale_first(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %s = arith.mulf %sc, %k : f32
    %q = arith.mulf %x, %s : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: dequantisation rounds differently from f16(f32(f32(code) * SCB[n]) * 1/127) on {{[0-9]+}} of {{[0-9]+}} inputs next to f16 rounding ties: SCB * 1/127 is rounded to f32 before the code multiplies it
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// code * 1/127 first, then SCB.
func.func @code_first(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %s = arith.mulf %x, %k : f32
    %q = arith.mulf %s, %sc : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: dequantisation rounds differently from {{.*}}: code * 1/127 is rounded to f32 before SCB multiplies it
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// code * SCB rounded to f16 before the multiplication by 1/127.
func.func @f16_product(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %p16 = arith.truncf %p : f32 to f16
    %p32 = arith.extf %p16 : f16 to f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p32, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: dequantisation rounds differently from {{.*}}: code * SCB is rounded to f16 before the multiplication by 1/127
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// Codes converted as unsigned.
func.func @unsigned_codes(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.uitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: codes are converted as unsigned (uitofp or extui); LLM.int8 codes are signed
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// subA and subB gathered through different column lists.
func.func @two_column_lists(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %cols2: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols2[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: subA and subB are gathered through different column lists
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// subA is passed in, not gathered from A.
func.func @a_not_gathered(%subA: tensor<4x5xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: subA is not gathered through a column list (A[:, cols])
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// A read one column to the right of cols[l].
func.func @a_offset(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %c1 = arith.constant 1 : index
    %i1 = arith.addi %i, %c1 : index
    %v = tensor.extract %A[%m, %i1] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: subA[0, 0] reads A[0, {{[0-9]+}}], expected A[m, cols[l]] = A[0, {{[0-9]+}}]
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// One scale per outlier column (SCB indexed by l) instead of per output column n.
func.func @scale_per_l(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<5xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<5xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: subB[{{[0-9]+}}, {{[0-9]+}}] reads SCB[{{[0-9]+}}], expected SCB[n] (one scale per output column)
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// CB stored (K, N) and read CB[cols[l], n].
func.func @cb_k_n(%A: tensor<4x64xf16>, %CB: tensor<64x32xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%i, %n] : tensor<64x32xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: CB is read as CB[cols[l], n]: expected CB (N, K) read at CB[n, cols[l]]
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// Codes in an i32 tensor.
func.func @cb_i32(%A: tensor<4x64xf16>, %CB: tensor<32x64xi32>, %SCB: tensor<32xf32>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi32>
    %x = arith.sitofp %code : i32 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: codes CB are i32, expected i8
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// SCB in f16 (extended in the body).
func.func @scb_f16(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf16>, %cols: tensor<5xi64>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi64>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i64, %o: f16):
    %i = arith.index_cast %c : i64 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf16>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f16, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %s32 = arith.extf %sc : f16 to f32
    %p = arith.mulf %x, %s32 : f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: SCB is tensor<32xf16>, expected an (N) f32 vector
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// -----

// Column indices in i32.
func.func @cols_i32(%A: tensor<4x64xf16>, %CB: tensor<32x64xi8>, %SCB: tensor<32xf32>, %cols: tensor<5xi32>, %out: tensor<4x32xf16>) -> tensor<4x32xf16> {
  %ea = tensor.empty() : tensor<4x5xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%cols : tensor<5xi32>) outs(%ea : tensor<4x5xf16>) {
  ^bb0(%c: i32, %o: f16):
    %i = arith.index_cast %c : i32 to index
    %m = linalg.index 0 : index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x5xf16>
  %eb = tensor.empty() : tensor<5x32xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<32xf32>) outs(%eb : tensor<5x32xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<5xi32>
    %i = arith.index_cast %c : i32 to index
    %code = tensor.extract %CB[%n, %i] : tensor<32x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %k = arith.constant 7.874015718698502e-3 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<5x32xf16>
  // CHECK: not-fused.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: column indices are i32, expected i64
  %r = linalg.matmul ins(%subA, %subB : tensor<4x5xf16>, tensor<5x32xf16>) outs(%out : tensor<4x32xf16>) -> tensor<4x32xf16>
  return %r : tensor<4x32xf16>
}

// CHECK-NOT: remark:
