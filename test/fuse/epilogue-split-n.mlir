// The epilogue on a reshaped y: upstream's reshape propagation (--linalg-fuse-elementwise-ops) moves the
// expand_shape that splits N ([M, N] -> [M, H, D], a GPT MLP's hidden dim viewed as the down projection's K groups)
// above the epilogue, so bias + activation + truncf run on [M, H, D] (examples/gpt_mlp.mlir through that pass). The
// epilogue follows y through an expand_shape that splits its last dim; the fused (M, N) result is expanded to the
// epilogue's shape, the bias collapsed to (N). An epilogue that reads a split y at another element stays unfused.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
//
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/../../examples/gpt_mlp.mlir \
// RUN:   | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPT
// GPT:      remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul -> bias -> residual{{$}}
// GPT-NEXT: remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul -> bias -> gelu_tanh{{$}}
// GPT-NOT:  remark:
//
// The fused build computes what the upstream-only build computes (CPU runtime, random inputs):
// RUN: %python %S/../robustness/differential.py --tool-dir %w4a16_tools_dir --runtime-lib %w4a16_rt_shared_lib \
// RUN:   --suite %S/.. --tmp %t --seed 11 --files %s | FileCheck %s --check-prefix=SAME
// SAME: differential: variants: 2, fused and compared: 1, skipped: 1, mismatches: 0

#mw = affine_map<(d0, d1) -> (d0, d1)>
#mws = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
#e3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#b3 = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @bias_gelu_on_split_n(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x256xf16>, %[[Q:[a-zA-Z0-9_]+]]: tensor<256x512xi4>, %[[S:[a-zA-Z0-9_]+]]: tensor<2x512xf16>, %[[B:[a-zA-Z0-9_]+]]: tensor<512xf16>
// CHECK:         %[[BE:.+]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [4, 128]
// CHECK:         %[[BC:.+]] = tensor.collapse_shape %[[BE]] {{\[\[}}0, 1]] : tensor<4x128xf16> into tensor<512xf16>
// CHECK:         %[[F:.+]] = "w4a16.fused_matmul"(%[[X]], %[[Q]], %[[S]], %[[BC]])
// CHECK-SAME:      activation = "gelu_tanh"
// CHECK-SAME:      -> tensor<?x512xf16>
// CHECK:         %[[Y:.+]] = tensor.expand_shape %[[F]] {{\[\[}}0], [1, 2]] output_shape [%{{.+}}, 4, 128] : tensor<?x512xf16> into tensor<?x4x128xf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
// REMARK: epilogue-split-n.mlir:[[# @LINE + 17]]:8: remark: w4a16: fused as dequant(k_n, scales g_n) -> matmul -> bias -> gelu_tanh{{$}}
func.func @bias_gelu_on_split_n(%x: tensor<?x256xf16>, %q: tensor<256x512xi4>, %s: tensor<2x512xf16>, %b: tensor<512xf16>) -> tensor<?x4x128xf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %c8 = arith.constant 8.000000e+00 : f16
  %m = tensor.dim %x, %c0 : tensor<?x256xf16>
  %we = tensor.empty() : tensor<256x512xf16>
  %w = linalg.generic {indexing_maps = [#mw, #mws, #mw], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%we : tensor<256x512xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    linalg.yield %3 : f16
  } -> tensor<256x512xf16>
  %ye = tensor.empty(%m) : tensor<?x512xf32>
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x256xf16>, tensor<256x512xf16>) outs(%yf : tensor<?x512xf32>) -> tensor<?x512xf32>
  %y3 = tensor.expand_shape %y [[0], [1, 2]] output_shape [%m, 4, 128] : tensor<?x512xf32> into tensor<?x4x128xf32>
  %b2 = tensor.expand_shape %b [[0, 1]] output_shape [4, 128] : tensor<512xf16> into tensor<4x128xf16>
  %he = tensor.empty(%m) : tensor<?x4x128xf16>
  %h = linalg.generic {indexing_maps = [#e3, #b3, #e3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y3, %b2 : tensor<?x4x128xf32>, tensor<4x128xf16>) outs(%he : tensor<?x4x128xf16>) {
  ^bb0(%v: f32, %bias: f16, %o: f16):
    %c044 = arith.constant 4.471500e-02 : f32
    %c079 = arith.constant 0.797884583 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %bf = arith.extf %bias : f16 to f32
    %t = arith.addf %v, %bf : f32
    %t2 = arith.mulf %t, %t : f32
    %t3 = arith.mulf %t2, %t : f32
    %a = arith.mulf %t3, %c044 : f32
    %i = arith.addf %t, %a : f32
    %j = arith.mulf %i, %c079 : f32
    %th = math.tanh %j : f32
    %p = arith.addf %th, %one : f32
    %hv = arith.mulf %t, %half : f32
    %g = arith.mulf %hv, %p : f32
    %r = arith.truncf %g : f32 to f16
    linalg.yield %r : f16
  } -> tensor<?x4x128xf16>
  return %h : tensor<?x4x128xf16>
}

// -----

// The split y read transposed by the epilogue ([M, H, D] at (m, d, h) of a [M, D, H] result): no element of it is
// y's own at the same position, so the chain stops at the matmul (its f32 result is never an epilogue).
#mw = affine_map<(d0, d1) -> (d0, d1)>
#mws = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
#e3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @split_n_read_transposed(
// CHECK-NOT:     w4a16.fused_matmul
// REMARK: epilogue-split-n.mlir:[[# @LINE + 15]]:8: remark: w4a16: not fused: matmul result is f32, and the ops that truncate it to f16 are not a fused epilogue: reads the matmul result at another element
func.func @split_n_read_transposed(%x: tensor<4x256xf16>, %q: tensor<256x512xi4>, %s: tensor<2x512xf16>) -> tensor<4x128x4xf16> {
  %zero = arith.constant 0.000000e+00 : f32
  %c8 = arith.constant 8.000000e+00 : f16
  %we = tensor.empty() : tensor<256x512xf16>
  %w = linalg.generic {indexing_maps = [#mw, #mws, #mw], iterator_types = ["parallel", "parallel"]} ins(%q, %s : tensor<256x512xi4>, tensor<2x512xf16>) outs(%we : tensor<256x512xf16>) {
  ^bb0(%c: i4, %sc: f16, %o: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    linalg.yield %3 : f16
  } -> tensor<256x512xf16>
  %ye = tensor.empty() : tensor<4x512xf32>
  %yf = linalg.fill ins(%zero : f32) outs(%ye : tensor<4x512xf32>) -> tensor<4x512xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x256xf16>, tensor<256x512xf16>) outs(%yf : tensor<4x512xf32>) -> tensor<4x512xf32>
  %y3 = tensor.expand_shape %y [[0], [1, 2]] output_shape [4, 4, 128] : tensor<4x512xf32> into tensor<4x4x128xf32>
  %he = tensor.empty() : tensor<4x128x4xf16>
  %h = linalg.generic {indexing_maps = [#t3, #e3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y3 : tensor<4x4x128xf32>) outs(%he : tensor<4x128x4xf16>) {
  ^bb0(%v: f32, %o: f16):
    %r = arith.truncf %v : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x128x4xf16>
  return %h : tensor<4x128x4xf16>
}
