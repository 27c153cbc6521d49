// --w4a16-explain: contractions whose body computes the weight (test/fuse/weight-in-contraction-body.mlir) but not
// as acc + x * w with an x of its own: a "weight" that reads x itself, an "x" scaled per output column (u[n] is no
// part of x: no (M, K) tensor holds it), an x expression that reads the loop index, and one left in f32 (the fused
// op would round it to f16 first). None fuses; each remark names the rule. A one-input integer reduction gets none.
// (An elementwise x expression of float inputs over x's loops fuses: test/fuse/x-in-contraction-body.mlir.)
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s

#mx = affine_map<(m, n, k) -> (m, k)>
#mq = affine_map<(m, n, k) -> (k, n)>
#ms = affine_map<(m, n, k) -> (k floordiv 128, n)>
#mo = affine_map<(m, n, k) -> (m, n)>
func.func @weight_reads_x(%x: tensor<4x256xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  // CHECK: {{.*}}weight-in-body.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: reads integer codes but is not a multiply-accumulate contraction
  %y = linalg.generic {indexing_maps = [#mx, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %q, %s : tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) outs(%f : tensor<4x64xf16>) {
  ^bb0(%a: f16, %c: i4, %sc: f16, %acc: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %xw = arith.mulf %a, %3 : f16
    %4 = arith.mulf %a, %xw : f16
    %5 = arith.addf %acc, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

#mx = affine_map<(m, n, k) -> (m, k)>
#mv = affine_map<(m, n, k) -> (n)>
#mq = affine_map<(m, n, k) -> (k, n)>
#ms = affine_map<(m, n, k) -> (k floordiv 128, n)>
#mo = affine_map<(m, n, k) -> (m, n)>
func.func @x_scaled_per_n(%x: tensor<4x256xf16>, %v: tensor<64xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  // CHECK: {{.*}}weight-in-body.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: reads integer codes but is not a multiply-accumulate contraction: x computed in its body reads inputs at loops other than x's (no (M, K) tensor holds it)
  %y = linalg.generic {indexing_maps = [#mx, #mv, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %v, %q, %s : tensor<4x256xf16>, tensor<64xf16>, tensor<256x64xi4>, tensor<2x64xf16>) outs(%f : tensor<4x64xf16>) {
  ^bb0(%a: f16, %vn: f16, %c: i4, %sc: f16, %acc: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %xs = arith.mulf %a, %vn : f16
    %4 = arith.mulf %xs, %3 : f16
    %5 = arith.addf %acc, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

#mx = affine_map<(m, n, k) -> (m, k)>
#mq = affine_map<(m, n, k) -> (k, n)>
#ms = affine_map<(m, n, k) -> (k floordiv 128, n)>
#mo = affine_map<(m, n, k) -> (m, n)>
func.func @x_times_loop_index(%x: tensor<4x256xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  // CHECK: {{.*}}weight-in-body.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: reads integer codes but is not a multiply-accumulate contraction: x computed in its body reads a loop index, a tensor.extract or an op other than arith and math
  %y = linalg.generic {indexing_maps = [#mx, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %q, %s : tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) outs(%f : tensor<4x64xf16>) {
  ^bb0(%a: f16, %c: i4, %sc: f16, %acc: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %k = linalg.index 2 : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f16
    %xs = arith.mulf %a, %kf : f16
    %4 = arith.mulf %xs, %3 : f16
    %5 = arith.addf %acc, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// silu(x) computed in f32 in the body and multiplied by the weight in f32, never rounded to 16 bits: the fused op
// would round x to f16 first, which the body does not.
#mx = affine_map<(m, n, k) -> (m, k)>
#mq = affine_map<(m, n, k) -> (k, n)>
#ms = affine_map<(m, n, k) -> (k floordiv 128, n)>
#mo = affine_map<(m, n, k) -> (m, n)>
func.func @x_expression_in_f32(%x: tensor<4x256xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf32> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: {{.*}}weight-in-body.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: reads integer codes but is not a multiply-accumulate contraction: x computed in its body is f32, not rounded to f16 or bf16 before the product
  %y = linalg.generic {indexing_maps = [#mx, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %q, %s : tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) outs(%f : tensor<4x64xf32>) {
  ^bb0(%a: f16, %c: i4, %sc: f16, %acc: f32):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %w = arith.extf %3 : f16 to f32
    %af = arith.extf %a : f16 to f32
    %n = arith.negf %af : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %sig = arith.divf %one, %d : f32
    %sx = arith.mulf %af, %sig : f32
    %4 = arith.mulf %sx, %w : f32
    %5 = arith.addf %acc, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// A reduction of one integer input (a row sum of int8 data) is no candidate: no remark.
func.func @integer_row_sum(%a: tensor<4x256xi8>) -> tensor<4xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %r = linalg.reduce ins(%a : tensor<4x256xi8>) outs(%f : tensor<4xi32>) dimensions = [1]
    (%in: i8, %acc: i32) {
      %w = arith.extsi %in : i8 to i32
      %s = arith.addi %acc, %w : i32
      linalg.yield %s : i32
    }
  return %r : tensor<4xi32>
}
// CHECK-NOT: remark:
