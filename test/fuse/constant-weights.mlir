// Checkpoints embedded in the IR: the codes, scales (and zero points, bias) as constants rather than arguments.
// torch-mlir's FX importer writes parameters that are not lifted as `arith.constant dense_resource<...>` (printed
// `dense_resource<__elided__>` when large); a splat is what a placeholder checkpoint or a frontend's constant folding
// leaves. The fused op takes the constants as its operands (compiled, they become read-only globals:
// examples/gptq_embedded.mlir runs end to end). Codes or scales folded to one value are still codes and scales: the
// matcher first takes tensor constants by value (a splat zero-point tensor of 8 is the symmetric form, no zero-point
// operand), and where that fails (nothing read as codes or as scales, or the zero points taken for the codes)
// evaluates again with tensor constants as tensors. Until session 32 a splat-code chain got neither a fusion nor a
// remark, and splat scales the remark "no scale".
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t

// GPTQ-packed codes and scales as elided resources (torch-mlir FX importer).
// CHECK-LABEL: func.func @resources(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x4096xf16>
// CHECK-DAG:     %[[QW:.+]] = arith.constant dense_resource<__elided__> : tensor<512x4096xi32>
// CHECK-DAG:     %[[S:.+]] = arith.constant dense_resource<__elided__> : tensor<32x4096xf16>
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]])
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-NOT:     linalg.
func.func @resources(%x: tensor<?x4096xf16>) -> tensor<?x4096xf16> {
  %qweight = arith.constant dense_resource<__elided__> : tensor<512x4096xi32>
  %scales = arith.constant dense_resource<__elided__> : tensor<32x4096xf16>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf16>
  %e = tensor.empty() : tensor<4096x4096xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4096x4096xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %z = arith.constant 8.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<512x4096xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %f = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %scales[%g, %n] : tensor<32x4096xf16>
    %d = arith.subf %f, %z : f16
    %wv = arith.mulf %d, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<4096x4096xf16>
  %zero = arith.constant 0.0 : f16
  %ey = tensor.empty(%m) : tensor<?x4096xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<?x4096xf16>) -> tensor<?x4096xf16>
// REMARK: constant-weights.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul
  %y = linalg.matmul ins(%x, %w : tensor<?x4096xf16>, tensor<4096x4096xf16>) outs(%acc : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  return %y : tensor<?x4096xf16>
}

// -----

// i4 codes folded to one value: the splat constant is the fused op's weight.
// CHECK-LABEL: func.func @splat_codes(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x128xf16>, %[[S:[a-zA-Z0-9_]+]]: tensor<1x8xf16>
// CHECK:         %[[W:.+]] = arith.constant dense<5> : tensor<128x8xi4>
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]])
// CHECK-NOT:     linalg.
func.func @splat_codes(%x: tensor<2x128xf16>, %s: tensor<1x8xf16>) -> tensor<2x8xf16> {
  %w = arith.constant dense<5> : tensor<128x8xi4>
  %e0 = tensor.empty() : tensor<128x8xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<128x8xi4>, tensor<1x8xf16>) outs(%e0 : tensor<128x8xf16>) {
  ^bb0(%q: i4, %sc: f16, %out: f16):
    %f = arith.uitofp %q : i4 to f16
    %c8 = arith.constant 8.0 : f16
    %m = arith.subf %f, %c8 : f16
    %r = arith.mulf %m, %sc : f16
    linalg.yield %r : f16
  } -> tensor<128x8xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<2x8xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e3 : tensor<2x8xf16>) -> tensor<2x8xf16>
// REMARK: constant-weights.mlir:[[@LINE+1]]:9: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
  %mm = linalg.matmul ins(%x, %wd : tensor<2x128xf16>, tensor<128x8xf16>) outs(%z : tensor<2x8xf16>) -> tensor<2x8xf16>
  return %mm : tensor<2x8xf16>
}

// -----

