// --w4a16-explain: GGUF Q4_K's formula (as sharktank writes it): 32-element blocks inside 256-element super-blocks,
// W = q * (d[sb, n] * sc[g, n]) - dmin[sb, n] * m[g, n], the block's scale and min each the product of a super-block
// factor and a block factor. The fused op takes one scale tensor and at most one zero-point or offset tensor, and the
// matcher does not yet compute a (group, column) table from several tensors ahead of it, so the chain stays unfused
// with a remark counting the tensors the weight element reads. The probe IR is hand-written from the formula.
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @q4_k_products(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @q4_k_products(%x: tensor<4x512xf16>, %qweight: tensor<64x64xi32>, %sc: tensor<16x64xf16>,
                         %mins: tensor<16x64xf16>, %d: tensor<2x64xf16>,
                         %dmin: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<512x64xf16>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<512x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<64x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %q = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %c32 : index
    %sb = arith.divui %g, %c8 : index
    %block_scale = tensor.extract %sc[%g, %n] : tensor<16x64xf16>
    %block_min = tensor.extract %mins[%g, %n] : tensor<16x64xf16>
    %super_scale = tensor.extract %d[%sb, %n] : tensor<2x64xf16>
    %super_min = tensor.extract %dmin[%sb, %n] : tensor<2x64xf16>
    %scale = arith.mulf %super_scale, %block_scale : f16
    %min = arith.mulf %super_min, %block_min : f16
    %qs = arith.mulf %q, %scale : f16
    %wv = arith.subf %qs, %min : f16
    linalg.yield %wv : f16
  } -> tensor<512x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  // CHECK: {{.*}}derived-scales.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: weight element reads 1 integer and 4 float tensors (expected codes, scales and at most one zero-point tensor)
  %y = linalg.matmul ins(%x, %w : tensor<4x512xf16>, tensor<512x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
// CHECK-NOT: remark:
