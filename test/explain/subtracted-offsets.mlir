// --w4a16-explain: GGUF's K-quants subtract their block minimum, W = d * q - m (Q4_K: d and m are themselves
// products, test/fuse/k-three-loops.mlir; here plain per-(group, column) tensors, hand-written from the formula).
// The op adds offsets (W = d * q + m fuses, test/fuse/k-three-loops.mlir's first case); a subtracted one would need
// a negated copy of m computed per call, so the chain stays unfused and the remark names the form.
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @minimum_subtracted(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
#codes = affine_map<(k, n) -> (k, n)>
#group = affine_map<(k, n) -> (k floordiv 32, n)>
func.func @minimum_subtracted(%x: tensor<4x256xf16>, %q: tensor<256x64xi4>, %d: tensor<8x64xf16>,
                              %m: tensor<8x64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#codes, #group, #group, #codes], iterator_types = ["parallel", "parallel"]}
      ins(%q, %d, %m : tensor<256x64xi4>, tensor<8x64xf16>, tensor<8x64xf16>) outs(%de : tensor<256x64xf16>) {
  ^bb0(%code: i4, %scale: f16, %min: f16, %out: f16):
    %wide = arith.extui %code : i4 to i32
    %qf = arith.uitofp %wide : i32 to f16
    %scaled = arith.mulf %qf, %scale : f16
    %v = arith.subf %scaled, %min : f16
    linalg.yield %v : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  // CHECK: {{.*}}subtracted-offsets.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: an offset subtracted ((code - z) * scale - m, as GGUF's K-quants subtract their minimum); the op adds offsets
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
// CHECK-NOT: remark:
