/* Internal to w4a16_gpu_test: what gpu_test.c (main, the oracle matrices and the other tests), gpu_test_act_order.c,
 * gpu_test_outputs.c and gpu_test_chooser.c share. Each function is defined once, in the file named above its
 * declarations. */
#ifndef W4A16_GPU_TEST_H
#define W4A16_GPU_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "support.h"

/* gpu_test.c */
/* device memory through cudaMalloc / cudaMemcpy / cudaMemset (0xff: poison), aborting on a CUDA error (CK) */
void *g_alloc(size_t n);
void g_release(void *p);
void g_put(void *d, const void *h, size_t n);
void g_get(void *h, const void *d, size_t n);
void g_poison(void *d, size_t n);
/* the failures main reports at the end; check prints "ok  " or "FAIL" and what, and counts a failure */
extern int64_t total_fail;
void check(int ok, const char *what);
/* the kernel path forced through W4A16_FORCE_*: 0 (NULL for the kernel) leaves it unforced */
void set_splits(int s);
void set_wg(int w);
void set_global(int on);
void set_kernel(const char *kernel);
void upload_weights(int64_t K, int64_t N, uint64_t seed, void **dq, void **ds);
/* a CUDA plan of random weights (upload_weights), G = 128 */
w4a16_plan *make_plan(int64_t K, int64_t N, uint64_t seed, void **dq, void **ds);
size_t free_mem(void);

/* gpu_test_act_order.c */
void *upload_or_null(const void *host, size_t bytes);
void run_act_order_matrix(int small, uint64_t seed, w4t_stats *st16, w4t_stats *stbf);
void test_act_order_paths(int sm90, w4t_stats *st);
void test_act_order_chooser(int sm90_132, w4t_stats *st);
void test_act_order_plan(void);
void test_first_call_after_create(int rounds);

/* gpu_test_outputs.c */
void run_outputs_matrix(int small, uint64_t seed, w4t_stats *st16, w4t_stats *stbf);

/* gpu_test_chooser.c */
void test_chooser(int sm90_132); /* sm90_132: an sm_90 GPU of 132 SMs (the picks that depend on it) */
void test_affine_chooser(void);

#endif
