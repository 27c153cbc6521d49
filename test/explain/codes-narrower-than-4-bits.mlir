// --w4a16-explain: codes in elements narrower than 4 bits (i3, i2: 3- and 2-bit quantisation) compute a
// (code - z) * scale chain, but the fused op stores codes as i4 or i8 elements or i32 words. They used to fuse
// ("zero point 4") into an op the verifier then rejected, which failed the whole compile. They stay unfused,
// with a remark naming the element type; the IR is untouched.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @i3_codes(
// IR-NOT:     w4a16.fused_matmul
// IR:         linalg.matmul
func.func @i3_codes(%x: tensor<4x256xf16>, %q: tensor<256x16xi3>, %s: tensor<2x16xf16>) -> tensor<4x16xf16> {
  %c4 = arith.constant 4.0 : f16
  %c0 = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x16xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>,
                                        affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<256x16xi3>, tensor<2x16xf16>) outs(%e : tensor<256x16xf16>) {
  ^bb0(%c: i3, %sc: f16, %o: f16):
    %i = arith.extui %c : i3 to i32
    %f = arith.uitofp %i : i32 to f16
    %z = arith.subf %f, %c4 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x16xf16>
  %ey = tensor.empty() : tensor<4x16xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x16xf16>) -> tensor<4x16xf16>
  // CHECK: {{.*}}codes-narrower-than-4-bits.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: i3 codes: the fused op stores codes as i4 or i8 elements or i32 words (codes narrower than 4 bits are not supported)
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x16xf16>) outs(%f0 : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %y : tensor<4x16xf16>
}

// -----

// 2-bit codes, signed (sign-extended), the form of a ternary or 2-bit checkpoint.
// IR-LABEL: func.func @i2_codes(
// IR-NOT:     w4a16.fused_matmul
// IR:         linalg.matmul
func.func @i2_codes(%x: tensor<4x256xf16>, %q: tensor<16x256xi2>, %s: tensor<16x2xf16>) -> tensor<4x16xf16> {
  %c0 = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k floordiv 128)>,
                                        affine_map<(n, k) -> (n, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<16x256xi2>, tensor<16x2xf16>) outs(%e : tensor<16x256xf16>) {
  ^bb0(%c: i2, %sc: f16, %o: f16):
    %f = arith.sitofp %c : i2 to f16
    %r = arith.mulf %f, %sc : f16
    linalg.yield %r : f16
  } -> tensor<16x256xf16>
  %ey = tensor.empty() : tensor<4x16xf16>
  %f0 = linalg.fill ins(%c0 : f16) outs(%ey : tensor<4x16xf16>) -> tensor<4x16xf16>
  // CHECK: {{.*}}codes-narrower-than-4-bits.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: i2 codes: the fused op stores codes as i4 or i8 elements or i32 words (codes narrower than 4 bits are not supported)
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<4x256xf16>, tensor<16x256xf16>) outs(%f0 : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %y : tensor<4x16xf16>
}
// CHECK-NOT: remark:
