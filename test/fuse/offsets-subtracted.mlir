// Offsets subtracted: W = (code - z) * scale - m. optimum-quanto dequantises its qint4 weights with a float shift
// as scale * q - shift (QBitsDequantizer: `dqt = t._scale * data; dqt -= shift`), and GGUF's K-quants subtract
// their block minimum (d * q - m; their d and m are themselves products, test/fuse/k-three-loops.mlir). The op
// takes them as offsets with offsets_subtracted (the runtime negates them once when it prepares the weight).
// The formula is what decides, not how the body spells it: a subf, an addf of a negf, an fma, a negated difference. Until this form was
// taken these chains stayed unfused with "an offset subtracted ...; the op adds offsets". Look-alike: an offset
// that is subtracted but multiplied by the code (not an offset at all).
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: w4a16-opt --w4a16-fuse --w4a16-verify --split-input-file %s -o /dev/null

// Hand-written from the formula, plain per-(group, column) tensors of GGUF's K-quant form (z = 0).
// CHECK-LABEL: func.func @minimum_subtracted(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>, %[[Q:[a-zA-Z0-9_]+]]: tensor<256x64xi4>, %[[D:[a-zA-Z0-9_]+]]: tensor<8x64xf16>,
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: tensor<8x64xf16>)
// CHECK:         "w4a16.fused_matmul"(%[[X]], %[[Q]], %[[D]], %[[M]])
// CHECK-SAME:      group_size = 32 : i64, offsets_subtracted,
// CHECK-SAME:      zero_point = 0.000000e+00 : f64, zero_point_layout = "g_n", zero_points_are_offsets
// CHECK-NOT:     linalg.matmul
// REMARK: offsets-subtracted.mlir:[[# @LINE + 18]]:8: remark: w4a16: fused as dequant(k_n, scales g_n, group 32, offsets subtracted g_n tensor<8x64xf16>, zero point 0) -> matmul
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
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// The shift first and added negated, (code - 8) * scale + (-m), an (N, K/G) layout, group 128: the same form.
// CHECK-LABEL: func.func @negated_shift_added(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      offsets_subtracted
// CHECK-SAME:      scales_layout = "n_g", weight_layout = "n_k"
// CHECK-SAME:      zero_point_layout = "n_g", zero_points_are_offsets
// CHECK-NOT:     zero_point =
// CHECK-NOT:     linalg.matmul
// REMARK: offsets-subtracted.mlir:[[# @LINE + 20]]:8: remark: w4a16: fused as dequant(n_k, scales n_g, offsets subtracted n_g tensor<64x2xf16>, zero point 8) -> matmul
#nk = affine_map<(n, k) -> (n, k)>
#ng = affine_map<(n, k) -> (n, k floordiv 128)>
func.func @negated_shift_added(%x: tensor<4x256xf16>, %q: tensor<64x256xi4>, %s: tensor<64x2xf16>,
                               %shift: tensor<64x2xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [#nk, #ng, #ng, #nk], iterator_types = ["parallel", "parallel"]}
      ins(%q, %shift, %s : tensor<64x256xi4>, tensor<64x2xf16>, tensor<64x2xf16>) outs(%de : tensor<64x256xf16>) {
  ^bb0(%code: i4, %sh: f16, %scale: f16, %out: f16):
    %eight = arith.constant 8.0 : f16
    %qf = arith.uitofp %code : i4 to f16
    %c = arith.subf %qf, %eight : f16
    %scaled = arith.mulf %scale, %c : f16
    %neg = arith.negf %sh : f16
    %v = arith.addf %neg, %scaled : f16
    linalg.yield %v : f16
  } -> tensor<64x256xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<4x256xf16>, tensor<64x256xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// Look-alike: q * scale - q * m subtracts a second scale, not an offset.
// CHECK-LABEL: func.func @code_times_offset(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: offsets-subtracted.mlir:[[# @LINE + 19]]:8: remark: w4a16: not fused: reads two float tensors, neither of them a zero point subtracted from the codes or an offset added or subtracted
#codes = affine_map<(k, n) -> (k, n)>
#group = affine_map<(k, n) -> (k floordiv 32, n)>
func.func @code_times_offset(%x: tensor<4x256xf16>, %q: tensor<256x64xi4>, %d: tensor<8x64xf16>,
                             %m: tensor<8x64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#codes, #group, #group, #codes], iterator_types = ["parallel", "parallel"]}
      ins(%q, %d, %m : tensor<256x64xi4>, tensor<8x64xf16>, tensor<8x64xf16>) outs(%de : tensor<256x64xf16>) {
  ^bb0(%code: i4, %scale: f16, %min: f16, %out: f16):
    %wide = arith.extui %code : i4 to i32
    %qf = arith.uitofp %wide : i32 to f16
    %scaled = arith.mulf %qf, %scale : f16
    %qm = arith.mulf %qf, %min : f16
    %v = arith.subf %scaled, %qm : f16
    linalg.yield %v : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// The same formula spelled as math.fma(q, d, -m), and as -(m - d * q): both fuse alike.
// CHECK-LABEL: func.func @fma_form(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      offsets_subtracted
// CHECK-NOT:     linalg.matmul
// REMARK: offsets-subtracted.mlir:[[# @LINE + 18]]:8: remark: w4a16: fused as dequant(k_n, scales g_n, group 32, offsets subtracted g_n tensor<8x64xf16>, zero point 0) -> matmul
#codes = affine_map<(k, n) -> (k, n)>
#group = affine_map<(k, n) -> (k floordiv 32, n)>
func.func @fma_form(%x: tensor<4x256xf16>, %q: tensor<256x64xi4>, %d: tensor<8x64xf16>,
                              %m: tensor<8x64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#codes, #group, #group, #codes], iterator_types = ["parallel", "parallel"]}
      ins(%q, %d, %m : tensor<256x64xi4>, tensor<8x64xf16>, tensor<8x64xf16>) outs(%de : tensor<256x64xf16>) {
  ^bb0(%code: i4, %scale: f16, %min: f16, %out: f16):
    %wide = arith.extui %code : i4 to i32
    %qf = arith.uitofp %wide : i32 to f16
    %nm = arith.negf %min : f16
    %v = math.fma %qf, %scale, %nm : f16
    linalg.yield %v : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// CHECK-LABEL: func.func @negated_difference(
// CHECK:         "w4a16.fused_matmul"
// CHECK-SAME:      offsets_subtracted
// CHECK-NOT:     linalg.matmul
// REMARK: offsets-subtracted.mlir:[[# @LINE + 19]]:8: remark: w4a16: fused as dequant(k_n, scales g_n, group 32, offsets subtracted g_n tensor<8x64xf16>, zero point 0) -> matmul
#codes = affine_map<(k, n) -> (k, n)>
#group = affine_map<(k, n) -> (k floordiv 32, n)>
func.func @negated_difference(%x: tensor<4x256xf16>, %q: tensor<256x64xi4>, %d: tensor<8x64xf16>,
                              %m: tensor<8x64xf16>) -> tensor<4x64xf16> {
  %de = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [#codes, #group, #group, #codes], iterator_types = ["parallel", "parallel"]}
      ins(%q, %d, %m : tensor<256x64xi4>, tensor<8x64xf16>, tensor<8x64xf16>) outs(%de : tensor<256x64xf16>) {
  ^bb0(%code: i4, %scale: f16, %min: f16, %out: f16):
    %wide = arith.extui %code : i4 to i32
    %qf = arith.uitofp %wide : i32 to f16
    %scaled = arith.mulf %scale, %qf : f16
    %diff = arith.subf %min, %scaled : f16
    %v = arith.negf %diff : f16
    linalg.yield %v : f16
  } -> tensor<256x64xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%acc : tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
