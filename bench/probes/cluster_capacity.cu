// How many v3 CTAs does the GPU hold at once, per cluster size? (issue #5: 4-CTA clusters of one CTA
// per SM were reported to fit only 96 of 132 SMs, which decides how split-K can cover the SMs.)
// Prints cudaOccupancyMaxActiveClusters x S for kernel v3 at 8, 32 and 64 tokens, W = 2 and 4.
//
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o cluster_capacity cluster_capacity.cu -lcuda
#include "../../runtime/src/gemm_v3.cuh"
#include "../../runtime/test/cuda_check.h"

#include <cstdio>

using namespace w4a16;

template <int NT, int W> void report() {
  auto fn = v3::gemm_v3_kernel<NT, W>;
  using C = v3::Cfg<NT, W>;
  CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes));
  CK(cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  printf("tokens=%2d W=%d smem=%6d:", NT * 8, W, C::kSmemBytes);
  for (int S = 1; S <= 16; ++S) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)S, 1, 1);
    cfg.blockDim = dim3((unsigned)C::kThreads);
    cfg.dynamicSmemBytes = (size_t)C::kSmemBytes;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)S;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, (const void *)fn, &cfg) != cudaSuccess) clusters = -1, cudaGetLastError();
    printf(" S%d:%d", S, clusters < 0 ? -1 : clusters * S);
  }
  printf("\n");
}

int main() {
  report<1, 4>();
  report<4, 4>();
  report<8, 4>();
  report<1, 2>();
  report<4, 2>();
  report<8, 2>();
  return 0;
}
