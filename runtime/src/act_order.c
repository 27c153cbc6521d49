/* Act-order (GPTQ desc_act) on the host: the permutation that sorts K by g_idx, the weight's rows in that order,
 * and the gather of x's columns into it (w4a16_plan_create_act_order, runtime.h).
 *
 * Why a permutation is all it takes: sum_k x[k] W[k, n] does not depend on the order of k. Sorted by g_idx
 * (stably), rows [g G, (g+1) G) are exactly group g's rows, so the permuted weight is an ordinary grouped weight
 * (row i's group is i / G) with the caller's scales, zero points and offsets unchanged, and x[perm[i]] meets the
 * weight row it met before. Only the order of the f32 additions inside a group changes (k ascending within a
 * group, stable sort). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

w4a16_status w4a16_act_order_sort(const int32_t *g_idx, int64_t K, int64_t group_size, int32_t *perm,
                                  int *identity) {
  const int64_t groups = K / group_size;
  *identity = 1;
  for (int64_t k = 0; k < K; ++k) {
    if (g_idx[k] < 0 || g_idx[k] >= groups)
      return w4a16_fail(W4A16_ERR_BAD_ARGUMENT, "plan_create: g_idx[%lld] = %d is not a group index in [0, %lld)",
                        (long long)k, (int)g_idx[k], (long long)groups);
    if (g_idx[k] != k / group_size) *identity = 0;
  }
  int64_t *next = (int64_t *)calloc((size_t)groups, sizeof *next);
  if (!next) return w4a16_fail(W4A16_ERR_OUT_OF_MEMORY, "plan_create: cannot allocate g_idx's group counts");
  for (int64_t k = 0; k < K; ++k) next[g_idx[k]]++;
  for (int64_t g = 0; g < groups; ++g)
    if (next[g] != group_size) {
      const long long rows = (long long)next[g];
      free(next);
      return w4a16_fail(W4A16_ERR_BAD_ARGUMENT,
                        "plan_create: g_idx puts %lld rows in group %lld; every group must hold group_size = %lld",
                        rows, (long long)g, (long long)group_size);
    }
  /* Counting sort: group g's rows go to [g G, (g+1) G), in ascending k (stable). */
  for (int64_t g = 0; g < groups; ++g) next[g] = g * group_size;
  for (int64_t k = 0; k < K; ++k) perm[next[g_idx[k]]++] = (int32_t)k;
  free(next);
  return W4A16_OK;
}

void w4a16_act_order_permute_rows(const int32_t *qweight, const int32_t *perm, int64_t K, int64_t N, int32_t *out) {
  memset(out, 0, (size_t)(K / 8) * (size_t)N * 4);
  /* Row by row, so that both words are read and written along n (contiguous). */
  for (int64_t i = 0; i < K; ++i) {
    const int64_t k = perm[i];
    const uint32_t *src = (const uint32_t *)qweight + (k / 8) * N;
    uint32_t *dst = (uint32_t *)out + (i / 8) * N;
    const int from = (int)(k % 8) * 4, to = (int)(i % 8) * 4; /* nibble k % 8, least significant first */
    for (int64_t n = 0; n < N; ++n) dst[n] |= (src[n] >> from & 15u) << to;
  }
}

void w4a16_act_order_gather(const uint16_t *x, int64_t M, int64_t K, const int32_t *perm, uint16_t *xg) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t i = 0; i < K; ++i) xg[m * K + i] = x[m * K + perm[i]];
}
