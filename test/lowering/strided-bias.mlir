// A bias read with a stride (every other element of a stored vector): the runtime takes a contiguous bias, and the
// lowering declares it identity-layout, so bufferization copies the strided view into a fresh buffer per call.
// Session 46 tried passing the bias as a window (to spare split-chunked-glu's up half that copy): as strided<[?]>
// this case reached the runtime with stride 2 (an error status at run time), as strided<[1]> bufferization built an
// invalid memref.alloc. Reverted; this test holds the case.
//
// RUN: w4a16-opt --w4a16-pipeline %s | FileCheck %s
// RUN: w4a16-opt --w4a16-lower-to-runtime %s | FileCheck %s --check-prefix=LOWERED

// CHECK-LABEL: llvm.func @strided_bias(
// CHECK:         llvm.call @w4a16_rt_matmul_i32(
// LOWERED:       func.func private @w4a16_rt_matmul_i32({{.*}}, memref<?xf16>, memref<?x?xf16>,
func.func @strided_bias(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<2x64xf16>, %b2: tensor<128xf16>) -> tensor<4x64xf16> {
  %b = tensor.extract_slice %b2[0] [64] [2] : tensor<128xf16> to tensor<64xf16>
  %y = "w4a16.fused_matmul"(%x, %w, %s, %b) {activation = "none", group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0>, scales_layout = "g_n", weight_layout = "packed_k8_n"} : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<2x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}
