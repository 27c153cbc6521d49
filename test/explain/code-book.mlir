// --w4a16-explain: 4-bit codes that index a constant table of values (a code book: MXFP4's E2M1 values as
// sharktank's mmt_block_scaled_fp4 template decodes them, nod-ai/shark-ai,
// sharktank/sharktank/kernels/templates/mmt_block_scaled_fp4.mlir; bitsandbytes' NF4 works the same way)
// are not (code - z) * scale: the chain stays unfused, and the remark says it is a table, not a gather.
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @fp4_blocks(
// IR-NOT:     w4a16.fused_matmul
func.func @fp4_blocks(%a: tensor<?x256xf16>, %d: tensor<64x8xf16>, %qs: tensor<64x8x32xi8>) -> tensor<?x64xf16> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x256xf16>
  %e2m1 = arith.constant dense<[0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
                                -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]> : tensor<16xf16>
  %grouped = tensor.empty() : tensor<64x8x32xf16>
  %w = linalg.generic {
      indexing_maps = [affine_map<(n, g, i) -> (n, g)>, affine_map<(n, g, i) -> (n, g, i)>,
                       affine_map<(n, g, i) -> (n, g, i)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%d, %qs : tensor<64x8xf16>, tensor<64x8x32xi8>) outs(%grouped : tensor<64x8x32xf16>) {
  ^bb0(%scale: f16, %q: i8, %out: f16):
    %qi = arith.extui %q : i8 to i32
    %idx = arith.index_cast %qi : i32 to index
    %v = tensor.extract %e2m1[%idx] : tensor<16xf16>
    %r = arith.mulf %v, %scale : f16
    linalg.yield %r : f16
  } -> tensor<64x8x32xf16>
  %ablocks = tensor.expand_shape %a [[0], [1, 2]] output_shape [%m, 8, 32] : tensor<?x256xf16> into tensor<?x8x32xf16>
  %init = tensor.empty(%m) : tensor<?x64xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  // CHECK: {{.*}}code-book.mlir:[[@LINE+1]]:10: remark: w4a16: not fused: dequantisation: data index a constant table (a code book such as NF4 or FP4
  %acc = linalg.generic {
      indexing_maps = [affine_map<(m, n, g, i) -> (m, g, i)>, affine_map<(m, n, g, i) -> (n, g, i)>,
                       affine_map<(m, n, g, i) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%ablocks, %w : tensor<?x8x32xf16>, tensor<64x8x32xf16>) outs(%filled : tensor<?x64xf32>) {
  ^bb0(%x: f16, %wv: f16, %o: f32):
    %xf = arith.extf %x : f16 to f32
    %wf = arith.extf %wv : f16 to f32
    %p = arith.mulf %xf, %wf : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  %h0 = tensor.empty(%m) : tensor<?x64xf16>
  %h = linalg.copy ins(%acc : tensor<?x64xf32>) outs(%h0 : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %h : tensor<?x64xf16>
}
// CHECK-NOT: remark:
