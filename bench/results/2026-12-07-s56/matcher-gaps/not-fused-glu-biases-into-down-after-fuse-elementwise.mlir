// GAP: examples/llama_mlp_bias.mlir after elementwise fusion: bias+silu+product fold into down's contraction; gate/up no longer fused (before: fused + merged as GLU)
// Produced by: w4a16-opt --pass-pipeline='builtin.module(func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops))' /work/main/examples/llama_mlp_bias.mlir ; reproduce with: w4a16-opt --w4a16-explain gaps/not-fused-glu-biases-into-down-after-fuse-elementwise.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d2)>
#map4 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @llama_mlp_bias(%arg0: tensor<?x2048xf16>, %arg1: tensor<256x5632xi32>, %arg2: tensor<16x5632xf16>, %arg3: tensor<5632xf16>, %arg4: tensor<256x5632xi32>, %arg5: tensor<16x5632xf16>, %arg6: tensor<5632xf16>, %arg7: tensor<704x2048xi32>, %arg8: tensor<44x2048xf16>, %arg9: tensor<2048xf16>) -> tensor<?x2048xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 8.000000e+00 : f16
    %c15_i32 = arith.constant 15 : i32
    %c4_i32 = arith.constant 4 : i32
    %c128 = arith.constant 128 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x2048xf16>
    %0 = tensor.empty(%dim) : tensor<?x5632xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x5632xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x5632xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x2048xf16>) outs(%1 : tensor<?x5632xf32>) {
    ^bb0(%in: f16, %out: f32):
      %11 = linalg.index 1 : index
      %12 = linalg.index 2 : index
      %13 = arith.divui %12, %c8 : index
      %extracted = tensor.extract %arg1[%13, %11] : tensor<256x5632xi32>
      %14 = arith.remui %12, %c8 : index
      %15 = arith.index_cast %14 : index to i32
      %16 = arith.muli %15, %c4_i32 : i32
      %17 = arith.shrui %extracted, %16 : i32
      %18 = arith.andi %17, %c15_i32 : i32
      %19 = arith.uitofp %18 : i32 to f16
      %20 = arith.subf %19, %cst_1 : f16
      %21 = arith.divui %12, %c128 : index
      %extracted_2 = tensor.extract %arg2[%21, %11] : tensor<16x5632xf16>
      %22 = arith.mulf %20, %extracted_2 : f16
      %23 = arith.extf %in : f16 to f32
      %24 = arith.extf %22 : f16 to f32
      %25 = arith.mulf %23, %24 : f32
      %26 = arith.addf %out, %25 : f32
      linalg.yield %26 : f32
    } -> tensor<?x5632xf32>
    %3 = tensor.empty(%dim) : tensor<?x5632xf32>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%3 : tensor<?x5632xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x5632xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x2048xf16>) outs(%4 : tensor<?x5632xf32>) {
    ^bb0(%in: f16, %out: f32):
      %11 = linalg.index 1 : index
      %12 = linalg.index 2 : index
      %13 = arith.divui %12, %c8 : index
      %extracted = tensor.extract %arg4[%13, %11] : tensor<256x5632xi32>
      %14 = arith.remui %12, %c8 : index
      %15 = arith.index_cast %14 : index to i32
      %16 = arith.muli %15, %c4_i32 : i32
      %17 = arith.shrui %extracted, %16 : i32
      %18 = arith.andi %17, %c15_i32 : i32
      %19 = arith.uitofp %18 : i32 to f16
      %20 = arith.subf %19, %cst_1 : f16
      %21 = arith.divui %12, %c128 : index
      %extracted_2 = tensor.extract %arg5[%21, %11] : tensor<16x5632xf16>
      %22 = arith.mulf %20, %extracted_2 : f16
      %23 = arith.extf %in : f16 to f32
      %24 = arith.extf %22 : f16 to f32
      %25 = arith.mulf %23, %24 : f32
      %26 = arith.addf %out, %25 : f32
      linalg.yield %26 : f32
    } -> tensor<?x5632xf32>
    %6 = tensor.empty(%dim) : tensor<?x2048xf32>
    %7 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%6 : tensor<?x2048xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x2048xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map3, #map1, #map3, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%5, %arg6, %2, %arg3 : tensor<?x5632xf32>, tensor<5632xf16>, tensor<?x5632xf32>, tensor<5632xf16>) outs(%7 : tensor<?x2048xf32>) {
    ^bb0(%in: f32, %in_2: f16, %in_3: f32, %in_4: f16, %out: f32):
      %11 = linalg.index 1 : index
      %12 = linalg.index 2 : index
      %13 = arith.divui %12, %c8 : index
      %extracted = tensor.extract %arg7[%13, %11] : tensor<704x2048xi32>
      %14 = arith.remui %12, %c8 : index
      %15 = arith.index_cast %14 : index to i32
      %16 = arith.muli %15, %c4_i32 : i32
      %17 = arith.shrui %extracted, %16 : i32
      %18 = arith.andi %17, %c15_i32 : i32
      %19 = arith.uitofp %18 : i32 to f16
      %20 = arith.subf %19, %cst_1 : f16
      %21 = arith.divui %12, %c128 : index
      %extracted_5 = tensor.extract %arg8[%21, %11] : tensor<44x2048xf16>
      %22 = arith.mulf %20, %extracted_5 : f16
      %23 = arith.extf %in_4 : f16 to f32
      %24 = arith.addf %in_3, %23 : f32
      %25 = arith.truncf %24 : f32 to f16
      %26 = arith.extf %25 : f16 to f32
      %27 = arith.negf %26 : f32
      %28 = math.exp %27 : f32
      %29 = arith.addf %28, %cst_0 : f32
      %30 = arith.divf %26, %29 : f32
      %31 = arith.truncf %30 : f32 to f16
      %32 = arith.extf %in_2 : f16 to f32
      %33 = arith.addf %in, %32 : f32
      %34 = arith.truncf %33 : f32 to f16
      %35 = arith.mulf %34, %31 : f16
      %36 = arith.extf %35 : f16 to f32
      %37 = arith.extf %22 : f16 to f32
      %38 = arith.mulf %36, %37 : f32
      %39 = arith.addf %out, %38 : f32
      linalg.yield %39 : f32
    } -> tensor<?x2048xf32>
    %9 = tensor.empty(%dim) : tensor<?x2048xf16>
    %10 = linalg.generic {indexing_maps = [#map, #map4, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg9, %arg0 : tensor<?x2048xf32>, tensor<2048xf16>, tensor<?x2048xf16>) outs(%9 : tensor<?x2048xf16>) {
    ^bb0(%in: f32, %in_2: f16, %in_3: f16, %out: f16):
      %11 = arith.extf %in_2 : f16 to f32
      %12 = arith.addf %in, %11 : f32
      %13 = arith.truncf %12 : f32 to f16
      %14 = arith.addf %13, %in_3 : f16
      linalg.yield %14 : f16
    } -> tensor<?x2048xf16>
    return %10 : tensor<?x2048xf16>
  }
}

