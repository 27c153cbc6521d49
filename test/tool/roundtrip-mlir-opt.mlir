// IR the fuse pass does not touch comes out exactly as mlir-opt prints the same input: same text, same
// aliases, same SSA names, same split output, with and without --w4a16-fuse, in pretty, generic and
// debug-info form.
//
// RUN: w4a16-opt --split-input-file %s > %t.a
// RUN: mlir-opt --split-input-file %s > %t.b
// RUN: diff %t.a %t.b
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s > %t.fuse
// RUN: diff %t.fuse %t.b
// RUN: w4a16-opt --w4a16-fuse --split-input-file --mlir-print-op-generic %s > %t.ga
// RUN: mlir-opt --split-input-file --mlir-print-op-generic %s > %t.gb
// RUN: diff %t.ga %t.gb
// RUN: w4a16-opt --w4a16-fuse --split-input-file --mlir-print-debuginfo %s > %t.da
// RUN: mlir-opt --split-input-file --mlir-print-debuginfo %s > %t.db
// RUN: diff %t.da %t.db
// RUN: w4a16-opt --mlir-print-debuginfo --mlir-pretty-debuginfo --mlir-print-local-scope %s > %t.la
// RUN: mlir-opt --mlir-print-debuginfo --mlir-pretty-debuginfo --mlir-print-local-scope %s > %t.lb
// RUN: diff %t.la %t.lb
// RUN: w4a16-opt --mlir-elide-elementsattrs-if-larger=2 %s > %t.ea
// RUN: mlir-opt --mlir-elide-elementsattrs-if-larger=2 %s > %t.eb
// RUN: diff %t.ea %t.eb
// Whole file, several top-level ops without an explicit module.
// RUN: w4a16-opt --w4a16-fuse %s > %t.wa
// RUN: mlir-opt %s > %t.wb
// RUN: diff %t.wa %t.wb
// RUN: FileCheck %s < %t.wa

// CHECK-LABEL: func.func @zero_point_7(
// CHECK:         arith.constant 7.300780e+00 : f16
// CHECK:         linalg.generic
// CHECK:         linalg.matmul
// CHECK-NOT:     w4a16.fused_matmul

// A GPTQ dequant with zero point 7.3 (not a multiple of 1/8): must not fuse (docs/contract.md §4), so it stays as written.
func.func @zero_point_7(%x: tensor<16x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>) -> tensor<16x64xf16> {
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %zp = arith.constant 7.300780e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<256x64xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kr_i32 = arith.index_cast %kr : index to i32
    %shift = arith.muli %kr_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centered = arith.subf %codef, %zp : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %w = arith.mulf %centered, %scale : f16
    linalg.yield %w : f16
  } -> tensor<256x64xf16>
  %2 = tensor.empty() : tensor<16x64xf16>
  %3 = linalg.fill ins(%zero : f16) outs(%2 : tensor<16x64xf16>) -> tensor<16x64xf16>
  %4 = linalg.matmul ins(%x, %1 : tensor<16x256xf16>, tensor<256x64xf16>) outs(%3 : tensor<16x64xf16>) -> tensor<16x64xf16>
  return %4 : tensor<16x64xf16>
}

// -----

// An i4 dequant with group size 64 (must not fuse), aliases, expand_shape and an f32 matmul.
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @group_64(%x: tensor<?x256xf32>, %w: tensor<4x64x32xi4>, %s: tensor<4x32xf32>) -> tensor<?x32xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %zp = arith.constant 8.0 : f32
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x256xf32>
  %e = tensor.empty() : tensor<4x64x32xf32>
  %d = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w, %s : tensor<4x64x32xi4>, tensor<4x32xf32>) outs(%e : tensor<4x64x32xf32>) {
  ^bb0(%in: i4, %sc: f32, %out: f32):
    %i = arith.extui %in : i4 to i32
    %f = arith.uitofp %i : i32 to f32
    %c = arith.subf %f, %zp : f32
    %v = arith.mulf %c, %sc : f32
    linalg.yield %v : f32
  } -> tensor<4x64x32xf32>
  %dc = tensor.collapse_shape %d [[0, 1], [2]] : tensor<4x64x32xf32> into tensor<256x32xf32>
  %ae = tensor.empty(%m) : tensor<?x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x32xf32>) -> tensor<?x32xf32>
  %r = linalg.matmul ins(%x, %dc : tensor<?x256xf32>, tensor<256x32xf32>) outs(%acc : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// Dense f16 matmul + bias, constants of several kinds, control flow and other dialects.
module attributes {w4a16.test = "roundtrip"} {
  func.func private @ext(memref<4xf32>) -> ()
  func.func @dense(%a: tensor<4x128xf16>, %b: tensor<128x8xf16>) -> tensor<4x8xf16> {
    %bias = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf16>
    %zero = arith.constant 0.0 : f16
    %e = tensor.empty() : tensor<4x8xf16>
    %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x8xf16>) -> tensor<4x8xf16>
    %mm = linalg.matmul ins(%a, %b : tensor<4x128xf16>, tensor<128x8xf16>) outs(%f : tensor<4x8xf16>) -> tensor<4x8xf16>
    %bb = linalg.broadcast ins(%bias : tensor<8xf16>) outs(%e : tensor<4x8xf16>) dimensions = [0]
    %r = linalg.add ins(%mm, %bb : tensor<4x8xf16>, tensor<4x8xf16>) outs(%e : tensor<4x8xf16>) -> tensor<4x8xf16>
    return %r : tensor<4x8xf16>
  }
  func.func @loops(%buf: memref<4xf32>, %n: index) -> vector<4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cst = arith.constant 1.5 : f32
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %buf[%i] : memref<4xf32>
      %w = math.tanh %v : f32
      %z = arith.addf %w, %cst fastmath<fast> : f32
      memref.store %z, %buf[%i] : memref<4xf32>
    }
    call @ext(%buf) : (memref<4xf32>) -> ()
    %pad = arith.constant 0.0 : f32
    %vec = vector.transfer_read %buf[%c0], %pad : memref<4xf32>, vector<4xf32>
    cf.br ^bb1(%vec : vector<4xf32>)
  ^bb1(%x: vector<4xf32>):
    return %x : vector<4xf32>
  }
  llvm.func @llvm_fn(%arg0: i32) -> i32 {
    %0 = llvm.add %arg0, %arg0 : i32
    llvm.return %0 : i32
  }
}

// -----

func.func @resource() -> tensor<2xi32> {
  %0 = arith.constant dense_resource<blob1> : tensor<2xi32>
  return %0 : tensor<2xi32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
