/* The compiled-code ABI's error path and explicit plans (docs/contract.md §2, "Compiled code"), on the CPU,
 * through the entry points and header w4a16-compile generates:
 *
 *   1. a run without prepare returns W4A16_ERR_BAD_ARGUMENT, w4a16_rt_last_error() names the fix
 *      ("weight not prepared: call w4a16c_prepare_iree_i4"), nothing is printed and nothing aborts; the plain
 *      _mlir_ciface_ call returns too, its failure readable after w4a16_rt_clear_status();
 *   2. prepare on a backend that cannot run (CUDA forced, no GPU) returns W4A16_ERR_NO_DEVICE (skipped when a
 *      GPU is present);
 *   3. plans are snapshots: after the weight buffer is updated in place, a run without prepare gives the old
 *      results bit for bit, and prepare + run gives the new ones (checked against the --no-fuse build run on
 *      the new weight, docs/contract.md §1 tolerance; the old results must fail that check);
 *   4. the first failure of a call wins: in llama_mlp (merged gate/up, then down), an unprepared weight in the first
 *      or the last call makes the function's status nonzero, the message naming that call's shape, although
 *      the other calls succeed; and a weight that two calls share is prepared once per prepare call;
 *   5. hqq_group64 (group size 64, fractional zero points: the kernels' affine form) prepared with the CUDA
 *      backend selected is no CPU fallback (w4a16_rt_cpu_fallbacks unchanged): with a GPU, prepare and run
 *      return 0; without one, prepare returns W4A16_ERR_NO_DEVICE. (The fallback itself, for a K the
 *      kernels do not take: cpu_fallback_test.c.)
 *   6. gptq_act_order: a g_idx whose groups do not hold 128 rows each (one row moved to another group; a
 *      group number out of range) is only known at run time: prepare returns W4A16_ERR_BAD_ARGUMENT with a
 *      message naming g_idx, prints nothing, aborts nothing, and leaves no plan behind; a valid g_idx prepares.
 *   7. the zero-point layout code's flags, through a zero-point entry point called by hand: offsets subtracted
 *      (W4A16_ZP_OFFSETS | W4A16_ZP_SUBTRACTED) give code * scale - m, added ones code * scale + m (exact
 *      sums), and W4A16_ZP_SUBTRACTED without W4A16_ZP_OFFSETS, or W4A16_ZP_SIGNED on float zero points, is
 *      W4A16_ERR_BAD_ARGUMENT naming the flag.
 *
 *   e2e-compiled-abi IREE_FUSED.so IREE_UNFUSED.so LLAMA_FUSED.so HQQ_FUSED.so ACT_ORDER_FUSED.so */
#define _POSIX_C_SOURCE 200809L

#include "gptq_act_order.h"
#include "hqq_group64.h"
#include "iree_i4.h"
#include "llama_mlp.h"
#include "w4a16/contract.h"
#include "w4a16/runtime_abi.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../common/test_data.h"

enum { M = 2, K = 4096, N = 11008, G = K / 128 };

static int g_failures;
static uint64_t g_rng = 77;

static void check(bool ok, const char *what) {
  printf("  %-96s %s\n", what, ok ? "ok" : "FAILED");
  g_failures += !ok;
}

static void *symbol(const char *path, const char *name) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  void *fn = h ? dlsym(h, name) : NULL;
  if (!fn) {
    fprintf(stderr, "compiled-abi: %s: no %s (%s)\n", path, name, h ? "not exported" : dlerror());
    exit(2);
  }
  return fn;
}

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p)
    exit(2);
  return p;
}

/* docs/contract.md §1's comparison: rel L2 <= 2e-3 and |out - ref| <= 1e-2 (1 + |ref|) everywhere. */
static bool close_to(const w4a16c_memref2d_f16 *out, const w4a16c_memref2d_f16 *ref) {
  double num = 0, den = 0, max_rel = 0;
  for (int64_t i = 0; i < out->sizes[0] * out->sizes[1]; ++i) {
    double o = f16_to_double(out->aligned[i]), r = f16_to_double(ref->aligned[i]);
    if (!isfinite(o) || !isfinite(r))
      return false;
    num += (o - r) * (o - r);
    den += r * r;
    max_rel = fmax(max_rel, fabs(o - r) / (1 + fabs(r)));
  }
  return den > 0 && sqrt(num / den) <= 2e-3 && max_rel <= 1e-2;
}

