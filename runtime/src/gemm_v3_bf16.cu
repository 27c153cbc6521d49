// The bf16 v3 kernels: gemm_v3.cu with bf16 x, bias, residual and out (a translation unit of its own so
// that the build compiles the two io types in parallel).
#define W4A16_KERNEL_BF16 1
#include "gemm_v3.cu"
