// --w4a16-explain: a code element wider than 4 bits is a 4-bit code only where the IR says so. An i8
// element used whole (sign- or zero-extended, then scaled) is an 8-bit dequantisation: it stays unfused,
// with a remark at the matmul naming the rule. Until the matcher sampled i8 elements beyond 0..15, the
// first function fused as "zero point 0" and compiled code read each element's low nibble: silently wrong
// results (max |fused - unfused| 1.97 against outputs of magnitude 2.08 on random Q8_0 data).
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// GGUF Q8_0 as sharktank's mmt_block_scaled_q8 kernel template writes it (nod-ai/SHARK-Platform,
// sharktank/sharktank/kernels/templates/mmt_block_scaled_q8_3d.mlir): signed i8 codes q in blocks of 32,
// one f16 scale d per block, W = d * q; x [1, M, K] expanded into blocks, f32 accumulation, a copy to f16.
// Instantiated small here (K = 256, N = 64), batch dim 1.
// IR-LABEL: func.func @q8_0_blocks(
// IR-NOT:     w4a16.fused_matmul
func.func @q8_0_blocks(%a: tensor<1x?x256xf16>, %d: tensor<64x8x1xf16>, %qs: tensor<64x8x32xi8>) -> tensor<1x?x64xf16> {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c1 : tensor<1x?x256xf16>
  %grouped = tensor.empty() : tensor<64x8x32xf16>
  %dequant = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                       affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%d, %qs : tensor<64x8x1xf16>, tensor<64x8x32xi8>) outs(%grouped : tensor<64x8x32xf16>) {
  ^bb0(%scale: f16, %q: i8, %out: f16):
    %wide = arith.extsi %q : i8 to i32
    %qf = arith.sitofp %wide : i32 to f16
    %w = arith.mulf %qf, %scale : f16
    linalg.yield %w : f16
  } -> tensor<64x8x32xf16>
  %ablocks = tensor.expand_shape %a [[0], [1], [2, 3]] output_shape [1, %m, 8, 32] : tensor<1x?x256xf16> into tensor<1x?x8x32xf16>
  %init = tensor.empty(%m) : tensor<1x?x64xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  // CHECK: {{.*}}codes-8-bit.mlir:[[@LINE+1]]:10: remark: w4a16: not fused: codes wider than 4 bits: the i8 code element is used whole
  %acc = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>,
                       affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>,
                       affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%ablocks, %dequant : tensor<1x?x8x32xf16>, tensor<64x8x32xf16>) outs(%filled : tensor<1x?x64xf32>) {
  ^bb0(%x: f16, %w: f16, %out: f32):
    %p = arith.mulf %x, %w : f16
    %pw = arith.extf %p : f16 to f32
    %s = arith.addf %pw, %out : f32
    linalg.yield %s : f32
  } -> tensor<1x?x64xf32>
  %cast_init = tensor.empty(%m) : tensor<1x?x64xf16>
  %cast = linalg.copy ins(%acc : tensor<1x?x64xf32>) outs(%cast_init : tensor<1x?x64xf16>) -> tensor<1x?x64xf16>
  return %cast : tensor<1x?x64xf16>
}

// -----

// An unsigned i8 container with the GPTQ formula, (q - 8) * scale, and no mask: for elements above 15 this
// computes something else than any 4-bit code would.
// IR-LABEL: func.func @unmasked_u8(
// IR-NOT:     w4a16.fused_matmul
func.func @unmasked_u8(%x: tensor<?x256xf16>, %w: tensor<64x256xi8>, %s: tensor<64x2xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e = tensor.empty() : tensor<64x256xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k floordiv 128)>,
                                         affine_map<(n, k) -> (n, k)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<64x256xi8>, tensor<64x2xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%q: i8, %scale: f16, %out: f16):
    %zp = arith.constant 8.0 : f16
    %qf = arith.uitofp %q : i8 to f16
    %c = arith.subf %qf, %zp : f16
    %v = arith.mulf %c, %scale : f16
    linalg.yield %v : f16
  } -> tensor<64x256xf16>
  %init = tensor.empty(%m) : tensor<?x64xf16>
  %filled = linalg.fill ins(%zero : f16) outs(%init : tensor<?x64xf16>) -> tensor<?x64xf16>
  // CHECK: {{.*}}codes-8-bit.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: codes wider than 4 bits: the i8 code element is used whole
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wd : tensor<?x256xf16>, tensor<64x256xf16>) outs(%filled : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %r : tensor<?x64xf16>
}

// -----

// The same container, the code taken as its low 4 bits by a truncation to i4: a 4-bit code, fused.
// IR-LABEL: func.func @truncated_to_i4(
// IR:         "w4a16.fused_matmul"
func.func @truncated_to_i4(%x: tensor<?x256xf16>, %w: tensor<64x256xi8>, %s: tensor<64x2xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e = tensor.empty() : tensor<64x256xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k floordiv 128)>,
                                         affine_map<(n, k) -> (n, k)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<64x256xi8>, tensor<64x2xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%q: i8, %scale: f16, %out: f16):
    %zp = arith.constant 8.0 : f16
    %q4 = arith.trunci %q : i8 to i4
    %qf = arith.uitofp %q4 : i4 to f16
    %c = arith.subf %qf, %zp : f16
    %v = arith.mulf %c, %scale : f16
    linalg.yield %v : f16
  } -> tensor<64x256xf16>
  %init = tensor.empty(%m) : tensor<?x64xf16>
  %filled = linalg.fill ins(%zero : f16) outs(%init : tensor<?x64xf16>) -> tensor<?x64xf16>
  // CHECK: {{.*}}codes-8-bit.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wd : tensor<?x256xf16>, tensor<64x256xf16>) outs(%filled : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %r : tensor<?x64xf16>
}
// CHECK-NOT: remark:
