/* End-to-end comparison of two AOT-compiled builds of one example model (examples/<name>.mlir): a test build
 * (w4a16-compile's fused .so, which calls the w4a16 runtime: it must make one plan per fused chain of the
 * example) against a reference build (normally `w4a16-compile --no-fuse`, upstream MLIR lowering only), on
 * the same deterministic inputs at several M.
 *
 *   e2e-driver --example llama_mlp --test llama_mlp.fused.so --ref llama_mlp.unfused.so
 *              [--backend cpu|cuda|auto] [--ref-backend cpu|cuda] [--m 1,3,5] [--seed N]
 *              [--force-activation none|silu|gelu_tanh] [--expect-mismatch] [--min-time SECONDS]
 *
 * Both shared objects are dlopen'ed with RTLD_LOCAL (they export the same names). The test build's calls
 * to _mlir_ciface_w4a16_rt_matmul_* and w4a16_rt_enter/leave resolve to this executable, which links
 * w4a16_rt_abi and exports its symbols. Both builds are called through their status-returning entry points:
 * w4a16c_prepare_<example> once with an empty batch (M = 0: it only makes the plans), then
 * w4a16c_run_<example> at every M; any nonzero status is an error, reported with w4a16_rt_last_error(). --backend selects the runtime backend for the test calls (auto: CUDA if w4a16_cuda_available(),
 * else CPU); --ref-backend sets a backend for the reference calls too (when the reference is itself a fused
 * build, e.g. to compare the CUDA run with the CPU run).
 *
 * The check is docs/contract.md §1's: ||out - ref|| / ||ref|| <= 2e-3 and |out - ref| <= 1e-2 * (1 + |ref|) for every
 * element; NaN/Inf fail. "max rel error" below is max |out - ref| / (1 + |ref|). The fused build's prepare
 * must have made one plan per fused chain, and its runs none.
 *
 * Exit status: 0 all M pass (with --expect-mismatch: at least one M mismatched, and nothing else went wrong),
 * 1 comparison failed (with --expect-mismatch: everything matched), 2 usage or setup error. */
#define _POSIX_C_SOURCE 200809L

#include "w4a16/runtime.h"
#include "w4a16/runtime_abi.h"
#include "w4a16_testing.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../common/test_data.h"

#include "examples.h"


/* ---------------------------------------------------------------------------------------------------- */
/* Memref descriptors of any rank: {allocated, aligned, offset, sizes[r], strides[r]} is a sequence of     */
/* 8-byte words, so one struct with room for the largest rank is layout-compatible with every rank.      */
/* ---------------------------------------------------------------------------------------------------- */

typedef struct AnyMemref {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t dims[2 * kMaxRank]; /* sizes[0..rank-1], then strides[0..rank-1] */
} AnyMemref;

static AnyMemref make_memref(void *data, int rank, const int64_t *sizes) {
  AnyMemref m = {data, data, 0, {0}};
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    m.dims[d] = sizes[d];
    m.dims[rank + d] = stride;
    stride *= sizes[d];
  }
  return m;
}

/* Result of a function returning one rank-2 memref (the ciface writes it through the first argument). */
typedef struct Memref2 {
  uint16_t *allocated;
  uint16_t *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} Memref2;

/* w4a16c_run_<f> / w4a16c_prepare_<f>: the C-interface arguments, a status returned. */
typedef int32_t (*Fn1)(void *, void *);
typedef int32_t (*Fn2)(void *, void *, void *);
typedef int32_t (*Fn3)(void *, void *, void *, void *);
typedef int32_t (*Fn4)(void *, void *, void *, void *, void *);
typedef int32_t (*Fn5)(void *, void *, void *, void *, void *, void *);
typedef int32_t (*Fn6)(void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*Fn7)(void *, void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*Fn8)(void *, void *, void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*Fn9)(void *, void *, void *, void *, void *, void *, void *, void *, void *, void *);
typedef int32_t (*Fn10)(void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *);

static bool has_dynamic_m(const Example *ex) {
  for (int i = 0; i < ex->nargs; ++i)
    for (int d = 0; d < ex->args[i].rank; ++d)
      if (ex->args[i].shape[d] == DYN_M)
        return true;
  return false;
}

/* An (N) result descriptor {allocated, aligned, offset, N, 1} read as (1, N). */
static void as_one_row(Memref2 *m) {
  const int64_t n = m->sizes[0], stride = m->sizes[1];
  m->sizes[0] = 1, m->sizes[1] = n, m->strides[0] = n, m->strides[1] = stride;
}

