/* Every bad input of issue #3 item 1 gets its status code and a message naming the problem, on the
 * calling thread only. Backend-independent checks run on the CPU backend; without a GPU the CUDA
 * backend must answer W4A16_ERR_NO_DEVICE with a message. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static int fails = 0;

static void expect(w4a16_status got, w4a16_status want, const char *what, const char *msg_part) {
  const char *msg = w4a16_last_error();
  int ok = got == want && msg && msg[0] && strstr(msg, w4a16_status_name(want)) &&
           (!msg_part || strstr(msg, msg_part));
  printf("%s %-44s -> %-24s \"%s\"\n", ok ? "ok  " : "FAIL", what, w4a16_status_name(got), msg ? msg : "(null)");
  fails += !ok;
}

static void *other_thread(void *arg) {
  (void)arg;
  /* a fresh thread has no message, and its own failure must not leak into the main thread's */
  int clean = w4a16_last_error()[0] == '\0';
  w4a16_plan *p;
  w4a16_plan_create(W4A16_BACKEND_CPU, NULL, NULL, 128, 8, 128, &p);
  return (void *)(intptr_t)(clean && strstr(w4a16_last_error(), "qweight") != NULL);
}

int main(void) {
  const int64_t K = 256, N = 16, M = 3;
  int32_t *qw = aligned_alloc(64, (size_t)(K / 8) * N * 4 + 64);
  uint16_t *sc = aligned_alloc(64, (size_t)(K / 128) * N * 2 + 64);
  uint16_t *x = aligned_alloc(64, (size_t)(M * K) * 2 + 64), *out = aligned_alloc(64, (size_t)(M * N) * 2 + 64);
  uint16_t *res = aligned_alloc(64, (size_t)(M * N) * 2 + 64);
  memset(qw, 0x77, (size_t)(K / 8) * N * 4);
  memset(sc, 0x10, (size_t)(K / 128) * N * 2);
  memset(x, 0x30, (size_t)(M * K) * 2);
  memset(res, 0x30, (size_t)(M * N) * 2);
  w4a16_plan *p = (w4a16_plan *)0x1;

  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, K, N, 128, NULL), W4A16_ERR_NULL_POINTER, "create: plan out NULL", "plan");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, NULL, sc, K, N, 128, &p), W4A16_ERR_NULL_POINTER, "create: qweight NULL", "qweight");
  if (p != NULL) printf("FAIL *plan not cleared on failure\n"), fails++;
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, NULL, K, N, 128, &p), W4A16_ERR_NULL_POINTER, "create: scales NULL", "scales");
  expect(w4a16_plan_create((w4a16_backend)7, qw, sc, K, N, 128, &p), W4A16_ERR_BAD_ARGUMENT, "create: unknown backend", "backend");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, K, N, 96, &p), W4A16_ERR_BAD_ARGUMENT, "create: group size 96", "group_size");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, K, N, 0, &p), W4A16_ERR_BAD_ARGUMENT, "create: group size 0", "group_size");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, 0, N, 128, &p), W4A16_ERR_BAD_SHAPE, "create: K = 0", "K");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, -128, N, 128, &p), W4A16_ERR_BAD_SHAPE, "create: K = -128", "K");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, 200, N, 128, &p), W4A16_ERR_BAD_SHAPE, "create: K % 128 != 0", "multiple of the group size");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, K, 0, 128, &p), W4A16_ERR_BAD_SHAPE, "create: N = 0", "N");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, K, -8, 128, &p), W4A16_ERR_BAD_SHAPE, "create: N = -8", "N");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, K, 12, 128, &p), W4A16_ERR_BAD_SHAPE, "create: N % 8 != 0", "multiple of 8");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, (const int32_t *)((char *)qw + 2), sc, K, N, 128, &p),
         W4A16_ERR_MISALIGNED, "create: qweight 2-byte aligned", "4-byte aligned");
  expect(w4a16_plan_create(W4A16_BACKEND_CPU, qw, (const uint16_t *)((char *)sc + 1), K, N, 128, &p),
         W4A16_ERR_MISALIGNED, "create: scales odd address", "2-byte aligned");
  if (!w4a16_cuda_available())
    expect(w4a16_plan_create(W4A16_BACKEND_CUDA, qw, sc, K, N, 128, &p), W4A16_ERR_NO_DEVICE,
           "create: CUDA backend without a GPU", "CUDA");

  if (w4a16_plan_create(W4A16_BACKEND_CPU, qw, sc, K, N, 128, &p) != W4A16_OK) {
    printf("FAIL valid plan: %s\n", w4a16_last_error());
    return 1;
  }
  if (w4a16_last_error()[0] != '\0') printf("FAIL message not cleared by a success\n"), fails++;
  expect(w4a16_plan_run(NULL, x, M, NULL, NULL, W4A16_ACT_NONE, out, NULL), W4A16_ERR_NULL_POINTER, "run: plan NULL", "plan");
  expect(w4a16_plan_run(p, NULL, M, NULL, NULL, W4A16_ACT_NONE, out, NULL), W4A16_ERR_NULL_POINTER, "run: x NULL", "x");
  expect(w4a16_plan_run(p, x, M, NULL, NULL, W4A16_ACT_NONE, NULL, NULL), W4A16_ERR_NULL_POINTER, "run: out NULL", "out");
  expect(w4a16_plan_run(p, x, 0, NULL, NULL, W4A16_ACT_NONE, out, NULL), W4A16_ERR_BAD_SHAPE, "run: M = 0", "M = 0");
  expect(w4a16_plan_run(p, x, -4, NULL, NULL, W4A16_ACT_NONE, out, NULL), W4A16_ERR_BAD_SHAPE, "run: M = -4", "M = -4");
  expect(w4a16_plan_run(p, x, M, NULL, NULL, (w4a16_activation)W4A16_ACT_COUNT, out, NULL), W4A16_ERR_BAD_ARGUMENT, "run: unknown activation", "activation");
  expect(w4a16_plan_run(p, (const uint16_t *)((char *)x + 1), M, NULL, NULL, W4A16_ACT_NONE, out, NULL),
         W4A16_ERR_MISALIGNED, "run: x odd address", "aligned");
  expect(w4a16_plan_run(p, x, M, NULL, (const uint16_t *)((char *)res + 1), W4A16_ACT_NONE, out, NULL),
         W4A16_ERR_MISALIGNED, "run: residual odd address", "aligned");
  expect(w4a16_plan_run(p, x, M, NULL, NULL, W4A16_ACT_NONE, x + 8, NULL), W4A16_ERR_BAD_ARGUMENT,
         "run: out overlaps x", "overlaps");
  expect(w4a16_plan_run(p, x, M, NULL, res, W4A16_ACT_NONE, res, NULL), W4A16_ERR_BAD_ARGUMENT,
         "run: out is residual", "overlaps");
  if (w4a16_plan_run(p, x, M, NULL, res, W4A16_ACT_SILU, out, NULL) != W4A16_OK)
    printf("FAIL a valid run after failures: %s\n", w4a16_last_error()), fails++;

  /* thread-local messages */
  w4a16_plan_run(p, x, 0, NULL, NULL, W4A16_ACT_NONE, out, NULL);
  pthread_t th;
  void *th_ok = NULL;
  pthread_create(&th, NULL, other_thread, NULL);
  pthread_join(th, &th_ok);
  if (!th_ok || !strstr(w4a16_last_error(), "M = 0"))
    printf("FAIL error messages are not per thread\n"), fails++;
  else
    printf("ok   error messages are per thread\n");

  for (int a = 0; a <= W4A16_ERR_CUDA; ++a)
    for (int b = 0; b < a; ++b)
      if (!strcmp(w4a16_status_name((w4a16_status)a), w4a16_status_name((w4a16_status)b))) fails++;
  w4a16_plan_destroy(p);
  w4a16_plan_destroy(NULL);
  printf("%s: bad inputs, %d failures\n", fails ? "FAIL" : "PASS", fails);
  free(qw), free(sc), free(x), free(out), free(res);
  return fails != 0;
}
