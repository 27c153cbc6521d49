// A tensor.cast between the dequantisation and the matmul (frontends insert them to reconcile static and
// dynamic spellings of one shape) is a view like a reshape: the chain fuses through it. It used to end the
// matcher's walk with no remark at all.
//
// RUN: w4a16-opt --w4a16-fuse %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @cast_weight(
// CHECK-NEXT:    %[[R:.+]] = "w4a16.fused_matmul"(%arg0, %arg1, %arg2)
// CHECK-SAME:      weight_layout = "n_k"
// CHECK-NEXT:    return %[[R]]
// REMARK: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul
func.func @cast_weight(%x: tensor<?x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x2xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k floordiv 128)>,
                                        affine_map<(n, k) -> (n, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<64x256xi4>, tensor<64x2xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%c: i4, %scale: f16, %out: f16):
    %cf = arith.uitofp %c : i4 to f16
    %z = arith.constant 8.0 : f16
    %d = arith.subf %cf, %z : f16
    %r = arith.mulf %d, %scale : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %wc = tensor.cast %w : tensor<64x256xf16> to tensor<64x256xf16>
  %init = tensor.empty(%m) : tensor<?x64xf16>
  %filled = linalg.fill ins(%zero : f16) outs(%init : tensor<?x64xf16>) -> tensor<?x64xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wc : tensor<?x256xf16>, tensor<64x256xf16>) outs(%filled : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}