static int32_t call_entry_raw(void *fn, Memref2 *ret, AnyMemref *a, int n) {
  switch (n) {
  case 1: return ((Fn1)fn)(ret, &a[0]);
  case 2: return ((Fn2)fn)(ret, &a[0], &a[1]);
  case 3: return ((Fn3)fn)(ret, &a[0], &a[1], &a[2]);
  case 4: return ((Fn4)fn)(ret, &a[0], &a[1], &a[2], &a[3]);
  case 5: return ((Fn5)fn)(ret, &a[0], &a[1], &a[2], &a[3], &a[4]);
  case 6: return ((Fn6)fn)(ret, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]);
  case 7: return ((Fn7)fn)(ret, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6]);
  case 8: return ((Fn8)fn)(ret, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7]);
  case 9: return ((Fn9)fn)(ret, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7], &a[8]);
  case 10: return ((Fn10)fn)(ret, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7], &a[8], &a[9]);
  default: fprintf(stderr, "e2e: unsupported arity %d\n", n); exit(2);
  }
}

/* Every argument of these functions is a memref, passed by pointer: call with the right arity. The
 * result is read as (M, N) whatever its rank. */
static const Example *g_example;
static int32_t call_entry(void *fn, Memref2 *ret, AnyMemref *a, int n) {
  const int32_t status = call_entry_raw(fn, ret, a, n);
  if (g_example->out_rank == 1)
    as_one_row(ret);
  return status;
}

/* Nonzero status: say which call failed and why; returns whether it succeeded. */
static bool call_ok(int32_t status, const char *what, const char *build, int64_t M) {
  if (status == 0)
    return true;
  fprintf(stderr, "e2e: %s of the %s build (M = %lld) returned %s: %s\n", what, build, (long long)M,
          w4a16_status_name((w4a16_status)status), w4a16_rt_last_error());
  return false;
}

/* ---------------------------------------------------------------------------------------------------- */
/* f16 and deterministic data                                                                           */
/* ---------------------------------------------------------------------------------------------------- */

static uint64_t g_rng;
static uint64_t rng_next(void) { return splitmix64(&g_rng); }
static double rng_uniform(double lo, double hi) { return uniform_in(&g_rng, lo, hi); }

static int64_t numel(const ArgDesc *a, int64_t M) {
  int64_t n = 1;
  for (int d = 0; d < a->rank; ++d)
    n *= a->shape[d] == DYN_M ? M : a->shape[d];
  return n;
}

static void *xmalloc(size_t n) {
  void *p = aligned_alloc(64, (n + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "e2e: out of memory (%zu bytes)\n", n);
    exit(2);
  }
  return p;
}

/* E[(code - 8)^2] for codes uniform in 0..15. */
static const double kCodeMeanSquare = 21.5;

