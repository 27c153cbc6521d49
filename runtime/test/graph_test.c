/* CUDA-graph safety of the runtime (issue #16, docs/contract.md §2), on the GPU:
 *   1. every configuration class the chooser can pick, forced (kernel v1, and its decode variant with K sliced
 *      inside the CTA; v3 with 2, 3 or 4 warpgroups, one split, cluster split-K, split-K through the workspace) at
 *      M in {1, 8, 16, 17, 24, 32, 48, 64} on the benchmark shapes and 4096x11008 / 11008x4096: each call captured in global and in
 *      thread-local mode, the graph replayed (1000 times for the first M of a class, else 50), every
 *      replay's output bitwise equal to the eager call's, and an eager call after the replays too;
 *   2. two graphs of one plan replayed alternately with eager calls between;
 *   3. one plan called on two streams at once; graphs of two plans replayed on two streams at once;
 *   4. a capture invalidated on purpose leaves the plan working (next eager result bitwise equal);
 *   5. a captured call whose M exceeds the reserved workspace fails with a status, not a fault;
 *   6. act-order plans (random g_idx: a gather into the plan's buffer before every GEMM) on three paths: 1. and 5.
 *      for the gather buffer, and one plan on two streams at once;
 *   7. the other kernel instantiations (integer zero points, the affine form with offsets, bf16 x and scales,
 *      bf16 with zero points) in five classes (v3 default, v3 cluster, v3 workspace, v1, v1 sliced): 1. for each;
 *   8. w4a16_plan_run_outputs (issue #21): three outputs (N/4 | N/2 | N/4) and a GLU output, each in six classes
 *      and on an act-order plan: 1. for each, and the outputs bitwise equal to the plan's own columns.
 * --small: one shape, fewer M and replays (for compute-sanitizer); --class NAME: that class only.
 * Prints "N passed, M failed" and exits non-zero on any failure. */
#include "cuda_check.h"
#include "support.h"
#include "w4a16/runtime.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_pass, g_fail;
static void check(int ok, const char *fmt, const char *a, long long b, long long c) {
  if (ok) {
    ++g_pass;
    return;
  }
  ++g_fail;
  printf("FAIL ");
  printf(fmt, a, b, c);
  printf("\n");
}

/* A configuration class: the W4A16_FORCE_* overrides (runtime/testing/w4a16_testing.h) that pin it. */
typedef struct Class {
  const char *name, *kernel, *wg, *splits, *global;
} Class;
static const Class kClasses[] = {
    {"v3-default", NULL, NULL, NULL, NULL},
    {"v3-W4-S1", NULL, "4", "1", NULL},
    {"v3-W4-cluster3", NULL, "4", "3", "0"},
    {"v3-W4-workspace3", NULL, "4", "3", "1"},
    {"v3-W2-S1", NULL, "2", "1", NULL},
    {"v3-W2-cluster4", NULL, "2", "4", "0"},
    {"v3-W2-workspace4", NULL, "2", "4", "1"},
    {"v1-S1", "v1", NULL, "1", NULL},
    {"v1-cluster2", "v1", NULL, "2", NULL},
    {"v1-sliced", "sliced", NULL, NULL, NULL}, /* v1's decode variant at M <= 8; v3's choice above */
    /* W = 3 exists up to 32 tokens (every form); beyond, forcing it leaves the cost model's W = 4, S = 1 */
    {"v3-W3-S1", NULL, "3", "1", NULL},
    {"v3-W3-cluster3", NULL, "3", "3", "0"},
    {"v3-W3-workspace3", NULL, "3", "3", "1"},
};
enum { kNumClasses = sizeof kClasses / sizeof kClasses[0] };

static void setenv_or_unset(const char *name, const char *value) {
  if (value) setenv(name, value, 1);
  else unsetenv(name);
}
static void force_class(const Class *c) {
  setenv_or_unset("W4A16_FORCE_KERNEL", c ? c->kernel : NULL);
  setenv_or_unset("W4A16_FORCE_WG", c ? c->wg : NULL);
  setenv_or_unset("W4A16_FORCE_SPLITS", c ? c->splits : NULL);
  setenv_or_unset("W4A16_FORCE_GLOBAL", c ? c->global : NULL);
}

/* One weight on the device with the call's tensors: x, bias, residual, out (M up to 64). */
typedef struct Case {
  int64_t K, N;
  void *qweight, *scales;
  uint16_t *x, *bias, *residual, *out;
  uint16_t *want, *got; /* host: the eager result, a replay's result (pinned) */
} Case;

static void *dev(size_t n) {
  void *p;
  CK(cudaMalloc(&p, n));
  return p;
}

static void case_init(Case *c, int64_t K, int64_t N, uint64_t seed) {
  const int64_t M = 64;
  c->K = K, c->N = N;
  w4t_weights w;
  w4t_make_weights(&w, K, N, W4T_RANDOM, seed);
  c->qweight = dev((size_t)(K / 8 * N * 4)), c->scales = dev((size_t)(K / 128 * N * 2));
  ck_put(c->qweight, w.qweight, (size_t)(K / 8 * N * 4));
  ck_put(c->scales, w.scales, (size_t)(K / 128 * N * 2));
  w4t_free_weights(&w);
  uint16_t *h = malloc((size_t)(M * (K > N ? K : N)) * 2);
  c->x = dev((size_t)(M * K * 2)), c->bias = dev((size_t)N * 2), c->residual = dev((size_t)(M * N * 2));
  c->out = dev((size_t)(M * N * 2));
  w4t_make_x(h, M, K, W4T_RANDOM, seed + 1);
  ck_put(c->x, h, (size_t)(M * K * 2));
  w4t_make_vec(h, N, -1, 1, seed + 2);
  ck_put(c->bias, h, (size_t)N * 2);
  w4t_make_vec(h, M * N, -2, 2, seed + 3);
  ck_put(c->residual, h, (size_t)(M * N * 2));
  free(h);
  c->want = malloc((size_t)(M * N * 2));
  CK(cudaMallocHost((void **)&c->got, (size_t)(M * N * 2)));
}
static void case_free(Case *c) {
  void *bufs[] = {c->qweight, c->scales, c->x, c->bias, c->residual, c->out};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) CK(cudaFree(bufs[i]));
  free(c->want);
  CK(cudaFreeHost(c->got));
}

/* How run() calls the plan (test_outputs): 0 w4a16_plan_run; 1 w4a16_plan_run_outputs into three outputs of N/4,
 * N/2 and N/4 columns laid one after the other in out (so that out holds M x N values either way); 2 the same call
 * with glu into out's first M x N/2 values (the rest stays poisoned). */
