// --w4a16-explain: K is dynamic (x (?, ?), qweight (?, N)).
// The remark is located at the matmul op (line and column of the op) and the IR is left unfused. Where K is
// dynamic only because a tensor.cast erased the operands' static sizes (torch-mlir's casts to ?x?), the remark says
// so, and that --canonicalize folds the casts (it used to say only "dynamic K").
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @f(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @f(%x: tensor<?x?xf16>, %qweight: tensor<?x11008xi32>, %scales: tensor<?x11008xf16>) -> tensor<?x11008xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %kdim = tensor.dim %x, %c1 : tensor<?x?xf16>
  %de = tensor.empty(%kdim) : tensor<?x11008xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<?x11008xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<?x11008xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<?x11008xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<?x11008xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %ae = tensor.empty(%m) : tensor<?x11008xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ae : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  // CHECK: {{.*}}dynamic-k.mlir:[[@LINE+1]]:9: remark: w4a16: not fused: {{.*}}dynamic K
  %mm = linalg.matmul ins(%x, %deq : tensor<?x?xf16>, tensor<?x11008xf16>) outs(%acc : tensor<?x11008xf16>) -> tensor<?x11008xf16>
  return %mm : tensor<?x11008xf16>
}

// -----

// IR-LABEL: func.func @cast_to_dynamic(
// IR-NOT:    w4a16.fused_matmul
func.func @cast_to_dynamic(%x: tensor<?x256xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<?x64xf16> {
  %zero = arith.constant 0.0 : f16
  %c8 = arith.constant 8.0 : f16
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>,
                                        affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<256x64xi4>, tensor<2x64xf16>) outs(%e : tensor<256x64xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %f = arith.uitofp %c : i4 to f16
    %z = arith.subf %f, %c8 : f16
    %r = arith.mulf %z, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %wd = tensor.cast %w : tensor<256x64xf16> to tensor<?x?xf16>
  %xd = tensor.cast %x : tensor<?x256xf16> to tensor<?x?xf16>
  %m = tensor.dim %xd, %i0 : tensor<?x?xf16>
  %n = tensor.dim %wd, %i1 : tensor<?x?xf16>
  %ey = tensor.empty(%m, %n) : tensor<?x?xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<?x?xf16>) -> tensor<?x?xf16>
  // CHECK: {{.*}}dynamic-k.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: dynamic K (K must be static): an operand's static sizes are cast away by tensor.cast (--canonicalize folds such casts)
  %y = linalg.matmul ins(%xd, %wd : tensor<?x?xf16>, tensor<?x?xf16>) outs(%acc : tensor<?x?xf16>) -> tensor<?x?xf16>
  %ys = tensor.cast %y : tensor<?x?xf16> to tensor<?x64xf16>
  return %ys : tensor<?x64xf16>
}
// CHECK-NOT: remark:
