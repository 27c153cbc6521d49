/* End-to-end comparison of two AOT-compiled builds of one example model (examples/<name>.mlir): a test build
 * (w4a16-compile's fused .so, which calls the w4a16 runtime: it must make one plan per fused chain of the
 * example) against a reference build (normally `w4a16-compile --no-fuse`, upstream MLIR lowering only), on
 * the same deterministic inputs at several M.
 *
 *   e2e-driver --example llama_mlp --test llama_mlp.fused.so --ref llama_mlp.unfused.so
 *              [--backend cpu|cuda|auto] [--ref-backend cpu|cuda] [--m 1,3,5] [--seed N]
 *              [--force-activation none|silu|gelu_tanh] [--expect-mismatch] [--min-time SECONDS]
 *              [--gpu-target [--cold]]
 *
 * Both shared objects are dlopen'ed with RTLD_LOCAL (they export the same names). The test build's calls
 * to _mlir_ciface_w4a16_rt_matmul_* and w4a16_rt_enter/leave resolve to this executable, which links
 * w4a16_rt_abi and exports its symbols. Both builds are called through their status-returning entry points:
 * w4a16c_prepare_<example> once with an empty batch (M = 0: it only makes the plans), then
 * w4a16c_run_<example> at every M; any nonzero status is an error, reported with w4a16_rt_last_error(). --backend selects the runtime backend for the test calls (auto: CUDA if w4a16_cuda_available(),
 * else CPU); --ref-backend sets a backend for the reference calls too (when the reference is itself a fused
 * build, e.g. to compare the CUDA run with the CPU run).
 *
 * --gpu-target (CUDA builds only): the test build is `w4a16-compile --target=gpu` code (the reference stays a
 * host build). Its entry points take a CUDA stream first and device memrefs; the driver gives them device
 * copies of the same inputs on a non-blocking stream of its own, synchronises after each call and copies the
 * result back (it lives in the runtime's per-stream arena). Beyond the comparison, at every M: repeated calls
 * are bitwise equal and return the same device buffer, allocate no device memory in steady state
 * (w4a16_rt_device_allocations), and one call captured into a CUDA graph replays bitwise equal to the eager
 * call. A CUDA error is a setup error (exit status 2). --cold adds, at every M, the graph replay timed L2-cold
 * as a model runs: enough weight sets at their own addresses (copies of the same data, each prepared) that one
 * pass over them reads more than 4 x L2, one call per set in one graph (bench/layer.c's method: us per call =
 * replay time / sets, replays back to back).
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
#include "../common/test_data.h"

#include "e2e_call.h"
#include "e2e_data.h"
#include "examples.h"

#if W4A16_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

/* ---------------------------------------------------------------------------------------------------- */
/* Driver                                                                                                */
/* ---------------------------------------------------------------------------------------------------- */

