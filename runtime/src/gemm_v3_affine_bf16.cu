// The bf16 affine-form v3 kernels: gemm_v3.cu with W4A16_KERNEL_AFFINE and W4A16_KERNEL_BF16
// (a translation unit of its own so that the build compiles the kernel families in parallel).
#define W4A16_KERNEL_AFFINE 1
#define W4A16_KERNEL_BF16 1
#include "gemm_v3.cu"
