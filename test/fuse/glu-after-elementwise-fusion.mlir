// A GLU after upstream's elementwise fusion (mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops):
// the gate's and up's truncations, biases, silu and product become one linalg.generic that reads both projections'
// f32 results, so neither projection's chain ends in an op of its own. w4a16-fuse splits such a consumer back into
// one elementwise generic per part that reads one full (M, N) input -- with the inputs broadcast beside it, a bias --
// and one combining them, the same ops on the same values; each projection then finds its epilogue, and
// w4a16-merge-siblings merges the pair into one glu launch. Where the GLU went on into the down projection's body,
// the down projection's x is split the same way (x-in-contraction-body.mlir; a down projection in f16, last case).
//
// RUN: w4a16-opt --w4a16-fuse --w4a16-merge-siblings --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
//
// The examples' GLUs with biases (LLaMA's mlp_bias, Megatron-Core's chunked linear_fc1), after the upstream passes,
// fuse as they do unfused: the GLU in one launch, the down projection with its bias and residual.
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/../../examples/llama_mlp_bias.mlir \
// RUN:   | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=LLAMA
// LLAMA:      remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias -> residual{{$}}
// LLAMA-NEXT: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias -> silu;
// LLAMA-NEXT: remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias;
// LLAMA-NEXT: remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)
// LLAMA-NOT:  remark:
// RUN: mlir-opt --linalg-generalize-named-ops --linalg-fuse-elementwise-ops %S/../../examples/megatron_glu_bias.mlir \
// RUN:   | w4a16-opt --w4a16-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEGATRON
// MEGATRON-NOT: not fused
// MEGATRON:     remark: w4a16: merged 2 sibling projections of one x into one launch (glu:
// MEGATRON-NOT: not fused

// up * silu(gate), mlir-opt's output for the unfused form.
// CHECK-LABEL: func.func @glu(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<?x256xf16>, %{{[^:]+}}: tensor<?x256xf16>, %[[GW:[^:]+]]: tensor<32x128xi32>,
// CHECK-SAME:      %[[GS:[^:]+]]: tensor<2x128xf16>, %[[UW:[^:]+]]: tensor<32x128xi32>, %[[US:[^:]+]]: tensor<2x128xf16>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[GLU:.+]] = "w4a16.merged_matmul"(%[[X]], %[[GW]], %[[UW]], %[[GS]], %[[US]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[GLU]]
// EXPLAIN:       remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> silu;
// EXPLAIN-NEXT:  remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul;
// EXPLAIN-NEXT:  remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @glu(%arg0: tensor<?x256xf16>, %arg1: tensor<?x256xf16>, %arg2: tensor<32x128xi32>, %arg3: tensor<2x128xf16>, %arg4: tensor<32x128xi32>, %arg5: tensor<2x128xf16>) -> tensor<?x128xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 8.000000e+00 : f16
    %c15_i32 = arith.constant 15 : i32
    %c4_i32 = arith.constant 4 : i32
    %c128 = arith.constant 128 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x256xf16>
    %0 = tensor.empty(%dim) : tensor<?x128xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%1 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %10 = arith.divui %9, %c8 : index
      %extracted = tensor.extract %arg2[%10, %8] : tensor<32x128xi32>
      %11 = arith.remui %9, %c8 : index
      %12 = arith.index_cast %11 : index to i32
      %13 = arith.muli %12, %c4_i32 : i32
      %14 = arith.shrui %extracted, %13 : i32
      %15 = arith.andi %14, %c15_i32 : i32
      %16 = arith.uitofp %15 : i32 to f16
      %17 = arith.subf %16, %cst_1 : f16
      %18 = arith.divui %9, %c128 : index
      %extracted_2 = tensor.extract %arg3[%18, %8] : tensor<2x128xf16>
      %19 = arith.mulf %17, %extracted_2 : f16
      %20 = arith.extf %in : f16 to f32
      %21 = arith.extf %19 : f16 to f32
      %22 = arith.mulf %20, %21 : f32
      %23 = arith.addf %out, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<?x128xf32>
    %3 = tensor.empty(%dim) : tensor<?x128xf32>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%3 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%4 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %10 = arith.divui %9, %c8 : index
      %extracted = tensor.extract %arg4[%10, %8] : tensor<32x128xi32>
      %11 = arith.remui %9, %c8 : index
      %12 = arith.index_cast %11 : index to i32
      %13 = arith.muli %12, %c4_i32 : i32
      %14 = arith.shrui %extracted, %13 : i32
      %15 = arith.andi %14, %c15_i32 : i32
      %16 = arith.uitofp %15 : i32 to f16
      %17 = arith.subf %16, %cst_1 : f16
      %18 = arith.divui %9, %c128 : index
      %extracted_2 = tensor.extract %arg5[%18, %8] : tensor<2x128xf16>
      %19 = arith.mulf %17, %extracted_2 : f16
      %20 = arith.extf %in : f16 to f32
      %21 = arith.extf %19 : f16 to f32
      %22 = arith.mulf %20, %21 : f32
      %23 = arith.addf %out, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<?x128xf32>
    %6 = tensor.empty(%dim) : tensor<?x128xf16>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %2 : tensor<?x128xf32>, tensor<?x128xf32>) outs(%6 : tensor<?x128xf16>) {
    ^bb0(%in: f32, %in_2: f32, %out: f16):
      %8 = arith.truncf %in_2 : f32 to f16
      %9 = arith.extf %8 : f16 to f32
      %10 = arith.negf %9 : f32
      %11 = math.exp %10 : f32
      %12 = arith.addf %11, %cst_0 : f32
      %13 = arith.divf %cst_0, %12 : f32
      %14 = arith.mulf %9, %13 : f32
      %15 = arith.truncf %14 : f32 to f16
      %16 = arith.truncf %in : f32 to f16
      %17 = arith.mulf %16, %15 : f16
      linalg.yield %17 : f16
    } -> tensor<?x128xf16>
    return %7 : tensor<?x128xf16>
  }
}