static bool has_dynamic_m(const Example *ex) {
  for (int i = 0; i < ex->nargs; ++i)
    for (int d = 0; d < ex->args[i].rank; ++d)
      if (ex->args[i].shape[d] == DYN_M)
        return true;
  return false;
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

/* w4a16c_prepare_<f> on an empty batch (M = 0): the plans of every fused weight, nothing computed. data: the
 * other arguments, in t's memory. Returns the plans it created, or -1 after a failure. */
static int64_t prepare(const Example *ex, void *fn, const Target *t, void *const *data, const char *build) {
  /* x of one row of zeros: with M = 0 never read; a static-shape function (a matvec) has M = 1, not 0 */
  const ArgDesc *x_arg = NULL;
  for (int i = 0; i < ex->nargs && !x_arg; ++i)
    if (ex->args[i].kind == ARG_X)
      x_arg = &ex->args[i];
  const size_t x_bytes = x_arg ? arg_bytes(x_arg, 1) : 2;
  void *zeros = calloc(1, x_bytes);
  if (!zeros)
    return fprintf(stderr, "e2e: out of memory\n"), -1;
  void *x = target_copy(t, zeros, x_bytes);
  AnyMemref args[kMaxArgs];
  make_args(ex, data, x, 0, args);
  int64_t before = w4a16_rt_plans_created();
  Memref2 out = {0};
  const int32_t status = call_entry(fn, t, &out, args, ex);
  target_sync(t);
  bool ok = call_ok(status, "w4a16c_prepare", build, 0);
  if (!t->gpu) /* a GPU-target result lives in the runtime's arena */
    free(out.allocated);
  target_free_copy(t, x);
  free(zeros);
  return ok ? w4a16_rt_plans_created() - before : -1;
}

/* Whether the shared object at path is GPU-target code (it calls w4a16_rt_enter_device: its dynamic string
 * table names it), -1 if unreadable. Calling one with the other's convention would crash: the stream is the
 * first argument of one and not the other. */
static int is_gpu_build(const char *path) {
  static const char kMark[] = "w4a16_rt_enter_device";
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  char buf[1 << 16];
  size_t have = 0, got;
  int found = 0;
  while (!found && (got = fread(buf + have, 1, sizeof buf - have, f)) > 0) {
    have += got;
    for (size_t i = 0; i + sizeof kMark - 1 <= have && !found; ++i)
      found = !memcmp(buf + i, kMark, sizeof kMark - 1);
    /* keep the tail that could start a match across the next read */
    const size_t keep = have < sizeof kMark - 1 ? have : sizeof kMark - 2;
    memmove(buf, buf + have - keep, keep);
    have = keep;
  }
  fclose(f);
  return found;
}

static void usage(FILE *f) {
  fprintf(f, "usage: e2e-driver --example NAME --test TEST.so --ref REF.so [--backend cpu|cuda|auto]\n"
             "                  [--ref-backend cpu|cuda] [--m 1,3,5] [--seed N] [--min-time S]\n"
             "                  [--force-activation none|silu|gelu_tanh] [--expect-mismatch] [--gpu-target [--cold]]\n"
             "  --gpu-target: TEST.so is a --target=gpu build (CUDA builds of this driver only)\n"
             "  --cold: also time graph replays L2-cold (weight sets rotated over > 4 x L2)\n"
             "examples:");
  for (int i = 0; i < kNumExamples; ++i)
    fprintf(f, " %s", kExamples[i].name);
  fprintf(f, "\n");
}

/* Keeps the runtime entry points in the executable (they are only referenced by the dlopen'ed build). */
void *const w4a16_e2e_keep[] = {
    (void *)_mlir_ciface_w4a16_rt_matmul_i32, (void *)_mlir_ciface_w4a16_rt_matmul_i8,
    (void *)_mlir_ciface_w4a16_rt_matmul_i4, (void *)w4a16_rt_enter, (void *)w4a16_rt_leave,
    /* what GPU-target code calls */
    (void *)w4a16_rt_enter_device, (void *)w4a16_rt_stream, (void *)w4a16_rt_device_alloc,
    (void *)w4a16_rt_device_aligned_alloc, (void *)w4a16_rt_device_free, (void *)w4a16_rt_device_constant,
    (void *)mgpuModuleLoadJIT, (void *)mgpuModuleLoad, (void *)mgpuModuleUnload, (void *)mgpuModuleGetFunction,
    (void *)mgpuLaunchKernel, (void *)mgpuStreamCreate, (void *)mgpuStreamSynchronize, (void *)mgpuStreamDestroy};

int main(int argc, char **argv) {
  const char *example = NULL, *test_path = NULL, *ref_path = NULL, *m_list = "1,3,5";
  int backend = -1, ref_backend = -1, force = -1;
  bool expect_mismatch = false, gpu_target = false, cold = false;
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
      force = w4a16_value_of(w4a16_activation_name, v, strlen(v));
      if (force < 0)
        return usage(stderr), 2;
    } else {
      takes = false;
      if (!strcmp(a, "--expect-mismatch"))
        expect_mismatch = true;
      else if (!strcmp(a, "--gpu-target"))
        gpu_target = true;
      else if (!strcmp(a, "--cold"))
        cold = true;
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
  if (!ex || !test_path || !ref_path || (cold && !gpu_target))
    return usage(stderr), 2;
#if !W4A16_WITH_CUDA
  if (gpu_target) {
    fprintf(stderr, "e2e: --gpu-target: this build of e2e-driver has no CUDA (the runtime was built without nvcc)\n");
    return usage(stderr), 2;
  }
#endif

  /* A build of the other target would be called with the wrong arguments (and crash): refuse it. */
  const int test_is_gpu = is_gpu_build(test_path), ref_is_gpu = is_gpu_build(ref_path);
  if (test_is_gpu >= 0 && test_is_gpu != gpu_target) {
    fprintf(stderr, "e2e: %s is %s build: %s\n", test_path, test_is_gpu ? "a --target=gpu" : "a host-target",
            test_is_gpu ? "run it with --gpu-target" : "--gpu-target needs a `w4a16-compile --target=gpu` build");
    return 2;
  }
  if (ref_is_gpu > 0) {
    fprintf(stderr, "e2e: the reference %s is a --target=gpu build: the reference must be a host build\n", ref_path);
    return 2;
  }

  /* The test build's calling convention; GPU-target code runs its fused calls on the CUDA backend only. */
  Target tt = kHostTarget;
  if (gpu_target) {
    if (backend == W4A16_BACKEND_CPU) {
      fprintf(stderr, "e2e: --gpu-target runs on the CUDA backend (its memrefs are device pointers): not --backend cpu\n");
      return 2;
    }
    gpu_start(&tt); /* exits where there is no GPU */
    backend = W4A16_BACKEND_CUDA;
  }
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

  printf("e2e %s: test %s [%sruntime backend %s%s] vs reference %s%s%s\n", ex->name, test_path,
         tt.gpu ? "GPU target, " : "", backend_name(backend),
         force >= 0 ? ", activation forced (negative test)" : "", ref_path,
         ref_backend >= 0 ? " [runtime backend " : "", ref_backend >= 0 ? backend_name(ref_backend) : "");
  if (ref_backend >= 0)
    printf("]\n");
  fflush(stdout);

  /* Weights (and biases) once per run, prepared once per build; x per M. tdata: the test build's copies
   * (the same buffers on the host target, device copies on the GPU target). */
  e2e_seed(seed);
  void *data[kMaxArgs] = {0}, *tdata[kMaxArgs] = {0};
  int x_arg = 0;
  for (int i = 0; i < ex->nargs; ++i)
    if (ex->args[i].kind != ARG_X) {
      data[i] = generate(ex, &ex->args[i], 0);
      tdata[i] = target_copy(&tt, data[i], arg_bytes(&ex->args[i], 0));
    } else {
      x_arg = i;
    }
  if (ref_backend >= 0)
    w4a16_rt_set_backend((w4a16_backend)ref_backend);
  int64_t ref_plans = prepare(ex, ref_prepare, &kHostTarget, data, "reference");
  w4a16_rt_set_backend((w4a16_backend)backend);
  const int64_t fallbacks_before = w4a16_rt_cpu_fallbacks();
  int64_t plans_in_test = prepare(ex, test_prepare, &tt, tdata, "test");
  if (ref_plans < 0 || plans_in_test < 0)
    return 2;
  const int64_t fallbacks = w4a16_rt_cpu_fallbacks() - fallbacks_before;

  /* --cold: weight sets 1.. beside tdata (set 0), each prepared */
  int copies = 1;
  void *(*cold_data)[kMaxArgs] = NULL;
  double weight_mb = 0;
#if W4A16_WITH_CUDA
  if (cold) {
    struct cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    const double l2 = fmax(60.0 * 1024 * 1024, (double)prop.l2CacheSize);
    for (int i = 0; i < ex->nargs; ++i)
      weight_mb += i == x_arg ? 0 : (double)arg_bytes(&ex->args[i], 0) / 1e6;
    copies = (int)ceil(4.0 * l2 / (weight_mb * 1e6)) + 1;
    cold_data = xmalloc((size_t)copies * sizeof *cold_data);
    memcpy(cold_data[0], tdata, sizeof tdata);
    for (int c = 1; c < copies; ++c) {
      for (int i = 0; i < ex->nargs; ++i)
        cold_data[c][i] = i == x_arg ? NULL : target_copy(&tt, data[i], arg_bytes(&ex->args[i], 0));
      if (prepare(ex, test_prepare, &tt, cold_data[c], "test (a weight set for --cold)") != ex->fused_chains)
        return 2;
    }
  }
#endif

  int failures = 0, errors = 0;
  double worst_rel = 0, worst_l2 = 0;
  int64_t plans_by_runs = 0;
  for (int mi = 0; mi < nm; ++mi) {
    int64_t M = ms[mi];
    const int64_t n_out = M * ex->out_n;
    AnyMemref args[kMaxArgs], targs[kMaxArgs];
    free(data[x_arg]);
    data[x_arg] = generate(ex, &ex->args[x_arg], M);
    tdata[x_arg] = target_copy(&tt, data[x_arg], arg_bytes(&ex->args[x_arg], M));
    make_args(ex, data, data[x_arg], M, args);
    make_args(ex, tdata, tdata[x_arg], M, targs);
    /* GPU target: the results copied back (the first call's, a later one's) */
    uint16_t *out_host = tt.gpu ? xmalloc((size_t)n_out * 2) : NULL, *again_host = tt.gpu ? xmalloc((size_t)n_out * 2) : NULL;

    /* Reference: one call. */
    if (ref_backend >= 0)
      w4a16_rt_set_backend((w4a16_backend)ref_backend);
    w4a16_testing_force_activation(-1);
    Memref2 ref = {0};
    double t0 = now_s();
    errors += !call_ok(call_entry(ref_fn, &kHostTarget, &ref, args, ex), "w4a16c_run", "reference", M);
    double ref_time = now_s() - t0;

    /* Test: a first call, then repeated calls for the time per call (a GPU-target call's time includes the
     * stream synchronisation: the call itself only enqueues). */
    w4a16_rt_set_backend((w4a16_backend)backend);
    w4a16_testing_force_activation(force);
    int64_t plans_before = w4a16_rt_plans_created();
    Memref2 out = {0};
    t0 = now_s();
    int32_t status = call_entry(test_fn, &tt, &out, targs, ex);
    target_sync(&tt);
    double first_time = now_s() - t0;
    errors += !call_ok(status, "w4a16c_run", "test", M);
    const bool out_ok = status == 0 && result_shape_ok(ex, &out, M);
    const uint16_t *out_data = out_ok ? result_data(&tt, &out, n_out, out_host) : NULL;
    /* GPU target, steady state: the first call at a new M may grow the stream's arena, and when that took
     * more than one block the next call merges them into one (one cudaMalloc, new addresses:
     * runtime_abi.h); from then on no call allocates and the result is always at the same address. */
    const int64_t allocs_first = w4a16_rt_device_allocations();
    int64_t allocs_steady = allocs_first, merged = 0;
    const uint16_t *steady_ptr = out.aligned + out.offset;
    int reps = 0;
    double total = 0;
    while (total < min_time && reps < 200) {
      Memref2 again = {0};
      t0 = now_s();
      status = call_entry(test_fn, &tt, &again, targs, ex);
      target_sync(&tt);
      total += now_s() - t0;
      ++reps;
      errors += !call_ok(status, "w4a16c_run", "test", M);
      if (tt.gpu && reps == 1 && (merged = w4a16_rt_device_allocations() - allocs_first) > 0) {
        allocs_steady = w4a16_rt_device_allocations();
        steady_ptr = again.aligned + again.offset;
      }
      /* Every call gives the same bits. Host target: no cached output either (a fresh buffer each time);
       * GPU target: the same buffer each time (the stream's arena, nothing allocated). */
      const bool same = out_data && status == 0 && result_shape_ok(ex, &again, M) &&
                        !memcmp(result_data(&tt, &again, n_out, again_host), out_data, (size_t)n_out * 2);
      const bool buffer_ok = tt.gpu ? again.aligned + again.offset == steady_ptr && merged <= 1
                                    : again.allocated != out.allocated;
      if (out_data && (!same || !buffer_ok)) {
        if (!same)
          fprintf(stderr, "e2e: M=%lld: repeated call %d gave different output\n", (long long)M, reps);
        else if (tt.gpu)
          fprintf(stderr, "e2e: M=%lld: repeated call %d returned its result at %p, not %p (%lld device "
                          "allocations at the first repeat): the stream's arena should give the same buffer\n",
                  (long long)M, reps, (void *)(again.aligned + again.offset), (const void *)steady_ptr, (long long)merged);
        else
          fprintf(stderr, "e2e: M=%lld: repeated call %d reused the result buffer\n", (long long)M, reps);
        ++errors;
        reps = 1 << 30;
      }
      if (!tt.gpu)
        free(again.allocated);
    }

    /* GPU target: one call captured into a CUDA graph and replayed; then nothing allocated since steady state. */
    double graph_ms = -1;
    int replays = 0;
    int64_t steady_allocs = 0;
    if (tt.gpu && out_data) {
      errors += graph_check(test_fn, &tt, targs, ex, M, out_data, n_out, again_host, min_time, &graph_ms, &replays);
      steady_allocs = w4a16_rt_device_allocations() - allocs_steady;
      if (steady_allocs != 0) {
        fprintf(stderr, "e2e: M=%lld: %lld device allocations in steady state (repeated calls and the graph "
                        "capture; expected 0)\n", (long long)M, (long long)steady_allocs);
        ++errors;
      }
    }
    double cold_us[3] = {-1, -1, -1};
    if (cold && out_data) {
      AnyMemref(*cargs)[kMaxArgs] = xmalloc((size_t)copies * sizeof *cargs);
      for (int c = 0; c < copies; ++c)
        make_args(ex, cold_data[c], tdata[x_arg], M, cargs[c]);
      errors += cold_graph_time(test_fn, &tt, cargs, copies, ex, M, 100, cold_us);
      free(cargs);
    }
    plans_by_runs += w4a16_rt_plans_created() - plans_before;
    w4a16_testing_force_activation(-1);

    if (!out_ok || !result_shape_ok(ex, &ref, M)) {
      fprintf(stderr, "e2e: M=%lld: unexpected result shapes: test %lldx%lld, reference %lldx%lld (want %lldx%lld)\n",
              (long long)M, (long long)out.sizes[0], (long long)out.sizes[1], (long long)ref.sizes[0],
              (long long)ref.sizes[1], (long long)M, (long long)ex->out_n);
      ++errors;
    } else {
      const uint16_t *ref_data = ref.aligned + ref.offset;
      Comparison c = compare(ex, out_data, ref_data, n_out);
      printf("  M=%-3lld max rel error %.3e  rel L2 %.3e  (ref rms %.3f%s)  %s   test %.3f ms/call (first call "
             "%.1f ms, %d reps)  reference %.1f ms/call\n",
             (long long)M, c.max_rel, c.rel_l2, c.ref_rms, c.nonfinite ? ", NaN/Inf present" : "",
             c.pass ? "PASS" : "MISMATCH", 1e3 * (reps ? total / reps : first_time), 1e3 * first_time, reps, 1e3 * ref_time);
      if (!c.pass) {
        int64_t w = c.worst;
        printf("         worst element [%lld, %lld]: test %.6g, reference %.6g\n", (long long)(w / ex->out_n),
               (long long)(w % ex->out_n), out_value(ex, out_data[w]), out_value(ex, ref_data[w]));
      }
      if (tt.gpu && graph_ms >= 0)
        printf("         graph replay %.3f ms/call (median of %d, bitwise equal to the eager call); device "
               "allocations in steady state: %lld%s\n",
               graph_ms, replays, (long long)steady_allocs, merged ? " (the arena merged its blocks at the 2nd call)" : "");
      if (cold_us[0] >= 0)
        printf("         L2-cold graph replay %.1f us/call (median; min %.1f, max %.1f over 100 replays of %d calls on "
               "%d weight sets of %.1f MB)\n",
               cold_us[0], cold_us[1], cold_us[2], copies, copies, weight_mb);
      failures += !c.pass;
      if (c.max_rel > worst_rel)
        worst_rel = c.max_rel;
      if (c.rel_l2 > worst_l2)
        worst_l2 = c.rel_l2;
    }
    fflush(stdout);
    if (!tt.gpu) /* GPU target: the arena's */
      free(out.allocated);
    free(ref.allocated);
    free(out_host);
    free(again_host);
    if (tt.gpu)
      target_free_copy(&tt, tdata[x_arg]);
  }

  /* Only prepare makes plans: one per fused chain, none by the runs. A fused build that makes none has
   * compiled the example unfused (a matcher that stopped recognising it): both builds then agree, and only
   * this check sees it. */
  if (plans_in_test != ex->fused_chains || plans_by_runs != 0) {
    fprintf(stderr, "e2e: the test build's prepare created %lld weight plans (expected %d, one per fused or merged op) "
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
  if (tt.gpu) {
    w4a16_rt_release_device(); /* the arenas: every result pointer above is dead from here */
    for (int c = 0; c < copies; ++c)
      for (int i = 0; i < ex->nargs; ++i)
        if (i != x_arg)
          target_free_copy(&tt, cold_data ? cold_data[c][i] : tdata[i]);
    free(cold_data);
    gpu_stop(&tt);
  }
  for (int i = 0; i < ex->nargs; ++i)
    free(data[i]);

  const char *what = tt.gpu ? "GPU target, " : "";
  if (errors) {
    printf("e2e %s: ERROR (%s%d setup/consistency errors)\n", ex->name, what, errors);
    return 2;
  }
  if (expect_mismatch) {
    printf("e2e %s: %s — negative test: %d of %d M %s detected as mismatching (max rel error %.3e)\n", ex->name,
           failures ? "PASS" : "FAIL", failures, nm, failures == 1 ? "was" : "were", worst_rel);
    return failures ? 0 : 1;
  }
  printf("e2e %s: %s (%smax rel error %.3e, max rel L2 %.3e over M = %s)\n", ex->name, failures ? "FAIL" : "PASS",
         what, worst_rel, worst_l2, m_list);
  return failures ? 1 : 0;
}
