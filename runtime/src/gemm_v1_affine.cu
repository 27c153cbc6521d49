// The f16 affine-form v1 kernels: gemm_v1.cu with W4A16_KERNEL_AFFINE
// (a translation unit of its own so that the build compiles the kernel families in parallel).
#define W4A16_KERNEL_AFFINE 1
#include "gemm_v1.cu"
