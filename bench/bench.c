/* w4a16 benchmark (issue #3): the runtime's kernel against a plain direct-W4 kernel and cuBLAS f16 GEMM on
 * a dequantised weight + a separate epilogue kernel, for K x N in {8192x8192, 8192x28672, 28672x8192,
 * 14336x4096} and M in {1,16,18,24,31,32,48,64}. Every call computes the full fused op:
 * silu(x W + bias) + residual.
 *
 * Method: each figure is the median over 11 groups of 512 back-to-back calls (CUDA events around each
 * group, after a warm-up), with the fastest and slowest group reported. L2-cold rotates the calls over
 * enough distinct weight copies (separate plans, i.e. separate repacks) to exceed 4 x 60 MB of L2;
 * L2-hot reuses one. The floor is docs/contract.md §3's byte count over the HBM read bandwidth measured in the same run.
 *
 * The baselines are 10-70x slower than ours, so they are timed over 11 groups of fewer calls (plain
 * direct-W4: 32, cuBLAS + epilogue: 128; each group still lasts >= 5 ms).
 *
 *   w4a16_bench [--csv FILE] [--quick] [--baselines-hot] [--shape KxN] [--ms 1,16,...] [--ours-only]
 *               [--sweep FILE] [--graph] [--zero-points] [--bf16] [--group G] [--offsets]
 *               [--act-order] [--act NAME] [--profile]
 *     --quick           only 8192x8192, M in {1,16,32,64} (a smoke test)
 *     --baselines-hot   also time the baselines L2-hot (default: baselines L2-cold only)
 *     --shape, --ms     a subset (experiments); --ours-only skips the baselines
 *     --graph           time ours as serving engines run it: each group of calls captured once into a CUDA
 *                       graph and replayed (the baselines stay back-to-back launches)
 *     --sweep FILE      also time ours L2-cold for every M in 1..64 (11 groups of 128 calls; three passes,
 *                       the median of the pass medians) into FILE and report the worst t(M) / t(M+1)
 *                       (docs/contract.md §3: no M slower than M+1 by > 10 %)
 *     --zero-points     ours with random integer zero points 0..15 per group and column (AWQ / asymmetric
 *                       GPTQ; issue #17); implies --ours-only (the baselines are symmetric), and the floor
 *                       counts the plan's zero-point bytes (one per group and column)
 *     --bf16            ours with bf16 x, bias, residual, out and scales (issue #18; the same values rounded to
 *                       bf16); implies --ours-only (the baselines are f16)
 *     --group G         ours with scale groups of G = 64 or 32 k (the kernels' affine form); --offsets: with
 *                       offsets, W = code * s + m (GGUF Q4_1, torchao; affine too). Both imply --ours-only, and
 *                       the floor counts the plan's 5 bytes (s, o, zi) per group and column
 *     --act-order       ours with a random g_idx (GPTQ desc_act: g_idx[k] = pi[k] / G, pi a random permutation;
 *                       w4a16_plan_create_act_order): each call gathers x into the plan's order before the GEMM.
 *                       Combines with the flags above; implies --ours-only (the baselines know no g_idx). The floor
 *                       stays the op's own (a kernel gathering x in place would read no more), so xfloor against a
 *                       run without --act-order shows what the gather costs
 *     --act NAME        ours with activation NAME (none, silu, gelu_tanh) instead of silu; the
 *                       baselines' epilogue stays silu
 *     --profile         ours' L2-cold timing of each M runs between cudaProfilerStart and cudaProfilerStop, so
 *                       that a profiler started with profiling off (ncu --profile-from-start off) sees only those
 *                       launches: bench/ncu.sh */
#include <cublas_v2.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "cuda_check.h"
#include "support.h"
#include "w4a16/runtime.h"

int bench_plain_w4(const int32_t *qw, const uint16_t *scales, const uint16_t *x, const uint16_t *bias,
                   const uint16_t *residual, uint16_t *out, int M, int K, int N, int act, void *stream);
