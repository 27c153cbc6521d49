// A fused op with bf16 activations or scales lowers to the typed entry of the runtime,
// w4a16_rt_matmul_typed_<io>_<s>_<w>_<z> (io: the element type of x, bias, residual and out; s: the
// scales'; w: the weight's; z: the zero points', f16 with an empty tensor when there are none), whose
// signature is the zero-point entry's with those element types. f16 ops keep their entries (zero-points.mlir).
//
// RUN: w4a16-opt --w4a16-lower-to-runtime --split-input-file %s | FileCheck %s

// bf16 model, f16 scales (GPTQ), bias: no zero-point tensor, so has_zero_points = 0 and the constant 8.
// CHECK-LABEL: func.func private @w4a16_rt_matmul_typed_bf16_f16_i32_f16(
// CHECK-SAME:    memref<?x?xbf16>, memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?xbf16>, memref<?x?xbf16>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?xi32>, memref<?x?xbf16>, i32, i32, i32, i32, i32, i32, i32, i32, f64, i32) -> i32
// CHECK:       func.func private @__w4a16_fused_matmul
// CHECK-SAME:    (%[[X:.*]]: tensor<?x256xbf16>, %{{.*}}: tensor<32x64xi32>, %{{.*}}: tensor<2x64xf16>, %{{.*}}: tensor<64xbf16>) -> tensor<?x64xbf16>
// CHECK:         memref.cast %{{.*}} : memref<?x256xbf16> to memref<?x?xbf16>
// CHECK:         %[[EMPTY:.*]] = memref.alloca() : memref<0x0xbf16>
// CHECK:         %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<?x64xbf16>
// CHECK-DAG:     %[[Z:cst[_0-9]*]] = arith.constant 8.000000e+00 : f64
// CHECK:         call @w4a16_rt_matmul_typed_bf16_f16_i32_f16({{.*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %[[Z]], %c0_i32{{[_0-9]*}})
// CHECK:         bufferization.to_tensor %[[OUT]] restrict writable : memref<?x64xbf16> to tensor<?x64xbf16>
func.func @gptq_bf16_model(%x: tensor<?x256xbf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b: tensor<64xbf16>) -> tensor<?x64xbf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %b) {activation = "silu", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<?x256xbf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xbf16>) -> tensor<?x64xbf16>
  return %0 : tensor<?x64xbf16>
}

// -----

// All bf16 (torchao): bf16 scales and bf16 zero points, (N, K) i4 weight.
// CHECK-LABEL: func.func private @w4a16_rt_matmul_typed_bf16_bf16_i4_bf16(
// CHECK-SAME:    memref<?x?xbf16>, memref<?x?xi4, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?xbf16>, memref<?x?xbf16>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?xi32>, memref<?x?xbf16>,
// CHECK:       call @w4a16_rt_matmul_typed_bf16_bf16_i4_bf16(
func.func @torchao_bf16(%x: tensor<4x256xbf16>, %w: tensor<64x256xi4>, %s: tensor<64x2xbf16>, %z: tensor<64x2xbf16>) -> tensor<4x64xbf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s, %z) {activation = "none", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0>, scales_layout = "n_g", weight_layout = "n_k",
        zero_point_layout = "n_g"}
        : (tensor<4x256xbf16>, tensor<64x256xi4>, tensor<64x2xbf16>, tensor<64x2xbf16>) -> tensor<4x64xbf16>
  return %0 : tensor<4x64xbf16>
}

// -----

// f16 activations with bf16 scales take the typed entry too.
// CHECK-LABEL: func.func private @w4a16_rt_matmul_typed_f16_bf16_i32_f16(
// CHECK-SAME:    memref<?x?xf16>, memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?xf16>, memref<?x?xf16>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?xi32>, memref<?x?xf16>,
func.func @f16_bf16_scales(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xbf16>) -> tensor<4x64xf16> {
  %0 = "w4a16.fused_matmul"(%x, %w, %s) {activation = "none", group_size = 128 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"}
        : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xbf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}
