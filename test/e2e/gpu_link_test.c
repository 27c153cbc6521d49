/* GPU-target link test: examples/llama_block.mlir compiled with `w4a16-compile --target=gpu` to an object
 * (PTX of its RMSNorm and multiply kernels embedded), declared by the generated header, linked with
 * w4a16_rt_abi into this program -- no MLIR, no libcuda in the link.
 *
 * On a machine without a GPU (CI) it checks what a user there gets: the object's module loader ran in a
 * global constructor without touching a GPU (we reached main), and a call returns a status with a message
 * instead of crashing or aborting. On a machine with a GPU the device run (test/e2e/run-gpu.sh) checks the
 * results; here the test then only checks that the entry points take the stream first (compile time). */
#include "llama_block_gpu.h"
#include "w4a16/runtime.h"
#include "w4a16/runtime_abi.h"

#include <stdio.h>
#include <string.h>

/* The GPU target's entry points take the caller's stream first (compile-time check of the header). */
static w4a16c_llama_block_status_fn *const kRun = w4a16c_run_llama_block;

int main(void) {
  if (w4a16_cuda_available()) {
    printf("gpu-link: a GPU is present; the device run checks results (test/e2e/run-gpu.sh)\n");
    return 0;
  }
  static uint16_t x[4096], norm[4096], gate_scales[32 * 11008], up_scales[32 * 11008], down_scales[86 * 4096];
  static int32_t gate[512 * 11008], up[512 * 11008], down[1376 * 4096];
  w4a16c_memref2d_f16 ret = {0};
  w4a16c_memref2d_f16 mx = {x, x, 0, {1, 4096}, {4096, 1}};
  w4a16c_memref1d_f16 mnorm = {norm, norm, 0, {4096}, {1}};
  w4a16c_memref2d_i32 mgate = {gate, gate, 0, {512, 11008}, {11008, 1}}, mup = {up, up, 0, {512, 11008}, {11008, 1}};
  w4a16c_memref2d_i32 mdown = {down, down, 0, {1376, 4096}, {4096, 1}};
  w4a16c_memref2d_f16 mgs = {gate_scales, gate_scales, 0, {32, 11008}, {11008, 1}};
  w4a16c_memref2d_f16 mus = {up_scales, up_scales, 0, {32, 11008}, {11008, 1}};
  w4a16c_memref2d_f16 mds = {down_scales, down_scales, 0, {86, 4096}, {4096, 1}};
  const int32_t status = w4a16c_prepare_llama_block(NULL, &ret, &mx, &mnorm, &mgate, &mgs, &mup, &mus, &mdown, &mds);
  const char *message = w4a16_rt_last_error();
  printf("gpu-link: w4a16c_prepare_llama_block without a GPU returned %s: %s\n",
         w4a16_status_name((w4a16_status)status), message);
  if (status == 0 || !message[0]) {
    fprintf(stderr, "gpu-link: FAIL: expected a failure status with a message\n");
    return 1;
  }
  const int32_t again = kRun(NULL, &ret, &mx, &mnorm, &mgate, &mgs, &mup, &mus, &mdown, &mds);
  if (again == 0) {
    fprintf(stderr, "gpu-link: FAIL: w4a16c_run_llama_block succeeded without a GPU\n");
    return 1;
  }
  w4a16_rt_release_device();
  printf("gpu-link: PASS\n");
  return 0;
}
