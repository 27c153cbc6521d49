// A constant zero point other than 8 fuses (issue #17): the op carries zero_point = 7.0 and the runtime
// subtracts it. These three chunks (GPTQ words subtracting 7; IREE's [K/128, 128, N] form subtracting 7;
// zero points as a linalg.fill of 7) were in negative-quant.mlir (must not fuse) until then.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// GPTQ with zero point 7.

// CHECK-LABEL: func.func @gptq_zero_point_7(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      zero_point = 7.000000e+00 : f64
// CHECK-NOT:     linalg.
func.func @gptq_zero_point_7(%x: tensor<1x4096xf16>, %qweight: tensor<512x4096xi32>, %scales: tensor<32x4096xf16>) -> tensor<1x4096xf16> {
  %de = tensor.empty() : tensor<4096x4096xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<4096x4096xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 7.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x4096xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<32x4096xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<4096x4096xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty() : tensor<1x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<1x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<1x4096xf16>) -> tensor<1x4096xf16>
  return %mm : tensor<1x4096xf16>
}

// -----

// IREE [K/128, 128, N] dequant subtracting 7.

// CHECK-LABEL: func.func @iree_zero_point_7(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      zero_point = 7.000000e+00 : f64
// CHECK-NOT:     linalg.
func.func @iree_zero_point_7(%x: tensor<?x4096xf16>, %w: tensor<32x128x11008xi4>, %s: tensor<32x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %de = tensor.empty() : tensor<32x128x11008xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<32x128x11008xi4>, tensor<32x11008xf16>) outs(%de : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_0: f16, %out: f16):
    %zp = arith.constant 7.000000e+00 : f16
    %0 = arith.extui %in : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %zp : f16
    %3 = arith.mulf %2, %in_0 : f16
    linalg.yield %3 : f16
  } -> tensor<32x128x11008xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}

// -----

// Zero points as a linalg.fill'ed tensor of 7.

// CHECK-LABEL: func.func @iree_zero_point_fill_7(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      zero_point = 7.000000e+00 : f64
// CHECK-NOT:     linalg.
func.func @iree_zero_point_fill_7(%x: tensor<?x4096xf16>, %w: tensor<32x128x11008xi4>, %s: tensor<32x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %seven = arith.constant 7.000000e+00 : f16
  %ze = tensor.empty() : tensor<32x11008xf16>
  %zps = linalg.fill ins(%seven : f16) outs(%ze : tensor<32x11008xf16>) -> tensor<32x11008xf16>
  %de = tensor.empty() : tensor<32x128x11008xf16>
  %deq3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s, %zps : tensor<32x128x11008xi4>, tensor<32x11008xf16>, tensor<32x11008xf16>) outs(%de : tensor<32x128x11008xf16>) {
  ^bb0(%in: i4, %in_0: f16, %z: f16, %out: f16):
    %0 = arith.extui %in : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %z : f16
    %3 = arith.mulf %2, %in_0 : f16
    linalg.yield %3 : f16
  } -> tensor<32x128x11008xf16>
  %deq = tensor.collapse_shape %deq3 [[0, 1], [2]] : tensor<32x128x11008xf16> into tensor<4096x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %acc_e = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  %mm = linalg.matmul ins(%x, %deq : tensor<?x4096xf16>, tensor<4096x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}
