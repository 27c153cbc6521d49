// w4a16-tensor-bitcasts: tensor.bitcast (torch-mlir's Tensor.view(dtype): an FP8 checkpoint's uint8 weights viewed as
// float8, bf16 bits as int16) becomes arith.bitcast on the whole tensor, which convert-elementwise-to-linalg makes a
// linalg body; nothing upstream bufferizes tensor.bitcast. Element types with signedness, which arith.bitcast does
// not take, are left as they are. Values: e2e-fp8 (@bytes_as_e4m3_to_f32).
//
// RUN: w4a16-opt --pass-pipeline='builtin.module(w4a16-tensor-bitcasts)' %s | FileCheck %s
// RUN: w4a16-opt --w4a16-pipeline %s -o /dev/null

// CHECK-LABEL: func.func @fp8_weights(
// CHECK-SAME:      %[[B:.*]]: tensor<?x64xi8>
// CHECK:         %[[V:.*]] = arith.bitcast %[[B]] : tensor<?x64xi8> to tensor<?x64xf8E4M3FN>
// CHECK:         arith.extf %[[V]]
// CHECK-NOT:     tensor.bitcast
func.func @fp8_weights(%b: tensor<?x64xi8>) -> tensor<?x64xf32> {
  %v = tensor.bitcast %b : tensor<?x64xi8> to tensor<?x64xf8E4M3FN>
  %f = arith.extf %v : tensor<?x64xf8E4M3FN> to tensor<?x64xf32>
  return %f : tensor<?x64xf32>
}

// CHECK-LABEL: func.func @bf16_bits(
// CHECK:         arith.bitcast %{{.*}} : tensor<8x8xbf16> to tensor<8x8xi16>
func.func @bf16_bits(%x: tensor<8x8xbf16>) -> tensor<8x8xi16> {
  %b = tensor.bitcast %x : tensor<8x8xbf16> to tensor<8x8xi16>
  return %b : tensor<8x8xi16>
}

// Left alone (the pipeline then reports it): an unsigned element type, which arith.bitcast does not take.
// CHECK-LABEL: func.func private @unsigned_bits(
// CHECK:         tensor.bitcast %{{.*}} : tensor<8xui16> to tensor<8xf16>
func.func private @unsigned_bits(%x: tensor<8xui16>) -> tensor<8xf16> {
  %b = tensor.bitcast %x : tensor<8xui16> to tensor<8xf16>
  return %b : tensor<8xf16>
}
