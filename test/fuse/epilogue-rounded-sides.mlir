// Epilogue sides computed in f32 and rounded to f16 before they are added (a LoRA branch x A B computed in f32, a
// residual stream kept in f32 and rounded for the projection): the rounded tensor is the residual, as the IR adds
// it. Until session 43 the side was read through its truncf, so the f32 source stood for it and the chain stopped
// ("residual is f32, expected f16" although the IR adds an f16 tensor); found by session 43's whole-model probe.
// A bf16 side converted to f16 is the same case. A tensor added in f32 before y is rounded is an f32 residual, which
// the runtime does not take (look-alike).
// base(x) + lora(x) + c: the op takes one residual, so the chain takes the first add and stops at the second.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK-LABEL: func.func @residual_rounded_from_f32(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[R32:[a-zA-Z0-9_]+]]: tensor<4x64xf32>
// CHECK:         %[[R16:.+]] = linalg.generic {{.*}} ins(%[[R32]] : tensor<4x64xf32>)
// CHECK:           arith.truncf
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[X]], %{{.+}}, %{{.+}}, %[[R16]])
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y]]
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> residual
func.func @residual_rounded_from_f32(%x: tensor<4x256xf16>, %r32: tensor<4x64xf32>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %r16e = tensor.empty() : tensor<4x64xf16>
  %r16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r32 : tensor<4x64xf32>) outs(%r16e : tensor<4x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  %we = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %ye = tensor.empty() : tensor<4x64xf32>
  %zero = arith.constant 0.0 : f32
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%yf : tensor<4x64xf32>) -> tensor<4x64xf32>
  %he = tensor.empty() : tensor<4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x64xf32>) outs(%he : tensor<4x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  %oute = tensor.empty() : tensor<4x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h, %r16 : tensor<4x64xf16>, tensor<4x64xf16>) outs(%oute : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %t = arith.addf %a, %b : f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  return %out : tensor<4x64xf16>
}

// -----

// The same with a bf16 side rounded to f16 (through f32 in one generic): the f16 tensor is the residual. Until the
// side rule asked whether a view only widens, it was read through to its bf16 source ("residual is bf16").
// CHECK-LABEL: func.func @residual_rounded_from_bf16(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[RB:[a-zA-Z0-9_]+]]: tensor<4x64xbf16>
// CHECK:         %[[R16:.+]] = linalg.generic {{.*}} ins(%[[RB]] : tensor<4x64xbf16>)
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[X]], %{{.+}}, %{{.+}}, %[[R16]])
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y]]
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> residual
func.func @residual_rounded_from_bf16(%x: tensor<4x256xf16>, %r32: tensor<4x64xbf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %r16e = tensor.empty() : tensor<4x64xf16>
  %r16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r32 : tensor<4x64xbf16>) outs(%r16e : tensor<4x64xf16>) {
  ^bb0(%a: bf16, %o: f16):
    %w = arith.extf %a : bf16 to f32
    %t = arith.truncf %w : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  %we = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %ye = tensor.empty() : tensor<4x64xf32>
  %zero = arith.constant 0.0 : f32
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%yf : tensor<4x64xf32>) -> tensor<4x64xf32>
  %he = tensor.empty() : tensor<4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x64xf32>) outs(%he : tensor<4x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  %oute = tensor.empty() : tensor<4x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h, %r16 : tensor<4x64xf16>, tensor<4x64xf16>) outs(%oute : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %t = arith.addf %a, %b : f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  return %out : tensor<4x64xf16>
}


// -----