static bool same_bits(const w4a16c_memref2d_f16 *a, const w4a16c_memref2d_f16 *b) {
  return a->sizes[0] == b->sizes[0] && a->sizes[1] == b->sizes[1] &&
         memcmp(a->aligned, b->aligned, (size_t)(a->sizes[0] * a->sizes[1]) * 2) == 0;
}

/* Runs fn with stderr redirected; true if it printed nothing there. */
static bool silently(int32_t (*call)(void *), void *arg, int32_t *status) {
  fflush(stderr);
  FILE *capture = tmpfile();
  int saved = dup(2);
  dup2(fileno(capture), 2);
  *status = call(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  fseek(capture, 0, SEEK_END);
  bool quiet = ftell(capture) == 0;
  fclose(capture);
  return quiet;
}

/* --- iree_i4: one fused call -------------------------------------------------------------------------- */

typedef struct Iree {
  w4a16c_iree_i4_status_fn *run, *prepare, *ref;
  w4a16c_iree_i4_fn *plain;
  w4a16c_memref2d_f16 x, s;
  w4a16c_memref3d_i4 w;
} Iree;

static int32_t iree_run_discard(void *arg) {
  Iree *t = arg;
  w4a16c_memref2d_f16 out = {0};
  int32_t status = t->run(&out, &t->x, &t->w, &t->s);
  free(out.allocated);
  return status;
}

static void not_prepared(Iree *t) {
  int32_t status;
  bool quiet = silently(iree_run_discard, t, &status);
  check(status == W4A16_ERR_BAD_ARGUMENT, "run without prepare returns W4A16_ERR_BAD_ARGUMENT");
  check(strstr(w4a16_rt_last_error(), "weight not prepared") &&
            strstr(w4a16_rt_last_error(), "call w4a16c_prepare_iree_i4"),
        "the message names the fix");
  printf("    (\"%s\")\n", w4a16_rt_last_error());
  check(quiet, "nothing printed on stderr");
  check(w4a16_rt_plans_created() == 0, "no plan created behind the caller's back");

  w4a16_rt_clear_status();
  w4a16c_memref2d_f16 out = {0};
  t->plain(&out, &t->x, &t->w, &t->s);
  check(out.sizes[0] == M && w4a16_rt_status() == W4A16_ERR_BAD_ARGUMENT,
        "_mlir_ciface_iree_i4 returns; w4a16_rt_status() holds the failure");
  bool zeros = true;
  for (int64_t i = 0; i < M * N; ++i)
    zeros &= out.aligned[out.offset + i] == 0;
  check(zeros, "the failed call's output is zeros, not uninitialised memory");
  free(out.allocated);
}

static int32_t iree_prepare_discard(void *arg) {
  Iree *t = arg;
  w4a16c_memref2d_f16 out = {0};
  int32_t status = t->prepare(&out, &t->x, &t->w, &t->s);
  free(out.allocated);
  return status;
}

static void no_device(Iree *t) {
  if (w4a16_cuda_available()) {
    printf("  (a GPU is present: the no-device case is not tested)\n");
    return;
  }
  w4a16_backend previous = w4a16_rt_set_backend(W4A16_BACKEND_CUDA);
  int32_t status;
  bool quiet = silently(iree_prepare_discard, t, &status);
  w4a16_rt_set_backend(previous);
  check(status == W4A16_ERR_NO_DEVICE && strstr(w4a16_rt_last_error(), "CUDA"),
        "prepare on the CUDA backend without a GPU returns W4A16_ERR_NO_DEVICE");
  printf("    (\"%s\")\n", w4a16_rt_last_error());
  check(quiet, "nothing printed on stderr");
}

static void weight_update(Iree *t) {
  w4a16c_memref2d_f16 out0 = {0}, stale = {0}, out1 = {0}, ref1 = {0};
  int64_t plans = w4a16_rt_plans_created();
  check(t->prepare(&out0, &t->x, &t->w, &t->s) == 0 && w4a16_rt_plans_created() == plans + 1,
        "prepare returns 0 and makes one plan");
  free(out0.allocated);
  check(t->run(&out0, &t->x, &t->w, &t->s) == 0, "run after prepare returns 0");

  for (size_t i = 0; i < (size_t)N * K; ++i) /* new codes, in place */
    t->w.aligned[i] = (uint8_t)((t->w.aligned[i] + 5) & 15);
  check(t->run(&stale, &t->x, &t->w, &t->s) == 0 && same_bits(&stale, &out0),
        "after an in-place update, run without prepare gives the old results bit for bit");
  check(t->ref(&ref1, &t->x, &t->w, &t->s) == 0 && !close_to(&out0, &ref1), "the old results do not fit the new weight");
  check(t->prepare(&out1, &t->x, &t->w, &t->s) == 0 && close_to(&out1, &ref1),
        "prepare after the update gives the new results (vs the --no-fuse build)");
  free(out1.allocated);
  check(t->run(&out1, &t->x, &t->w, &t->s) == 0 && close_to(&out1, &ref1) && w4a16_rt_plans_created() == plans + 2,
        "later runs too; plans made: one per prepare");
  free(out0.allocated), free(stale.allocated), free(out1.allocated), free(ref1.allocated);
}

static void iree_tests(const char *fused, const char *unfused) {
  Iree t = {.run = symbol(fused, "w4a16c_run_iree_i4"), .prepare = symbol(fused, "w4a16c_prepare_iree_i4"),
            .ref = symbol(unfused, "w4a16c_run_iree_i4"), .plain = symbol(fused, "_mlir_ciface_iree_i4")};
  uint16_t *x = xmalloc(2 * (size_t)M * K), *s = xmalloc(2 * (size_t)N * G);
  uint8_t *w = xmalloc((size_t)N * K);
  for (int i = 0; i < M * K; ++i)
    x[i] = double_to_f16(uniform_in(&g_rng, -2, 2));
  for (size_t i = 0; i < (size_t)N * K; ++i)
    w[i] = (uint8_t)(splitmix64(&g_rng) >> 60);
  for (int i = 0; i < N * G; ++i)
    s[i] = double_to_f16((splitmix64(&g_rng) >> 63 ? -1 : 1) * uniform_in(&g_rng, 0.5, 1.5) / (1.155 * sqrt(21.5 * K)));
  t.x = (w4a16c_memref2d_f16){x, x, 0, {M, K}, {K, 1}};
  t.w = (w4a16c_memref3d_i4){w, w, 0, {N, G, 128}, {K, 128, 1}};
  t.s = (w4a16c_memref2d_f16){s, s, 0, {N, G}, {G, 1}};
  printf("iree_i4 (one fused call):\n");
  not_prepared(&t);
  no_device(&t);
  weight_update(&t);
  w4a16_rt_release_plans();
  free(x), free(w), free(s);
}

/* --- llama_mlp: two calls, gate and up merged (issue #21), then down ----------------------------------------------------------------------- */

static void llama_tests(const char *fused) {
  w4a16c_llama_mlp_status_fn *run = symbol(fused, "w4a16c_run_llama_mlp");
  w4a16c_llama_mlp_status_fn *prepare = symbol(fused, "w4a16c_prepare_llama_mlp");
  enum { D = 4096, F = 11008 };
  const int64_t rows[3] = {D / 8, D / 8, F / 8}, cols[3] = {F, F, D};
  w4a16c_memref2d_i32 q[3], copy[3];
  w4a16c_memref2d_f16 sc[3];
  for (int l = 0; l < 3; ++l) {
    size_t n = (size_t)(rows[l] * cols[l]), groups = (size_t)(rows[l] * 8 / 128);
    int32_t *qw = xmalloc(4 * n), *qc = xmalloc(4 * n);
    uint16_t *scale = xmalloc(2 * groups * (size_t)cols[l]);
    for (size_t i = 0; i < n; ++i)
      qc[i] = qw[i] = (int32_t)(splitmix64(&g_rng) >> 32);
    for (size_t i = 0; i < groups * (size_t)cols[l]; ++i)
      scale[i] = double_to_f16(1e-3);
    q[l] = (w4a16c_memref2d_i32){qw, qw, 0, {rows[l], cols[l]}, {cols[l], 1}};
    copy[l] = (w4a16c_memref2d_i32){qc, qc, 0, {rows[l], cols[l]}, {cols[l], 1}}; /* same bytes, never prepared */
    sc[l] = (w4a16c_memref2d_f16){scale, scale, 0, {(int64_t)groups, cols[l]}, {cols[l], 1}};
  }
  uint16_t x[D];
  for (int i = 0; i < D; ++i)
    x[i] = double_to_f16(uniform_in(&g_rng, -1, 1));
  w4a16c_memref2d_f16 xm = {x, x, 0, {1, D}, {D, 1}}, out = {0};
  printf("llama_mlp (two calls: gate and up merged, down):\n");
  check(prepare(&out, &xm, &q[0], &sc[0], &q[1], &sc[1], &q[2], &sc[2]) == 0, "prepare returns 0");
  free(out.allocated);
  int32_t first = run(&out, &xm, &copy[0], &sc[0], &q[1], &sc[1], &q[2], &sc[2]);
  free(out.allocated);
  check(first == W4A16_ERR_BAD_ARGUMENT && strstr(w4a16_rt_last_error(), "llama_mlp: w4a16.merged_matmul (2 members, M = 1, K = 4096)"),
        "unprepared gate weight: nonzero status, the first call's message, although later calls succeed");
  printf("    (\"%s\")\n", w4a16_rt_last_error());
  int32_t last = run(&out, &xm, &q[0], &sc[0], &q[1], &sc[1], &copy[2], &sc[2]);
  free(out.allocated);
  check(last == W4A16_ERR_BAD_ARGUMENT && strstr(w4a16_rt_last_error(), "(M = 1, K = 11008, N = 4096)"),
        "unprepared down weight: nonzero status naming the last call");
  int32_t both = run(&out, &xm, &copy[0], &sc[0], &q[1], &sc[1], &copy[2], &sc[2]);
  free(out.allocated);
  check(both == W4A16_ERR_BAD_ARGUMENT && strstr(w4a16_rt_last_error(), "merged_matmul (2 members, M = 1, K = 4096)"),
        "gate and down unprepared: the first failure is the one reported");
  check(run(&out, &xm, &q[0], &sc[0], &q[1], &sc[1], &q[2], &sc[2]) == 0 && w4a16_rt_last_error()[0] == '\0',
        "the next run starts clean");
  free(out.allocated);
  int64_t plans = w4a16_rt_plans_created();
  check(prepare(&out, &xm, &q[0], &sc[0], &q[0], &sc[0], &q[2], &sc[2]) == 0 && w4a16_rt_plans_created() == plans + 2,
        "gate and up sharing one weight: prepare makes two plans (merged gate/up, down)");
  free(out.allocated);
  w4a16_rt_release_plans();
  check(run(&out, &xm, &q[0], &sc[0], &q[1], &sc[1], &q[2], &sc[2]) == W4A16_ERR_BAD_ARGUMENT,
        "after w4a16_rt_release_plans, runs fail as not prepared");
  free(out.allocated);
  for (int l = 0; l < 3; ++l)
    free(q[l].allocated), free(copy[l].allocated), free(sc[l].allocated);
}

/* --- hqq_group64 with the CUDA backend selected: the kernels take it ---------------------------------- */

static void cuda_form_tests(const char *fused) {
  w4a16c_hqq_group64_status_fn *prepare = symbol(fused, "w4a16c_prepare_hqq_group64");
  w4a16c_hqq_group64_status_fn *run = symbol(fused, "w4a16c_run_hqq_group64");
  enum { D = 2048, GROUPS = D / 64 };
  uint16_t *x = xmalloc(2 * D), *s = xmalloc(2 * (size_t)D * GROUPS), *z = xmalloc(2 * (size_t)D * GROUPS);
  int8_t *w = xmalloc((size_t)D * D);
  for (int i = 0; i < D; ++i)
    x[i] = double_to_f16(uniform_in(&g_rng, -1, 1));
  for (size_t i = 0; i < (size_t)D * D; ++i)
    w[i] = (int8_t)(splitmix64(&g_rng) >> 60);
  for (int i = 0; i < D * GROUPS; ++i)
    s[i] = double_to_f16(1e-3), z[i] = double_to_f16(uniform_in(&g_rng, 6, 9));
  w4a16c_memref2d_f16 xm = {x, x, 0, {1, D}, {D, 1}}, sm = {s, s, 0, {D, GROUPS}, {GROUPS, 1}};
  w4a16c_memref2d_f16 zm = {z, z, 0, {D, GROUPS}, {GROUPS, 1}}, out = {0};
  w4a16c_memref2d_i8 wm = {w, w, 0, {D, D}, {D, 1}};
  printf("hqq_group64 with the CUDA backend selected (%s):\n", w4a16_cuda_available() ? "a GPU" : "no GPU");
  const int64_t before = w4a16_rt_cpu_fallbacks();
  w4a16_backend previous = w4a16_rt_set_backend(W4A16_BACKEND_CUDA);
  const int32_t prepared = prepare(&out, &xm, &wm, &sm, &zm);
  free(out.allocated);
  memset(&out, 0, sizeof out);
  if (w4a16_cuda_available()) {
    const int32_t ran = run(&out, &xm, &wm, &sm, &zm);
    free(out.allocated);
    check(prepared == 0 && ran == 0, "prepare and run return 0");
  } else {
    check(prepared == W4A16_ERR_NO_DEVICE, "prepare returns W4A16_ERR_NO_DEVICE");
  }
  w4a16_rt_set_backend(previous);
  check(w4a16_rt_cpu_fallbacks() == before, "not a CPU fallback (w4a16_rt_cpu_fallbacks unchanged)");
  w4a16_rt_release_plans();
  free(x), free(w), free(s), free(z);
}

/* --- gptq_act_order: a g_idx the runtime refuses at prepare time ------------------------------------- */

typedef struct ActOrder {
  w4a16c_gptq_act_order_status_fn *prepare, *run;
  w4a16c_memref2d_f16 x, s;
  w4a16c_memref2d_i32 q, z;
  w4a16c_memref1d_i32 g;
  w4a16c_memref1d_f16 b;
} ActOrder;

static int32_t act_order_prepare_discard(void *arg) {
  ActOrder *t = arg;
  w4a16c_memref2d_f16 out = {0};
  int32_t status = t->prepare(&out, &t->x, &t->q, &t->z, &t->s, &t->g, &t->b);
  free(out.allocated);
  return status;
}

static int32_t act_order_run_discard(void *arg) {
  ActOrder *t = arg;
  w4a16c_memref2d_f16 out = {0};
  int32_t status = t->run(&out, &t->x, &t->q, &t->z, &t->s, &t->g, &t->b);
  free(out.allocated);
  return status;
}

static void act_order_tests(const char *fused) {
  enum { D = 2048, GS = 128 };
  ActOrder t = {.prepare = symbol(fused, "w4a16c_prepare_gptq_act_order"), .run = symbol(fused, "w4a16c_run_gptq_act_order")};
  uint16_t *x = xmalloc(2 * D), *s = xmalloc(2 * (size_t)D * (D / GS)), *b = xmalloc(2 * D);
  int32_t *q = xmalloc(4 * (size_t)D / 8 * D), *z = xmalloc(4 * (size_t)(D / GS) * (D / 8)), *g = xmalloc(4 * D);
  for (int i = 0; i < D; ++i)
    x[i] = double_to_f16(uniform_in(&g_rng, -1, 1)), b[i] = 0, g[i] = (int32_t)((i * 7) % D / GS);
  for (size_t i = 0; i < (size_t)D / 8 * D; ++i)
    q[i] = (int32_t)(splitmix64(&g_rng) >> 32);
  for (int i = 0; i < D * (D / GS); ++i)
    s[i] = double_to_f16(1e-3);
  for (int i = 0; i < (D / GS) * (D / 8); ++i)
    z[i] = (int32_t)0x88888888u;
  t.x = (w4a16c_memref2d_f16){x, x, 0, {1, D}, {D, 1}};
  t.q = (w4a16c_memref2d_i32){q, q, 0, {D / 8, D}, {D, 1}};
  t.z = (w4a16c_memref2d_i32){z, z, 0, {D / GS, D / 8}, {D / 8, 1}};
  t.s = (w4a16c_memref2d_f16){s, s, 0, {D / GS, D}, {D, 1}};
  t.g = (w4a16c_memref1d_i32){g, g, 0, {D}, {1}};
  t.b = (w4a16c_memref1d_f16){b, b, 0, {D}, {1}};
  printf("gptq_act_order (g_idx checked when prepared):\n");
  int32_t status = -1;
  check(silently(act_order_prepare_discard, &t, &status) && status == 0, "a g_idx of 128 rows per group prepares");
  check(silently(act_order_run_discard, &t, &status) && status == 0, "and runs");
  const int32_t moved = g[0];
  g[0] = (moved + 1) % (D / GS); /* one group gets 129 rows, another 127 */
  check(silently(act_order_prepare_discard, &t, &status) && status == W4A16_ERR_BAD_ARGUMENT &&
            strstr(w4a16_rt_last_error(), "g_idx"),
        "a group of 129 rows: prepare returns W4A16_ERR_BAD_ARGUMENT naming g_idx, prints nothing");
  printf("    (\"%s\")\n", w4a16_rt_last_error());
  check(silently(act_order_run_discard, &t, &status) && status == W4A16_ERR_BAD_ARGUMENT &&
            strstr(w4a16_rt_last_error(), "not prepared"),
        "the failed prepare left no plan: the run fails as not prepared");
  g[0] = D / GS; /* out of range */
  check(silently(act_order_prepare_discard, &t, &status) && status == W4A16_ERR_BAD_ARGUMENT &&
            strstr(w4a16_rt_last_error(), "g_idx"),
        "a group number out of range: W4A16_ERR_BAD_ARGUMENT naming g_idx");
  g[0] = moved;
  check(silently(act_order_prepare_discard, &t, &status) && status == 0, "the valid g_idx prepares again");
  w4a16_rt_release_plans();
  free(x), free(s), free(b), free(q), free(z), free(g);
}

/* Declared by the code that calls it (runtime_abi.h describes the family). */
int32_t _mlir_ciface_w4a16_rt_matmul_zp_i8_f16(w4a16_memref2d_f16 *x, w4a16_memref2d_i8 *weight,
                                               w4a16_memref2d_f16 *scales, w4a16_memref1d_f16 *bias,
                                               w4a16_memref2d_f16 *residual, w4a16_memref2d_f16 *zeroPoints,
                                               w4a16_memref1d_i32 *groupIndex, w4a16_memref2d_f16 *out,
                                               int32_t activation, int32_t weightLayout, int32_t scalesLayout,
                                               int32_t hasBias, int32_t hasResidual, int32_t hasZeroPoints,
                                               int32_t zeroPointLayout, int32_t zeroPointOffset, double zeroPoint,
                                               int32_t hasGroupIndex);

/* One row of x = 1 against a (128, 8) k_n weight of codes 3, scales 1 and offsets 0.5 with zero point 0: each
 * output is 128 * (3 -+ 0.5), exact in f16. Returns the call's status; out[0] in *first. */
static int32_t offsets_call(int32_t zpLayout, uint16_t *first) {
  enum { kK = 128, kN = 8 };
  static uint16_t x[kK], scales[kN], offsets[kN], out[kN];
  static uint8_t codes[kK * kN];
  static int32_t gidx[1];
  for (int i = 0; i < kK; ++i)
    x[i] = 0x3C00; /* 1.0 */
  for (int i = 0; i < kK * kN; ++i)
    codes[i] = 3;
  for (int n = 0; n < kN; ++n)
    scales[n] = 0x3C00, offsets[n] = 0x3800; /* 1.0, 0.5 */
  w4a16_memref2d_f16 xm = {x, x, 0, {1, kK}, {kK, 1}}, sm = {scales, scales, 0, {1, kN}, {kN, 1}};
  w4a16_memref2d_f16 zm = {offsets, offsets, 0, {1, kN}, {kN, 1}}, om = {out, out, 0, {1, kN}, {kN, 1}};
  w4a16_memref2d_f16 none2 = {x, x, 0, {0, 0}, {0, 1}};
  w4a16_memref1d_f16 none1 = {x, x, 0, {0}, {1}};
  w4a16_memref1d_i32 noIndex = {gidx, gidx, 0, {0}, {1}};
  w4a16_memref2d_i8 wm = {codes, codes, 0, {kK, kN}, {kN, 1}};
  w4a16_rt_enter("offsets_by_hand", 1);
  _mlir_ciface_w4a16_rt_matmul_zp_i8_f16(&xm, &wm, &sm, &none1, &none2, &zm, &noIndex, &om, W4A16_ACT_NONE,
                                         W4A16_WEIGHT_K_N, W4A16_SCALES_G_N, 0, 0, 1, zpLayout, 0, 0.0, 0);
  *first = out[0];
  return w4a16_rt_leave();
}

static void zero_point_flag_tests(void) {
  printf("zero-point layout flags, by hand\n");
  uint16_t y = 0;
  int32_t status = offsets_call(W4A16_ZP_G_N | W4A16_ZP_OFFSETS | W4A16_ZP_SUBTRACTED, &y);
  check(status == 0 && y == 0x5D00, "offsets subtracted: 128 * (3 - 0.5) = 320");
  status = offsets_call(W4A16_ZP_G_N | W4A16_ZP_OFFSETS, &y);
  check(status == 0 && y == 0x5F00, "offsets added: 128 * (3 + 0.5) = 448");
  status = offsets_call(W4A16_ZP_G_N | W4A16_ZP_SUBTRACTED, &y);
  check(status == W4A16_ERR_BAD_ARGUMENT && strstr(w4a16_rt_last_error(), "W4A16_ZP_SUBTRACTED without"),
        "W4A16_ZP_SUBTRACTED without W4A16_ZP_OFFSETS: W4A16_ERR_BAD_ARGUMENT naming the flag");
  status = offsets_call(W4A16_ZP_G_N | W4A16_ZP_SIGNED, &y);
  check(status == W4A16_ERR_BAD_ARGUMENT && strstr(w4a16_rt_last_error(), "W4A16_ZP_SIGNED with float"),
        "W4A16_ZP_SIGNED on float zero points: W4A16_ERR_BAD_ARGUMENT naming the flag");
  w4a16_rt_release_plans();
}

/* Keeps the runtime's symbols in the executable for the dlopen'ed builds. */
void *const w4a16_compiled_abi_keep[] = {(void *)_mlir_ciface_w4a16_rt_matmul_i32, (void *)_mlir_ciface_w4a16_rt_matmul_i8,
                                         (void *)_mlir_ciface_w4a16_rt_matmul_i4, (void *)w4a16_rt_enter,
                                         (void *)w4a16_rt_leave};

/* w4a16_rt_symbols lists each entry point once, under the name the executable exports it by: the three
 * symmetric entries, 4 (io, scales) pairs x 3 weight types x 6 zero-point types, enter and leave. */
static void symbol_table_tests(void) {
  printf("w4a16_rt_symbols\n");
  int n = 0;
  const w4a16_rt_symbol *symbols = w4a16_rt_symbols(&n);
  check(n == 3 + 4 * 3 * 6 + 1 + 2, "78 symbols");
  bool resolved = true, unique = true, typedBf16 = false;
  for (int i = 0; i < n; ++i) {
    resolved &= symbols[i].address && dlsym(RTLD_DEFAULT, symbols[i].name) == symbols[i].address;
    typedBf16 |= strcmp(symbols[i].name, "_mlir_ciface_w4a16_rt_matmul_typed_bf16_f16_i32_f16") == 0;
    for (int j = 0; j < i; ++j)
      unique &= strcmp(symbols[i].name, symbols[j].name) != 0;
  }
  check(resolved, "every name resolves (dlsym) to the address listed");
  check(unique, "no name twice");
  check(typedBf16, "the typed family is listed (_mlir_ciface_w4a16_rt_matmul_typed_bf16_f16_i32_f16)");
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s IREE_FUSED.so IREE_UNFUSED.so LLAMA_FUSED.so HQQ_FUSED.so ACT_ORDER_FUSED.so\n", argv[0]);
    return 2;
  }
  w4a16_rt_set_backend(W4A16_BACKEND_CPU);
  iree_tests(argv[1], argv[2]);
  llama_tests(argv[3]);
  cuda_form_tests(argv[4]);
  act_order_tests(argv[5]);
  zero_point_flag_tests();
  symbol_table_tests();
  printf("compiled-code ABI: %s\n", g_failures ? "FAIL" : "PASS");
  return g_failures ? 1 : 0;
}
