// --w4a16-explain: a contraction written as an elementwise product and a separate sum over k -- torch-mlir's
// TorchToLinalg lowering of torch.sum(x.unsqueeze(1) * W, dim=-1) with a dequantised W: a product generic over
// (M, N, K), then a reduction (a linalg.generic with a reduction loop, or linalg.reduce). The matcher reads
// contractions, so the chain stays unfused, but the remark names the rule and where the product is (until session
// 41 these were silent candidates: no remark at all). After upstream's linalg-fuse-elementwise-ops the same IR is
// one contraction, which fuses (third RUN line).
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t
// RUN: w4a16-opt --pass-pipeline='builtin.module(func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops))' --w4a16-fuse --split-input-file %s | FileCheck %s --check-prefix=FUSED

// IR-LABEL: func.func @product_then_generic_sum(
// IR-NOT:     w4a16.fused_matmul
// FUSED-LABEL: func.func @product_then_generic_sum(
// FUSED:         w4a16.fused_matmul
func.func @product_then_generic_sum(%x: tensor<?x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x8xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<64x256xi4>, tensor<64x8xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%a: i4, %b: f16, %o: f16):
    %ai = arith.extui %a : i4 to i32
    %af = arith.uitofp %ai : i32 to f16
    %zp = arith.constant 8.0 : f16
    %c = arith.subf %af, %zp : f16
    %r = arith.mulf %c, %b : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %ep = tensor.empty(%m) : tensor<?x64x256xf16>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %w : tensor<?x256xf16>, tensor<64x256xf16>) outs(%ep : tensor<?x64x256xf16>) {
  ^bb0(%xa: f16, %wa: f16, %oo: f16):
    %pp = arith.mulf %xa, %wa : f16
    linalg.yield %pp : f16
  } -> tensor<?x64x256xf16>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e2 : tensor<?x64xf16>) -> tensor<?x64xf16>
  // CHECK: split-contraction.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: sums the product ({{.*}}split-contraction.mlir:[[@LINE-7]]:8) of a dequantised weight and float data: a contraction split into product and sum; upstream's linalg-fuse-elementwise-ops joins them into one, which fuses
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%p : tensor<?x64x256xf16>) outs(%f : tensor<?x64xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %sum = arith.addf %in, %acc : f16
    linalg.yield %sum : f16
  } -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// IR-LABEL: func.func @product_then_reduce(
// IR-NOT:     w4a16.fused_matmul
// FUSED-LABEL: func.func @product_then_reduce(
// FUSED:         w4a16.fused_matmul
func.func @product_then_reduce(%x: tensor<?x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x8xf16>) -> tensor<?x64xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 floordiv 32)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<64x256xi4>, tensor<64x8xf16>) outs(%e : tensor<64x256xf16>) {
  ^bb0(%a: i4, %b: f16, %o: f16):
    %ai = arith.extui %a : i4 to i32
    %af = arith.uitofp %ai : i32 to f16
    %zp = arith.constant 8.0 : f16
    %c = arith.subf %af, %zp : f16
    %r = arith.mulf %c, %b : f16
    linalg.yield %r : f16
  } -> tensor<64x256xf16>
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %ep = tensor.empty(%m) : tensor<?x64x256xf16>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %w : tensor<?x256xf16>, tensor<64x256xf16>) outs(%ep : tensor<?x64x256xf16>) {
  ^bb0(%xa: f16, %wa: f16, %oo: f16):
    %pp = arith.mulf %xa, %wa : f16
    linalg.yield %pp : f16
  } -> tensor<?x64x256xf16>
  %e2 = tensor.empty(%m) : tensor<?x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e2 : tensor<?x64xf16>) -> tensor<?x64xf16>
  // CHECK: split-contraction.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: sums the product ({{.*}}split-contraction.mlir:[[@LINE-7]]:8) of a dequantised weight and float data: a contraction split into product and sum; upstream's linalg-fuse-elementwise-ops joins them into one, which fuses
  %y = linalg.reduce ins(%p : tensor<?x64x256xf16>) outs(%f : tensor<?x64xf16>) dimensions = [2]
    (%in: f16, %init: f16) {
      %sum = arith.addf %in, %init : f16
      linalg.yield %sum : f16
    }
  return %y : tensor<?x64xf16>
}
