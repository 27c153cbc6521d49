// x computed inside the contraction's own body. Upstream's --linalg-fuse-elementwise-ops (run by IREE and by
// users' own pipelines before ours) moves x's producer into the contraction that reads it: a LLaMA MLP's
// silu(gate) * up ends up in the down projection's body, next to the dequantisation, and is computed there once per
// (m, n, k) instead of once per (m, k). When the x side of acc + x * w is an elementwise expression of float inputs
// one of which reads every loop dim the others read (and no weight input, no accumulator, no loop index), the fused
// op takes that expression computed over that input's shape by elementwise linalg.generics of its own: one per part
// that reads one full input, with any inputs broadcast beside it (the gate's bias and silu, so that the gate's chain
// finds its epilogue again; glu-after-elementwise-fusion.mlir), one combining them --
// the same ops on the same values, so the same bits. A conversion of x to another 16-bit type, or a narrowing with a rounding mode of its
// own, is such an expression too. The first function is mlir-opt's own output for a small MLP (its form in
// multi-chain.mlir); look-alikes that stay unfused are in explain/weight-in-body.mlir.
//
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s
//
// Every chain of multi-chain.mlir through the upstream passes fuses and merges as it does unfused. Contractions
// whose x their body computes are rewritten first: computing x before them again hands the gate its silu back.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --split-input-file %S/multi-chain.mlir \
// RUN:   | w4a16-opt --w4a16-explain --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=MULTI
// MULTI:         remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> residual{{$}}
// MULTI-NEXT:    remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> silu;
// MULTI-NEXT:    remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul;
// MULTI-NEXT:    remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
// MULTI-NEXT:    remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul -> residual{{$}}
// MULTI-NEXT:    remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul -> silu;
// MULTI-NEXT:    remark: w4a16: fused as dequant(n_k, scales n_g) -> matmul;
// MULTI-NEXT:    remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
// MULTI-COUNT-5: remark: w4a16: fused as dequant
// MULTI-NEXT:    remark: w4a16: merged 3 sibling projections of one x into one launch (outputs)
// MULTI-NEXT:    remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul{{$}}
// MULTI-NEXT:    remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> silu{{$}}
// MULTI-NOT:     remark:
//
// The examples' MLPs with f32 accumulation, after upstream's fusion: the gate's silu (or gelu_tanh) on its f32
// accumulator, both truncf's and the product sit in the down projection's body; all three chains fuse and gate and
// up merge as a GLU, as they do unfused.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/../../examples/llama_mlp.mlir \
// RUN:   | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=LLAMA
// LLAMA:      remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> residual{{$}}
// LLAMA-NEXT: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> silu;
// LLAMA-NEXT: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul;
// LLAMA-NEXT: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
// LLAMA-NOT:  remark:
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/../../examples/gemma_mlp.mlir \
// RUN:   | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=GEMMA
// GEMMA:      remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> residual{{$}}
// GEMMA-NEXT: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> gelu_tanh;
// GEMMA-NEXT: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul;
// GEMMA-NEXT: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: gelu_tanh(gate) * up)
// GEMMA-NOT:  remark:
//
// The fused build computes what the upstream-only build computes (CPU runtime, random inputs). The f32-accumulation
// MLP at the end overflows f16 in both builds on that harness's data (the reference is not finite: skipped); it runs
// end to end at LLaMA-7B size on the examples' data instead (ctest e2e-llama_mlp-upstream-fused, test/e2e).
// RUN: %python %S/../robustness/differential.py --tool-dir %w4a16_tools_dir --runtime-lib %w4a16_rt_shared_lib \
// RUN:   --suite %S/.. --tmp %t --seed 7 --files %s | FileCheck %s --check-prefix=SAME
// SAME: differential: variants: 6, fused and compared: 5, skipped: 1, mismatches: 0

