// --w4a16-explain: contractions fed by dequantised data that got no remark at all (found by an adversarial
// hunt): a matmul on a slice of a dequantised weight (the evaluator now sees through tensor.extract_slice on
// the weight side, and the codes' layout rule names the mismatch), and a contraction with a third input (an
// extra reduction loop that neither x nor the weight reads: the remark names that loop).
//
// RUN: w4a16-opt --w4a16-explain --split-input-file %s -o /dev/null 2>&1 | FileCheck %s

// Rows 512.. of a 1024-row dequantised weight.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
#bmap = affine_map<(d0, d1) -> (d1)>
#rmap = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<?x512xf16>, %qw: tensor<128x128xi32>, %sc: tensor<8x128xf16>, %qz: tensor<8x16xi32>,
             %bias: tensor<128xf16>, %res: tensor<?x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<1024x128xf32>
  %wfull = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x128xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %cG = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<128x128xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %cz = arith.subf %cf, %zp : f32
    %g = arith.divui %k, %cG : index
    %s = tensor.extract %sc[%g, %n] : tensor<8x128xf16>
    %s32 = arith.extf %s : f16 to f32
    %wv = arith.mulf %cz, %s32 : f32
    linalg.yield %wv : f32
  } -> tensor<1024x128xf32>
  %w = tensor.extract_slice %wfull[512, 0] [512, 128] [1, 1] : tensor<1024x128xf32> to tensor<512x128xf32>
  %ex = tensor.empty(%m) : tensor<?x512xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x512xf16>) outs(%ex : tensor<?x512xf32>) {
  ^bb0(%xa: f16, %o: f32):
    %xa32 = arith.extf %xa : f16 to f32
    linalg.yield %xa32 : f32
  } -> tensor<?x512xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x128xf32>) -> tensor<?x128xf32>
  // CHECK: {{.*}}silent-candidates.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: packed i32 codes are not laid out as (K/8, N), (K, N/8) or (N, K/8) words
  %y = linalg.matmul ins(%x32, %w : tensor<?x512xf32>, tensor<512x128xf32>) outs(%acc : tensor<?x128xf32>) -> tensor<?x128xf32>
  %e2 = tensor.empty(%m) : tensor<?x128xf16>
  %outv = linalg.generic {indexing_maps = [#id2, #bmap, #rmap, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias, %res : tensor<?x128xf32>, tensor<128xf16>, tensor<?x128xf16>) outs(%e2 : tensor<?x128xf16>) {
  ^bb0(%a: f32, %b: f16, %r: f16, %oo: f16):
    %one = arith.constant 1.0 : f32
    %b32 = arith.extf %b : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %nt = arith.negf %t : f32
    %ex1 = math.exp %nt : f32
    %den = arith.addf %one, %ex1 : f32
    %act = arith.divf %t, %den : f32
    %r32 = arith.extf %r : f16 to f32
    %fin = arith.addf %act, %r32 : f32
    %o16 = arith.truncf %fin : f32 to f16
    linalg.yield %o16 : f16
  } -> tensor<?x128xf16>
  return %outv : tensor<?x128xf16>
}

// -----

// y = sum over k and a second reduction loop r of size 2: twice x W.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
#bmap = affine_map<(d0, d1) -> (d1)>
#rmap = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<?x512xf16>, %qw: tensor<64x128xi32>, %sc: tensor<4x128xf16>, %qz: tensor<4x16xi32>,
             %bias: tensor<128xf16>, %res: tensor<?x128xf16>) -> tensor<?x128xf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %de = tensor.empty() : tensor<512x128xf32>
  %w = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<512x128xf32>) {
  ^bb0(%out: f32):
    %c8 = arith.constant 8 : index
    %cG = arith.constant 128 : index
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f32
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %qw[%kw, %n] : tensor<64x128xi32>
    %lane = arith.remui %k, %c8 : index
    %lane32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane32, %c4 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %cz = arith.subf %cf, %zp : f32
    %g = arith.divui %k, %cG : index
    %s = tensor.extract %sc[%g, %n] : tensor<4x128xf16>
    %s32 = arith.extf %s : f16 to f32
    %wv = arith.mulf %cz, %s32 : f32
    linalg.yield %wv : f32
  } -> tensor<512x128xf32>
  %ex = tensor.empty(%m) : tensor<?x512xf32>
  %x32 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x512xf16>) outs(%ex : tensor<?x512xf32>) {
  ^bb0(%xa: f16, %o: f32):
    %xa32 = arith.extf %xa : f16 to f32
    linalg.yield %xa32 : f32
  } -> tensor<?x512xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty(%m) : tensor<?x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x128xf32>) -> tensor<?x128xf32>
  %two = arith.constant dense<1.0> : tensor<2xf32>
  // CHECK: {{.*}}silent-candidates.mlir:[[@LINE+1]]:8: remark: w4a16: not fused: loop d3 is not shared by x and the weight
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k, r) -> (m, k)>, affine_map<(m, n, k, r) -> (k, n)>, affine_map<(m, n, k, r) -> (r)>, affine_map<(m, n, k, r) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x32, %w, %two : tensor<?x512xf32>, tensor<512x128xf32>, tensor<2xf32>) outs(%acc : tensor<?x128xf32>) {
  ^bb0(%xa: f32, %wb: f32, %u: f32, %c: f32):
    %p = arith.mulf %xa, %wb : f32
    %sum = arith.addf %c, %p : f32
    linalg.yield %sum : f32
  } -> tensor<?x128xf32>
  %e2 = tensor.empty(%m) : tensor<?x128xf16>
  %outv = linalg.generic {indexing_maps = [#id2, #bmap, #rmap, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %bias, %res : tensor<?x128xf32>, tensor<128xf16>, tensor<?x128xf16>) outs(%e2 : tensor<?x128xf16>) {
  ^bb0(%a: f32, %b: f16, %r: f16, %oo: f16):
    %one = arith.constant 1.0 : f32
    %b32 = arith.extf %b : f16 to f32
    %t = arith.addf %a, %b32 : f32
    %nt = arith.negf %t : f32
    %ex1 = math.exp %nt : f32
    %den = arith.addf %one, %ex1 : f32
    %act = arith.divf %t, %den : f32
    %r32 = arith.extf %r : f16 to f32
    %fin = arith.addf %act, %r32 : f32
    %o16 = arith.truncf %fin : f32 to f16
    linalg.yield %o16 : f16
  } -> tensor<?x128xf16>
  return %outv : tensor<?x128xf16>
}
// CHECK-NOT: remark:
