/* One CPU plan run from 4 threads at once must give each thread the bits a lone run gives. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { T = 4, K = 1024, N = 64, M = 9, ITERS = 20 };
static w4a16_plan *plan;
static uint16_t xs[T][M * K], want[T][M * N], bias[N];

static void *worker(void *arg) {
  const int t = (int)(intptr_t)arg;
  uint16_t *out = malloc(M * N * 2);
  intptr_t bad = 0;
  for (int i = 0; i < ITERS; ++i) {
    if (w4a16_plan_run(plan, xs[t], M, bias, NULL, W4A16_ACT_GELU_TANH, out, NULL) != W4A16_OK) bad++;
    bad += memcmp(out, want[t], M * N * 2) != 0;
  }
  free(out);
  return (void *)bad;
}

int main(void) {
  w4t_weights w;
  w4t_make_weights(&w, K, N, W4T_RANDOM, 5);
  w4t_make_vec(bias, N, -1, 1, 6);
  if (w4a16_plan_create(W4A16_BACKEND_CPU, w.qweight, w.scales, K, N, 128, &plan) != W4A16_OK) return 2;
  for (int t = 0; t < T; ++t) {
    w4t_make_x(xs[t], M, K, W4T_RANDOM, 10 + (uint64_t)t);
    w4a16_plan_run(plan, xs[t], M, bias, NULL, W4A16_ACT_GELU_TANH, want[t], NULL);
  }
  pthread_t th[T];
  for (int t = 0; t < T; ++t) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
  long bad = 0;
  for (int t = 0; t < T; ++t) {
    void *r;
    pthread_join(th[t], &r);
    bad += (long)(intptr_t)r;
  }
  w4a16_plan_destroy(plan);
  w4t_free_weights(&w);
  printf("%s: %d threads x %d concurrent runs of one plan, %ld mismatches\n", bad ? "FAIL" : "PASS", T, ITERS, bad);
  return bad != 0;
}
