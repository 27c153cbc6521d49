// GAP: minor: (y+b)+b in two generics; before: fused matmul->bias with the 2nd add outside; after elementwise fusion: not fused at all
// Produced by: w4a16-opt --pass-pipeline='builtin.module(func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops))' probes/30-L-bias-twice-two-generics.mlir ; reproduce with: w4a16-opt --w4a16-explain gaps/not-fused-bias-twice-after-fuse-elementwise.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @f(%arg0: tensor<?x256xf16>, %arg1: tensor<256x64xi4>, %arg2: tensor<2x64xf16>, %arg3: tensor<64xf16>) -> tensor<?x64xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 8.000000e+00 : f16
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x256xf16>
    %0 = tensor.empty(%dim) : tensor<?x64xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x64xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<?x64xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x256xf16>) outs(%1 : tensor<?x64xf32>) {
    ^bb0(%in: f16, %out: f32):
      %5 = linalg.index 1 : index
      %6 = linalg.index 2 : index
      %extracted = tensor.extract %arg1[%6, %5] : tensor<256x64xi4>
      %7 = arith.extui %extracted : i4 to i32
      %8 = arith.divui %6, %c128 : index
      %9 = arith.uitofp %7 : i32 to f16
      %10 = arith.subf %9, %cst_0 : f16
      %extracted_1 = tensor.extract %arg2[%8, %5] : tensor<2x64xf16>
      %11 = arith.mulf %10, %extracted_1 : f16
      %12 = arith.extf %in : f16 to f32
      %13 = arith.extf %11 : f16 to f32
      %14 = arith.mulf %12, %13 : f32
      %15 = arith.addf %out, %14 : f32
      linalg.yield %15 : f32
    } -> tensor<?x64xf32>
    %3 = tensor.empty(%dim) : tensor<?x64xf16>
    %4 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg3 : tensor<?x64xf32>, tensor<64xf16>) outs(%3 : tensor<?x64xf16>) {
    ^bb0(%in: f32, %in_1: f16, %out: f16):
      %5 = arith.extf %in_1 : f16 to f32
      %6 = arith.addf %in, %5 : f32
      %7 = arith.truncf %6 : f32 to f16
      %8 = arith.addf %7, %in_1 : f16
      linalg.yield %8 : f16
    } -> tensor<?x64xf16>
    return %4 : tensor<?x64xf16>
  }
}