// -----

// silu(gate + bg) * (up + bu), each bias added to the f32 accumulator: the biases are broadcast inputs of the one
// generic, each read beside its projection's result.
// CHECK-LABEL: func.func @glu_biases(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<?x256xf16>, %{{[^:]+}}: tensor<?x256xf16>, %[[GW:[^:]+]]: tensor<32x128xi32>,
// CHECK-SAME:      %[[GS:[^:]+]]: tensor<2x128xf16>, %[[UW:[^:]+]]: tensor<32x128xi32>, %[[US:[^:]+]]: tensor<2x128xf16>,
// CHECK-SAME:      %[[GB:[^:]+]]: tensor<128xf16>, %[[UB:[^:]+]]: tensor<128xf16>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[GLU:.+]] = "w4a16.merged_matmul"(%[[X]], %[[GW]], %[[UW]], %[[GS]], %[[US]], %[[GB]], %[[UB]])
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[GLU]]
// EXPLAIN:       remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias -> silu;
// EXPLAIN-NEXT:  remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> bias;
// EXPLAIN-NEXT:  remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @glu_biases(%arg0: tensor<?x256xf16>, %arg1: tensor<?x256xf16>, %arg2: tensor<32x128xi32>, %arg3: tensor<2x128xf16>, %arg4: tensor<32x128xi32>, %arg5: tensor<2x128xf16>, %arg6: tensor<128xf16>, %arg7: tensor<128xf16>) -> tensor<?x128xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 8.000000e+00 : f16
    %c15_i32 = arith.constant 15 : i32
    %c4_i32 = arith.constant 4 : i32
    %c128 = arith.constant 128 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x256xf16>
    %0 = tensor.empty(%dim) : tensor<?x128xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%1 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %10 = arith.divui %9, %c8 : index
      %extracted = tensor.extract %arg2[%10, %8] : tensor<32x128xi32>
      %11 = arith.remui %9, %c8 : index
      %12 = arith.index_cast %11 : index to i32
      %13 = arith.muli %12, %c4_i32 : i32
      %14 = arith.shrui %extracted, %13 : i32
      %15 = arith.andi %14, %c15_i32 : i32
      %16 = arith.uitofp %15 : i32 to f16
      %17 = arith.subf %16, %cst_1 : f16
      %18 = arith.divui %9, %c128 : index
      %extracted_2 = tensor.extract %arg3[%18, %8] : tensor<2x128xf16>
      %19 = arith.mulf %17, %extracted_2 : f16
      %20 = arith.extf %in : f16 to f32
      %21 = arith.extf %19 : f16 to f32
      %22 = arith.mulf %20, %21 : f32
      %23 = arith.addf %out, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<?x128xf32>
    %3 = tensor.empty(%dim) : tensor<?x128xf32>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%3 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%4 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %10 = arith.divui %9, %c8 : index
      %extracted = tensor.extract %arg4[%10, %8] : tensor<32x128xi32>
      %11 = arith.remui %9, %c8 : index
      %12 = arith.index_cast %11 : index to i32
      %13 = arith.muli %12, %c4_i32 : i32
      %14 = arith.shrui %extracted, %13 : i32
      %15 = arith.andi %14, %c15_i32 : i32
      %16 = arith.uitofp %15 : i32 to f16
      %17 = arith.subf %16, %cst_1 : f16
      %18 = arith.divui %9, %c128 : index
      %extracted_2 = tensor.extract %arg5[%18, %8] : tensor<2x128xf16>
      %19 = arith.mulf %17, %extracted_2 : f16
      %20 = arith.extf %in : f16 to f32
      %21 = arith.extf %19 : f16 to f32
      %22 = arith.mulf %20, %21 : f32
      %23 = arith.addf %out, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<?x128xf32>
    %6 = tensor.empty(%dim) : tensor<?x128xf16>
    %7 = linalg.generic {indexing_maps = [#map, #map3, #map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg6, %5, %arg7 : tensor<?x128xf32>, tensor<128xf16>, tensor<?x128xf32>, tensor<128xf16>) outs(%6 : tensor<?x128xf16>) {
    ^bb0(%in: f32, %in_2: f16, %in_3: f32, %in_4: f16, %out: f16):
      %8 = arith.extf %in_4 : f16 to f32
      %9 = arith.addf %in_3, %8 : f32
      %10 = arith.truncf %9 : f32 to f16
      %11 = arith.extf %in_2 : f16 to f32
      %12 = arith.addf %in, %11 : f32
      %13 = arith.truncf %12 : f32 to f16
      %14 = arith.extf %13 : f16 to f32
      %15 = arith.negf %14 : f32
      %16 = math.exp %15 : f32
      %17 = arith.addf %16, %cst_0 : f32
      %18 = arith.divf %cst_0, %17 : f32
      %19 = arith.mulf %14, %18 : f32
      %20 = arith.truncf %19 : f32 to f16
      %21 = arith.mulf %20, %10 : f16
      linalg.yield %21 : f16
    } -> tensor<?x128xf16>
    return %7 : tensor<?x128xf16>
  }
}

