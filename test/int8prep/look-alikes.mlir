// --w4a16-explain-int8-prep on look-alikes that fused and returned other numbers than the IR (found by an
// adversarial hunt, bit-compared against the upstream build): |SCB|, a select on positions, a test of the
// column value, a NaN scale replaced by 0, a NaN-ignoring clamp of A. The matcher now samples scales of both
// signs, NaN and infinite scales and A values, columns 0 and K - 1, and scans comparisons of positions.
// Each stays unfused with a located remark, the IR untouched.
//
// RUN: w4a16-opt --w4a16-explain-int8-prep --split-input-file %s -o %t 2>&1 | FileCheck %s
// RUN: w4a16-opt --split-input-file %s -o %t.orig
// RUN: diff %t.orig %t

// The scale is |SCB[n]|: equal to SCB on the positive scales sampled until now.
func.func @abs_scale(%A: tensor<4x64xf16>, %CB: tensor<16x64xi8>, %SCB: tensor<16xf32>, %cols: tensor<4xi64>, %out: tensor<4x16xf16>) -> (tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>) {
  %k = arith.constant 7.874015718698502e-3 : f32
  %ea = tensor.empty() : tensor<4x4xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%ea : tensor<4x4xf16>) {
  ^bb0(%o: f16):
    %m = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x4xf16>
  %eb = tensor.empty() : tensor<4x16xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<16xf32>) outs(%eb : tensor<4x16xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<16x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %sca = math.absf %sc : f32
    %p = arith.mulf %x, %sca : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<4x16xf16>
  // CHECK: look-alikes.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: subB[l, n] is not CB[n, cols[l]] * SCB[n] * a constant
  %r = linalg.matmul ins(%subA, %subB : tensor<4x4xf16>, tensor<4x16xf16>) outs(%out : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %subA, %subB, %r : tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>
}

// -----

// subB[3, 5] forced to 0 by a select on positions.
func.func @position_select(%A: tensor<4x64xf16>, %CB: tensor<16x64xi8>, %SCB: tensor<16xf32>, %cols: tensor<4xi64>, %out: tensor<4x16xf16>) -> (tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>) {
  %k = arith.constant 7.874015718698502e-3 : f32
  %ea = tensor.empty() : tensor<4x4xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%ea : tensor<4x4xf16>) {
  ^bb0(%o: f16):
    %m = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x4xf16>
  %eb = tensor.empty() : tensor<4x16xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<16xf32>) outs(%eb : tensor<4x16xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<16x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %q = arith.mulf %p, %k : f32
    %h1 = arith.truncf %q : f32 to f16
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %e3 = arith.cmpi eq, %l, %c3 : index
    %e5 = arith.cmpi eq, %n, %c5 : index
    %both = arith.andi %e3, %e5 : i1
    %z16 = arith.constant 0.0 : f16
    %h = arith.select %both, %z16, %h1 : f16
    linalg.yield %h : f16
  } -> tensor<4x16xf16>
  // CHECK: look-alikes.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: subB: a comparison of positions computes another formula
  %r = linalg.matmul ins(%subA, %subB : tensor<4x4xf16>, tensor<4x16xf16>) outs(%out : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %subA, %subB, %r : tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>
}

// -----

// subB is 0 where cols[l] == K - 1 (a test of the index value: the samples now include the last column).
func.func @column_value_select(%A: tensor<4x64xf16>, %CB: tensor<16x64xi8>, %SCB: tensor<16xf32>, %cols: tensor<4xi64>, %out: tensor<4x16xf16>) -> (tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>) {
  %k = arith.constant 7.874015718698502e-3 : f32
  %ea = tensor.empty() : tensor<4x4xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%ea : tensor<4x4xf16>) {
  ^bb0(%o: f16):
    %m = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x4xf16>
  %eb = tensor.empty() : tensor<4x16xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<16xf32>) outs(%eb : tensor<4x16xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<16x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %q = arith.mulf %p, %k : f32
    %h1 = arith.truncf %q : f32 to f16
    %c63 = arith.constant 63 : i64
    %isk = arith.cmpi eq, %c, %c63 : i64
    %z16 = arith.constant 0.0 : f16
    %h = arith.select %isk, %z16, %h1 : f16
    linalg.yield %h : f16
  } -> tensor<4x16xf16>
  // CHECK: look-alikes.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: subB[l, n] is not CB[n, cols[l]] * SCB[n] * a constant
  %r = linalg.matmul ins(%subA, %subB : tensor<4x4xf16>, tensor<4x16xf16>) outs(%out : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %subA, %subB, %r : tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>
}

// -----

// A NaN scale replaced by 0.
func.func @scale_nan_to_zero(%A: tensor<4x64xf16>, %CB: tensor<16x64xi8>, %SCB: tensor<16xf32>, %cols: tensor<4xi64>, %out: tensor<4x16xf16>) -> (tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>) {
  %k = arith.constant 7.874015718698502e-3 : f32
  %ea = tensor.empty() : tensor<4x4xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%ea : tensor<4x4xf16>) {
  ^bb0(%o: f16):
    %m = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %v = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    linalg.yield %v : f16
  } -> tensor<4x4xf16>
  %eb = tensor.empty() : tensor<4x16xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<16xf32>) outs(%eb : tensor<4x16xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<16x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %isn = arith.cmpf uno, %sc, %sc : f32
    %zf = arith.constant 0.0 : f32
    %sc2 = arith.select %isn, %zf, %sc : f32
    %p = arith.mulf %x, %sc2 : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<4x16xf16>
  // CHECK: look-alikes.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: subB is not CB * SCB * a constant for SCB = nan
  %r = linalg.matmul ins(%subA, %subB : tensor<4x4xf16>, tensor<4x16xf16>) outs(%out : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %subA, %subB, %r : tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>
}

// -----

// subA = max(A[m, cols[l]], -65504) with a NaN-ignoring max.
func.func @a_clamp(%A: tensor<4x64xf16>, %CB: tensor<16x64xi8>, %SCB: tensor<16xf32>, %cols: tensor<4xi64>, %out: tensor<4x16xf16>) -> (tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>) {
  %k = arith.constant 7.874015718698502e-3 : f32
  %ea = tensor.empty() : tensor<4x4xf16>
  %subA = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%ea : tensor<4x4xf16>) {
  ^bb0(%o: f16):
    %m = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %v0 = tensor.extract %A[%m, %i] : tensor<4x64xf16>
    %lo = arith.constant -65504.0 : f16
    %v = arith.maxnumf %v0, %lo : f16
    linalg.yield %v : f16
  } -> tensor<4x4xf16>
  %eb = tensor.empty() : tensor<4x16xf16>
  %subB = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%SCB : tensor<16xf32>) outs(%eb : tensor<4x16xf16>) {
  ^bb0(%sc: f32, %o: f16):
    %n = linalg.index 0 : index
    %l = linalg.index 1 : index
    %c = tensor.extract %cols[%l] : tensor<4xi64>
    %i = arith.index_cast %c : i64 to index
    %code = tensor.extract %CB[%n, %i] : tensor<16x64xi8>
    %x = arith.sitofp %code : i8 to f32
    %p = arith.mulf %x, %sc : f32
    %q = arith.mulf %p, %k : f32
    %h = arith.truncf %q : f32 to f16
    linalg.yield %h : f16
  } -> tensor<4x16xf16>
  // CHECK: look-alikes.mlir:[[@LINE+1]]:8: remark: w4a16-int8-prep: not fused: subA is not a copy of A for A = nan
  %r = linalg.matmul ins(%subA, %subB : tensor<4x4xf16>, tensor<4x16xf16>) outs(%out : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %subA, %subB, %r : tensor<4x4xf16>, tensor<4x16xf16>, tensor<4x16xf16>
}
// CHECK-NOT: remark:
