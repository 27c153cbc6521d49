// Without CUDA's libdevice the GPU target stops with an error naming it, before generating anything.
// RUN: env W4A16_CUDA_TOOLKIT=%t.nonexistent not w4a16-opt --w4a16-gpu-pipeline %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: w4a16 GPU target: CUDA's libdevice (nvvm/libdevice/libdevice.10.bc) was not found under $W4A16_CUDA_TOOLKIT
func.func @add(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.add ins(%a, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
