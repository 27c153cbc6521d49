// --w4a16-explain: dequantisations that agree with the formula only on the values the matcher used to
// sample (scales in [1, 2)): a scale clamped at 0 or 100 fused and was dropped (rel L2 1.15 and 4.0 from
// what the IR computes on real data; found by an adversarial hunt). Scales and other float leaves are now
// sampled with both signs over 2^-8 .. 2^9; float types the interpreter does not model (f8) stop it.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s

// max(scale, 0): a no-op for positive scales, which is all the synthetic data used to hold. Not fused.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scale_relu(%x: tensor<?x512xf16>, %qw: tensor<64x128xi32>, %sc: tensor<4x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<512x128xf16>
  %w = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<512x128xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %c8f = arith.constant 8.0 : f16
    %zf = arith.constant 0.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<64x128xi32>
    %lane = arith.remui %k, %c8 : index
    %l32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %l32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %c8f : f16
    %g = arith.divui %k, %c128 : index
    %s0 = tensor.extract %sc[%g, %n] : tensor<4x128xf16>
    %s = arith.maxnumf %s0, %zf : f16
    %wv = arith.mulf %cz, %s : f16
    linalg.yield %wv : f16
  } -> tensor<512x128xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x128xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<?x128xf16>) -> tensor<?x128xf16>
  // CHECK: {{.*}}value-range.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: dequantisation computes something other than (code - 8) * scale
  %y = linalg.matmul ins(%x, %w : tensor<?x512xf16>, tensor<512x128xf16>) outs(%acc : tensor<?x128xf16>) -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}

// -----

// min(scale, 100): scales were sampled below 2. Not fused.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scale_clamp_100(%x: tensor<?x512xf16>, %qw: tensor<64x128xi32>, %sc: tensor<4x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<512x128xf16>
  %w = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<512x128xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %c8f = arith.constant 8.0 : f16
    %zf = arith.constant 0.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<64x128xi32>
    %lane = arith.remui %k, %c8 : index
    %l32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %l32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %c8f : f16
    %g = arith.divui %k, %c128 : index
    %s0 = tensor.extract %sc[%g, %n] : tensor<4x128xf16>
    %cap = arith.constant 100.0 : f16
    %s = arith.minimumf %s0, %cap : f16
    %wv = arith.mulf %cz, %s : f16
    linalg.yield %wv : f16
  } -> tensor<512x128xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x128xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<?x128xf16>) -> tensor<?x128xf16>
  // CHECK: {{.*}}value-range.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: dequantisation computes something other than (code - 8) * scale
  %y = linalg.matmul ins(%x, %w : tensor<?x512xf16>, tensor<512x128xf16>) outs(%acc : tensor<?x128xf16>) -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}

// -----

// The weight is rounded through f8E4M3FN, which the interpreter does not model (it was taken as exact and
// fused: rel L2 1.4e-2 from what the IR computes). Not fused.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @weight_round_f8(%x: tensor<?x512xf16>, %qw: tensor<64x128xi32>, %sc: tensor<4x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<512x128xf16>
  %w = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<512x128xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %c8f = arith.constant 8.0 : f16
    %zf = arith.constant 0.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<64x128xi32>
    %lane = arith.remui %k, %c8 : index
    %l32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %l32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %c8f : f16
    %g = arith.divui %k, %c128 : index
    %s0 = tensor.extract %sc[%g, %n] : tensor<4x128xf16>
    %s32 = arith.extf %s0 : f16 to f32
    %cz32 = arith.extf %cz : f16 to f32
    %w32 = arith.mulf %cz32, %s32 : f32
    %w8 = arith.truncf %w32 : f32 to f8E4M3FN
    %wv = arith.extf %w8 : f8E4M3FN to f16
    linalg.yield %wv : f16
  } -> tensor<512x128xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x128xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<?x128xf16>) -> tensor<?x128xf16>
  // CHECK: {{.*}}value-range.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: dequantisation: computes in a float type narrower than f16 and bf16
  %y = linalg.matmul ins(%x, %w : tensor<?x512xf16>, tensor<512x128xf16>) outs(%acc : tensor<?x128xf16>) -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}
// CHECK-NOT: remark:
