// Arith and math ops on whole tensors (valid IR: elementwise-mappable ops take tensors) lower like linalg
// generics: the pipeline makes them generics (upstream convert-elementwise-to-linalg) before one-shot-bufferize,
// which bufferizes no arith op on tensors ("op was not bufferized"). The fuse pass makes one itself: an f32 x
// that the contraction's body narrows (what upstream's elementwise fusion makes of x = truncf(h)) reaches the
// fused op through an arith.truncf on the tensor.
//
// RUN: w4a16-opt --w4a16-pipeline --split-input-file %s | FileCheck %s
// RUN: w4a16-opt --w4a16-gpu-pipeline --split-input-file %s | FileCheck %s --check-prefix=GPU
// RUN: w4a16-opt --w4a16-fuse --split-input-file %s | FileCheck %s --check-prefix=FUSED

// CHECK-LABEL: llvm.func @tensor_arith(
// CHECK-NOT:     arith.
// GPU-LABEL:   llvm.func @tensor_arith(
func.func @tensor_arith(%a: tensor<4x64xf16>, %b: tensor<4x64xf16>) -> tensor<4x64xf32> {
  %s = arith.addf %a, %b : tensor<4x64xf16>
  %e = math.exp %s : tensor<4x64xf16>
  %w = arith.extf %e : tensor<4x64xf16> to tensor<4x64xf32>
  return %w : tensor<4x64xf32>
}

// -----

// FUSED-LABEL: func.func @x_narrowed_in_body(
// FUSED-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<4x1024xf32>
// FUSED:         %[[XH:.+]] = arith.truncf %[[X]] : tensor<4x1024xf32> to tensor<4x1024xf16>
// FUSED:         "w4a16.fused_matmul"(%[[XH]],
// CHECK-LABEL: llvm.func @x_narrowed_in_body(
// CHECK:         llvm.call @w4a16_rt_
// GPU-LABEL:   llvm.func @x_narrowed_in_body(
#x = affine_map<(m, n, k) -> (m, k)>
#y = affine_map<(m, n, k) -> (m, n)>
func.func @x_narrowed_in_body(%x: tensor<4x1024xf32>, %q: tensor<128x256xi32>, %s: tensor<8x256xf16>) -> tensor<4x256xf16> {
  %c4_i32 = arith.constant 4 : i32
  %c15_i32 = arith.constant 15 : i32
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %eight = arith.constant 8.0 : f16
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x256xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4x256xf16>) -> tensor<4x256xf16>
  %y = linalg.generic {indexing_maps = [#x, #y], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<4x1024xf32>) outs(%acc : tensor<4x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %n = linalg.index 1 : index
    %k = linalg.index 2 : index
    %kw = arith.divui %k, %c8 : index
    %word = tensor.extract %q[%kw, %n] : tensor<128x256xi32>
    %lane = arith.remui %k, %c8 : index
    %lane_i32 = arith.index_cast %lane : index to i32
    %shift = arith.muli %lane_i32, %c4_i32 : i32
    %shifted = arith.shrui %word, %shift : i32
    %code = arith.andi %shifted, %c15_i32 : i32
    %codef = arith.uitofp %code : i32 to f16
    %centred = arith.subf %codef, %eight : f16
    %g = arith.divui %k, %c128 : index
    %scale = tensor.extract %s[%g, %n] : tensor<8x256xf16>
    %w = arith.mulf %centred, %scale : f16
    %xh = arith.truncf %in : f32 to f16
    %p = arith.mulf %xh, %w : f16
    %sum = arith.addf %out, %p : f16
    linalg.yield %sum : f16
  } -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}