// CHECK-LABEL: func.func @residual_added_in_f32(
// CHECK-NOT:     w4a16.fused_matmul
// CHECK:         linalg.matmul
// CHECK:           arith.addf %{{.+}}, %{{.+}} : f32
// EXPLAIN: remark: w4a16: not fused: matmul result is f32, and the ops that truncate it to f16 are not a fused epilogue: residual is f32, expected f16 (x's type)
func.func @residual_added_in_f32(%x: tensor<4x256xf16>, %r32: tensor<4x64xf32>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %we = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %ye = tensor.empty() : tensor<4x64xf32>
  %zero = arith.constant 0.0 : f32
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%yf : tensor<4x64xf32>) -> tensor<4x64xf32>
  %oe = tensor.empty() : tensor<4x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y, %r32 : tensor<4x64xf32>, tensor<4x64xf32>) outs(%oe : tensor<4x64xf16>) {
  ^bb0(%a: f32, %b: f32, %o: f16):
    %sum = arith.addf %a, %b : f32
    %t = arith.truncf %sum : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  return %out : tensor<4x64xf16>
}

// -----

// CHECK-LABEL: func.func @lora_then_residual(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK-SAME:    %[[LW:[a-zA-Z0-9_]+]]: tensor<256x64xf16>
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: tensor<4x64xf16>
// CHECK:         %[[L32:.+]] = linalg.matmul ins(%[[X]], %[[LW]]
// CHECK:         %[[L16:.+]] = linalg.generic {{.*}} ins(%[[L32]]
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[X]], %{{.+}}, %{{.+}}, %[[L16]])
// CHECK:         %[[OUT:.+]] = linalg.generic {{.*}} ins(%[[Y]], %[[C]]
// CHECK:         return %[[OUT]]
// EXPLAIN: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> residual; chain ends before {{.*}}: adds more than one residual
func.func @lora_then_residual(%x: tensor<4x256xf16>, %lw: tensor<256x64xf16>, %c: tensor<4x64xf16>, %qw: tensor<32x64xi32>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %le = tensor.empty() : tensor<4x64xf32>
  %lz = arith.constant 0.0 : f32
  %lf = linalg.fill ins(%lz : f32) outs(%le : tensor<4x64xf32>) -> tensor<4x64xf32>
  %l32 = linalg.matmul ins(%x, %lw : tensor<4x256xf16>, tensor<256x64xf16>) outs(%lf : tensor<4x64xf32>) -> tensor<4x64xf32>
  %l16e = tensor.empty() : tensor<4x64xf16>
  %l16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%l32 : tensor<4x64xf32>) outs(%l16e : tensor<4x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  %we = tensor.empty() : tensor<256x64xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%we : tensor<256x64xf16>) {
  ^bb0(%o: f16):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.0 : f16
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<32x64xi32>
    %kr = arith.remui %k, %c8 : index
    %kri = arith.index_cast %kr : index to i32
    %sh = arith.muli %kri, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %q = arith.andi %v, %c15 : i32
    %qf = arith.uitofp %q : i32 to f16
    %cz = arith.subf %qf, %zp : f16
    %g = arith.divui %k, %c128 : index
    %sc = tensor.extract %s[%g, %n] : tensor<2x64xf16>
    %r = arith.mulf %cz, %sc : f16
    linalg.yield %r : f16
  } -> tensor<256x64xf16>
  %ye = tensor.empty() : tensor<4x64xf32>
  %zero = arith.constant 0.0 : f32
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x64xf16>) outs(%yf : tensor<4x64xf32>) -> tensor<4x64xf32>
  %he = tensor.empty() : tensor<4x64xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x64xf32>) outs(%he : tensor<4x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  %hle = tensor.empty() : tensor<4x64xf16>
  %hl = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h, %l16 : tensor<4x64xf16>, tensor<4x64xf16>) outs(%hle : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %t = arith.addf %a, %b : f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  %oute = tensor.empty() : tensor<4x64xf16>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%hl, %c : tensor<4x64xf16>, tensor<4x64xf16>) outs(%oute : tensor<4x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %t = arith.addf %a, %b : f16
    linalg.yield %t : f16
  } -> tensor<4x64xf16>
  return %out : tensor<4x64xf16>
}
