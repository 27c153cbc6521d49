// Integer zero-point tensors read as the exporters read them: int32 signed (the runtime reads an unpacked
// i32 signed too), int8 with sitofp / extsi or masked to its low nibble. For the zero points 0..15 that 4-bit
// checkpoints hold every reading gives the same number, and the matcher samples i8 zero points in that range.
// The int8 forms stopped fusing for a few commits (the matcher sampled full-width bits there), the int32 one
// never fused before (found by a false-negative hunt; CPU result of the i32 form vs the upstream build rel L2
// 3.3e-3 with f16 accumulation in the IR, checked outside the suite).
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s

// int32 zero points read signed (torch-mlir lowers torch int32 tensors with subi + sitofp).
// CHECK-LABEL: func.func @i32_zero_points_signed(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      zero_point_layout = "g_n"
func.func @i32_zero_points_signed(%x: tensor<?x512xf16>, %qw: tensor<64x128xi32>, %sc: tensor<4x128xf16>, %qz: tensor<4x128xi32>,
             %bias: tensor<128xf16>, %res: tensor<?x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<512x128xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k floordiv 8, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%qw, %sc, %qz : tensor<64x128xi32>, tensor<4x128xf16>, tensor<4x128xi32>) outs(%de : tensor<512x128xf16>) {
  ^bb0(%word: i32, %scale: f16, %zz: i32, %out: f16):
    %k = linalg.index 0 : index
    %c8 = arith.constant 8 : index
    %kk = arith.remui %k, %c8 : index
    %four = arith.constant 4 : index
    %sh = arith.muli %kk, %four : index
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %m15 = arith.constant 15 : i32
    %code = arith.andi %v, %m15 : i32
    %d = arith.subi %code, %zz : i32
    %cf = arith.sitofp %d : i32 to f16
    %r = arith.mulf %cf, %scale : f16
    linalg.yield %r : f16
  } -> tensor<512x128xf16>
  %zf = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x128xf16>
  %acc = linalg.fill ins(%zf : f16) outs(%e : tensor<?x128xf16>) -> tensor<?x128xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x512xf16>, tensor<512x128xf16>) outs(%acc : tensor<?x128xf16>) -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}

// -----

// int8 zero points converted with sitofp (a torch int8 tensor).
// CHECK-LABEL: func.func @i8_zero_points_sitofp(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      zero_point_layout = "g_n"
func.func @i8_zero_points_sitofp(%x: tensor<?x512xf16>, %qw: tensor<64x128xi32>, %sc: tensor<4x128xf16>, %qz: tensor<4x128xi8>,
             %bias: tensor<128xf16>, %res: tensor<?x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<512x128xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k floordiv 8, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%qw, %sc, %qz : tensor<64x128xi32>, tensor<4x128xf16>, tensor<4x128xi8>) outs(%de : tensor<512x128xf16>) {
  ^bb0(%word: i32, %scale: f16, %zz: i8, %out: f16):
    %k = linalg.index 0 : index
    %c8 = arith.constant 8 : index
    %kk = arith.remui %k, %c8 : index
    %four = arith.constant 4 : index
    %sh = arith.muli %kk, %four : index
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %m15 = arith.constant 15 : i32
    %code = arith.andi %v, %m15 : i32
    %zf = arith.sitofp %zz : i8 to f16
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zf : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<512x128xf16>
  %zf = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x128xf16>
  %acc = linalg.fill ins(%zf : f16) outs(%e : tensor<?x128xf16>) -> tensor<?x128xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x512xf16>, tensor<512x128xf16>) outs(%acc : tensor<?x128xf16>) -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}

// -----

// int8 zero points masked to 4 bits.
// CHECK-LABEL: func.func @i8_zero_points_masked(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      zero_point_layout = "g_n"
func.func @i8_zero_points_masked(%x: tensor<?x512xf16>, %qw: tensor<64x128xi32>, %sc: tensor<4x128xf16>, %qz: tensor<4x128xi8>,
             %bias: tensor<128xf16>, %res: tensor<?x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<512x128xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k floordiv 8, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%qw, %sc, %qz : tensor<64x128xi32>, tensor<4x128xf16>, tensor<4x128xi8>) outs(%de : tensor<512x128xf16>) {
  ^bb0(%word: i32, %scale: f16, %zz: i8, %out: f16):
    %k = linalg.index 0 : index
    %c8 = arith.constant 8 : index
    %kk = arith.remui %k, %c8 : index
    %four = arith.constant 4 : index
    %sh = arith.muli %kk, %four : index
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %m15 = arith.constant 15 : i32
    %code = arith.andi %v, %m15 : i32
    %m15b = arith.constant 15 : i8
    %zm = arith.andi %zz, %m15b : i8
    %zf = arith.uitofp %zm : i8 to f16
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zf : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<512x128xf16>
  %zf = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x128xf16>
  %acc = linalg.fill ins(%zf : f16) outs(%e : tensor<?x128xf16>) -> tensor<?x128xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x512xf16>, tensor<512x128xf16>) outs(%acc : tensor<?x128xf16>) -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}
