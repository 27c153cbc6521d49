// --w4a16-explain: x is bf16 (the dequantised weight is f16; mixed-type matmul into f32) and the f32 result
// is returned as is: bf16 chains fuse (test/fuse/bf16.mlir), but the op's result has x's type, so this
// one cannot. The remark is located at the matmul op (line and column of the op) and the IR is left unfused.
//
// RUN: w4a16-opt --w4a16-explain %s -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR --input-file=%t

// IR-LABEL: func.func @f(
// IR-NOT:    w4a16.fused_matmul
// IR:        linalg.matmul
func.func @f(%x: tensor<?x1024xbf16>, %qweight: tensor<128x256xi32>, %scales: tensor<8x256xf16>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x1024xbf16>
  %de = tensor.empty() : tensor<1024x256xf16>
  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%de : tensor<1024x256xf16>) {
  ^bb0(%out: f16):
    %c8_i = arith.constant 8 : index
    %cg_i = arith.constant 128 : index
    %c4_i32 = arith.constant 4 : i32
    %c7_i32 = arith.constant 7 : i32
    %c28_i32 = arith.constant 28 : i32
    %mask = arith.constant 15 : i32
    %zp = arith.constant 8.000000e+00 : f16
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %kw = arith.divui %k, %c8_i : index
    %word = tensor.extract %qweight[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8_i : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %sh = arith.muli %lane_i32, %c4_i32 : i32
    %v = arith.shrui %word, %sh : i32
    %code = arith.andi %v, %mask : i32
    %cf = arith.uitofp %code : i32 to f16
    %g = arith.divui %k, %cg_i : index
    %sc = tensor.extract %scales[%g, %n] : tensor<8x256xf16>
    %cz = arith.subf %cf, %zp : f16
    %w = arith.mulf %cz, %sc : f16
    linalg.yield %w : f16
  } -> tensor<1024x256xf16>
  %zero = arith.constant 0.000000e+00 : f32
  %ae = tensor.empty(%m) : tensor<?x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x256xf32>) -> tensor<?x256xf32>
  // CHECK: {{.*}}x-bf16.mlir:[[@LINE+1]]:9: remark: w4a16: not fused: matmul result is f32 and never truncated to bf16 (x{{.}}s type)
  %mm = linalg.matmul ins(%x, %deq : tensor<?x1024xbf16>, tensor<1024x256xf16>) outs(%acc : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %mm : tensor<?x256xf32>
}
// CHECK-NOT: remark:
