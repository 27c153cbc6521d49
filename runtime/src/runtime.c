/* Public API front end: argument validation common to both backends, the per-thread error slot,
 * and dispatch. Backend-specific checks (e.g. the CUDA backend's 16-byte alignment) live in the
 * backends, which report through w4a16_fail as well. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct w4a16_plan {
  w4a16_backend backend;
  int64_t K, N;
  w4a16_cpu_plan *cpu;
  w4a16_cuda_plan *cuda;
  /* Act-order (w4a16_plan_create_act_order): the backend plan holds the weight rows sorted by g_idx, and each
   * run first gathers x's columns into that order. Both NULL for every other plan (and for g_idx = k / G). */
  int32_t *perm;             /* CPU: perm (host, K values) */
  w4a16_cuda_gather *gather; /* CUDA: perm on the device and the gather buffer */
};

/* One message per thread: concurrent failures on different threads never overwrite each other. */
static _Thread_local char g_msg[512];

w4a16_status w4a16_fail(w4a16_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(g_msg, sizeof g_msg, "%s: ", w4a16_status_name(status));
  if (n > 0 && (size_t)n < sizeof g_msg) vsnprintf(g_msg + n, sizeof g_msg - (size_t)n, fmt, ap);
  va_end(ap);
  return status;
}

void w4a16_clear_error(void) { g_msg[0] = '\0'; }

const char *w4a16_last_error(void) { return g_msg; }

const char *w4a16_status_name(w4a16_status s) {
  switch (s) {
  case W4A16_OK: return "W4A16_OK";
  case W4A16_ERR_NULL_POINTER: return "W4A16_ERR_NULL_POINTER";
  case W4A16_ERR_BAD_SHAPE: return "W4A16_ERR_BAD_SHAPE";
  case W4A16_ERR_MISALIGNED: return "W4A16_ERR_MISALIGNED";
  case W4A16_ERR_BAD_ARGUMENT: return "W4A16_ERR_BAD_ARGUMENT";
  case W4A16_ERR_OUT_OF_MEMORY: return "W4A16_ERR_OUT_OF_MEMORY";
  case W4A16_ERR_NO_DEVICE: return "W4A16_ERR_NO_DEVICE";
  case W4A16_ERR_CUDA: return "W4A16_ERR_CUDA";
  }
  return "W4A16_ERR_UNKNOWN";
}

int w4a16_cuda_available(void) { return w4a16_cuda_available_impl(); }

w4a16_status w4a16_plan_create(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales, int64_t K,
                               int64_t N, int64_t group_size, w4a16_plan **plan) {
  return w4a16_plan_create_zp(backend, qweight, scales, NULL, K, N, group_size, plan);
}

w4a16_status w4a16_plan_create_zp(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales,
                                  const uint16_t *zero_points, int64_t K, int64_t N, int64_t group_size,
                                  w4a16_plan **plan) {
  return w4a16_plan_create_offsets(backend, qweight, scales, zero_points, NULL, K, N, group_size, plan);
}

w4a16_status w4a16_plan_create_offsets(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales,
                                       const uint16_t *zero_points, const uint16_t *offsets, int64_t K, int64_t N,
                                       int64_t group_size, w4a16_plan **plan) {
  return w4a16_plan_create_typed(backend, qweight, scales, zero_points, offsets, K, N, group_size, W4A16_ELEM_F16,
                                 W4A16_ELEM_F16, plan);
}

w4a16_status w4a16_plan_create_typed(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales,
                                     const uint16_t *zero_points, const uint16_t *offsets, int64_t K, int64_t N,
                                     int64_t group_size, w4a16_element_type io_type,
                                     w4a16_element_type scales_type, w4a16_plan **plan) {
  return w4a16_plan_create_act_order(backend, qweight, scales, zero_points, offsets, NULL, K, N, group_size, io_type,
                                     scales_type, plan);
}

/* Act-order: the permutation that sorts K by g_idx (*perm, host memory) and the weight's rows in that order
 * (*permuted, host memory), read from the backend's memory (g_idx and qweight are device pointers on CUDA).
 * Both stay NULL when g_idx is k / group_size: the plan is then the one without g_idx. */
static w4a16_status act_order_weight(w4a16_backend backend, const int32_t *qweight, const int32_t *g_idx, int64_t K,
                                     int64_t N, int64_t group_size, int32_t **perm, int32_t **permuted) {
  const size_t kbytes = (size_t)K * 4, qbytes = (size_t)(K / 8) * (size_t)N * 4;
  const int cuda = backend == W4A16_BACKEND_CUDA;
  int32_t *host_g = cuda ? (int32_t *)malloc(kbytes) : NULL, *host_q = NULL;
  int identity = 0;
  *perm = (int32_t *)malloc(kbytes);
  w4a16_status st = W4A16_OK;
  if (!*perm || (cuda && !host_g))
    st = w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_create: cannot allocate %zu bytes for g_idx", 2 * kbytes);
  if (st == W4A16_OK && cuda) st = w4a16_cuda_to_host(host_g, g_idx, kbytes, "g_idx");
  if (st == W4A16_OK) st = w4a16_act_order_sort(cuda ? host_g : g_idx, K, group_size, *perm, &identity);
  if (st == W4A16_OK && !identity) {
    /* One host copy of the codes (two on CUDA: the device's, downloaded, then permuted); plan creation only. */
    *permuted = (int32_t *)malloc(qbytes);
    host_q = cuda ? (int32_t *)malloc(qbytes) : NULL;
    if (!*permuted || (cuda && !host_q))
      st = w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_create: cannot allocate %zu bytes to permute the weight",
                      (cuda ? 2 : 1) * qbytes);
    if (st == W4A16_OK && cuda) st = w4a16_cuda_to_host(host_q, qweight, qbytes, "qweight");
    if (st == W4A16_OK) w4a16_act_order_permute_rows(cuda ? host_q : qweight, *perm, K, N, *permuted);
  }
  free(host_g);
  free(host_q);
  if (st != W4A16_OK || identity) {
    free(*perm), free(*permuted);
    *perm = NULL, *permuted = NULL;
  }
  return st;
}