// -----

// The accumulators' product, truncated once: no part reads the gate's result alone but the result itself, so there
// is nothing to split, and the generic stays as it was.
// CHECK-LABEL: func.func @product_of_accumulators(
// CHECK-COUNT-2: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         %[[P:.+]] = linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT:      %[[AB:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[T:.+]] = arith.truncf %[[AB]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
// CHECK:         return %[[P]]
// EXPLAIN-COUNT-2: remark: w4a16: not fused: matmul result is f32, and the ops that truncate it to f16 are not a fused epilogue: combines the matmul result with an (M, N) tensor other than by adding it last

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @product_of_accumulators(%arg0: tensor<?x256xf16>, %arg1: tensor<?x256xf16>, %arg2: tensor<32x128xi32>, %arg3: tensor<2x128xf16>, %arg4: tensor<32x128xi32>, %arg5: tensor<2x128xf16>) -> tensor<?x128xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 8.000000e+00 : f16
    %c15_i32 = arith.constant 15 : i32
    %c4_i32 = arith.constant 4 : i32
    %c128 = arith.constant 128 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x256xf16>
    %0 = tensor.empty(%dim) : tensor<?x128xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%1 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %10 = arith.divui %9, %c8 : index
      %extracted = tensor.extract %arg2[%10, %8] : tensor<32x128xi32>
      %11 = arith.remui %9, %c8 : index
      %12 = arith.index_cast %11 : index to i32
      %13 = arith.muli %12, %c4_i32 : i32
      %14 = arith.shrui %extracted, %13 : i32
      %15 = arith.andi %14, %c15_i32 : i32
      %16 = arith.uitofp %15 : i32 to f16
      %17 = arith.subf %16, %cst_1 : f16
      %18 = arith.divui %9, %c128 : index
      %extracted_2 = tensor.extract %arg3[%18, %8] : tensor<2x128xf16>
      %19 = arith.mulf %17, %extracted_2 : f16
      %20 = arith.extf %in : f16 to f32
      %21 = arith.extf %19 : f16 to f32
      %22 = arith.mulf %20, %21 : f32
      %23 = arith.addf %out, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<?x128xf32>
    %3 = tensor.empty(%dim) : tensor<?x128xf32>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%3 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%4 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %10 = arith.divui %9, %c8 : index
      %extracted = tensor.extract %arg4[%10, %8] : tensor<32x128xi32>
      %11 = arith.remui %9, %c8 : index
      %12 = arith.index_cast %11 : index to i32
      %13 = arith.muli %12, %c4_i32 : i32
      %14 = arith.shrui %extracted, %13 : i32
      %15 = arith.andi %14, %c15_i32 : i32
      %16 = arith.uitofp %15 : i32 to f16
      %17 = arith.subf %16, %cst_1 : f16
      %18 = arith.divui %9, %c128 : index
      %extracted_2 = tensor.extract %arg5[%18, %8] : tensor<2x128xf16>
      %19 = arith.mulf %17, %extracted_2 : f16
      %20 = arith.extf %in : f16 to f32
      %21 = arith.extf %19 : f16 to f32
      %22 = arith.mulf %20, %21 : f32
      %23 = arith.addf %out, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<?x128xf32>
    %6 = tensor.empty(%dim) : tensor<?x128xf16>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %2 : tensor<?x128xf32>, tensor<?x128xf32>) outs(%6 : tensor<?x128xf16>) {
    ^bb0(%in: f32, %in_2: f32, %out: f16):
      %8 = arith.mulf %in, %in_2 : f32
      %9 = arith.truncf %8 : f32 to f16
      linalg.yield %9 : f16
    } -> tensor<?x128xf16>
    return %7 : tensor<?x128xf16>
  }
}

