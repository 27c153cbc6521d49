// The "magic number" int4 -> float conversion of fast GPU kernels (FasterTransformer's and Marlin's lop3 trick), as
// IR that lowers such a kernel's dequantisation to scalar ops writes it: the bits 0x6400 | q are the f16 1024 + q
// (arith.bitcast i16 -> f16), so subtracting 1032 gives q - 8 exactly; in bf16 the bits 0x4300 | q are 128 + q.
// The evaluator reads integer bits cast to f16, bf16 or f32 as those floats, so these are the plain formula and fuse
// (symmetric; subtracting 1024 gives zero point 0). Look-alike: q placed in the exponent field ((q << 10) | 0x3c00
// is 2^(q - 15)-ish, not affine in q) stays unfused. Found by probing forms outside this suite (session 41): until
// then arith.bitcast was "unsupported op in an elementwise computation".
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK-LABEL: func.func @f16_magic(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      group_size = 32 : i64
// CHECK-NOT:       zero_point
// CHECK-NOT:     linalg.generic
// EXPLAIN: magic-number-conversion.mlir:[[@LINE+19]]:8: remark: w4a16: fused as dequant(n_k, scales n_g, group 32) -> matmul{{$}}
func.func @f16_magic(%x: tensor<?x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x8xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<64x256xi4>, tensor<64x8xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%a: i4, %b: f16, %o: f16):
    %ai = arith.extui %a : i4 to i16
    %mag = arith.constant 25600 : i16
    %bits = arith.ori %ai, %mag : i16
    %hf = arith.bitcast %bits : i16 to f16
    %off = arith.constant 1032.0 : f16
    %c = arith.subf %hf, %off : f16
    %r = arith.mulf %c, %b : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e2 : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
         ins(%x, %w : tensor<?x256xf16>, tensor<64x256xf16>) outs(%f : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// CHECK-LABEL: func.func @f16_magic_zero_point_0(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      zero_point = 0.0
// EXPLAIN: magic-number-conversion.mlir:[[@LINE+19]]:8: remark: w4a16: fused as dequant(n_k, scales n_g, group 32, zero point 0) -> matmul
func.func @f16_magic_zero_point_0(%x: tensor<?x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x8xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<64x256xi4>, tensor<64x8xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%a: i4, %b: f16, %o: f16):
    %ai = arith.extui %a : i4 to i16
    %mag = arith.constant 25600 : i16
    %bits = arith.ori %ai, %mag : i16
    %hf = arith.bitcast %bits : i16 to f16
    %off = arith.constant 1024.0 : f16
    %c = arith.subf %hf, %off : f16
    %r = arith.mulf %c, %b : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e2 : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
         ins(%x, %w : tensor<?x256xf16>, tensor<64x256xf16>) outs(%f : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// CHECK-LABEL: func.func @bf16_magic(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      : (tensor<?x256xbf16>, tensor<64x256xi4>, tensor<64x8xbf16>) -> tensor<?x64xbf16>
// EXPLAIN: magic-number-conversion.mlir:[[@LINE+19]]:8: remark: w4a16: fused as dequant(n_k, scales n_g, group 32) -> matmul [x bf16, scales bf16]
func.func @bf16_magic(%x: tensor<?x256xbf16>, %q: tensor<64x256xi4>, %s: tensor<64x8xbf16>) -> tensor<?x64xbf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<64x256xbf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<64x256xi4>, tensor<64x8xbf16>) outs(%e : tensor<64x256xbf16>) {
  ^bb0(%a: i4, %b: bf16, %o: bf16):
    %ai = arith.extui %a : i4 to i16
    %mag = arith.constant 17152 : i16
    %bits = arith.ori %ai, %mag : i16
    %hf = arith.bitcast %bits : i16 to bf16
    %off = arith.constant 136.0 : bf16
    %c = arith.subf %hf, %off : bf16
    %r = arith.mulf %c, %b : bf16
    linalg.yield %r : bf16
  } -> tensor<64x256xbf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xbf16>
  %e2 = tensor.empty(%m) : tensor<?x64xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e2 : tensor<?x64xbf16>) -> tensor<?x64xbf16>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
         ins(%x, %w : tensor<?x256xbf16>, tensor<64x256xbf16>) outs(%f : tensor<?x64xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// CHECK-LABEL: func.func @code_in_exponent(
// CHECK-NOT:     w4a16.fused_matmul
// EXPLAIN: magic-number-conversion.mlir:[[@LINE+21]]:8: remark: w4a16: not fused: dequantisation computes something other than
func.func @code_in_exponent(%x: tensor<?x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x8xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<64x256xi4>, tensor<64x8xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%a: i4, %b: f16, %o: f16):
    %ai = arith.extui %a : i4 to i16
    %ten = arith.constant 10 : i16
    %ai2 = arith.shli %ai, %ten : i16
    %mag = arith.constant 15360 : i16
    %bits = arith.ori %ai2, %mag : i16
    %hf = arith.bitcast %bits : i16 to f16
    %off = arith.constant 1.0 : f16
    %c = arith.subf %hf, %off : f16
    %r = arith.mulf %c, %b : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e2 : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
         ins(%x, %w : tensor<?x256xf16>, tensor<64x256xf16>) outs(%f : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}