w4a16_status w4a16_plan_create_act_order(w4a16_backend backend, const int32_t *qweight, const uint16_t *scales,
                                         const uint16_t *zero_points, const uint16_t *offsets, const int32_t *g_idx,
                                         int64_t K, int64_t N, int64_t group_size, w4a16_element_type io_type,
                                         w4a16_element_type scales_type, w4a16_plan **plan) {
  w4a16_clear_error();
  if (!plan) return w4a16_fail(W4A16_ERR_NULL_POINTER, "plan_create: plan (output pointer) is NULL");
  *plan = NULL;
  if (backend != W4A16_BACKEND_CPU && backend != W4A16_BACKEND_CUDA)
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_create: unknown backend %d", (int)backend);
  if (!qweight) return w4a16_fail(W4A16_ERR_NULL_POINTER, "plan_create: qweight is NULL");
  if (!scales) return w4a16_fail(W4A16_ERR_NULL_POINTER, "plan_create: scales is NULL");
  const w4a16_shape_rule rule = w4a16_check_shape(K, N, group_size);
  if (rule != W4A16_SHAPE_OK)
    return w4a16_fail(rule == W4A16_SHAPE_GROUP_SIZE ? W4A16_ERR_BAD_ARGUMENT : W4A16_ERR_BAD_SHAPE,
                      "plan_create: K = %lld, N = %lld, group_size = %lld: %s", (long long)K, (long long)N,
                      (long long)group_size, w4a16_shape_rule_text(rule));
  if ((uintptr_t)qweight % 4 != 0)
    return w4a16_fail(W4A16_ERR_MISALIGNED, "plan_create: qweight %p must be 4-byte aligned (int32 words)",
                      (const void *)qweight);
  if ((uintptr_t)scales % 2 != 0)
    return w4a16_fail(W4A16_ERR_MISALIGNED, "plan_create: scales %p must be 2-byte aligned (16-bit elements)",
                      (const void *)scales);
  if ((uintptr_t)g_idx % 4 != 0)
    return w4a16_fail(W4A16_ERR_MISALIGNED, "plan_create: g_idx %p must be 4-byte aligned (int32 values)",
                      (const void *)g_idx);

  if ((io_type != W4A16_ELEM_F16 && io_type != W4A16_ELEM_BF16) ||
      (scales_type != W4A16_ELEM_F16 && scales_type != W4A16_ELEM_BF16))
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_create: unknown element type");
  int32_t *perm = NULL, *permuted = NULL;
  w4a16_status st = g_idx ? act_order_weight(backend, qweight, g_idx, K, N, group_size, &perm, &permuted) : W4A16_OK;
  if (st != W4A16_OK) return st;
  w4a16_plan *p = (w4a16_plan *)calloc(1, sizeof *p);
  if (!p) {
    free(perm), free(permuted);
    return w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_create: host allocation failed");
  }
  p->backend = backend;
  p->K = K;
  p->N = N;
  if (backend == W4A16_BACKEND_CPU) {
    st = w4a16_cpu_plan_create(permuted ? permuted : qweight, scales, zero_points, offsets, K, N, group_size, io_type,
                               scales_type, &p->cpu);
    p->perm = perm; /* the CPU run gathers on the host */
    perm = NULL;
  } else {
    /* The CUDA plan repacks from device memory: the permuted rows go up into a temporary, freed once the plan holds
     * its own repacked copy. */
    void *d_permuted = NULL;
    if (permuted)
      st = w4a16_cuda_to_device(&d_permuted, permuted, (size_t)(K / 8) * (size_t)N * 4, "the permuted weight");
    if (st == W4A16_OK)
      st = w4a16_cuda_plan_create(permuted ? (const int32_t *)d_permuted : qweight, scales, zero_points, offsets, K, N,
                                  group_size, io_type, scales_type, permuted != NULL, &p->cuda);
    w4a16_cuda_free(d_permuted);
    if (st == W4A16_OK && perm) st = w4a16_cuda_gather_create(perm, K, &p->gather);
  }
  free(perm);
  free(permuted);
  if (st != W4A16_OK) {
    w4a16_plan_destroy(p);
    return st;
  }
  *plan = p;
  return W4A16_OK;
}

static int ranges_overlap(const void *a, int64_t a_bytes, const void *b, int64_t b_bytes) {
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a0 < b0 + (uintptr_t)b_bytes && b0 < a0 + (uintptr_t)a_bytes;
}

/* Both run entry points after their checks: the backend's run through the outputs map (act-order plans gather x
 * first). */
static w4a16_status run_checked(const w4a16_plan *plan, const uint16_t *x, int64_t M, const uint16_t *bias,
                                const uint16_t *residual, w4a16_activation activation, const w4a16_outputs *outs,
                                void *stream) {
  const int64_t K = plan->K;
  if (plan->backend == W4A16_BACKEND_CPU) {
    int misaligned = (uintptr_t)x % 2 || (uintptr_t)bias % 2 || (uintptr_t)residual % 2;
    for (int i = 0; i < outs->count; ++i) misaligned |= (uintptr_t)outs->out[i] % 2 != 0;
    if (misaligned)
      return w4a16_fail(W4A16_ERR_MISALIGNED, "plan_run: x, out, bias and residual must be 2-byte aligned (16-bit elements)");
    if (!plan->perm) return w4a16_cpu_plan_run(plan->cpu, x, M, bias, residual, activation, outs);
    /* Act-order: x's columns in the weight's order, in per-call scratch (the plan stays read-only). */
    uint16_t *xg = (uint16_t *)malloc((size_t)M * (size_t)K * 2);
    if (!xg)
      return w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_run(cpu): cannot allocate %lld bytes to gather x",
                        (long long)(2 * M * K));
    w4a16_act_order_gather(x, M, K, plan->perm, xg);
    const w4a16_status st = w4a16_cpu_plan_run(plan->cpu, xg, M, bias, residual, activation, outs);
    free(xg);
    return st;
  }
  if (plan->gather)
    return w4a16_cuda_gather_run(plan->gather, plan->cuda, x, M, bias, residual, activation, outs, stream);
  return w4a16_cuda_plan_run(plan->cuda, x, M, bias, residual, activation, outs, stream);
}

/* The checks both run entry points share: plan, x, M and the activation. */
static w4a16_status check_run(const char *fn, const w4a16_plan *plan, const uint16_t *x, int64_t M,
                              w4a16_activation activation) {
  if (!plan) return w4a16_fail(W4A16_ERR_NULL_POINTER, "%s: plan is NULL", fn);
  if (!x) return w4a16_fail(W4A16_ERR_NULL_POINTER, "%s: x is NULL", fn);
  if (M <= 0 || M > W4A16_MAX_M)
    return w4a16_fail(W4A16_ERR_BAD_SHAPE, "%s: M = %lld must be in [1, %lld]", fn, (long long)M,
                      (long long)W4A16_MAX_M);
  if ((int)activation < 0 || (int)activation >= W4A16_ACT_COUNT)
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "%s: unknown activation %d", fn, (int)activation);
  return W4A16_OK;
}

w4a16_status w4a16_plan_run(const w4a16_plan *plan, const uint16_t *x, int64_t M, const uint16_t *bias,
                            const uint16_t *residual, w4a16_activation activation, uint16_t *out, void *stream) {
  w4a16_clear_error();
  w4a16_status st = check_run("plan_run", plan, x, M, activation);
  if (st != W4A16_OK) return st;
  if (!out) return w4a16_fail(W4A16_ERR_NULL_POINTER, "plan_run: out is NULL");
  const int64_t K = plan->K, N = plan->N;
  /* out is a fresh buffer (docs/contract.md §2): writing it must never touch an input. */
  if (ranges_overlap(out, 2 * M * N, x, 2 * M * K) || (bias && ranges_overlap(out, 2 * M * N, bias, 2 * N)) ||
      (residual && ranges_overlap(out, 2 * M * N, residual, 2 * M * N)))
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run: out overlaps x, bias or residual");
  const w4a16_outputs one = {1, 0, {out, NULL, NULL, NULL}, {N, 0, 0, 0}};
  return run_checked(plan, x, M, bias, residual, activation, &one, stream);
}

w4a16_status w4a16_plan_run_outputs(const w4a16_plan *plan, const uint16_t *x, int64_t M, const uint16_t *bias,
                                    w4a16_activation activation, const w4a16_outputs *outputs, void *stream) {
  w4a16_clear_error();
  w4a16_status st = check_run("plan_run_outputs", plan, x, M, activation);
  if (st != W4A16_OK) return st;
  if (!outputs) return w4a16_fail(W4A16_ERR_NULL_POINTER, "plan_run_outputs: outputs is NULL");
  const w4a16_outputs o = *outputs; /* one read: the caller's struct may not change under the checks */
  const int64_t K = plan->K, N = plan->N;
  if (o.count < 1 || o.count > W4A16_MAX_OUTPUTS)
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run_outputs: count = %d must be in [1, %d]", (int)o.count,
                      W4A16_MAX_OUTPUTS);
  if (o.glu != 0 && o.glu != 1)
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run_outputs: glu = %d must be 0 or 1", (int)o.glu);
  if (o.glu && o.count != 1)
    return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run_outputs: glu needs count = 1 (one output), not %d",
                      (int)o.count);
  for (int i = 0; i < o.count; ++i)
    if (!o.out[i]) return w4a16_fail(W4A16_ERR_NULL_POINTER, "plan_run_outputs: out[%d] is NULL", i);
  if (o.glu) {
    if (N % 8 != 0 || o.cols[0] != N / 2)
      return w4a16_fail(W4A16_ERR_BAD_SHAPE,
                        "plan_run_outputs: a GLU plan's N = %lld must be a multiple of 8 and cols[0] = %lld its "
                        "half (%lld)", (long long)N, (long long)o.cols[0], (long long)(N / 2));
  } else {
    int64_t sum = 0;
    for (int i = 0; i < o.count; ++i) {
      if (o.cols[i] <= 0 || o.cols[i] % 8 != 0 || o.cols[i] > N)
        return w4a16_fail(W4A16_ERR_BAD_SHAPE, "plan_run_outputs: cols[%d] = %lld must be a positive multiple of 8 "
                                               "(at most N = %lld)", i, (long long)o.cols[i], (long long)N);
      sum += o.cols[i];
    }
    if (sum != N)
      return w4a16_fail(W4A16_ERR_BAD_SHAPE, "plan_run_outputs: cols[0..%d] sum to %lld, not the plan's N = %lld",
                        (int)o.count - 1, (long long)sum, (long long)N);
  }
  /* Every output is a fresh buffer (docs/contract.md §2): writing one must never touch an input or another one. */
  for (int i = 0; i < o.count; ++i) {
    const int64_t bytes = 2 * M * o.cols[i];
    if (ranges_overlap(o.out[i], bytes, x, 2 * M * K) || (bias && ranges_overlap(o.out[i], bytes, bias, 2 * N)))
      return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run_outputs: out[%d] overlaps x or bias", i);
    for (int j = 0; j < i; ++j)
      if (ranges_overlap(o.out[i], bytes, o.out[j], 2 * M * o.cols[j]))
        return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_run_outputs: out[%d] overlaps out[%d]", i, j);
  }
  return run_checked(plan, x, M, bias, NULL, activation, &o, stream);
}

void w4a16_plan_destroy(w4a16_plan *plan) {
  if (!plan) return;
  if (plan->cpu) w4a16_cpu_plan_destroy(plan->cpu);
  if (plan->cuda) w4a16_cuda_plan_destroy(plan->cuda);
  if (plan->gather) w4a16_cuda_gather_destroy(plan->gather);
  free(plan->perm);
  free(plan);
}

uint64_t w4a16_plan_resident_bytes(const w4a16_plan *plan) {
  if (!plan) return 0;
  if (plan->cpu) return w4a16_cpu_plan_bytes(plan->cpu) + (plan->perm ? (uint64_t)plan->K * 4 : 0);
  return w4a16_cuda_plan_bytes(plan->cuda) + (plan->gather ? w4a16_cuda_gather_bytes(plan->gather) : 0);
}

w4a16_status w4a16_plan_reserve(w4a16_plan *plan, int64_t max_m) {
  w4a16_clear_error();
  if (!plan) return w4a16_fail(W4A16_ERR_NULL_POINTER, "plan_reserve: plan is NULL");
  if (max_m <= 0 || max_m > W4A16_MAX_M)
    return w4a16_fail(W4A16_ERR_BAD_SHAPE, "plan_reserve: max_m = %lld must be in [1, %lld]", (long long)max_m,
                      (long long)W4A16_MAX_M);
  if (!plan->cuda) return W4A16_OK;
  const w4a16_status st = w4a16_cuda_plan_reserve(plan->cuda, max_m);
  return st == W4A16_OK && plan->gather ? w4a16_cuda_gather_reserve(plan->gather, max_m) : st;
}

uint64_t w4a16_plan_workspace_bytes(const w4a16_plan *plan, int64_t M) {
  if (!plan || plan->cpu) return 0;
  return w4a16_cuda_plan_workspace_bytes(plan->cuda, M);
}

const char *w4a16_plan_describe(const w4a16_plan *plan, int64_t M, char *buf, int len) {
  if (!buf || len <= 0) return buf;
  if (!plan) {
    snprintf(buf, (size_t)len, "(null plan)");
  } else if (plan->cpu) {
    snprintf(buf, (size_t)len, "cpu reference K=%lld N=%lld M=%lld", (long long)plan->K, (long long)plan->N,
             (long long)M);
  } else {
    w4a16_cuda_plan_describe(plan->cuda, M, buf, len);
  }
  if (plan && (plan->perm || plan->gather)) {
    const size_t used = strlen(buf);
    const int in_gemm = plan->gather ? w4a16_cuda_gather_in_gemm(plan->gather, plan->cuda, M) : 0;
    snprintf(buf + used, (size_t)len - used, " act-order%s",
             in_gemm == W4A16_GATHER_PERM_STREAMED ? " (x gathered in the GEMM, perm read from global memory)"
             : in_gemm                               ? " (x gathered in the GEMM)"
                                                     : "");
  }
  return buf;
}