// CHECK-LABEL: func.func @swiglu_down_in_body(
// CHECK-SAME:    %[[GATE:[a-zA-Z0-9_]+]]: tensor<?x512xf16>, %[[UP:[a-zA-Z0-9_]+]]: tensor<?x512xf16>,
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<512x256xi4>, %[[S:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK:         %[[M:.+]] = tensor.dim %[[GATE]], %{{.+}} : tensor<?x512xf16>
// CHECK:         %[[E:.+]] = tensor.empty(%[[M]]) : tensor<?x512xf16>
// CHECK:         %[[SILU:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[GATE]] : tensor<?x512xf16>) outs(%[[E]] : tensor<?x512xf16>)
// CHECK:           math.exp
// CHECK-NOT:       arith.extui
// CHECK:         } -> tensor<?x512xf16>
// CHECK:         %[[X:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[SILU]], %[[UP]] : tensor<?x512xf16>, tensor<?x512xf16>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f16
// CHECK-NEXT:      linalg.yield %[[P]] : f16
// CHECK:         %[[Y:.+]] = "w4a16.fused_matmul"(%[[X]], %[[Q]], %[[S]])
// CHECK-SAME:      weight_layout = "k_n"
// CHECK-SAME:      : (tensor<?x512xf16>, tensor<512x256xi4>, tensor<4x256xf16>) -> tensor<?x256xf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d2 floordiv 128, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
func.func @swiglu_down_in_body(%gate: tensor<?x512xf16>, %up: tensor<?x512xf16>, %q: tensor<512x256xi4>, %s: tensor<4x256xf16>) -> tensor<?x256xf16> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f16
  %cst_0 = arith.constant 8.000000e+00 : f16
  %cst_1 = arith.constant 1.000000e+00 : f16
  %dim = tensor.dim %gate, %c0 : tensor<?x512xf16>
  %0 = tensor.empty(%dim) : tensor<?x256xf16>
  %1 = linalg.generic {indexing_maps = [#map4], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x256xf16>) {
  ^bb0(%out: f16):
    linalg.yield %cst : f16
  } -> tensor<?x256xf16>
  %2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%gate, %up, %q, %s : tensor<?x512xf16>, tensor<?x512xf16>, tensor<512x256xi4>, tensor<4x256xf16>) outs(%1 : tensor<?x256xf16>) {
  ^bb0(%in: f16, %in_2: f16, %in_3: i4, %in_4: f16, %out: f16):
    %3 = arith.extui %in_3 : i4 to i32
    %4 = arith.uitofp %3 : i32 to f16
    %5 = arith.subf %4, %cst_0 : f16
    %6 = arith.mulf %5, %in_4 : f16
    %7 = arith.negf %in : f16
    %8 = math.exp %7 : f16
    %9 = arith.addf %8, %cst_1 : f16
    %10 = arith.divf %cst_1, %9 : f16
    %11 = arith.mulf %in, %10 : f16
    %12 = arith.mulf %11, %in_2 : f16
    %13 = arith.mulf %12, %6 : f16
    %14 = arith.addf %out, %13 : f16
    linalg.yield %14 : f16
  } -> tensor<?x256xf16>
  return %2 : tensor<?x256xf16>
}

// -----

// A bf16 x converted to f16 in the body (through f32): the conversion is computed before the fused op.
// CHECK-LABEL: func.func @x_converted_in_body(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xbf16>
// CHECK:         %[[C:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]] : tensor<4x256xbf16>) outs(%{{.+}} : tensor<4x256xf16>)
// CHECK:           arith.extf %{{.+}} : bf16 to f32
// CHECK:           arith.truncf %{{.+}} : f32 to f16
// CHECK:         "w4a16.fused_matmul"(%[[C]],
// CHECK-SAME:      : (tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) -> tensor<4x64xf16>
#mx = affine_map<(m, n, k) -> (m, k)>
#mq = affine_map<(m, n, k) -> (k, n)>
#ms = affine_map<(m, n, k) -> (k floordiv 128, n)>
#mo = affine_map<(m, n, k) -> (m, n)>
func.func @x_converted_in_body(%x: tensor<4x256xbf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.generic {indexing_maps = [#mx, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %q, %s : tensor<4x256xbf16>, tensor<256x64xi4>, tensor<2x64xf16>) outs(%f : tensor<4x64xf16>) {
  ^bb0(%xb: bf16, %c: i4, %sc: f16, %acc: f16):
    %a = arith.extf %xb : bf16 to f32
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %a16 = arith.truncf %a : f32 to f16
    %4 = arith.mulf %a16, %3 : f16
    %5 = arith.addf %acc, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// An f32 x narrowed in the body with a rounding mode of its own (toward zero): the generic rounds as the body did
// (a plain truncf, rounding to nearest even, would not).
// CHECK-LABEL: func.func @x_narrowed_toward_zero(
// CHECK:         %[[C:.+]] = linalg.generic
// CHECK:           arith.truncf %{{.+}} toward_zero : f32 to f16
// CHECK:         "w4a16.fused_matmul"(%[[C]],
#mx = affine_map<(m, n, k) -> (m, k)>
#mq = affine_map<(m, n, k) -> (k, n)>
#ms = affine_map<(m, n, k) -> (k floordiv 128, n)>
#mo = affine_map<(m, n, k) -> (m, n)>
func.func @x_narrowed_toward_zero(%x: tensor<4x256xf32>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.generic {indexing_maps = [#mx, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %q, %s : tensor<4x256xf32>, tensor<256x64xi4>, tensor<2x64xf16>) outs(%f : tensor<4x64xf16>) {
  ^bb0(%a: f32, %c: i4, %sc: f16, %acc: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %a16 = arith.truncf %a toward_zero : f32 to f16
    %4 = arith.mulf %a16, %3 : f16
    %5 = arith.addf %acc, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// x scaled per input channel inside the body (an activation scale along K, as AWQ- or SmoothQuant-style exports
// apply when they do not fold it into the previous layer): x[m, k] * v[k] is computed over x's shape, v read
// broadcast along the rows.
// CHECK-LABEL: func.func @x_scaled_per_k(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x256xf16>, %[[V:[a-zA-Z0-9_]+]]: tensor<256xf16>
// CHECK:         %[[C:.+]] = linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ROW:map[0-9]*]], #[[ID]]]
// CHECK-SAME:      ins(%[[X]], %[[V]] : tensor<4x256xf16>, tensor<256xf16>) outs(%{{.+}} : tensor<4x256xf16>)
// CHECK:           arith.mulf
// CHECK:         "w4a16.fused_matmul"(%[[C]],
#mx = affine_map<(m, n, k) -> (m, k)>
#mv = affine_map<(m, n, k) -> (k)>
#mq = affine_map<(m, n, k) -> (k, n)>
#ms = affine_map<(m, n, k) -> (k floordiv 128, n)>
#mo = affine_map<(m, n, k) -> (m, n)>
func.func @x_scaled_per_k(%x: tensor<4x256xf16>, %v: tensor<256xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.generic {indexing_maps = [#mx, #mv, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %v, %q, %s : tensor<4x256xf16>, tensor<256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) outs(%f : tensor<4x64xf16>) {
  ^bb0(%a: f16, %vk: f16, %c: i4, %sc: f16, %acc: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %xs = arith.mulf %a, %vk : f16
    %4 = arith.mulf %xs, %3 : f16
    %5 = arith.addf %acc, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// examples/llama_mlp.mlir at hidden 256 / intermediate 512, through mlir-opt --linalg-generalize-named-ops
// --linalg-fuse-elementwise-ops (its output, verbatim): f32 accumulation, the gate's silu on its f32 accumulator,
// both truncf's and the product moved into the down projection's body. The silu and the gate's truncf become one
// generic over the gate's result, the up's truncf another, and the product a third; the down fuses with its residual.
// CHECK-LABEL: func.func @llama_mlp_f32_accumulation(
// CHECK:         %[[G:.+]] = "w4a16.fused_matmul"
// CHECK-SAME:      activation = "silu"
// CHECK-SAME:      -> tensor<?x512xf16>
// CHECK:         %[[U:.+]] = "w4a16.fused_matmul"
// CHECK-SAME:      activation = "none"
// CHECK-SAME:      -> tensor<?x512xf16>
// CHECK:         %[[P:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[G]], %[[U]] : tensor<?x512xf16>, tensor<?x512xf16>)
// CHECK:         "w4a16.fused_matmul"(%[[P]],
// CHECK-SAME:      operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @llama_mlp_f32_accumulation(%arg0: tensor<?x256xf16>, %arg1: tensor<32x512xi32>, %arg2: tensor<2x512xf16>, %arg3: tensor<32x512xi32>, %arg4: tensor<2x512xf16>, %arg5: tensor<64x256xi32>, %arg6: tensor<4x256xf16>) -> tensor<?x256xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %cst_1 = arith.constant 8.000000e+00 : f16
  %c15_i32 = arith.constant 15 : i32
  %c4_i32 = arith.constant 4 : i32
  %c128 = arith.constant 128 : index
  %c8 = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %arg0, %c0 : tensor<?x256xf16>
  %0 = tensor.empty(%dim) : tensor<?x512xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x512xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<?x512xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%1 : tensor<?x512xf32>) {
  ^bb0(%in: f16, %out: f32):
    %11 = linalg.index 1 : index
    %12 = linalg.index 2 : index
    %13 = arith.divui %12, %c8 : index
    %extracted = tensor.extract %arg1[%13, %11] : tensor<32x512xi32>
    %14 = arith.remui %12, %c8 : index
    %15 = arith.index_cast %14 : index to i32
    %16 = arith.muli %15, %c4_i32 : i32
    %17 = arith.shrui %extracted, %16 : i32
    %18 = arith.andi %17, %c15_i32 : i32
    %19 = arith.uitofp %18 : i32 to f16
    %20 = arith.subf %19, %cst_1 : f16
    %21 = arith.divui %12, %c128 : index
    %extracted_2 = tensor.extract %arg2[%21, %11] : tensor<2x512xf16>
    %22 = arith.mulf %20, %extracted_2 : f16
    %23 = arith.extf %in : f16 to f32
    %24 = arith.extf %22 : f16 to f32
    %25 = arith.mulf %23, %24 : f32
    %26 = arith.addf %out, %25 : f32
    linalg.yield %26 : f32
  } -> tensor<?x512xf32>
  %3 = tensor.empty(%dim) : tensor<?x512xf32>
  %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%3 : tensor<?x512xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<?x512xf32>
  %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%4 : tensor<?x512xf32>) {
  ^bb0(%in: f16, %out: f32):
    %11 = linalg.index 1 : index
    %12 = linalg.index 2 : index
    %13 = arith.divui %12, %c8 : index
    %extracted = tensor.extract %arg3[%13, %11] : tensor<32x512xi32>
    %14 = arith.remui %12, %c8 : index
    %15 = arith.index_cast %14 : index to i32
    %16 = arith.muli %15, %c4_i32 : i32
    %17 = arith.shrui %extracted, %16 : i32
    %18 = arith.andi %17, %c15_i32 : i32
    %19 = arith.uitofp %18 : i32 to f16
    %20 = arith.subf %19, %cst_1 : f16
    %21 = arith.divui %12, %c128 : index
    %extracted_2 = tensor.extract %arg4[%21, %11] : tensor<2x512xf16>
    %22 = arith.mulf %20, %extracted_2 : f16
    %23 = arith.extf %in : f16 to f32
    %24 = arith.extf %22 : f16 to f32
    %25 = arith.mulf %23, %24 : f32
    %26 = arith.addf %out, %25 : f32
    linalg.yield %26 : f32
  } -> tensor<?x512xf32>
  %6 = tensor.empty(%dim) : tensor<?x256xf32>
  %7 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%6 : tensor<?x256xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<?x256xf32>
  %8 = linalg.generic {indexing_maps = [#map1, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%2, %5 : tensor<?x512xf32>, tensor<?x512xf32>) outs(%7 : tensor<?x256xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %11 = linalg.index 1 : index
    %12 = linalg.index 2 : index
    %13 = arith.divui %12, %c8 : index
    %extracted = tensor.extract %arg5[%13, %11] : tensor<64x256xi32>
    %14 = arith.remui %12, %c8 : index
    %15 = arith.index_cast %14 : index to i32
    %16 = arith.muli %15, %c4_i32 : i32
    %17 = arith.shrui %extracted, %16 : i32
    %18 = arith.andi %17, %c15_i32 : i32
    %19 = arith.uitofp %18 : i32 to f16
    %20 = arith.subf %19, %cst_1 : f16
    %21 = arith.divui %12, %c128 : index
    %extracted_3 = tensor.extract %arg6[%21, %11] : tensor<4x256xf16>
    %22 = arith.mulf %20, %extracted_3 : f16
    %23 = arith.truncf %in_2 : f32 to f16
    %24 = arith.negf %in : f32
    %25 = math.exp %24 : f32
    %26 = arith.addf %25, %cst_0 : f32
    %27 = arith.divf %cst_0, %26 : f32
    %28 = arith.mulf %in, %27 : f32
    %29 = arith.truncf %28 : f32 to f16
    %30 = arith.mulf %29, %23 : f16
    %31 = arith.extf %30 : f16 to f32
    %32 = arith.extf %22 : f16 to f32
    %33 = arith.mulf %31, %32 : f32
    %34 = arith.addf %out, %33 : f32
    linalg.yield %34 : f32
  } -> tensor<?x256xf32>
  %9 = tensor.empty(%dim) : tensor<?x256xf16>
  %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg0 : tensor<?x256xf32>, tensor<?x256xf16>) outs(%9 : tensor<?x256xf16>) {
  ^bb0(%in: f32, %in_2: f16, %out: f16):
    %11 = arith.truncf %in : f32 to f16
    %12 = arith.addf %11, %in_2 : f16
    linalg.yield %12 : f16
  } -> tensor<?x256xf16>
  return %10 : tensor<?x256xf16>
}

// -----

// An x expression of more than 16 parts that read one input each (17 multiples of a beside a + u): no generic per
// part, one generic computing the whole expression from the inputs, and nothing else left behind.
// CHECK-LABEL: func.func @x_of_many_parts(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x256xf16>, %[[U:[a-zA-Z0-9_]+]]: tensor<4x256xf16>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<4x256xf16>
// CHECK-NEXT:    %[[X:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[A]], %[[U]] : tensor<4x256xf16>, tensor<4x256xf16>) outs(%[[E]] : tensor<4x256xf16>)
// CHECK-NOT:     linalg.generic
// CHECK:         "w4a16.fused_matmul"(%[[X]],
// CHECK-NOT:     linalg.generic
#mx = affine_map<(m, n, k) -> (m, k)>
#mq = affine_map<(m, n, k) -> (k, n)>
#ms = affine_map<(m, n, k) -> (k floordiv 128, n)>
#mo = affine_map<(m, n, k) -> (m, n)>
func.func @x_of_many_parts(%xa: tensor<4x256xf16>, %xu: tensor<4x256xf16>, %q: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  %c8 = arith.constant 8.000000e+00 : f16
  %zero = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>
  %y = linalg.generic {indexing_maps = [#mx, #mx, #mq, #ms, #mo], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xa, %xu, %q, %s : tensor<4x256xf16>, tensor<4x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) outs(%f : tensor<4x64xf16>) {
  ^bb0(%a: f16, %u: f16, %c: i4, %sc: f16, %acc: f16):
    %0 = arith.extui %c : i4 to i32
    %1 = arith.uitofp %0 : i32 to f16
    %2 = arith.subf %1, %c8 : f16
    %3 = arith.mulf %2, %sc : f16
    %t0 = arith.addf %a, %u : f16
    %k1 = arith.constant 2.0 : f16
    %p1 = arith.mulf %a, %k1 : f16
    %t1 = arith.addf %t0, %p1 : f16
    %k2 = arith.constant 3.0 : f16
    %p2 = arith.mulf %a, %k2 : f16
    %t2 = arith.subf %t1, %p2 : f16
    %k3 = arith.constant 4.0 : f16
    %p3 = arith.mulf %a, %k3 : f16
    %t3 = arith.addf %t2, %p3 : f16
    %k4 = arith.constant 5.0 : f16
    %p4 = arith.mulf %a, %k4 : f16
    %t4 = arith.subf %t3, %p4 : f16
    %k5 = arith.constant 6.0 : f16
    %p5 = arith.mulf %a, %k5 : f16
    %t5 = arith.addf %t4, %p5 : f16
    %k6 = arith.constant 7.0 : f16
    %p6 = arith.mulf %a, %k6 : f16
    %t6 = arith.subf %t5, %p6 : f16
    %k7 = arith.constant 8.0 : f16
    %p7 = arith.mulf %a, %k7 : f16
    %t7 = arith.addf %t6, %p7 : f16
    %k8 = arith.constant 9.0 : f16
    %p8 = arith.mulf %a, %k8 : f16
    %t8 = arith.subf %t7, %p8 : f16
    %k9 = arith.constant 10.0 : f16
    %p9 = arith.mulf %a, %k9 : f16
    %t9 = arith.addf %t8, %p9 : f16
    %k10 = arith.constant 11.0 : f16
    %p10 = arith.mulf %a, %k10 : f16
    %t10 = arith.subf %t9, %p10 : f16
    %k11 = arith.constant 12.0 : f16
    %p11 = arith.mulf %a, %k11 : f16
    %t11 = arith.addf %t10, %p11 : f16
    %k12 = arith.constant 13.0 : f16
    %p12 = arith.mulf %a, %k12 : f16
    %t12 = arith.subf %t11, %p12 : f16
    %k13 = arith.constant 14.0 : f16
    %p13 = arith.mulf %a, %k13 : f16
    %t13 = arith.addf %t12, %p13 : f16
    %k14 = arith.constant 15.0 : f16
    %p14 = arith.mulf %a, %k14 : f16
    %t14 = arith.subf %t13, %p14 : f16
    %k15 = arith.constant 16.0 : f16
    %p15 = arith.mulf %a, %k15 : f16
    %t15 = arith.addf %t14, %p15 : f16
    %k16 = arith.constant 17.0 : f16
    %p16 = arith.mulf %a, %k16 : f16
    %t16 = arith.subf %t15, %p16 : f16
    %k17 = arith.constant 18.0 : f16
    %p17 = arith.mulf %a, %k17 : f16
    %t17 = arith.addf %t16, %p17 : f16
    %4 = arith.mulf %t17, %3 : f16
    %5 = arith.addf %acc, %4 : f16
    linalg.yield %5 : f16
  } -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