// A splat zero-point tensor of 8 beside runtime codes: the symmetric form, no zero-point operand.
// CHECK-LABEL: func.func @splat_zero_points(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x4096xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<4096x4096xi4>, %[[S:[a-zA-Z0-9_]+]]: tensor<32x4096xf16>
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
func.func @splat_zero_points(%x: tensor<2x4096xf16>, %w: tensor<4096x4096xi4>, %s: tensor<32x4096xf16>) -> tensor<2x4096xf16> {
  %z = arith.constant dense<8> : tensor<32x4096xi4>
  %e0 = tensor.empty() : tensor<4096x4096xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w, %s, %z : tensor<4096x4096xi4>, tensor<32x4096xf16>, tensor<32x4096xi4>) outs(%e0 : tensor<4096x4096xf16>) {
  ^bb0(%q: i4, %sc: f16, %zz: i4, %out: f16):
    %qi = arith.extui %q : i4 to i32
    %zi = arith.extui %zz : i4 to i32
    %d = arith.subi %qi, %zi : i32
    %f = arith.sitofp %d : i32 to f16
    %r = arith.mulf %f, %sc : f16
    linalg.yield %r : f16
  } -> tensor<4096x4096xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<2x4096xf16>
  %zz0 = linalg.fill ins(%cst : f16) outs(%e3 : tensor<2x4096xf16>) -> tensor<2x4096xf16>
// REMARK: constant-weights.mlir:[[@LINE+1]]:9: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
  %mm = linalg.matmul ins(%x, %wd : tensor<2x4096xf16>, tensor<4096x4096xf16>) outs(%zz0 : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  return %mm : tensor<2x4096xf16>
}

// -----

// i8 codes folded to one value but used whole (no mask): the codes-width rule, as for an argument (this chain
// used to get no remark at all).
// CHECK-LABEL: func.func @splat_wide_codes(
// CHECK-NOT:     w4a16.fused_matmul
func.func @splat_wide_codes(%x: tensor<2x128xf16>, %s: tensor<1x8xf16>) -> tensor<2x8xf16> {
  %w = arith.constant dense<17> : tensor<128x8xi8>
  %e0 = tensor.empty() : tensor<128x8xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<128x8xi8>, tensor<1x8xf16>) outs(%e0 : tensor<128x8xf16>) {
  ^bb0(%q: i8, %sc: f16, %out: f16):
    %f = arith.uitofp %q : i8 to f16
    %c8 = arith.constant 8.0 : f16
    %m = arith.subf %f, %c8 : f16
    %r = arith.mulf %m, %sc : f16
    linalg.yield %r : f16
  } -> tensor<128x8xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<2x8xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e3 : tensor<2x8xf16>) -> tensor<2x8xf16>
// REMARK: constant-weights.mlir:[[@LINE+1]]:9: remark: w4a16: not fused: codes wider than 4 bits: the i8 code element is used whole
  %mm = linalg.matmul ins(%x, %wd : tensor<2x128xf16>, tensor<128x8xf16>) outs(%z : tensor<2x8xf16>) -> tensor<2x8xf16>
  return %mm : tensor<2x8xf16>
}

// -----

