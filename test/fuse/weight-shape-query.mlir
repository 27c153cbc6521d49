// A shape query (tensor.dim) of the dequantised weight is no use of its elements: the chain fuses, and the query
// reads the dequant generic's init instead, so the dequantised weight is not kept alive (upstream's reshape
// propagation leaves such queries; phi3-mlp.mlir after --linalg-fuse-elementwise-ops has one).
//
// RUN: w4a16-opt --w4a16-fuse %s | FileCheck %s
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --split-input-file %S/phi3-mlp.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=PHI3
// PHI3-COUNT-2: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points packed_g_n8

#id3 = affine_map<(b, k, n) -> (b, k, n)>
#s3 = affine_map<(b, k, n) -> (k floordiv 128, n)>
#q3 = affine_map<(b, k, n) -> (k, n)>
// CHECK-LABEL: func.func @weight_dim_queried(
// CHECK-NOT:     linalg.generic
// CHECK:         %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?x256x128xf16>
// CHECK:         %[[D:.+]] = tensor.dim %[[E]], %{{.+}} : tensor<?x256x128xf16>
// CHECK-NOT:     linalg.generic
// CHECK:         "w4a16.fused_matmul"
// CHECK-NOT:     linalg.generic
// CHECK:         return %{{.+}}, %[[D]]
func.func @weight_dim_queried(%x: tensor<?x8x256xf16>, %q: tensor<256x128xi4>, %s: tensor<2x128xf16>) -> (tensor<?x8x128xf16>, index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %b = tensor.dim %x, %c0 : tensor<?x8x256xf16>
  %e0 = tensor.empty(%b) : tensor<?x256x128xf16>
  %w = linalg.generic {indexing_maps = [#q3, #s3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q, %s : tensor<256x128xi4>, tensor<2x128xf16>) outs(%e0 : tensor<?x256x128xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    linalg.yield %3 : f16
  } -> tensor<?x256x128xf16>
  %wb = tensor.dim %w, %c0 : tensor<?x256x128xf16>
  %e = tensor.empty(%b) : tensor<?x8x128xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<?x8x128xf16>) -> tensor<?x8x128xf16>
  %y = linalg.batch_matmul ins(%x, %w : tensor<?x8x256xf16>, tensor<?x256x128xf16>) outs(%f : tensor<?x8x128xf16>) -> tensor<?x8x128xf16>
  return %y, %wb : tensor<?x8x128xf16>, index
}
