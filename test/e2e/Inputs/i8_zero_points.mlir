// GPTQ-style packed codes with an unpacked int8 zero-point tensor read signed (torch-mlir lowers a torch int8
// tensor with arith.sitofp): test/e2e/i8_zero_points_test.c.
func.func @i8_zero_points(%x: tensor<?x512xf16>, %qw: tensor<64x128xi32>, %sc: tensor<4x128xf16>, %qz: tensor<4x128xi8>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<512x128xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(k, n) -> (k floordiv 8, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k floordiv 128, n)>, affine_map<(k, n) -> (k, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%qw, %sc, %qz : tensor<64x128xi32>, tensor<4x128xf16>, tensor<4x128xi8>) outs(%de : tensor<512x128xf16>) {
  ^bb0(%word: i32, %scale: f16, %zz: i8, %out: f16):
    %k = linalg.index 0 : index
    %c8 = arith.constant 8 : index
    %kk = arith.remui %k, %c8 : index
    %four = arith.constant 4 : index
    %sh = arith.muli %kk, %four : index
    %shi = arith.index_cast %sh : index to i32
    %v = arith.shrui %word, %shi : i32
    %m15 = arith.constant 15 : i32
    %code = arith.andi %v, %m15 : i32
    %zf = arith.sitofp %zz : i8 to f16
    %cf = arith.uitofp %code : i32 to f16
    %c = arith.subf %cf, %zf : f16
    %r = arith.mulf %c, %scale : f16
    linalg.yield %r : f16
  } -> tensor<512x128xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%m) : tensor<?x128xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<?x128xf16>) -> tensor<?x128xf16>
  %y = linalg.matmul ins(%x, %w : tensor<?x512xf16>, tensor<512x128xf16>) outs(%acc : tensor<?x128xf16>) -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}