// Splat packed codes beside a runtime zero-point tensor (GPTQ's qzeros): the first evaluation, the splat taken by
// value, reads qzeros as the only integer tensor and takes it for the codes; the second reads the splat as the codes.
// CHECK-LABEL: func.func @splat_codes_runtime_zeros(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x256xf16>, %[[S:[a-zA-Z0-9_]+]]: tensor<2x64xf16>, %[[QZ:[a-zA-Z0-9_]+]]: tensor<2x8xi32>
// CHECK:         %[[QW:.+]] = arith.constant dense<305419896> : tensor<32x64xi32>
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[QW]], %[[S]], %[[QZ]])
// CHECK-SAME:      weight_layout = "packed_k8_n"
// CHECK-SAME:      zero_point_layout = "packed_g_n8"
func.func @splat_codes_runtime_zeros(%x: tensor<?x256xf16>, %scales: tensor<2x64xf16>, %qzeros: tensor<2x8xi32>) -> tensor<?x64xf16> {
  %qweight = arith.constant dense<305419896> : tensor<32x64xi32>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %e = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<256x64xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %g = arith.divui %k, %c128 : index
    %nw = arith.divui %n, %c8 : index
    %zword = tensor.extract %qzeros[%g, %nw] : tensor<2x8xi32>
    %nl = arith.remui %n, %c8 : index
    %nl32 = arith.index_cast %nl : index to i32
    %zsh = arith.muli %nl32, %c4 : i32
    %zv = arith.shrui %zword, %zsh : i32
    %z = arith.andi %zv, %c15 : i32
    %d = arith.subi %code, %z : i32
    %f = arith.sitofp %d : i32 to f16
    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>
    %wv = arith.mulf %f, %sc : f16
    linalg.yield %wv : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %ey = tensor.empty(%m) : tensor<?x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ey : tensor<?x64xf16>) -> tensor<?x64xf16>
  // REMARK: constant-weights.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(packed_k8_n, scales g_n, zero points packed_g_n8 tensor<2x8xi32>) -> matmul
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>
  return %y : tensor<?x64xf16>
}

// -----

// Scales folded to one value, shaped (K/G, N): the splat is the op's scales.
// CHECK-LABEL: func.func @splat_scales(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x4096xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<4096x4096xi4>
// CHECK:         %[[S:.+]] = arith.constant dense<1.000210e-02> : tensor<32x4096xf16>
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[W]], %[[S]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
func.func @splat_scales(%x: tensor<2x4096xf16>, %w: tensor<4096x4096xi4>) -> tensor<2x4096xf16> {
  %s = arith.constant dense<0.01> : tensor<32x4096xf16>
  %e0 = tensor.empty() : tensor<4096x4096xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<4096x4096xi4>, tensor<32x4096xf16>) outs(%e0 : tensor<4096x4096xf16>) {
  ^bb0(%q: i4, %sc: f16, %out: f16):
    %f = arith.uitofp %q : i4 to f16
    %c8 = arith.constant 8.0 : f16
    %m = arith.subf %f, %c8 : f16
    %r = arith.mulf %m, %sc : f16
    linalg.yield %r : f16
  } -> tensor<4096x4096xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<2x4096xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e3 : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  // REMARK: constant-weights.mlir:[[@LINE+1]]:9: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul
  %mm = linalg.matmul ins(%x, %wd : tensor<2x4096xf16>, tensor<4096x4096xf16>) outs(%z : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  return %mm : tensor<2x4096xf16>
}

// -----

// One constant scale for the whole weight, as a (1, 1) tensor: per-tensor quantisation, not fused, named as such.
// CHECK-LABEL: func.func @constant_per_tensor_scale(
// CHECK-NOT:     w4a16.fused_matmul
func.func @constant_per_tensor_scale(%x: tensor<2x4096xf16>, %w: tensor<4096x4096xi4>) -> tensor<2x4096xf16> {
  %s = arith.constant dense<0.01> : tensor<1x1xf16>
  %e0 = tensor.empty() : tensor<4096x4096xf16>
  %wd = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k, n)>, affine_map<(k, n) -> (0, 0)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<4096x4096xi4>, tensor<1x1xf16>) outs(%e0 : tensor<4096x4096xf16>) {
  ^bb0(%q: i4, %sc: f16, %out: f16):
    %f = arith.uitofp %q : i4 to f16
    %c8 = arith.constant 8.0 : f16
    %m = arith.subf %f, %c8 : f16
    %r = arith.mulf %m, %sc : f16
    linalg.yield %r : f16
  } -> tensor<4096x4096xf16>
  %cst = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<2x4096xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e3 : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  // REMARK: constant-weights.mlir:[[@LINE+1]]:9: remark: w4a16: not fused: one scale for the whole weight (per-tensor quantisation, no K groups)
  %mm = linalg.matmul ins(%x, %wd : tensor<2x4096xf16>, tensor<4096x4096xf16>) outs(%z : tensor<2x4096xf16>) -> tensor<2x4096xf16>
  return %mm : tensor<2x4096xf16>
}