int bench_dequant(const int32_t *qw, const uint16_t *scales, uint16_t *w, int K, int N);
int bench_epilogue(const uint16_t *y, const uint16_t *bias, const uint16_t *residual, uint16_t *out, int M, int N,
                   int act, void *stream);
int bench_read(const void *p, size_t bytes, uint32_t *sink, int sms);


enum { kMaxM = 64, GROUPS = 11, CALLS = 512, WARMUP = 48, CALLS_PLAIN = 32, CALLS_CUBLAS = 128, CALLS_SWEEP = 128 };
enum { IMPL_OURS, IMPL_PLAIN, IMPL_CUBLAS };
static const char *IMPL_NAME[] = {"w4a16", "plain_direct_w4", "cublas_f16+epilogue"};
static const double L2_ROTATE_BYTES = 4.0 * 60.0 * 1024 * 1024;
static w4a16_activation g_act = W4A16_ACT_SILU; /* --act: ours' activation */

typedef struct {
  int K, N, M, R, Rc, hot, impl, calls;
  cudaStream_t graph_stream; /* non-null: ours is timed as CUDA-graph replays on this stream */
  w4a16_plan **plans;        /* R plans = R distinct repacks */
  int32_t **qw;              /* R copies of the GPTQ weight (plain baseline) */
  uint16_t **sc;
  uint16_t **w16;            /* Rc dequantised f16 copies (cuBLAS) */
  uint16_t *x, *bias, *res, *out, *tmp;
  cublasHandle_t cublas;
  int bad;
} ctx;