static void *generate(const Example *ex, const ArgDesc *a, int64_t M) {
  int64_t n = numel(a, M);
  uint16_t (*const to_io)(double) = ex->io_bf16 ? double_to_bf16 : double_to_f16;
  switch (a->kind) {
  case ARG_X: {
    uint16_t *p = xmalloc((size_t)n * 2);
    for (int64_t i = 0; i < n; ++i)
      p[i] = to_io(rng_uniform(-2.0, 2.0));
    return p;
  }
  case ARG_CODES_PACKED: {
    uint32_t *p = xmalloc((size_t)n * 4);
    for (int64_t i = 0; i < n; ++i)
      p[i] = (uint32_t)(rng_next() >> 32);
    return p;
  }
  case ARG_CODES_BYTES: {
    uint8_t *p = xmalloc((size_t)n);
    for (int64_t i = 0; i < n; ++i)
      p[i] = (uint8_t)(rng_next() >> 60);
    return p;
  }
  case ARG_CODE_PAIRS: {
    uint8_t *p = xmalloc((size_t)n);
    for (int64_t i = 0; i < n; ++i)
      p[i] = (uint8_t)(rng_next() >> 56);
    return p;
  }
  case ARG_SCALES: {
    const Layer *l = &ex->layers[a->layer];
    double s0 = 1.0 / (l->input_rms * sqrt(kCodeMeanSquare * (double)l->K));
    uint16_t *p = xmalloc((size_t)n * 2);
    for (int64_t i = 0; i < n; ++i) {
      double s = s0 * rng_uniform(0.5, 1.5);
      p[i] = (ex->scales_bf16 ? double_to_bf16 : double_to_f16)((rng_next() >> 63) ? -s : s);
    }
    return p;
  }
  case ARG_BIAS: {
    uint16_t *p = xmalloc((size_t)n * 2);
    for (int64_t i = 0; i < n; ++i)
      p[i] = to_io(rng_uniform(-0.5, 0.5));
    return p;
  }
  case ARG_FLOAT_ZEROS: {
    uint16_t *p = xmalloc((size_t)n * 2);
    for (int64_t i = 0; i < n; ++i)
      p[i] = (ex->scales_bf16 ? double_to_bf16 : double_to_f16)(rng_uniform(6.0, 9.0));
    return p;
  }
  case ARG_GROUP_INDEX: { /* g_idx[perm[i]] = i / G for a random permutation perm (Fisher-Yates) */
    int64_t groups = 0;
    for (int i = 0; i < ex->nargs && !groups; ++i)
      if (ex->args[i].kind == ARG_SCALES)
        groups = numel(&ex->args[i], 1) / ex->out_n;
    const int64_t group_size = n / groups;
    int32_t *perm = xmalloc((size_t)n * 4), *p = xmalloc((size_t)n * 4);
    for (int64_t i = 0; i < n; ++i)
      perm[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; --i) {
      const int64_t j = (int64_t)(rng_next() % (uint64_t)(i + 1));
      const int32_t t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    for (int64_t i = 0; i < n; ++i)
      p[perm[i]] = (int32_t)(i / group_size);
    free(perm);
    return p;
  }
  }
  return NULL;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Comparison (docs/contract.md §1)                                                                     */
/* ---------------------------------------------------------------------------------------------------- */

typedef struct Comparison {
  double rel_l2;      /* ||out - ref|| / ||ref|| */
  double max_rel;     /* max |out - ref| / (1 + |ref|) */
  double ref_rms;     /* sanity: the reference is not trivial */
  int64_t nonfinite;  /* NaN/Inf in out or ref */
  int64_t worst;      /* index of the max_rel element */
  bool pass;
} Comparison;

/* The result's element as a double. */
static double out_value(const Example *ex, uint16_t bits) {
  return ex->io_bf16 ? bf16_to_double(bits) : f16_to_double(bits);
}

/* bf16 results are held to the norm bound of docs/contract.md §6 (1.6e-2: bf16 keeps 8 significant bits);
 * the element bound stays §1's, tighter than §6's 2^-8 (|ref| + S) for these O(1) outputs. */
static Comparison compare(const Example *ex, const uint16_t *out, const uint16_t *ref, int64_t n) {
  Comparison c = {0};
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; ++i) {
    double o = out_value(ex, out[i]), r = out_value(ex, ref[i]);
    if (!isfinite(o) || !isfinite(r)) {
      ++c.nonfinite;
      continue;
    }
    double d = fabs(o - r), rel = d / (1.0 + fabs(r));
    num += d * d;
    den += r * r;
    if (rel > c.max_rel) {
      c.max_rel = rel;
      c.worst = i;
    }
  }
  c.rel_l2 = den > 0 ? sqrt(num / den) : (num > 0 ? INFINITY : 0);
  c.ref_rms = n ? sqrt(den / (double)n) : 0;
  c.pass = c.nonfinite == 0 && c.rel_l2 <= (ex->io_bf16 ? 1.6e-2 : 2e-3) && c.max_rel <= 1e-2 && den > 0;
  return c;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Driver                                                                                                */
/* ---------------------------------------------------------------------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *load(const char *path, const char *symbol) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "e2e: cannot load %s: %s\n", path, dlerror());
    return NULL;
  }
  void *fn = dlsym(h, symbol);
  if (!fn)
    fprintf(stderr, "e2e: %s does not export %s\n", path, symbol);
  return fn;
}

static int parse_backend(const char *s, int *out) {
  if (!strcmp(s, "cpu"))
    *out = W4A16_BACKEND_CPU;
  else if (!strcmp(s, "cuda"))
    *out = W4A16_BACKEND_CUDA;
  else if (!strcmp(s, "auto"))
    *out = w4a16_cuda_available() ? W4A16_BACKEND_CUDA : W4A16_BACKEND_CPU;
  else
    return 0;
  return 1;
}

static const char *backend_name(int b) { return b == W4A16_BACKEND_CUDA ? "cuda" : "cpu"; }

/* The memrefs of one call at batch size M; x_data for the batch, the rest from data. */
static void make_args(const Example *ex, void *const *data, void *x_data, int64_t M, AnyMemref *args) {
  for (int i = 0; i < ex->nargs; ++i) {
    const ArgDesc *a = &ex->args[i];
    int64_t sizes[kMaxRank];
    for (int d = 0; d < a->rank; ++d)
      sizes[d] = a->shape[d] == DYN_M ? M : a->shape[d];
    args[i] = make_memref(a->kind == ARG_X ? x_data : data[i], a->rank, sizes);
  }
}

/* w4a16c_prepare_<f> on an empty batch (M = 0): the plans of every fused weight, nothing computed. Returns
 * the plans it created, or -1 after a failure. */
static int64_t prepare(const Example *ex, void *fn, void *const *data, const char *build) {
  static uint16_t no_rows[8];                      /* x of M = 0: never read */
  uint16_t *one_row = has_dynamic_m(ex) ? NULL : calloc(16384, 2); /* a matvec's x: M is 1, not 0 */
  AnyMemref args[kMaxArgs];
  make_args(ex, data, one_row ? one_row : no_rows, 0, args);
  int64_t before = w4a16_rt_plans_created();
  Memref2 out = {0};
  bool ok = call_ok(call_entry(fn, &out, args, ex->nargs), "w4a16c_prepare", build, 0);
  free(out.allocated);
  free(one_row);
  return ok ? w4a16_rt_plans_created() - before : -1;
}

static void usage(FILE *f) {
  fprintf(f, "usage: e2e-driver --example NAME --test TEST.so --ref REF.so [--backend cpu|cuda|auto]\n"
             "                  [--ref-backend cpu|cuda] [--m 1,3,5] [--seed N] [--min-time S]\n"
             "                  [--force-activation none|silu|gelu_tanh] [--expect-mismatch]\n"
             "examples:");
  for (int i = 0; i < kNumExamples; ++i)
    fprintf(f, " %s", kExamples[i].name);
  fprintf(f, "\n");
}

/* Keeps the runtime entry points in the executable (they are only referenced by the dlopen'ed build). */
void *const w4a16_e2e_keep[] = {(void *)_mlir_ciface_w4a16_rt_matmul_i32, (void *)_mlir_ciface_w4a16_rt_matmul_i8,
                                (void *)_mlir_ciface_w4a16_rt_matmul_i4, (void *)w4a16_rt_enter, (void *)w4a16_rt_leave};

int main(int argc, char **argv) {
  const char *example = NULL, *test_path = NULL, *ref_path = NULL, *m_list = "1,3,5";
  int backend = -1, ref_backend = -1, force = -1;
  bool expect_mismatch = false;
  uint64_t seed = 20261130;
  double min_time = 0.3;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool takes = true;
    if (!strcmp(a, "--example") && v)
      example = v;
    else if (!strcmp(a, "--test") && v)
      test_path = v;
    else if (!strcmp(a, "--ref") && v)
      ref_path = v;
    else if (!strcmp(a, "--m") && v)
      m_list = v;
    else if (!strcmp(a, "--seed") && v)
      seed = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--min-time") && v)
      min_time = atof(v);
    else if (!strcmp(a, "--backend") && v) {
      if (!parse_backend(v, &backend))
        return usage(stderr), 2;
    } else if (!strcmp(a, "--ref-backend") && v) {
      if (!parse_backend(v, &ref_backend))
        return usage(stderr), 2;
    } else if (!strcmp(a, "--force-activation") && v) {
      if (!strcmp(v, "none"))
        force = W4A16_ACT_NONE;
      else if (!strcmp(v, "silu"))
        force = W4A16_ACT_SILU;
      else if (!strcmp(v, "gelu_tanh"))
        force = W4A16_ACT_GELU_TANH;
      else
        return usage(stderr), 2;
    } else {
      takes = false;
      if (!strcmp(a, "--expect-mismatch"))
        expect_mismatch = true;
      else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
        return usage(stdout), 0;
      else {
        fprintf(stderr, "e2e: unknown or incomplete option '%s'\n", a);
        return usage(stderr), 2;
      }
    }
    i += takes;
  }
  const Example *ex = NULL;
  for (int i = 0; example && i < kNumExamples; ++i)
    if (!strcmp(kExamples[i].name, example))
      ex = &kExamples[i];
  if (!ex || !test_path || !ref_path)
    return usage(stderr), 2;
  g_example = ex;
  if (backend < 0)
    parse_backend("auto", &backend);
  if ((backend == W4A16_BACKEND_CUDA || ref_backend == W4A16_BACKEND_CUDA) && !w4a16_cuda_available()) {
    fprintf(stderr, "e2e: the CUDA backend was asked for, but this build has no CUDA backend or there is no GPU\n");
    return 2;
  }

  int64_t ms[32];
  int nm = 0;
  for (const char *p = m_list; *p && nm < 32;) {
    char *end;
    long long m = strtoll(p, &end, 10);
    if (end == p || m <= 0)
      return fprintf(stderr, "e2e: bad --m list '%s'\n", m_list), 2;
    ms[nm++] = m;
    p = *end == ',' ? end + 1 : end;
  }
  if (!has_dynamic_m(ex)) /* static shapes (a decode matvec): the one M the function takes */
    ms[0] = 1, nm = 1, m_list = "1";

  char run_name[128], prepare_name[128];
  snprintf(run_name, sizeof run_name, "w4a16c_run_%s", ex->name);
  snprintf(prepare_name, sizeof prepare_name, "w4a16c_prepare_%s", ex->name);
  void *test_fn = load(test_path, run_name), *ref_fn = load(ref_path, run_name);
  void *test_prepare = load(test_path, prepare_name), *ref_prepare = load(ref_path, prepare_name);
  if (!test_fn || !ref_fn || !test_prepare || !ref_prepare)
    return 2;
  if (test_fn == ref_fn && (ref_backend < 0 || ref_backend == backend)) {
    fprintf(stderr, "e2e: the test and reference are the same function on the same backend\n");
    return 2;
  }

  printf("e2e %s: test %s [runtime backend %s%s] vs reference %s%s%s\n", ex->name, test_path,
         backend_name(backend), force >= 0 ? ", activation forced (negative test)" : "", ref_path,
         ref_backend >= 0 ? " [runtime backend " : "", ref_backend >= 0 ? backend_name(ref_backend) : "");
  if (ref_backend >= 0)
    printf("]\n");
  fflush(stdout);

  /* Weights (and biases) once per run, prepared once per build; x per M. */
  g_rng = seed;
  void *data[kMaxArgs] = {0};
  int x_arg = 0;
  for (int i = 0; i < ex->nargs; ++i)
    if (ex->args[i].kind != ARG_X)
      data[i] = generate(ex, &ex->args[i], 0);
    else
      x_arg = i;
  if (ref_backend >= 0)
    w4a16_rt_set_backend((w4a16_backend)ref_backend);
  int64_t ref_plans = prepare(ex, ref_prepare, data, "reference");
  w4a16_rt_set_backend((w4a16_backend)backend);
  const int64_t fallbacks_before = w4a16_rt_cpu_fallbacks();
  int64_t plans_in_test = prepare(ex, test_prepare, data, "test");
  if (ref_plans < 0 || plans_in_test < 0)
    return 2;
  const int64_t fallbacks = w4a16_rt_cpu_fallbacks() - fallbacks_before;

  int failures = 0, errors = 0;
  double worst_rel = 0, worst_l2 = 0;
  int64_t plans_by_runs = 0;
  for (int mi = 0; mi < nm; ++mi) {
    int64_t M = ms[mi];
    AnyMemref args[kMaxArgs];
    free(data[x_arg]);
    data[x_arg] = generate(ex, &ex->args[x_arg], M);
    make_args(ex, data, data[x_arg], M, args);

    /* Reference: one call. */
    if (ref_backend >= 0)
      w4a16_rt_set_backend((w4a16_backend)ref_backend);
    w4a16_testing_force_activation(-1);
    Memref2 ref = {0};
    double t0 = now_s();
    errors += !call_ok(call_entry(ref_fn, &ref, args, ex->nargs), "w4a16c_run", "reference", M);
    double ref_time = now_s() - t0;

    /* Test: a first call, then repeated calls for the time per call. */
    w4a16_rt_set_backend((w4a16_backend)backend);
    w4a16_testing_force_activation(force);
    int64_t plans_before = w4a16_rt_plans_created();
    Memref2 out = {0};
    t0 = now_s();
    errors += !call_ok(call_entry(test_fn, &out, args, ex->nargs), "w4a16c_run", "test", M);
    double first_time = now_s() - t0;
    int reps = 0;
    double total = 0;
    while (total < min_time && reps < 200) {
      Memref2 again = {0};
      t0 = now_s();
      errors += !call_ok(call_entry(test_fn, &again, args, ex->nargs), "w4a16c_run", "test", M);
      total += now_s() - t0;
      ++reps;
      /* Every call gives the same bits (no cached output either: a fresh buffer each time). */
      if (again.sizes[0] != out.sizes[0] || again.sizes[1] != out.sizes[1] || again.allocated == out.allocated ||
          memcmp(again.aligned + again.offset, out.aligned + out.offset,
                 (size_t)(out.sizes[0] * out.sizes[1]) * 2) != 0) {
        fprintf(stderr, "e2e: M=%lld: repeated call gave different output (or reused the buffer)\n", (long long)M);
        ++errors;
        reps = 1 << 30;
      }
      free(again.allocated);
    }
    plans_by_runs += w4a16_rt_plans_created() - plans_before;
    w4a16_testing_force_activation(-1);

    if (out.sizes[0] != M || out.sizes[1] != ex->out_n || ref.sizes[0] != M || ref.sizes[1] != ex->out_n ||
        out.strides[1] != 1 || ref.strides[1] != 1 || out.strides[0] != ex->out_n || ref.strides[0] != ex->out_n) {
      fprintf(stderr, "e2e: M=%lld: unexpected result shapes: test %lldx%lld, reference %lldx%lld (want %lldx%lld)\n",
              (long long)M, (long long)out.sizes[0], (long long)out.sizes[1], (long long)ref.sizes[0],
              (long long)ref.sizes[1], (long long)M, (long long)ex->out_n);
      ++errors;
    } else {
      Comparison c = compare(ex, out.aligned + out.offset, ref.aligned + ref.offset, M * ex->out_n);
      printf("  M=%-3lld max rel error %.3e  rel L2 %.3e  (ref rms %.3f%s)  %s   test %.3f ms/call (first call "
             "%.1f ms, %d reps)  reference %.1f ms/call\n",
             (long long)M, c.max_rel, c.rel_l2, c.ref_rms, c.nonfinite ? ", NaN/Inf present" : "",
             c.pass ? "PASS" : "MISMATCH", 1e3 * (reps ? total / reps : first_time), 1e3 * first_time, reps, 1e3 * ref_time);
      if (!c.pass) {
        int64_t w = c.worst;
        printf("         worst element [%lld, %lld]: test %.6g, reference %.6g\n", (long long)(w / ex->out_n),
               (long long)(w % ex->out_n), out_value(ex, out.aligned[out.offset + w]),
               out_value(ex, ref.aligned[ref.offset + w]));
      }
      failures += !c.pass;
      if (c.max_rel > worst_rel)
        worst_rel = c.max_rel;
      if (c.rel_l2 > worst_l2)
        worst_l2 = c.rel_l2;
    }
    fflush(stdout);
    free(out.allocated);
    free(ref.allocated);
  }

  /* Only prepare makes plans: one per fused chain, none by the runs. A fused build that makes none has
   * compiled the example unfused (a matcher that stopped recognising it): both builds then agree, and only
   * this check sees it. */
  if (plans_in_test != ex->fused_chains || plans_by_runs != 0) {
    fprintf(stderr, "e2e: the test build's prepare created %lld weight plans (expected %d, one per fused weight) "
                    "and its runs %lld (expected 0)\n",
            (long long)plans_in_test, ex->fused_chains, (long long)plans_by_runs);
    ++errors;
  } else {
    printf("  weight plans created by the test build: %lld by w4a16c_prepare_%s, 0 by its runs\n",
           (long long)plans_in_test, ex->name);
  }
  if (fallbacks > 0) /* the CUDA backend selected, a form its kernels do not take */
    printf("  of those on the CPU reference: %lld (%s)\n", (long long)fallbacks, w4a16_rt_cpu_fallback_reason());

  w4a16_rt_release_plans();
  for (int i = 0; i < ex->nargs; ++i)
    free(data[i]);

  if (errors) {
    printf("e2e %s: ERROR (%d setup/consistency errors)\n", ex->name, errors);
    return 2;
  }
  if (expect_mismatch) {
    printf("e2e %s: %s — negative test: %d of %d M %s detected as mismatching (max rel error %.3e)\n", ex->name,
           failures ? "PASS" : "FAIL", failures, nm, failures == 1 ? "was" : "were", worst_rel);
    return failures ? 0 : 1;
  }
  printf("e2e %s: %s (max rel error %.3e, max rel L2 %.3e over M = %s)\n", ex->name, failures ? "FAIL" : "PASS",
         worst_rel, worst_l2, m_list);
  return failures ? 1 : 0;
}