// -----

// A relu GLU: split, the up projection fuses, and the gate stays a contraction whose relu part is a generic of its
// own; the remark names the reason of that part (the product after it is what ends a GLU's gate).
// CHECK-LABEL: func.func @relu_glu(
// CHECK:         %[[GATE:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         %[[UP:.+]] = "w4a16.fused_matmul"
// CHECK-SAME:      activation = "none"
// CHECK:         %[[RELU:.+]] = linalg.generic {{.*}} ins(%[[GATE]] : tensor<?x128xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[P:.+]] = linalg.generic {{.*}} ins(%[[UP]], %[[RELU]] : tensor<?x128xf16>, tensor<?x128xf16>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      %[[AB:.+]] = arith.mulf %[[A]], %[[B]] : f16
// CHECK-NEXT:      linalg.yield %[[AB]] : f16
// CHECK:         return %[[P]]
// EXPLAIN:       remark: w4a16: not fused: matmul result is f32, and the ops that truncate it to f16 are not a fused epilogue: activation is relu; only silu and gelu_tanh are supported
// EXPLAIN-NEXT:  remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul;
// EXPLAIN-NOT:   remark:

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @relu_glu(%arg0: tensor<?x256xf16>, %arg1: tensor<?x256xf16>, %arg2: tensor<32x128xi32>, %arg3: tensor<2x128xf16>, %arg4: tensor<32x128xi32>, %arg5: tensor<2x128xf16>) -> tensor<?x128xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 8.000000e+00 : f16
    %c15_i32 = arith.constant 15 : i32
    %c4_i32 = arith.constant 4 : i32
    %c128 = arith.constant 128 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x256xf16>
    %0 = tensor.empty(%dim) : tensor<?x128xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%1 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %10 = arith.divui %9, %c8 : index
      %extracted = tensor.extract %arg2[%10, %8] : tensor<32x128xi32>
      %11 = arith.remui %9, %c8 : index
      %12 = arith.index_cast %11 : index to i32
      %13 = arith.muli %12, %c4_i32 : i32
      %14 = arith.shrui %extracted, %13 : i32
      %15 = arith.andi %14, %c15_i32 : i32
      %16 = arith.uitofp %15 : i32 to f16
      %17 = arith.subf %16, %cst_1 : f16
      %18 = arith.divui %9, %c128 : index
      %extracted_2 = tensor.extract %arg3[%18, %8] : tensor<2x128xf16>
      %19 = arith.mulf %17, %extracted_2 : f16
      %20 = arith.extf %in : f16 to f32
      %21 = arith.extf %19 : f16 to f32
      %22 = arith.mulf %20, %21 : f32
      %23 = arith.addf %out, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<?x128xf32>
    %3 = tensor.empty(%dim) : tensor<?x128xf32>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%3 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%4 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %10 = arith.divui %9, %c8 : index
      %extracted = tensor.extract %arg4[%10, %8] : tensor<32x128xi32>
      %11 = arith.remui %9, %c8 : index
      %12 = arith.index_cast %11 : index to i32
      %13 = arith.muli %12, %c4_i32 : i32
      %14 = arith.shrui %extracted, %13 : i32
      %15 = arith.andi %14, %c15_i32 : i32
      %16 = arith.uitofp %15 : i32 to f16
      %17 = arith.subf %16, %cst_1 : f16
      %18 = arith.divui %9, %c128 : index
      %extracted_2 = tensor.extract %arg5[%18, %8] : tensor<2x128xf16>
      %19 = arith.mulf %17, %extracted_2 : f16
      %20 = arith.extf %in : f16 to f32
      %21 = arith.extf %19 : f16 to f32
      %22 = arith.mulf %20, %21 : f32
      %23 = arith.addf %out, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<?x128xf32>
    %6 = tensor.empty(%dim) : tensor<?x128xf16>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %2 : tensor<?x128xf32>, tensor<?x128xf32>) outs(%6 : tensor<?x128xf16>) {
    ^bb0(%in: f32, %in_2: f32, %out: f16):
      %8 = arith.truncf %in_2 : f32 to f16
      %9 = arith.extf %8 : f16 to f32
      %cst_z = arith.constant 0.000000e+00 : f32
      %10 = arith.maximumf %9, %cst_z : f32
      %11 = arith.truncf %10 : f32 to f16
      %12 = arith.truncf %in : f32 to f16
      %13 = arith.mulf %12, %11 : f16
      linalg.yield %13 : f16
    } -> tensor<?x128xf16>
    return %7 : tensor<?x128xf16>
  }
}

