// --w4a16-explain-int8-prep: a located "fused as" remark at each correction matmul whose operands the
// preparation produces (dynamic L, static L = 5, static L = 0), and none where no column gather feeds a
// matmul: a plain f16 matmul, or the W4A16 chains of the examples.
//
// RUN: w4a16-opt --w4a16-explain-int8-prep %S/Inputs/llm_int8_correction.mlir -o /dev/null 2>&1 | FileCheck %s
// CHECK:      llm_int8_correction.mlir:65:8: remark: w4a16-int8-prep: fused as subA = A[:, cols] (?x?), subB = f16(f32(CB[:, cols]) * SCB[:, None] * 1/127).t() (?x264)
// CHECK-NEXT: llm_int8_correction.mlir:105:9: remark: w4a16-int8-prep: fused as subA = A[:, cols] (?x5), subB = {{.*}} (5x264)
// CHECK-NEXT: llm_int8_correction.mlir:140:8: remark: w4a16-int8-prep: fused as subA = A[:, cols] (?x0), subB = {{.*}} (0x264)
// CHECK-NOT:  remark
//
// RUN: w4a16-opt --w4a16-explain-int8-prep %s -o /dev/null 2>&1 | count 0
// RUN: w4a16-opt --w4a16-explain-int8-prep %S/../../examples/llama_mlp.mlir -o /dev/null 2>&1 | count 0
// RUN: w4a16-opt --w4a16-explain-int8-prep %S/../../examples/gpt_mlp.mlir -o /dev/null 2>&1 | count 0
//
// After upstream's elementwise fusion the gathers and CB's dequantisation of fuse.mlir's corrections sit in their
// contraction's body: they fuse from there too (upstream-fused.mlir).
//
// The W4A16 pass, for its part, names why it leaves each correction matmul alone (issue #18: no silent
// candidates): x is gathered through integer column indices and the weight is int8.
// RUN: w4a16-opt --w4a16-explain %S/Inputs/llm_int8_correction.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=W4A16
// RUN: w4a16-opt --w4a16-explain %S/Inputs/llm_int8_correction.mlir -o /dev/null 2>&1 | grep -c "remark: w4a16: not fused: both operands are computed from integer tensors" | FileCheck %s --check-prefix=W4A16-COUNT
// W4A16: llm_int8_correction.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: w4a16: not fused: both operands are computed from integer tensors
// W4A16-COUNT: {{^}}3{{$}}

func.func @plain(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>, %out: tensor<4x16xf16>) -> tensor<4x16xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x16xf16>) outs(%out : tensor<4x16xf16>) -> tensor<4x16xf16>
  return %r : tensor<4x16xf16>
}