static int g_outputs;
static w4a16_outputs outputs_of(const Case *c, int64_t M) {
  w4a16_outputs o;
  memset(&o, 0, sizeof o);
  if (g_outputs == 2) {
    o.count = 1, o.glu = 1, o.cols[0] = c->N / 2, o.out[0] = c->out;
  } else {
    o.count = 3, o.cols[0] = c->N / 4, o.cols[1] = c->N / 2, o.cols[2] = c->N - c->N / 4 - c->N / 2;
    o.out[0] = c->out, o.out[1] = c->out + M * o.cols[0], o.out[2] = o.out[1] + M * o.cols[1];
  }
  return o;
}
static w4a16_status run(w4a16_plan *p, const Case *c, int64_t M, cudaStream_t s) {
  if (!g_outputs) return w4a16_plan_run(p, c->x, M, c->bias, c->residual, W4A16_ACT_SILU, c->out, s);
  const w4a16_outputs o = outputs_of(c, M);
  return w4a16_plan_run_outputs(p, c->x, M, c->bias, W4A16_ACT_SILU, &o, s);
}
/* The eager result for M into c->want (out poisoned first, so a call that writes nothing shows). */
static int eager(w4a16_plan *p, Case *c, int64_t M, cudaStream_t s, uint16_t *into) {
  CK(cudaMemsetAsync(c->out, 0xff, (size_t)(M * c->N * 2), s));
  if (run(p, c, M, s) != W4A16_OK) return 0;
  CK(cudaMemcpyAsync(into, c->out, (size_t)(M * c->N * 2), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  return 1;
}
/* Captures poison + call into an executable graph; NULL if the call failed during capture. */
static cudaGraphExec_t capture(w4a16_plan *p, const Case *c, int64_t M, cudaStream_t s, enum cudaStreamCaptureMode mode) {
  cudaGraph_t g;
  CK(cudaStreamBeginCapture(s, mode));
  CK(cudaMemsetAsync(c->out, 0xff, (size_t)(M * c->N * 2), s));
  const w4a16_status st = run(p, c, M, s);
  CK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e = NULL;
  if (st == W4A16_OK) CK(cudaGraphInstantiate(&e, g, 0));
  CK(cudaGraphDestroy(g));
  return e;
}
/* Replays `e` n times; returns the number of replays whose output differs from c->want. */
static int replay(cudaGraphExec_t e, Case *c, int64_t M, cudaStream_t s, int n) {
  const size_t bytes = (size_t)(M * c->N * 2);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    CK(cudaGraphLaunch(e, s));
    CK(cudaMemcpyAsync(c->got, c->out, bytes, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    bad += memcmp(c->got, c->want, bytes) != 0;
  }
  return bad;
}

/* At every M of Ms: an eager call of p (its result the reference), the call captured in global and in thread-local
 * mode and replayed (reps_first times for the first M's first mode, reps otherwise), every replay bitwise equal to
 * it, and an eager call after the replays too. */
static void capture_replay_each_m(w4a16_plan *p, Case *c, const int64_t *Ms, int nM, int reps_first, int reps,
                                  cudaStream_t s) {
  static const enum cudaStreamCaptureMode modes[] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal};
  for (int i = 0; i < nM; ++i) {
    const int64_t M = Ms[i];
    char desc[200];
    w4a16_plan_describe(p, M, desc, sizeof desc);
    if (!eager(p, c, M, s, c->want)) {
      check(0, "%s: eager call at M = %lld failed (%lld)", desc, M, 0);
      continue;
    }
    for (int m = 0; m < 2; ++m) {
      cudaGraphExec_t e = capture(p, c, M, s, modes[m]);
      check(e != NULL, "%s: capture (mode %lld) failed at M = %lld", desc, m, M);
      if (!e) continue;
      const int n = i == 0 && m == 0 ? reps_first : reps;
      const int bad = replay(e, c, M, s, n);
      check(bad == 0, "%s: %lld of the replays differ from the eager call (M = %lld)", desc, bad, M);
      CK(cudaGraphExecDestroy(e));
    }
    check(eager(p, c, M, s, c->got) && memcmp(c->got, c->want, (size_t)(M * c->N * 2)) == 0,
          "%s: eager call after the replays differs (M = %lld)%lld", desc, M, 0);
  }
}

static void test_class(const Class *cl, Case *c, const int64_t *Ms, int nM, int reps_first, int reps, cudaStream_t s) {
  force_class(cl);
  w4a16_plan *p;
  const w4a16_status st = w4a16_plan_create(W4A16_BACKEND_CUDA, c->qweight, c->scales, c->K, c->N, 128, &p);
  force_class(NULL);
  char what[160];
  snprintf(what, sizeof what, "%s %lldx%lld", cl->name, (long long)c->K, (long long)c->N);
  check(st == W4A16_OK, "%s: plan_create: %lld %lld", what, st, 0);
  if (st != W4A16_OK) return;
  capture_replay_each_m(p, c, Ms, nM, reps_first, reps, s);
  w4a16_plan_destroy(p);
}

/* Two graphs of one plan (M = 1 and 24) replayed alternately with eager calls (M = 17) between. */
static void test_alternating(const Class *cl, Case *c, cudaStream_t s) {
  force_class(cl);
  w4a16_plan *p;
  if (w4a16_plan_create(W4A16_BACKEND_CUDA, c->qweight, c->scales, c->K, c->N, 128, &p) != W4A16_OK) {
    force_class(NULL);
    check(0, "%s: plan_create failed%lld%lld", cl->name, 0, 0);
    return;
  }
  force_class(NULL);
  const int64_t Ms[3] = {1, 24, 17};
  uint16_t *want[3];
  for (int i = 0; i < 3; ++i) {
    want[i] = malloc((size_t)(64 * c->N * 2));
    eager(p, c, Ms[i], s, want[i]);
  }
  cudaGraphExec_t g1 = capture(p, c, Ms[0], s, cudaStreamCaptureModeGlobal);
  cudaGraphExec_t g2 = capture(p, c, Ms[1], s, cudaStreamCaptureModeGlobal);
  int bad = !g1 || !g2;
  for (int round = 0; round < 20 && !bad; ++round) {
    for (int i = 0; i < 3; ++i) {
      if (i < 2) {
        CK(cudaGraphLaunch(i == 0 ? g1 : g2, s));
        CK(cudaMemcpyAsync(c->got, c->out, (size_t)(Ms[i] * c->N * 2), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
      } else if (!eager(p, c, Ms[i], s, c->got)) {
        bad = 1;
      }
      bad += memcmp(c->got, want[i], (size_t)(Ms[i] * c->N * 2)) != 0;
    }
  }
  check(bad == 0, "%s: two graphs of one plan alternating with eager calls: %lld mismatches%lld", cl->name, bad, 0);
  if (g1) CK(cudaGraphExecDestroy(g1));
  if (g2) CK(cudaGraphExecDestroy(g2));
  for (int i = 0; i < 3; ++i) free(want[i]);
  w4a16_plan_destroy(p);
}

/* One plan on two streams at once (eager, no host sync between the streams), then graphs of two plans
 * replayed on two streams at once. Both through the workspace, the only state a call shares. */
/* 100 rounds of p's call at M on both streams at once (x shared, read-only; separate outputs), no host sync
 * between the streams within a round: how many calls failed or differ from c->want (the eager result). */
static int one_plan_two_streams(w4a16_plan *p, Case *c, int64_t M, const cudaStream_t s[2]) {
  const size_t bytes = (size_t)(M * c->N * 2);
  uint16_t *out2 = dev(bytes), *h1 = malloc(bytes), *h2 = malloc(bytes);
  int bad = 0;
  for (int i = 0; i < 100; ++i) {
    CK(cudaMemsetAsync(c->out, 0xff, bytes, s[0]));
    CK(cudaMemsetAsync(out2, 0xff, bytes, s[1]));
    bad += w4a16_plan_run(p, c->x, M, c->bias, c->residual, W4A16_ACT_SILU, c->out, s[0]) != W4A16_OK;
    bad += w4a16_plan_run(p, c->x, M, c->bias, c->residual, W4A16_ACT_SILU, out2, s[1]) != W4A16_OK;
    CK(cudaMemcpyAsync(h1, c->out, bytes, cudaMemcpyDeviceToHost, s[0]));
    CK(cudaMemcpyAsync(h2, out2, bytes, cudaMemcpyDeviceToHost, s[1]));
    CK(cudaDeviceSynchronize());
    bad += memcmp(h1, c->want, bytes) != 0;
    bad += memcmp(h2, c->want, bytes) != 0;
  }
  CK(cudaFree(out2));
  free(h1), free(h2);
  return bad;
}

/* Plans of the other kernel instantiations -- integer zero points (exact form), offsets (affine form), bf16 x,
 * bias, residual, out and scales, bf16 with zero points -- in four configuration classes, each captured and
 * replayed as in test_class. The case's f16 data is read as bf16 by the bf16 plans: other values, all finite,
 * which is all a bitwise replay-vs-eager check needs. */
static void test_forms(Case *c, const int64_t *Ms, int nM, int reps, cudaStream_t s) {
  const int64_t groups = c->K / 128, n = groups * c->N;
  uint16_t *h = malloc((size_t)n * 2);
  uint64_t seed = 4242;
  for (int64_t i = 0; i < n; ++i) { /* integers 0..15: the exact zero-point form */
    const int z = (int)w4t_uniform(&seed, 0.0, 16.0);
    h[i] = w4t_encode(z > 15 ? 15 : z, W4A16_ELEM_F16);
  }
  uint16_t *zero_points = dev((size_t)n * 2), *offsets = dev((size_t)n * 2);
  ck_put(zero_points, h, (size_t)n * 2);
  w4t_make_vec(h, n, -0.01, 0.01, 4243);
  ck_put(offsets, h, (size_t)n * 2);
  free(h);
  const struct {
    const char *name;
    const uint16_t *zero_points, *offsets;
    w4a16_element_type io, scales;
  } forms[] = {{"zero points", zero_points, NULL, W4A16_ELEM_F16, W4A16_ELEM_F16},
               {"offsets (affine)", NULL, offsets, W4A16_ELEM_F16, W4A16_ELEM_F16},
               {"bf16", NULL, NULL, W4A16_ELEM_BF16, W4A16_ELEM_BF16},
               {"bf16 zero points", zero_points, NULL, W4A16_ELEM_BF16, W4A16_ELEM_F16}};
  static const int classes[] = {0, 2, 3, 7, 9}; /* v3-default, v3-W4-cluster3, v3-W4-workspace3, v1-S1, v1-sliced */
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f)
    for (int ci = 0; ci < 5; ++ci) {
      const Class *cl = &kClasses[classes[ci]];
      force_class(cl);
      w4a16_plan *p = NULL;
      const w4a16_status st = w4a16_plan_create_typed(W4A16_BACKEND_CUDA, c->qweight, c->scales, forms[f].zero_points,
                                                      forms[f].offsets, c->K, c->N, 128, forms[f].io, forms[f].scales,
                                                      &p);
      force_class(NULL);
      check(st == W4A16_OK, "%s: plan_create failed (%lld, class %lld)", forms[f].name, st, classes[ci]);
      if (st != W4A16_OK) continue;
      capture_replay_each_m(p, c, Ms, nM, reps, reps, s);
      w4a16_plan_destroy(p);
    }
  CK(cudaFree(zero_points));
  CK(cudaFree(offsets));
}

static void test_two_streams(Case *a, Case *b) {
  const Class *cl = &kClasses[3]; /* v3-W4-workspace3 */
  force_class(cl);
  w4a16_plan *pa, *pb;
  const int ok = w4a16_plan_create(W4A16_BACKEND_CUDA, a->qweight, a->scales, a->K, a->N, 128, &pa) == W4A16_OK &&
                 w4a16_plan_create(W4A16_BACKEND_CUDA, b->qweight, b->scales, b->K, b->N, 128, &pb) == W4A16_OK;
  force_class(NULL);
  check(ok, "two streams: plan_create failed%s%lld%lld", "", 0, 0);
  if (!ok) return;
  cudaStream_t s[2];
  for (int i = 0; i < 2; ++i) CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
  const int64_t M = 32;
  const size_t bytes = (size_t)(M * a->N * 2);
  eager(pa, a, M, s[0], a->want);
  int bad = one_plan_two_streams(pa, a, M, s);
  check(bad == 0, "one plan (%s) on two streams at once: %lld mismatches in %lld calls", cl->name, bad, 200);
  /* two plans, a graph each, replayed on two streams at once */
  eager(pb, b, M, s[1], b->want);
  cudaGraphExec_t ga = capture(pa, a, M, s[0], cudaStreamCaptureModeGlobal);
  cudaGraphExec_t gb = capture(pb, b, M, s[1], cudaStreamCaptureModeGlobal);
  bad = !ga || !gb;
  const size_t bbytes = (size_t)(M * b->N * 2);
  for (int i = 0; i < 200 && !bad; ++i) {
    CK(cudaGraphLaunch(ga, s[0]));
    CK(cudaGraphLaunch(gb, s[1]));
    if (i % 20 == 19) {
      CK(cudaMemcpyAsync(a->got, a->out, bytes, cudaMemcpyDeviceToHost, s[0]));
      CK(cudaMemcpyAsync(b->got, b->out, bbytes, cudaMemcpyDeviceToHost, s[1]));
      CK(cudaDeviceSynchronize());
      bad += memcmp(a->got, a->want, bytes) != 0;
      bad += memcmp(b->got, b->want, bbytes) != 0;
    }
  }
  check(bad == 0, "graphs of two plans (%s) replayed on two streams at once: %lld mismatches%lld", cl->name, bad, 0);
  if (ga) CK(cudaGraphExecDestroy(ga));
  if (gb) CK(cudaGraphExecDestroy(gb));
  for (int i = 0; i < 2; ++i) CK(cudaStreamDestroy(s[i]));
  w4a16_plan_destroy(pa), w4a16_plan_destroy(pb);
}

/* A capture invalidated on purpose (a wait on an event recorded outside it) after a call of the plan:
 * the plan's next eager call is bitwise equal to the one before. Also: a captured call with M above the
 * reserved workspace returns an error status and leaves the plan working. */
static void test_invalidated(Case *c, cudaStream_t s) {
  for (int k = 0; k < 2; ++k) {
    const Class *cl = &kClasses[k == 0 ? 3 : 6];
    force_class(cl);
    w4a16_plan *p;
    const int ok = w4a16_plan_create(W4A16_BACKEND_CUDA, c->qweight, c->scales, c->K, c->N, 128, &p) == W4A16_OK;
    force_class(NULL);
    check(ok, "%s: plan_create failed%lld%lld", cl->name, 0, 0);
    if (!ok) continue;
    const int64_t M = 16;
    eager(p, c, M, s, c->want);
    cudaStream_t other;
    cudaEvent_t ev;
    CK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    CK(cudaEventRecord(ev, other));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    const w4a16_status st = run(p, c, M, s);
    const cudaError_t werr = cudaStreamWaitEvent(s, ev, 0); /* outside the capture: invalidates it */
    cudaGraph_t g = NULL;
    const cudaError_t eerr = cudaStreamEndCapture(s, &g);
    if (g) CK(cudaGraphDestroy(g));
    cudaGetLastError();
    check(st == W4A16_OK && (werr != cudaSuccess || eerr != cudaSuccess),
          "%s: the capture was not invalidated (wait %lld, end %lld)", cl->name, werr, eerr);
    check(eager(p, c, M, s, c->got) && memcmp(c->got, c->want, (size_t)(M * c->N * 2)) == 0,
          "%s: eager call after an invalidated capture differs%lld%lld", cl->name, 0, 0);
    /* a capture that needs more workspace than reserved: an error status, nothing launched */
    if (k == 0 && w4a16_plan_reserve(p, 1) == W4A16_OK) {
      CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      const w4a16_status big = run(p, c, 64, s);
      CK(cudaStreamEndCapture(s, &g));
      if (g) CK(cudaGraphDestroy(g));
      const uint64_t need = w4a16_plan_workspace_bytes(p, 64);
      check(need == 0 || big == W4A16_ERR_BAD_ARGUMENT,
            "%s: capture beyond the reserved workspace returned %lld (needs %lld B)", cl->name, big, (long long)need);
      check(w4a16_plan_reserve(p, 64) == W4A16_OK && eager(p, c, M, s, c->got) &&
                memcmp(c->got, c->want, (size_t)(M * c->N * 2)) == 0,
            "%s: eager call after reserve differs%lld%lld", cl->name, 0, 0);
    }
    CK(cudaEventDestroy(ev));
    CK(cudaStreamDestroy(other));
    w4a16_plan_destroy(p);
  }
}

/* Act-order plans (w4a16_plan_create_act_order, random g_idx) in the configuration classes of three paths (v3
 * without and with the workspace, v1): every call gathers x into the plan's gather buffer first. At M in {1, 17, 64}
 * each call captured in global and thread-local mode and replayed, bitwise equal to the eager call, and an eager
 * call after the replays too; a captured call beyond the reserved gather buffer fails with a status (after
 * w4a16_plan_reserve(1)), and captures again after w4a16_plan_reserve(64); one plan on two streams at once at M = 1
 * and 32 (eager, no host sync between the streams: the gather buffer is shared, the plan orders the calls). */
static void test_act_order(Case *c, const int64_t *Ms, int nM, int reps, cudaStream_t s) {
  int32_t *g_idx = malloc((size_t)c->K * 4), *dg = dev((size_t)c->K * 4);
  w4t_make_g_idx(g_idx, c->K, 128, 700);
  ck_put(dg, g_idx, (size_t)c->K * 4);
  free(g_idx);
  static const int classes[] = {0, 3, 7}; /* v3-default, v3-W4-workspace3, v1-S1 */
  for (int ci = 0; ci < 3; ++ci) {
    const Class *cl = &kClasses[classes[ci]];
    force_class(cl);
    w4a16_plan *p = NULL;
    const w4a16_status st = w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, c->qweight, c->scales, NULL, NULL, dg,
                                                        c->K, c->N, 128, W4A16_ELEM_F16, W4A16_ELEM_F16, &p);
    force_class(NULL);
    check(st == W4A16_OK, "act-order %s: plan_create: %lld %lld", cl->name, st, 0);
    if (st != W4A16_OK) continue;
    capture_replay_each_m(p, c, Ms, nM, reps, reps, s);
    /* beyond the reserved gather buffer: refused while capturing, nothing launched; fine after reserving */
    const int64_t M = 17;
    if (eager(p, c, M, s, c->want) && w4a16_plan_reserve(p, 1) == W4A16_OK) {
      cudaGraph_t g = NULL;
      CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      const w4a16_status big = run(p, c, M, s);
      CK(cudaStreamEndCapture(s, &g));
      if (g) CK(cudaGraphDestroy(g));
      check(big == W4A16_ERR_BAD_ARGUMENT && strstr(w4a16_last_error(), "w4a16_plan_reserve"),
            "act-order %s: capture beyond the reserved gather buffer returned %lld (M = %lld)", cl->name, big, M);
      check(w4a16_plan_reserve(p, 64) == W4A16_OK, "act-order %s: w4a16_plan_reserve(64) failed%lld%lld", cl->name,
            0, 0);
      cudaGraphExec_t e = capture(p, c, M, s, cudaStreamCaptureModeGlobal);
      check(e && replay(e, c, M, s, reps) == 0, "act-order %s: capture after reserving differs (M = %lld)%lld",
            cl->name, M, 0);
      if (e) CK(cudaGraphExecDestroy(e));
    } else {
      check(0, "act-order %s: eager call or w4a16_plan_reserve(1) failed%lld%lld", cl->name, 0, 0);
    }
    /* one plan on two streams at once */
    cudaStream_t two[2];
    for (int i = 0; i < 2; ++i) CK(cudaStreamCreateWithFlags(&two[i], cudaStreamNonBlocking));
    static const int64_t two_stream_ms[] = {1, 32};
    for (int i = 0; i < 2; ++i) {
      const int64_t m = two_stream_ms[i];
      const int bad = eager(p, c, m, two[0], c->want) ? one_plan_two_streams(p, c, m, two) : 1;
      check(bad == 0, "act-order %s: one plan on two streams at once: %lld mismatches in 200 calls (M = %lld)",
            cl->name, bad, m);
    }
    for (int i = 0; i < 2; ++i) CK(cudaStreamDestroy(two[i]));
    w4a16_plan_destroy(p);
  }
  CK(cudaFree(dg));
}

/* 8. in the header: w4a16_plan_run_outputs captured and replayed like w4a16_plan_run (1.), split and GLU, in the
 * classes v3-default, v3-W4-cluster3, v3-W4-workspace3, v3-W2-workspace4, v1-S1, v1-cluster2 and on an act-order
 * plan (v3 default and workspace); the split outputs' eager results also bitwise equal to the columns of the
 * plan's w4a16_plan_run without residual. */
static void test_outputs(Case *c, const int64_t *Ms, int nM, int reps, cudaStream_t s) {
  static const int classes[] = {0, 2, 3, 6, 7, 8};
  int32_t *g_idx = malloc((size_t)c->K * 4), *dg = dev((size_t)c->K * 4);
  w4t_make_g_idx(g_idx, c->K, 128, 701);
  ck_put(dg, g_idx, (size_t)c->K * 4);
  free(g_idx);
  uint16_t *plain = malloc((size_t)(64 * c->N) * 2);
  for (int mode = 1; mode <= 2; ++mode)
    for (int ci = 0; ci < 8; ++ci) {
      const int act_order = ci >= 6;
      const Class *cl = &kClasses[act_order ? (ci == 6 ? 0 : 3) : classes[ci]];
      force_class(cl);
      w4a16_plan *p = NULL;
      const w4a16_status st = w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, c->qweight, c->scales, NULL, NULL,
                                                          act_order ? dg : NULL, c->K, c->N, 128, W4A16_ELEM_F16,
                                                          W4A16_ELEM_F16, &p);
      force_class(NULL);
      check(st == W4A16_OK, "outputs %s: plan_create: %lld %lld", cl->name, st, 0);
      if (st != W4A16_OK) continue;
      g_outputs = mode;
      capture_replay_each_m(p, c, Ms, nM, reps, reps, s);
      if (mode == 1) /* the split's eager result (c->want holds the last M's) against plain columns */
        for (int i = 0; i < nM; ++i) {
          const int64_t M = Ms[i];
          g_outputs = 1;
          int ok = eager(p, c, M, s, c->want);
          g_outputs = 0;
          CK(cudaMemsetAsync(c->out, 0xff, (size_t)(M * c->N * 2), s));
          ok = ok && w4a16_plan_run(p, c->x, M, c->bias, NULL, W4A16_ACT_SILU, c->out, s) == W4A16_OK;
          CK(cudaMemcpyAsync(plain, c->out, (size_t)(M * c->N * 2), cudaMemcpyDeviceToHost, s));
          CK(cudaStreamSynchronize(s));
          const w4a16_outputs o = outputs_of(c, M);
          int64_t first = 0;
          for (int k = 0; k < o.count && ok; ++k) {
            const uint16_t *got = c->want + (o.out[k] - c->out);
            for (int64_t m = 0; m < M && ok; ++m)
              ok = memcmp(got + m * o.cols[k], plain + m * c->N + first, (size_t)o.cols[k] * 2) == 0;
            first += o.cols[k];
          }
          check(ok, "outputs %s: split outputs differ from the plan's own columns (M = %lld)%lld", cl->name, M, 0);
        }
      g_outputs = 0;
      w4a16_plan_destroy(p);
    }
  free(plain);
  CK(cudaFree(dg));
}

int main(int argc, char **argv) {
  int small = 0;
  const char *only = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--small")) small = 1;
    else if (!strcmp(argv[i], "--class") && i + 1 < argc) only = argv[++i];
  }
  if (!w4a16_cuda_available()) {
    printf("no GPU: graph_test skipped\n");
    return 0;
  }
  static const int64_t shapes[][2] = {{8192, 28672}, {28672, 8192}, {8192, 8192},
                                      {14336, 4096}, {4096, 11008}, {11008, 4096}};
  static const int64_t Ms[] = {1, 8, 16, 17, 24, 32, 48, 64}, smallMs[] = {1, 17, 64};
  const int nshapes = small ? 1 : 6;
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int i = 0; i < nshapes; ++i) {
    Case c;
    case_init(&c, small ? 4096 : shapes[i][0], small ? 2048 : shapes[i][1], 100 + (uint64_t)i);
    for (int k = 0; k < kNumClasses; ++k)
      if (!only || !strcmp(only, kClasses[k].name))
        test_class(&kClasses[k], &c, small ? smallMs : Ms, small ? 3 : 8, small ? 3 : 1000, small ? 2 : 50, s);
    if (i == 0 && !only) {
      for (int k = 0; k < kNumClasses; ++k) test_alternating(&kClasses[k], &c, s);
      test_invalidated(&c, s);
      test_act_order(&c, small ? smallMs : Ms, small ? 3 : 8, small ? 2 : 50, s);
      test_forms(&c, small ? smallMs : Ms, small ? 3 : 8, small ? 2 : 50, s);
      test_outputs(&c, small ? smallMs : Ms, small ? 3 : 8, small ? 2 : 50, s);
      Case b;
      case_init(&b, 4096, 11008, 900);
      test_two_streams(&c, &b);
      case_free(&b);
    }
    case_free(&c);
    printf("shape %lldx%lld done: %d passed, %d failed so far\n", (long long)(small ? 4096 : shapes[i][0]),
           (long long)(small ? 2048 : shapes[i][1]), g_pass, g_fail);
    fflush(stdout);
  }
  CK(cudaStreamDestroy(s));
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