// -----

// The GLU moved into a down projection that is not quantised (a recipe that keeps down_proj in f16): the
// projection's x is split out of its body the same way, the contraction, a candidate the pass visits later, reads
// the combination as an input of its own, and gate and up merge.
// CHECK-LABEL: func.func @glu_into_float_down(
// CHECK-SAME:      %[[WD:[^:]+]]: tensor<128x64xf16>)
// CHECK:         %[[GLU:.+]] = "w4a16.merged_matmul"
// CHECK-SAME:      activation = "silu", combine = "glu"
// CHECK:         %[[DOWN:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[WD]], %[[GLU]] : tensor<128x64xf16>, tensor<?x128xf16>)
// CHECK-NEXT:    ^bb0(%[[W:.+]]: f16, %[[H:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT:      %[[HF:.+]] = arith.extf %[[H]] : f16 to f32
// CHECK-NEXT:      %[[WF:.+]] = arith.extf %[[W]] : f16 to f32
// CHECK-NEXT:      %[[P:.+]] = arith.mulf %[[HF]], %[[WF]] : f32
// CHECK-NEXT:      %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// EXPLAIN:       remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul -> silu;
// EXPLAIN-NEXT:  remark: w4a16: fused as dequant(packed_k8_n, scales g_n) -> matmul;
// EXPLAIN-NEXT:  remark: w4a16: merged 2 sibling projections of one x into one launch (glu: silu(gate) * up)

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
module {
  func.func @glu_into_float_down(%arg0: tensor<?x256xf16>, %arg1: tensor<?x256xf16>, %arg2: tensor<32x128xi32>, %arg3: tensor<2x128xf16>, %arg4: tensor<32x128xi32>, %arg5: tensor<2x128xf16>, %arg6: tensor<128x64xf16>) -> tensor<?x64xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 8.000000e+00 : f16
    %c15_i32 = arith.constant 15 : i32
    %c4_i32 = arith.constant 4 : i32
    %c128 = arith.constant 128 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x256xf16>
    %0 = tensor.empty(%dim) : tensor<?x128xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%1 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %11 = linalg.index 1 : index
      %12 = linalg.index 2 : index
      %13 = arith.divui %12, %c8 : index
      %extracted = tensor.extract %arg2[%13, %11] : tensor<32x128xi32>
      %14 = arith.remui %12, %c8 : index
      %15 = arith.index_cast %14 : index to i32
      %16 = arith.muli %15, %c4_i32 : i32
      %17 = arith.shrui %extracted, %16 : i32
      %18 = arith.andi %17, %c15_i32 : i32
      %19 = arith.uitofp %18 : i32 to f16
      %20 = arith.subf %19, %cst_1 : f16
      %21 = arith.divui %12, %c128 : index
      %extracted_2 = tensor.extract %arg3[%21, %11] : tensor<2x128xf16>
      %22 = arith.mulf %20, %extracted_2 : f16
      %23 = arith.extf %in : f16 to f32
      %24 = arith.extf %22 : f16 to f32
      %25 = arith.mulf %23, %24 : f32
      %26 = arith.addf %out, %25 : f32
      linalg.yield %26 : f32
    } -> tensor<?x128xf32>
    %3 = tensor.empty(%dim) : tensor<?x128xf32>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%3 : tensor<?x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x128xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%4 : tensor<?x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %11 = linalg.index 1 : index
      %12 = linalg.index 2 : index
      %13 = arith.divui %12, %c8 : index
      %extracted = tensor.extract %arg4[%13, %11] : tensor<32x128xi32>
      %14 = arith.remui %12, %c8 : index
      %15 = arith.index_cast %14 : index to i32
      %16 = arith.muli %15, %c4_i32 : i32
      %17 = arith.shrui %extracted, %16 : i32
      %18 = arith.andi %17, %c15_i32 : i32
      %19 = arith.uitofp %18 : i32 to f16
      %20 = arith.subf %19, %cst_1 : f16
      %21 = arith.divui %12, %c128 : index
      %extracted_2 = tensor.extract %arg5[%21, %11] : tensor<2x128xf16>
      %22 = arith.mulf %20, %extracted_2 : f16
      %23 = arith.extf %in : f16 to f32
      %24 = arith.extf %22 : f16 to f32
      %25 = arith.mulf %23, %24 : f32
      %26 = arith.addf %out, %25 : f32
      linalg.yield %26 : f32
    } -> tensor<?x128xf32>
    %6 = tensor.empty(%dim) : tensor<?x64xf32>
    %7 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%6 : tensor<?x64xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x64xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map1, #map3, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%5, %2, %arg6 : tensor<?x128xf32>, tensor<?x128xf32>, tensor<128x64xf16>) outs(%7 : tensor<?x64xf32>) {
    ^bb0(%in: f32, %in_2: f32, %in_3: f16, %out: f32):
      %11 = arith.truncf %in_2 : f32 to f16
      %12 = arith.extf %11 : f16 to f32
      %13 = arith.negf %12 : f32
      %14 = math.exp %13 : f32
      %15 = arith.addf %14, %cst_0 : f32
      %16 = arith.divf %cst_0, %15 : f32
      %17 = arith.mulf %12, %16 : f32
      %18 = arith.truncf %17 : f32 to f16
      %19 = arith.truncf %in : f32 to f16
      %20 = arith.mulf %19, %18 : f16
      %21 = arith.extf %20 : f16 to f32
      %22 = arith.extf %in_3 : f16 to f32
      %23 = arith.mulf %21, %22 : f32
      %24 = arith.addf %out, %23 : f32
      linalg.yield %24 : f32
    } -> tensor<?x64xf32>
    %9 = tensor.empty(%dim) : tensor<?x64xf16>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<?x64xf32>) outs(%9 : tensor<?x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %11 = arith.truncf %in : f32 to f16
      linalg.yield %11 : f16
    } -> tensor<?x64xf16>
    return %10 : tensor<?x64xf16>
  }
}
