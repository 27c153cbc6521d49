// GAP: silu(xWg+bg)*(xWu+bu) as the function result, after elementwise fusion: gate/up not fused (before: merged GLU)
// Produced by: w4a16-opt --pass-pipeline='builtin.module(func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops))' probes/16-swiglu-with-biases.mlir ; reproduce with: w4a16-opt --w4a16-explain gaps/not-fused-swiglu-bias-result-after-fuse-elementwise.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @glu(%arg0: tensor<?x256xf16>, %arg1: tensor<?x256xf16>, %arg2: tensor<32x128xi32>, %arg3: tensor<2x128xf16>, %arg4: tensor<32x128xi32>, %arg5: tensor<2x128xf16>, %arg6: tensor<128xf16>, %arg7: tensor<128xf16>) -> tensor<?x128xf16> {
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