static void one_call(ctx *c, int i) {
  const int r = c->hot ? 0 : i % c->R;
  if (c->impl == IMPL_OURS) {
    c->bad |= w4a16_plan_run(c->plans[r], c->x, c->M, c->bias, c->res, g_act, c->out, c->graph_stream) !=
              W4A16_OK;
  } else if (c->impl == IMPL_PLAIN) {
    c->bad |= bench_plain_w4(c->qw[r], c->sc[r], c->x, c->bias, c->res, c->out, c->M, c->K, c->N, 1, NULL) != 0;
  } else {
    /* row-major out[M,N] = x[M,K] W[K,N]  ==  column-major out^T[N,M] = W^T[N,K] x^T[K,M] */
    const int rc = c->hot ? 0 : i % c->Rc;
    const float one = 1.f, zero = 0.f;
    c->bad |= cublasGemmEx(c->cublas, CUBLAS_OP_N, CUBLAS_OP_N, c->N, c->M, c->K, &one, c->w16[rc], CUDA_R_16F, c->N,
                           c->x, CUDA_R_16F, c->K, &zero, c->tmp, CUDA_R_16F, c->N, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS;
    c->bad |= bench_epilogue(c->tmp, c->bias, c->res, c->out, c->M, c->N, 1, NULL) != 0;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Graph mode: `calls` consecutive calls (rotating weights as in eager mode) captured into one graph. */
static cudaGraphExec_t capture_calls(ctx *c, int first, int calls) {
  cudaGraph_t g;
  cudaGraphExec_t e;
  CK(cudaStreamBeginCapture(c->graph_stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < calls; ++i) one_call(c, first + i);
  CK(cudaStreamEndCapture(c->graph_stream, &g));
  CK(cudaGraphInstantiate(&e, g, 0));
  CK(cudaGraphDestroy(g));
  return e;
}

static void measure(ctx *c, double *med, double *mn, double *mx) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const int calls = c->calls > 0 ? c->calls : CALLS;
  const int graph = c->impl == IMPL_OURS && c->graph_stream;
  cudaStream_t s = graph ? c->graph_stream : NULL;
  cudaGraphExec_t exec = graph ? capture_calls(c, WARMUP, calls) : NULL;
  for (int i = 0; i < WARMUP; ++i) one_call(c, i);
  if (graph) CK(cudaGraphLaunch(exec, s));
  double t[GROUPS];
  int idx = WARMUP;
  for (int g = 0; g < GROUPS; ++g) {
    CK(cudaEventRecord(e0, s));
    if (graph) CK(cudaGraphLaunch(exec, s));
    else
      for (int i = 0; i < calls; ++i) one_call(c, idx++);
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t[g] = ms * 1000.0 / calls;
  }
  CK(cudaGetLastError());
  if (exec) CK(cudaGraphExecDestroy(exec));
  qsort(t, GROUPS, sizeof t[0], cmp_double);
  *med = t[GROUPS / 2], *mn = t[0], *mx = t[GROUPS - 1];
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
}

static double measure_read_bw(int sms) {
  const size_t bytes = (size_t)4 << 30;
  void *buf;
  uint32_t *sink;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMalloc((void **)&sink, 4));
  CK(cudaMemset(buf, 0x5a, bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  double t[GROUPS];
  for (int i = 0; i < 20; ++i) bench_read(buf, bytes, sink, sms); /* also brings the clocks up */
  for (int g = 0; g < GROUPS; ++g) {
    CK(cudaEventRecord(e0, NULL));
    for (int i = 0; i < 4; ++i) bench_read(buf, bytes, sink, sms);
    CK(cudaEventRecord(e1, NULL));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t[g] = 4.0 * (double)bytes / (ms * 1e-3);
  }
  qsort(t, GROUPS, sizeof t[0], cmp_double);
  CK(cudaFree(buf));
  CK(cudaFree(sink));
  return t[GROUPS / 2];
}

static void *dmalloc(size_t n) {
  void *p;
  CK(cudaMalloc(&p, n));
  return p;
}

static double rel_diff(const uint16_t *a, const uint16_t *b, size_t n) {
  double e = 0, r = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = w4a16_h2f(a[i]), y = w4a16_h2f(b[i]);
    e += (x - y) * (x - y), r += y * y;
  }
  return r > 0 ? __builtin_sqrt(e / r) : __builtin_sqrt(e);
}

int main(int argc, char **argv) {
  const char *csv_path = "bench.csv", *sweep_path = NULL;
  int quick = 0, baselines_hot = 0, ours_only = 0, graph = 0, zero_points = 0, bf16 = 0, group = 128, offsets = 0,
      act_order = 0, profile = 0, user_shape[2] = {0, 0}, user_ms[8], n_user_ms = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--baselines-hot")) baselines_hot = 1;
    else if (!strcmp(argv[i], "--ours-only")) ours_only = 1;
    else if (!strcmp(argv[i], "--profile")) profile = 1;
    else if (!strcmp(argv[i], "--graph")) graph = 1;
    else if (!strcmp(argv[i], "--zero-points")) zero_points = ours_only = 1;
    else if (!strcmp(argv[i], "--bf16")) bf16 = ours_only = 1;
    else if (!strcmp(argv[i], "--group") && i + 1 < argc) group = atoi(argv[++i]), ours_only = 1;
    else if (!strcmp(argv[i], "--offsets")) offsets = ours_only = 1;
    else if (!strcmp(argv[i], "--act-order")) act_order = ours_only = 1;
    else if (!strcmp(argv[i], "--act") && i + 1 < argc) {
      const char *name = argv[++i];
      g_act = (w4a16_activation)w4a16_value_of(w4a16_activation_name, name, strlen(name));
      if ((int)g_act < 0) {
        fprintf(stderr, "--act: unknown activation %s\n", name);
        return 2;
      }
    }
    else if (!strcmp(argv[i], "--sweep") && i + 1 < argc) sweep_path = argv[++i];
    else if (!strcmp(argv[i], "--shape") && i + 1 < argc) sscanf(argv[++i], "%dx%d", &user_shape[0], &user_shape[1]);
    else if (!strcmp(argv[i], "--ms") && i + 1 < argc)
      for (char *t = strtok(argv[++i], ","); t && n_user_ms < 8; t = strtok(NULL, ",")) user_ms[n_user_ms++] = atoi(t);
  }
  for (int i = 0; i < n_user_ms; ++i)  // the buffers hold kMaxM rows: a larger M would run past them
    if (user_ms[i] < 1 || user_ms[i] > kMaxM) {
      fprintf(stderr, "--ms: M = %d is outside 1..%d\n", user_ms[i], kMaxM);
      return 2;
    }
  struct cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const double bw = measure_read_bw(prop.multiProcessorCount);
  printf("device %s, %d SMs, L2 %d MB; measured HBM read bandwidth %.3f TB/s (median of %d)\n", prop.name,
         prop.multiProcessorCount, prop.l2CacheSize >> 20, bw / 1e12, GROUPS);
  printf("ours timed as %s%s%s%s, activation %s\n",
         graph ? "CUDA-graph replays (one graph per group of calls)" : "back-to-back launches",
         zero_points ? ", with zero points" : offsets ? ", with offsets" : "", bf16 ? ", bf16" : "",
         act_order ? ", act-order (random g_idx)" : "", w4a16_activation_name(g_act));
  if (group != 128 && group != 64 && group != 32) return 2;
  const int affine = offsets || group != 128;
  FILE *csv = fopen(csv_path, "w");
  if (!csv) return 2;
  FILE *sweep = sweep_path ? fopen(sweep_path, "w") : NULL;
  if (sweep_path && !sweep) return 2;
  if (sweep) fprintf(sweep, "K,N,M,median_us,min_us,max_us,floor_us,x_floor,config\n");
  fprintf(csv, "K,N,M,impl,l2,median_us,min_us,max_us,max_over_min,floor_us,x_floor,read_bw_TBps,config\n");

  int shapes[][2] = {{8192, 8192}, {8192, 28672}, {28672, 8192}, {14336, 4096}};
  int Ms[] = {1, 16, 18, 24, 31, 32, 48, 64};
  int nshapes = quick ? 1 : 4, nm = 8;
  if (user_shape[0] > 0) shapes[0][0] = user_shape[0], shapes[0][1] = user_shape[1], nshapes = 1;
  if (n_user_ms > 0) memcpy(Ms, user_ms, sizeof(int) * (size_t)n_user_ms), nm = n_user_ms;
  cublasHandle_t cublas;
  if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) return 2;

  printf("\n%-12s %3s | %9s %9s %6s %6s | %9s %7s | %9s %7s | %s\n", "KxN", "M", "ours cold", "ours hot", "xfloor",
         "disp", "plain", "speedup", "cuBLAS+ep", "speedup", "floor us");
  for (int s = 0; s < nshapes; ++s) {
    const int K = shapes[s][0], N = shapes[s][1], Mmax = kMaxM;
    const size_t qbytes = (size_t)K / 8 * N * 4, sbytes = (size_t)K / group * N * 2;
    ctx c;
    memset(&c, 0, sizeof c);
    c.K = K, c.N = N, c.cublas = cublas;
    if (graph) CK(cudaStreamCreateWithFlags(&c.graph_stream, cudaStreamNonBlocking));
    c.R = (int)(L2_ROTATE_BYTES / (double)(qbytes + sbytes)) + 2;
    c.Rc = (int)(L2_ROTATE_BYTES / (double)((size_t)K * N * 2)) + 2;
    /* host data: random codes (every nibble uniform), scales U(0.001, 0.03), x U(-2, 2) */
    uint64_t seed = 42 + (uint64_t)s;
    int32_t *hq = malloc(qbytes);
    uint16_t *hs = malloc(sbytes), *hx = malloc((size_t)Mmax * K * 2), *hb = malloc((size_t)N * 2);
    uint16_t *hr = malloc((size_t)Mmax * N * 2);
    for (size_t i = 0; i < qbytes / 4; ++i) hq[i] = (int32_t)w4t_rand(&seed);
    const w4a16_element_type type = bf16 ? W4A16_ELEM_BF16 : W4A16_ELEM_F16;
    for (size_t i = 0; i < sbytes / 2; ++i) hs[i] = w4t_encode(w4t_uniform(&seed, 0.001, 0.03), type);
    uint16_t *dz = NULL; /* with --zero-points only, so the symmetric runs keep the data they always had */
    uint16_t *doff = NULL; /* --offsets: zero points 0 and offsets m near -8 s */
    if (zero_points || offsets) {
      uint16_t *hz = malloc(sbytes);
      for (size_t i = 0; i < sbytes / 2; ++i) hz[i] = w4a16_f2h(offsets ? 0.f : (float)(w4t_rand(&seed) & 15u));
      dz = dmalloc(sbytes);
      CK(cudaMemcpy(dz, hz, sbytes, cudaMemcpyHostToDevice));
      if (offsets) {
        for (size_t i = 0; i < sbytes / 2; ++i) hz[i] = w4a16_f2h((float)w4t_uniform(&seed, -0.24, -0.008));
        doff = dmalloc(sbytes);
        CK(cudaMemcpy(doff, hz, sbytes, cudaMemcpyHostToDevice));
      }
      free(hz);
    }
    int32_t *dg = NULL; /* --act-order: g_idx from its own seed, so the other data stay as they were */
    if (act_order) {
      int32_t *hg = malloc((size_t)K * 4);
      w4t_make_g_idx(hg, K, group, 4242 + (uint64_t)s);
      dg = dmalloc((size_t)K * 4);
      CK(cudaMemcpy(dg, hg, (size_t)K * 4, cudaMemcpyHostToDevice));
      free(hg);
    }
    w4t_make_x_typed(hx, Mmax, K, W4T_RANDOM, type, seed);
    w4t_make_vec_typed(hb, N, -1, 1, type, seed + 1);
    w4t_make_vec_typed(hr, (int64_t)Mmax * N, -1, 1, type, seed + 2);
    c.plans = calloc((size_t)c.R, sizeof *c.plans);
    c.qw = calloc((size_t)c.R, sizeof *c.qw);
    c.sc = calloc((size_t)c.R, sizeof *c.sc);
    c.w16 = calloc((size_t)c.Rc, sizeof *c.w16);
    for (int r = 0; r < c.R; ++r) {
      c.qw[r] = dmalloc(qbytes), c.sc[r] = dmalloc(sbytes);
      CK(cudaMemcpy(c.qw[r], hq, qbytes, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(c.sc[r], hs, sbytes, cudaMemcpyHostToDevice));
      if (w4a16_plan_create_act_order(W4A16_BACKEND_CUDA, c.qw[r], c.sc[r], dz, doff, dg, K, N, group, type, type,
                                      &c.plans[r]) != W4A16_OK) {
        fprintf(stderr, "plan_create: %s\n", w4a16_last_error());
        return 2;
      }
    }
    for (int r = 0; r < c.Rc; ++r) {
      c.w16[r] = dmalloc((size_t)K * N * 2);
      if (bench_dequant(c.qw[0], c.sc[0], c.w16[r], K, N)) return 2;
    }
    c.x = dmalloc((size_t)Mmax * K * 2), c.bias = dmalloc((size_t)N * 2), c.res = dmalloc((size_t)Mmax * N * 2);
    c.out = dmalloc((size_t)Mmax * N * 2), c.tmp = dmalloc((size_t)Mmax * N * 2);
    CK(cudaMemcpy(c.x, hx, (size_t)Mmax * K * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c.bias, hb, (size_t)N * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c.res, hr, (size_t)Mmax * N * 2, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());

    /* The three implementations must agree before they are timed (M = 16, same weight copy); the
       baselines know no zero points. */
    if (!zero_points && !bf16 && !affine && !act_order) {
      const size_t n = (size_t)16 * N;
      uint16_t *o[3];
      for (int impl = 0; impl < 3; ++impl) {
        c.impl = impl, c.M = 16, c.hot = 1;
        CK(cudaMemset(c.out, 0xff, n * 2));
        one_call(&c, 0);
        CK(cudaDeviceSynchronize());
        o[impl] = malloc(n * 2);
        CK(cudaMemcpy(o[impl], c.out, n * 2, cudaMemcpyDeviceToHost));
      }
      printf("%dx%d: rel-norm difference at M=16: plain vs ours %.2e, cuBLAS vs ours %.2e; copies rotated: %d "
             "plans (%.0f MB), %d f16 weights (%.0f MB)\n",
             K, N, rel_diff(o[1], o[0], n), rel_diff(o[2], o[0], n), c.R, c.R * (double)(qbytes + sbytes) / 1e6,
             c.Rc, c.Rc * (double)K * N * 2 / 1e6);
      for (int impl = 0; impl < 3; ++impl) free(o[impl]);
    }
    if (s == 0) { /* clocks up before the first timed figure */
      c.impl = IMPL_OURS, c.M = 32, c.hot = 0;
      for (int i = 0; i < 4000; ++i) one_call(&c, i);
      CK(cudaDeviceSynchronize());
    }

    const int nM = quick && n_user_ms == 0 ? 4 : nm;
    static const int quickMs[] = {1, 16, 32, 64};
    for (int mi = 0; mi < nM; ++mi) {
      const int M = quick && n_user_ms == 0 ? quickMs[mi] : Ms[mi];
      const double floor_bytes = (double)K * N / 2 + (double)K / group * N * (affine ? 5 : zero_points ? 3 : 2) +
                                 (double)M * K * 2 + 2.0 * M * N * 2 + (double)N * 2;
      const double floor_us = floor_bytes / bw * 1e6;
      double med[3][2] = {{0}}, mn[3][2] = {{0}}, mx[3][2] = {{0}};
      char desc[200];
      w4a16_plan_describe(c.plans[0], M, desc, sizeof desc);
      for (int impl = 0; impl < 3; ++impl)
        for (int hot = 0; hot < 2; ++hot) {
          if (impl != IMPL_OURS && ((hot && !baselines_hot) || ours_only)) continue;
          c.impl = impl, c.M = M, c.hot = hot, c.bad = 0;
          c.calls = impl == IMPL_PLAIN ? CALLS_PLAIN : impl == IMPL_CUBLAS ? CALLS_CUBLAS : CALLS;
          const int profiled = profile && impl == IMPL_OURS && !hot;
          if (profiled) CK(cudaProfilerStart());
          measure(&c, &med[impl][hot], &mn[impl][hot], &mx[impl][hot]);
          if (profiled) CK(cudaProfilerStop());
          if (c.bad) {
            fprintf(stderr, "a call failed: %s %dx%d M=%d: %s\n", IMPL_NAME[impl], K, N, M, w4a16_last_error());
            return 2;
          }
          fprintf(csv, "%d,%d,%d,%s,%s,%.3f,%.3f,%.3f,%.4f,%.3f,%.3f,%.4f,\"%s\"\n", K, N, M, IMPL_NAME[impl],
                  hot ? "hot" : "cold", med[impl][hot], mn[impl][hot], mx[impl][hot], mx[impl][hot] / mn[impl][hot],
                  floor_us, med[impl][hot] / floor_us, bw / 1e12, impl == IMPL_OURS ? desc : "");
          fflush(csv);
        }
      char shape[24];
      snprintf(shape, sizeof shape, "%dx%d", K, N);
      printf("%-12s %3d | %9.1f %9.1f %6.2f %6.3f | %9.1f %6.2fx | %9.1f %6.2fx | %.1f  %s\n", shape, M,
             med[0][0], med[0][1], med[0][0] / floor_us, mx[0][0] / mn[0][0], med[1][0], med[1][0] / med[0][0],
             med[2][0], med[2][0] / med[0][0], floor_us, ours_only ? desc : "");
      fflush(stdout);
    }
    if (sweep) { /* every M in 1..64, ours, L2-cold */
      /* Three passes, up, down and up again; each M's figure is the median of its three pass
         medians. Under this load the H200 sits at its power cap, and its clock control swings over
         hundreds of milliseconds: one pass in a fixed order made whole runs of neighbouring M slow
         together, at the same M positions for every shape (bench/RESULTS.md, 2026-11-30 session 3). */
      enum { PASSES = 3 };
      double pm[PASSES][65], lo[65], hi[65], t[65];
      c.impl = IMPL_OURS, c.hot = 0, c.calls = CALLS_SWEEP;
      for (int pass = 0; pass < PASSES; ++pass)
        for (int i = 1; i <= 64; ++i) {
          const int M = pass == 1 ? 65 - i : i;
          double mn, mx;
          c.M = M, c.bad = 0;
          measure(&c, &pm[pass][M], &mn, &mx);
          if (c.bad) {
            fprintf(stderr, "a call failed: sweep %dx%d M=%d: %s\n", K, N, M, w4a16_last_error());
            return 2;
          }
          lo[M] = pass == 0 || mn < lo[M] ? mn : lo[M];
          hi[M] = pass == 0 || mx > hi[M] ? mx : hi[M];
        }
      for (int M = 1; M <= 64; ++M) {
        double v[PASSES];
        for (int pass = 0; pass < PASSES; ++pass) v[pass] = pm[pass][M];
        qsort(v, PASSES, sizeof v[0], cmp_double);
        t[M] = v[PASSES / 2];
        const double floor_us = ((double)K * N / 2 + (double)K / 128 * N * 2 + (double)M * K * 2 + 2.0 * M * N * 2 +
                                 (double)N * 2) / bw * 1e6;
        char desc[200];
        w4a16_plan_describe(c.plans[0], M, desc, sizeof desc);
        fprintf(sweep, "%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,\"%s\"\n", K, N, M, t[M], lo[M], hi[M], floor_us,
                t[M] / floor_us, desc);
      }
      fflush(sweep);
      double worst = 0;
      int worst_m = 0;
      for (int M = 1; M < 64; ++M)
        if (t[M] / t[M + 1] > worst) worst = t[M] / t[M + 1], worst_m = M;
      printf("sweep %dx%d (L2-cold, M = 1..64): min %.1f us, max %.1f us; worst t(M)/t(M+1) = %.3f at M = %d (limit 1.10)\n",
             K, N, t[1], t[64], worst, worst_m);
      fflush(stdout);
    }
    for (int r = 0; r < c.R; ++r) {
      w4a16_plan_destroy(c.plans[r]);
      CK(cudaFree(c.qw[r]));
      CK(cudaFree(c.sc[r]));
    }
    for (int r = 0; r < c.Rc; ++r) CK(cudaFree(c.w16[r]));
    void *bufs[] = {c.x, c.bias, c.res, c.out, c.tmp};
    for (int i = 0; i < 5; ++i) CK(cudaFree(bufs[i]));
    free(c.plans), free(c.qw), free(c.sc), free(c.w16), free(hq), free(hs), free(hx), free(hb), free(hr);
    if (dz) CK(cudaFree(dz));
    if (doff) CK(cudaFree(doff));
    if (dg) CK(cudaFree(dg));
    if (c.graph_stream) CK(cudaStreamDestroy(c.graph_stream));
  }
  printf("(ours cold/hot: median us over %d groups of %d calls; xfloor and speedups use the L2-cold medians; "
         "disp = slowest/fastest group, ours L2-cold)\n",
         GROUPS, CALLS);
  cublasDestroy(cublas);
  fclose(csv);
  if (sweep) fclose(sweep);
  return 0;
}
