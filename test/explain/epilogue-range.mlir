// --w4a16-explain: epilogues that agree with the formula only for small values. The formula used to be
// checked at y in [-7.5, 6] only, and min(y + bias + res, 6.5) fused as "bias -> residual" (silently wrong
// for larger outputs); y is now also checked at +-40, +-300 and +-20000. And at NaN: the fused op propagates
// a NaN product, so a NaN scrub after the matmul stays outside the fused op (it was absorbed as "no
// epilogue": one NaN in x gave a row of NaN where the IR gives 0). And at +-65504 and +-98304: clamps at the edge
// of f16's range (HF T5's fp16 guard at +-64504, a saturating cast to f16) fused while the samples stopped at
// +-20000, and the fused op, which rounds to f16 unclamped, dropped them.
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s


// min(y + bias + res, 6.5): a clamp after the residual.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @clamp_after_residual(%x: tensor<?x256xf16>, %q: tensor<16x256xi4>, %sc: tensor<16x2xf16>,
                                %bias: tensor<16xf16>, %res: tensor<?x16xf16>) -> tensor<?x16xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<16x256xf16>
  %w = linalg.generic {indexing_maps = [#id2, affine_map<(n, k) -> (n, k floordiv 128)>, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q, %sc : tensor<16x256xi4>, tensor<16x2xf16>) outs(%de : tensor<16x256xf16>) {
  ^bb0(%c: i4, %s: f16, %out: f16):
    %cf = arith.uitofp %c : i4 to f16
    %z = arith.constant 8.0 : f16
    %d = arith.subf %cf, %z : f16
    %v = arith.mulf %d, %s : f16
    linalg.yield %v : f16
  } -> tensor<16x256xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: {{.*}}epilogue-range.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: matmul result is f32, and the ops that truncate it to f16 are not a fused epilogue: combines the matmul result with an (M, N) tensor other than by adding it last
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x256xf16>, tensor<16x256xf16>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  %e2 = tensor.empty(%m) : tensor<?x16xf16>
  %o = linalg.generic {indexing_maps = [#id2, #bias, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias, %res : tensor<?x16xf32>, tensor<16xf16>, tensor<?x16xf16>) outs(%e2 : tensor<?x16xf16>) {
  ^bb0(%a: f32, %b: f16, %r: f16, %oo: f16):
    %c3 = arith.constant 3 : index
    %row = linalg.index 0 : index
    %b32 = arith.extf %b : f16 to f32
    %r32 = arith.extf %r : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %tr = arith.addf %t, %r32 : f32
    %cap = arith.constant 6.5 : f32
    %fin = arith.minimumf %tr, %cap : f32
    %h = arith.truncf %fin : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x16xf16>
  return %o : tensor<?x16xf16>
}

// -----


// min(y + bias, 6.5) + res: a clamp where the activation goes.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @clamp_as_activation(%x: tensor<?x256xf16>, %q: tensor<16x256xi4>, %sc: tensor<16x2xf16>,
                                %bias: tensor<16xf16>, %res: tensor<?x16xf16>) -> tensor<?x16xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %de = tensor.empty() : tensor<16x256xf16>
  %w = linalg.generic {indexing_maps = [#id2, affine_map<(n, k) -> (n, k floordiv 128)>, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q, %sc : tensor<16x256xi4>, tensor<16x2xf16>) outs(%de : tensor<16x256xf16>) {
  ^bb0(%c: i4, %s: f16, %out: f16):
    %cf = arith.uitofp %c : i4 to f16
    %z = arith.constant 8.0 : f16
    %d = arith.subf %cf, %z : f16
    %v = arith.mulf %d, %s : f16
    linalg.yield %v : f16
  } -> tensor<16x256xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: {{.*}}epilogue-range.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: matmul result is f32, and the ops that truncate it to f16 are not a fused epilogue: computes something other than act(y + bias) + residual
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x256xf16>, tensor<16x256xf16>) outs(%acc : tensor<?x16xf32>) -> tensor<?x16xf32>
  %e2 = tensor.empty(%m) : tensor<?x16xf16>
  %o = linalg.generic {indexing_maps = [#id2, #bias, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias, %res : tensor<?x16xf32>, tensor<16xf16>, tensor<?x16xf16>) outs(%e2 : tensor<?x16xf16>) {
  ^bb0(%a: f32, %b: f16, %r: f16, %oo: f16):
    %c3 = arith.constant 3 : index
    %row = linalg.index 0 : index
    %b32 = arith.extf %b : f16 to f32
    %r32 = arith.extf %r : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %cap = arith.constant 6.5 : f32
    %tc = arith.minimumf %t, %cap : f32
    %fin = arith.addf %tc, %r32 : f32
    %h = arith.truncf %fin : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x16xf16>
  return %o : tensor<?x16xf16>
}

// -----

// select(isnan(y), 0, y) after the matmul: the matmul fuses, the scrub stays in the IR after it.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @nan_scrub(%x: tensor<?x512xf16>, %qw: tensor<64x128xi32>, %sc: tensor<4x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<512x128xf16>
  %w = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<512x128xf16>) {
  ^bb0(%out: f16):
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %c8f = arith.constant 8.0 : f16
    %zf = arith.constant 0.0 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<64x128xi32>
    %lane = arith.remui %k, %c8 : index
    %l32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %l32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f16
    %cz = arith.subf %cf, %c8f : f16
    %g = arith.divui %k, %c128 : index
    %s0 = tensor.extract %sc[%g, %n] : tensor<4x128xf16>
    %s = arith.addf %s0, %zf : f16
    %wv = arith.mulf %cz, %s : f16
    linalg.yield %wv : f16
  } -> tensor<512x128xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x128xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<?x128xf16>) -> tensor<?x128xf16>
  // CHECK: {{.*}}epilogue-range.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul; chain ends before {{.*}}: replaces a NaN result
  %y = linalg.matmul ins(%x, %w : tensor<?x512xf16>, tensor<512x128xf16>) outs(%acc : tensor<?x128xf16>) -> tensor<?x128xf16>
  %e2 = tensor.empty(%m) : tensor<?x128xf16>
  %o = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x128xf16>) outs(%e2 : tensor<?x128xf16>) {
  ^bb0(%a: f16, %b: f16):
    %un = arith.cmpf uno, %a, %a : f16
    %z = arith.constant 0.0 : f16
    %r = arith.select %un, %z, %a : f16
    linalg.yield %r : f16
  } -> tensor<?x128xf16>
  return %o : tensor<?x128xf16>
}

// -----


// HF T5 / MT5's fp16 guard after the residual, as written with ordered predicates: h = res + y, then
// select(h < -64504, -64504, h) and select(h > 64504, 64504, h). The matmul fuses; the clamp stays outside.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @t5_fp16_guard(%x: tensor<4x256xf16>, %q: tensor<256x16xi4>, %sc: tensor<2x16xf16>,
                         %res: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %lo = arith.constant -64504.0 : f16
  %hi = arith.constant 64504.0 : f16
  %de = tensor.empty() : tensor<256x16xf16>
  %w = linalg.generic {indexing_maps = [#id2, affine_map<(k, n) -> (k floordiv 128, n)>, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q, %sc : tensor<256x16xi4>, tensor<2x16xf16>) outs(%de : tensor<256x16xf16>) {
  ^bb0(%c: i4, %s: f16, %out: f16):
    %cf = arith.uitofp %c : i4 to f16
    %z = arith.constant 8.0 : f16
    %d = arith.subf %cf, %z : f16
    %v = arith.mulf %d, %s : f16
    linalg.yield %v : f16
  } -> tensor<256x16xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x16xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x16xf16>) -> tensor<4x16xf16>
  // CHECK: {{.*}}epilogue-range.mlir:[[@LINE+1]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul; chain ends before {{.*}}epilogue-range.mlir:[[@LINE+2]]:8: combines the matmul result with an (M, N) tensor other than by adding it last
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x16xf16>) outs(%acc : tensor<4x16xf16>) -> tensor<4x16xf16>
  %o = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %res : tensor<4x16xf16>, tensor<4x16xf16>) outs(%e : tensor<4x16xf16>) {
  ^bb0(%v: f16, %r: f16, %oo: f16):
    %h = arith.addf %r, %v : f16
    %below = arith.cmpf olt, %h, %lo : f16
    %h1 = arith.select %below, %lo, %h : f16
    %above = arith.cmpf ogt, %h1, %hi : f16
    %h2 = arith.select %above, %hi, %h1 : f16
    linalg.yield %h2 : f16
  } -> tensor<4x16xf16>
  return %o : tensor<4x16xf16>
}

// -----


// A saturating conversion: f32 accumulation, + bias, clamped to f16's range [-65504, 65504] (arith.maximumf /
// minimumf, which propagate NaN as the fused op does) before truncf. Beyond 65520 the fused op gives inf, the IR
// 65504: not fused.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @saturating_truncf(%x: tensor<4x256xf16>, %q: tensor<256x16xi4>, %sc: tensor<2x16xf16>,
                             %bias: tensor<16xf16>) -> tensor<4x16xf16> {
  %lo = arith.constant -65504.0 : f32
  %hi = arith.constant 65504.0 : f32
  %de = tensor.empty() : tensor<256x16xf16>
  %w = linalg.generic {indexing_maps = [#id2, affine_map<(k, n) -> (k floordiv 128, n)>, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q, %sc : tensor<256x16xi4>, tensor<2x16xf16>) outs(%de : tensor<256x16xf16>) {
  ^bb0(%c: i4, %s: f16, %out: f16):
    %cf = arith.uitofp %c : i4 to f16
    %z = arith.constant 8.0 : f16
    %d = arith.subf %cf, %z : f16
    %v = arith.mulf %d, %s : f16
    linalg.yield %v : f16
  } -> tensor<256x16xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  // CHECK: {{.*}}epilogue-range.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: matmul result is f32, and the ops that truncate it to f16 are not a fused epilogue: computes something other than act(y + bias) + residual with act in {silu, gelu_tanh}
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x16xf16>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf16>
  %o = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias : tensor<4x16xf32>, tensor<16xf16>) outs(%e2 : tensor<4x16xf16>) {
  ^bb0(%a: f32, %b: f16, %oo: f16):
    %b32 = arith.extf %b : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %up = arith.maximumf %t, %lo : f32
    %sat = arith.minimumf %up, %hi : f32
    %h = arith.truncf %sat : f32 to f16
    linalg.yield %h : f16
  } -> tensor<4x16xf16>
  return %o : tensor<4x16xf16>
}
// CHECK-NOT: remark:
