/* w4a16 layer benchmark (issue #21): the four projection groups of a LLaMA-7B decoder layer (hidden 4096, FFN
 * 11008), f16, group 128, symmetric int4, at M tokens, in two configurations:
 *   separate  q, k, v (three 4096x4096 plans), o (4096x4096, + residual x), gate (4096x11008, silu), up
 *             (4096x11008), an elementwise kernel p = silu_gate * up (bench/layer_kernels.cu), down (11008x4096,
 *             + residual h): 8 launches per layer
 *   merged    qkv as one plan (N = 12288, the three weights' columns side by side) run by
 *             w4a16_plan_run_outputs into three outputs; o; gate/up as one GLU plan (N = 22016, columns
 *             interleaved by fours, runtime.h) writing p = silu(gate) * up directly; down: 4 launches per layer
 * Dataflow per layer (attention itself is not computed: q stands in for its output):
 *   q, k, v = x Wq, x Wk, x Wv;  h = q Wo + x;  p = silu(h Wgate) * (h Wup);  y = p Wdown + h
 * o and down are the same plans in both configurations.
 *
 * L2-cold as a model runs: `copies` independent layers (their own random weights and plans), enough that one
 * pass over them reads more than 4 x the L2 (60 MB on the H200), run one after another; every copy reuses the
 * same activation buffers. Timing, both configurations interleaved (alternating which goes first) so that
 * clock drift hits both alike:
 *   graph   one pass over all copies captured into a CUDA graph (global capture mode, a non-blocking stream);
 *           R replays launched back to back with an event between consecutive replays
 *   eager   the same launches issued directly, R passes back to back, an event between consecutive passes
 *           (the host runs ahead; where it cannot issue launches as fast as the GPU runs them, that shows)
 * Figures are us per layer = pass time / copies: median, min and max over the R passes.
 *   split   (graph) the pass again with event-record nodes at every group boundary, replayed R times one at a
 *           time: where the time goes (qkv / o / gateup / down, the separate gateup including the product
 *           kernel), medians of the per-layer group times. The event nodes cut the programmatic-dependent-launch
 *           overlap at group boundaries, so the groups sum to a bit more than the plain graph time.
 *   alone   (graph, merged configuration) each group's launches over all copies captured into a graph of their
 *           own and timed as `graph` is: each kernel alone, the figures a compiled block's time is compared to
 *           (gateup + down are the kernels of the LLaMA MLP block, examples/llama_mlp.mlir). A group reads
 *           fewer bytes per pass than the layer: its figure is L2-cold only where copies x its bytes > 4 x L2
 *           (the table says which; --copies raises the count).
 * Correctness, per M after its timing: both configurations on copy 0 (outputs pre-filled with NaN), merged vs
 * separate for q, k, v, o (h), glu (p) and down (y): max |merged - separate| / max |separate|; q, k, v and o should be
 * bit-equal, p is rounded once merged and twice separate. Any figure above 5e-2 or NaN fails (exit 1).
 *
 *   w4a16_layer_bench [--ms 1,16,32] [--csv FILE] [--reps R] [--copies C] [--no-split] [--bf16]
 *     --reps R     timed passes per mode and configuration (default 100)
 *     --copies C   layer copies (default: ceil(4 x L2 / layer bytes) + 1, L2 = max(60 MiB, the device's))
 *     --no-split   skip the per-group split
 *     --bf16       the same layer in bf16 (issue #18: x, scales and every activation bf16; the same random values
 *                  rounded to bf16), as Llama-3-class checkpoints run
 *     --timeline F per-CTA phase stamps of TIMELINE_REPLAYS graph replays per M and configuration into CSV F
 *                  (bench/timeline.py summarises them); only in builds configured with -DW4A16_TIMELINE=ON
 *                  (bench/prebuilt-gpu.sh timeline), whose kernels write the stamps: their times are not the
 *                  plain build's
 * Output: progress and the plans' kernel configurations, then sections starting with "== " (the tables); the CSV
 * has one row per M and configuration. Exit 0, 1 (a correctness check failed), 2 (a runtime call failed, with
 * w4a16_last_error), 3 (a CUDA call failed). */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_check.h"
#include "half.h"
#include "w4a16/runtime.h"

int bench_layer_glu_mul(const uint16_t *gate, const uint16_t *up, uint16_t *out, int64_t n, int bf16, void *stream);

enum { HID = 4096, FFN = 11008, GROUP = 128, MAX_MS = 16, DEFAULT_REPS = 100, WARM_REPLAYS = 10 };

/* --bf16: every 16-bit value (x, scales, activations) is bf16 instead of f16 */
static int bf16_mode;
static uint16_t to16(float f) { return bf16_mode ? w4a16_f2bf(f) : w4a16_f2h(f); }
static float from16(uint16_t v) { return bf16_mode ? w4a16_bf2f(v) : w4a16_h2f(v); }
enum { W_Q, W_K, W_V, W_O, W_GATE, W_UP, W_DOWN, NW };
static const int64_t WK[NW] = {HID, HID, HID, HID, HID, HID, FFN};
static const int64_t WN[NW] = {HID, HID, HID, HID, FFN, FFN, HID};
static const char *W_NAME[NW] = {"q", "k", "v", "o", "gate", "up", "down"};
enum { CFG_SEP, CFG_MRG, NCFG };
static const char *CFG_NAME[NCFG] = {"separate", "merged"};
static const int LAUNCHES[NCFG] = {8, 4};
enum { G_QKV, G_O, G_GATEUP, G_DOWN, NG };
static const char *G_NAME[NG] = {"qkv", "o", "gateup", "down"};
static const double L2_BYTES = 60.0 * 1024 * 1024;

/* A runtime call's status: on failure the message and exit 2, or while capturing the split (soft_mode) the message
   and soft_failed set, so that the split's failure costs only the split. */
static int soft_mode, soft_failed;
#define RT(call)                                                                                                   \
  do {                                                                                                             \
    w4a16_status st_ = (call);                                                                                     \
    if (st_ != W4A16_OK) {                                                                                         \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, w4a16_status_name(st_),                  \
              w4a16_last_error());                                                                                 \
      if (!soft_mode) exit(2);                                                                                     \
      soft_failed = 1;                                                                                             \
    }                                                                                                              \
  } while (0)
/* CK, softly while soft_mode */
#define CKS(call)                                                                                                  \
  do {                                                                                                             \
    if (!soft_mode) {                                                                                              \
      CK(call);                                                                                                    \
    } else {                                                                                                       \
      cudaError_t e_ = (call);                                                                                     \
      if (e_ != cudaSuccess) {                                                                                     \
        fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                   \
        soft_failed = 1;                                                                                           \
      }                                                                                                            \
    }                                                                                                              \
  } while (0)

typedef struct {
  w4a16_plan *w[NW];     /* separate: q k v o gate up down (o and down serve the merged configuration too) */
  w4a16_plan *qkv, *glu; /* merged */
} layer;

typedef struct {
  uint16_t *q, *k, *v, *h, *g, *u, *p, *y; /* g, u: the separate configuration only */
} acts;

typedef struct {
  int copies;
  layer *L;
  uint16_t *x; /* (Mmax, HID) */
  acts a[NCFG];
  cudaStream_t s;
} bench;

/* --- host data ------------------------------------------------------------------------------------------ */
typedef struct {
  int64_t K, N;
  int32_t *q;  /* (K/8, N) */
  uint16_t *s; /* (K/128, N) f16 */
} hweight;

static uint64_t rng(uint64_t *st) { /* splitmix64 */
  uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double uniform(uint64_t *st, double lo, double hi) { return lo + (hi - lo) * (double)(rng(st) >> 11) * 0x1p-53; }

/* bytes of weight i's int4 codes and f16 scales */
static double weight_bytes(int i) { return (double)WK[i] * WN[i] / 2 + (double)WK[i] / GROUP * WN[i] * 2; }

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    fprintf(stderr, "out of host memory (%zu bytes)\n", n);
    exit(2);
  }
  return p;
}
static void *dmalloc(size_t n) {
  void *p;
  CK(cudaMalloc(&p, n));
  return p;
}

/* random codes (every nibble uniform 0..15), scales U(1e-3, 1e-2) */
static void gen_weight(hweight *w, int64_t K, int64_t N, uint64_t seed) {
  w->K = K, w->N = N;
  const size_t nq = (size_t)(K / 8) * (size_t)N, ns = (size_t)(K / GROUP) * (size_t)N;
  w->q = xmalloc(nq * 4), w->s = xmalloc(ns * 2);
  uint64_t st = seed * 0x2545f4914f6cdd1dull + 1;
  for (size_t i = 0; i + 1 < nq; i += 2) {
    const uint64_t r = rng(&st);
    w->q[i] = (int32_t)(uint32_t)r, w->q[i + 1] = (int32_t)(uint32_t)(r >> 32);
  }
  if (nq % 2) w->q[nq - 1] = (int32_t)(uint32_t)rng(&st);
  for (size_t i = 0; i < ns; ++i) w->s[i] = to16((float)uniform(&st, 1e-3, 1e-2));
}
static void free_weight(hweight *w) { free(w->q), free(w->s), w->q = NULL, w->s = NULL; }

/* rows of es-byte elements: dst row r = the parts' rows r side by side */
static void join_rows(const void *const *parts, const int64_t *cols, int n, int64_t rows, size_t es, void *dst) {
  int64_t total = 0;
  for (int i = 0; i < n; ++i) total += cols[i];
  char *d = dst;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0;
    for (int i = 0; i < n; ++i) {
      memcpy(d + ((size_t)r * (size_t)total + (size_t)off) * es, (const char *)parts[i] + (size_t)r * (size_t)cols[i] * es,
             (size_t)cols[i] * es);
      off += cols[i];
    }
  }
}
/* the GLU interleave: dst (rows, 2 Nh), column 8j + e = gate's 4j + e, column 8j + 4 + e = up's 4j + e, e = 0..3 */
static void glu_rows(const void *gate, const void *up, int64_t Nh, int64_t rows, size_t es, void *dst) {
  char *d = dst;
  const char *g = gate, *u = up;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < Nh / 4; ++j) {
      memcpy(d + ((size_t)r * (size_t)(2 * Nh) + (size_t)(8 * j)) * es, g + ((size_t)r * (size_t)Nh + (size_t)(4 * j)) * es, 4 * es);
      memcpy(d + ((size_t)r * (size_t)(2 * Nh) + (size_t)(8 * j + 4)) * es, u + ((size_t)r * (size_t)Nh + (size_t)(4 * j)) * es,
             4 * es);
    }
}

/* a CUDA plan from host data: device copies, plan_create (the plan keeps its own repack), the copies freed */
static w4a16_plan *make_plan(const int32_t *hq, const uint16_t *hs, int64_t K, int64_t N, int64_t max_m) {
  const size_t qb = (size_t)(K / 8) * (size_t)N * 4, sb = (size_t)(K / GROUP) * (size_t)N * 2;
  int32_t *dq = dmalloc(qb);
  uint16_t *ds = dmalloc(sb);
  CK(cudaMemcpy(dq, hq, qb, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(ds, hs, sb, cudaMemcpyHostToDevice));
  w4a16_plan *p = NULL;
  const w4a16_element_type type = bf16_mode ? W4A16_ELEM_BF16 : W4A16_ELEM_F16;
  RT(w4a16_plan_create_typed(W4A16_BACKEND_CUDA, dq, ds, NULL, NULL, K, N, GROUP, type, type, &p));
  CK(cudaDeviceSynchronize());
  CK(cudaFree(dq));
  CK(cudaFree(ds));
  RT(w4a16_plan_reserve(p, max_m));
  return p;
}

static void build_layer(layer *l, int copy, int64_t max_m) {
  hweight w[NW];
  for (int i = 0; i < NW; ++i) {
    gen_weight(&w[i], WK[i], WN[i], 1000u * (uint64_t)copy + (uint64_t)i + 1);
    l->w[i] = make_plan(w[i].q, w[i].s, WK[i], WN[i], max_m);
  }
  { /* qkv: columns side by side */
    const int64_t cols[3] = {HID, HID, HID}, N = 3 * HID;
    const void *pq[3] = {w[W_Q].q, w[W_K].q, w[W_V].q}, *ps[3] = {w[W_Q].s, w[W_K].s, w[W_V].s};
    int32_t *q = xmalloc((size_t)(HID / 8) * N * 4);
    uint16_t *s = xmalloc((size_t)(HID / GROUP) * N * 2);
    join_rows(pq, cols, 3, HID / 8, 4, q);
    join_rows(ps, cols, 3, HID / GROUP, 2, s);
    l->qkv = make_plan(q, s, HID, N, max_m);
    free(q), free(s);
  }
  { /* gate/up: the GLU interleave by fours */
    const int64_t N = 2 * FFN;
    int32_t *q = xmalloc((size_t)(HID / 8) * N * 4);
    uint16_t *s = xmalloc((size_t)(HID / GROUP) * N * 2);
    glu_rows(w[W_GATE].q, w[W_UP].q, FFN, HID / 8, 4, q);
    glu_rows(w[W_GATE].s, w[W_UP].s, FFN, HID / GROUP, 2, s);
    l->glu = make_plan(q, s, HID, N, max_m);
    free(q), free(s);
  }
  for (int i = 0; i < NW; ++i) free_weight(&w[i]);
}

/* --- the launches ----------------------------------------------------------------------------------------- */
static void enqueue_group(const bench *b, int cfg, int c, int g, int64_t M) {
  const layer *l = &b->L[c];
  const acts *a = &b->a[cfg];
  void *s = b->s;
  switch (g) {
  case G_QKV:
    if (cfg == CFG_SEP) {
      RT(w4a16_plan_run(l->w[W_Q], b->x, M, NULL, NULL, W4A16_ACT_NONE, a->q, s));
      RT(w4a16_plan_run(l->w[W_K], b->x, M, NULL, NULL, W4A16_ACT_NONE, a->k, s));
      RT(w4a16_plan_run(l->w[W_V], b->x, M, NULL, NULL, W4A16_ACT_NONE, a->v, s));
    } else {
      const w4a16_outputs o = {.count = 3, .glu = 0, .out = {a->q, a->k, a->v}, .cols = {HID, HID, HID}};
      RT(w4a16_plan_run_outputs(l->qkv, b->x, M, NULL, W4A16_ACT_NONE, &o, s));
    }
    break;
  case G_O: RT(w4a16_plan_run(l->w[W_O], a->q, M, NULL, b->x, W4A16_ACT_NONE, a->h, s)); break;
  case G_GATEUP:
    if (cfg == CFG_SEP) {
      RT(w4a16_plan_run(l->w[W_GATE], a->h, M, NULL, NULL, W4A16_ACT_SILU, a->g, s));
      RT(w4a16_plan_run(l->w[W_UP], a->h, M, NULL, NULL, W4A16_ACT_NONE, a->u, s));
      const int e = bench_layer_glu_mul(a->g, a->u, a->p, M * FFN, bf16_mode, s);
      if (e != 0) {
        fprintf(stderr, "glu product kernel: %s\n", cudaGetErrorString((cudaError_t)e));
        if (!soft_mode) exit(3);
        soft_failed = 1;
      }
    } else {
      const w4a16_outputs o = {.count = 1, .glu = 1, .out = {a->p}, .cols = {FFN}};
      RT(w4a16_plan_run_outputs(l->glu, a->h, M, NULL, W4A16_ACT_SILU, &o, s));
    }
    break;
  default: RT(w4a16_plan_run(l->w[W_DOWN], a->p, M, NULL, a->h, W4A16_ACT_NONE, a->y, s)); break;
  }
}

/* one pass over all copies; ev (copies * NG + 1 events) non-NULL: event-record nodes at the group boundaries
   (only while capturing) */
static void enqueue_pass(const bench *b, int cfg, int64_t M, cudaEvent_t *ev) {
  if (ev) CKS(cudaEventRecordWithFlags(ev[0], b->s, cudaEventRecordExternal));
  for (int c = 0; c < b->copies && !(soft_mode && soft_failed); ++c)
    for (int g = 0; g < NG && !(soft_mode && soft_failed); ++g) {
      enqueue_group(b, cfg, c, g, M);
      if (ev) CKS(cudaEventRecordWithFlags(ev[1 + c * NG + g], b->s, cudaEventRecordExternal));
    }
}

/* The graph of one pass (NULL if it failed in soft_mode); only >= 0: that group's launches alone, over all copies. */
static cudaGraphExec_t capture(const bench *b, int cfg, int64_t M, cudaEvent_t *ev, int *kernels, int only) {
  cudaGraph_t g = NULL;
  cudaGraphExec_t e = NULL;
  soft_failed = 0;
  CK(cudaStreamBeginCapture(b->s, cudaStreamCaptureModeGlobal));
  if (only < 0)
    enqueue_pass(b, cfg, M, ev);
  else
    for (int c = 0; c < b->copies; ++c) enqueue_group(b, cfg, c, only, M);
  CKS(cudaStreamEndCapture(b->s, &g)); /* ends the capture even when it was invalidated */
  if (soft_failed || !g) {
    if (g) CK(cudaGraphDestroy(g));
    (void)cudaGetLastError();
    return NULL;
  }
  if (kernels) {
    size_t n = 0;
    CK(cudaGraphGetNodes(g, NULL, &n));
    cudaGraphNode_t *nodes = xmalloc((n ? n : 1) * sizeof *nodes);
    CK(cudaGraphGetNodes(g, nodes, &n));
    *kernels = 0;
    for (size_t i = 0; i < n; ++i) {
      enum cudaGraphNodeType t;
      CK(cudaGraphNodeGetType(nodes[i], &t));
      *kernels += t == cudaGraphNodeTypeKernel;
    }
    free(nodes);
  }
  CKS(cudaGraphInstantiate(&e, g, 0));
  CK(cudaGraphDestroy(g));
  if (soft_failed) {
    (void)cudaGetLastError();
    return NULL;
  }
  return e;
}

/* --- timing ----------------------------------------------------------------------------------------------- */
static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
typedef struct {
  double med, mn, mx;
} stats;
static stats summarize(const double *t, int n) {
  double *v = xmalloc((size_t)n * sizeof *v);
  memcpy(v, t, (size_t)n * sizeof *v);
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  const stats s = {n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[0], v[n - 1]};
  free(v);
  return s;
}

/* reps passes of each configuration back to back, alternating which goes first, an event between consecutive
   passes; ex non-NULL: graph replays, else eager launches. t[cfg][rep]: us per layer. */
static void time_chain(const bench *b, int64_t M, const cudaGraphExec_t *ex, int reps, double *t[NCFG]) {
  const int n = 2 * reps;
  cudaEvent_t *ev = xmalloc((size_t)(n + 1) * sizeof *ev);
  int *order = xmalloc((size_t)n * sizeof *order);
  for (int i = 0; i <= n; ++i) CK(cudaEventCreate(&ev[i]));
  CK(cudaEventRecord(ev[0], b->s));
  for (int r = 0; r < reps; ++r)
    for (int j = 0; j < 2; ++j) {
      const int cfg = r % 2 ? 1 - j : j, i = 2 * r + j;
      order[i] = cfg;
      if (ex) CK(cudaGraphLaunch(ex[cfg], b->s));
      else enqueue_pass(b, cfg, M, NULL);
      CK(cudaEventRecord(ev[i + 1], b->s));
    }
  CK(cudaEventSynchronize(ev[n]));
  CK(cudaGetLastError());
  for (int i = 0; i < n; ++i) {
    float ms;
    CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
    t[order[i]][i / 2] = ms * 1000.0 / b->copies;
  }
  for (int i = 0; i <= n; ++i) CK(cudaEventDestroy(ev[i]));
  free(ev), free(order);
}

/* The split: group medians (us per layer) of cfg at M; returns 0 if the events could not be timed. */
static int time_split(const bench *b, int cfg, int64_t M, int reps, double med[NG]) {
  const int ne = b->copies * NG + 1;
  cudaEvent_t *ev = xmalloc((size_t)ne * sizeof *ev);
  for (int i = 0; i < ne; ++i) CK(cudaEventCreate(&ev[i]));
  soft_mode = 1;
  cudaGraphExec_t ex = capture(b, cfg, M, ev, NULL, -1);
  soft_mode = 0;
  double *t[NG];
  for (int g = 0; g < NG; ++g) t[g] = xmalloc((size_t)reps * sizeof(double));
  int ok = ex != NULL;
  if (!ok) fprintf(stderr, "split: capturing the pass with event nodes failed; no per-group times\n");
  for (int r = -3; r < reps && ok; ++r) {
    CK(cudaGraphLaunch(ex, b->s));
    CK(cudaStreamSynchronize(b->s));
    if (r < 0) continue;
    for (int g = 0; g < NG; ++g) t[g][r] = 0;
    for (int c = 0; c < b->copies && ok; ++c)
      for (int g = 0; g < NG; ++g) {
        float ms;
        const cudaError_t e = cudaEventElapsedTime(&ms, ev[c * NG + g], ev[c * NG + g + 1]);
        if (e != cudaSuccess) {
          fprintf(stderr, "split timing unavailable (%s)\n", cudaGetErrorString(e));
          (void)cudaGetLastError();
          ok = 0;
          break;
        }
        t[g][r] += ms * 1000.0 / b->copies;
      }
  }
  for (int g = 0; g < NG; ++g) {
    med[g] = ok ? summarize(t[g], reps).med : NAN;
    free(t[g]);
  }
  if (ex) CK(cudaGraphExecDestroy(ex));
  for (int i = 0; i < ne; ++i) CK(cudaEventDestroy(ev[i]));
  free(ev);
  return ok;
}

/* alone: each group of the merged configuration in a graph of its own, timed as time_chain times a pass; med[g]:
   us per layer, medians. */
static void time_alone(const bench *b, int64_t M, int reps, double med[NG]) {
  cudaEvent_t *ev = xmalloc((size_t)(reps + 1) * sizeof *ev);
  double *t = xmalloc((size_t)reps * sizeof *t);
  for (int i = 0; i <= reps; ++i) CK(cudaEventCreate(&ev[i]));
  for (int g = 0; g < NG; ++g) {
    cudaGraphExec_t ex = capture(b, CFG_MRG, M, NULL, NULL, g);
    for (int w = 0; w < WARM_REPLAYS; ++w) CK(cudaGraphLaunch(ex, b->s));
    CK(cudaEventRecord(ev[0], b->s));
    for (int r = 0; r < reps; ++r) {
      CK(cudaGraphLaunch(ex, b->s));
      CK(cudaEventRecord(ev[r + 1], b->s));
    }
    CK(cudaEventSynchronize(ev[reps]));
    for (int r = 0; r < reps; ++r) {
      float ms;
      CK(cudaEventElapsedTime(&ms, ev[r], ev[r + 1]));
      t[r] = ms * 1000.0 / b->copies;
    }
    med[g] = summarize(t, reps).med;
    CK(cudaGraphExecDestroy(ex));
  }
  for (int i = 0; i <= reps; ++i) CK(cudaEventDestroy(ev[i]));
  free(ev), free(t);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --- correctness ------------------------------------------------------------------------------------------ */
/* max |a - b| / max |b| over n values; NaN if either holds a NaN (or an infinity) */
static double max_rel(const uint16_t *a, const uint16_t *b, size_t n) {
  double d = 0, r = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = from16(a[i]), y = from16(b[i]);
    if (!isfinite(x) || !isfinite(y)) return NAN;
    d = fmax(d, fabs(x - y)), r = fmax(r, fabs(y));
  }
  return r > 0 ? d / r : d;
}

enum { NCHK = 6 };
static const char *CHK_NAME[NCHK] = {"q", "k", "v", "o", "glu", "down"};

static void check(const bench *b, int64_t M, double err[NCHK]) {
  for (int cfg = 0; cfg < NCFG; ++cfg) {
    const acts *a = &b->a[cfg];
    uint16_t *bufs[] = {a->q, a->k, a->v, a->h, a->p, a->y};
    const int64_t cols[] = {HID, HID, HID, HID, FFN, HID};
    for (int i = 0; i < NCHK; ++i) CK(cudaMemsetAsync(bufs[i], 0xff, (size_t)M * (size_t)cols[i] * 2, b->s));
    for (int g = 0; g < NG; ++g) enqueue_group(b, cfg, 0, g, M);
  }
  CK(cudaStreamSynchronize(b->s));
  CK(cudaGetLastError());
  const acts *s = &b->a[CFG_SEP], *m = &b->a[CFG_MRG];
  const uint16_t *sb[] = {s->q, s->k, s->v, s->h, s->p, s->y}, *mb[] = {m->q, m->k, m->v, m->h, m->p, m->y};
  const int64_t cols[] = {HID, HID, HID, HID, FFN, HID};
  for (int i = 0; i < NCHK; ++i) {
    const size_t n = (size_t)M * (size_t)cols[i];
    uint16_t *hs = xmalloc(n * 2), *hm = xmalloc(n * 2);
    CK(cudaMemcpy(hs, sb[i], n * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hm, mb[i], n * 2, cudaMemcpyDeviceToHost));
    err[i] = max_rel(hm, hs, n);
    free(hs), free(hm);
  }
}

/* --- timeline (instrumented builds: runtime/src/timeline.cuh) ----------------------------------------------- */
/* The buffer: TL_LAUNCHES regions of TL_CTAS records of TL_WORDS words (timeline.cuh's kLaunches, kCtas, kWords). */
enum { TL_WORDS = 9, TL_CTAS = 2048, TL_LAUNCHES = 256, TIMELINE_REPLAYS = 5 };
static const size_t TL_BYTES = (size_t)TL_LAUNCHES * TL_CTAS * TL_WORDS * 8;
#ifdef W4A16_TIMELINE
void w4a16_debug_set_timeline(unsigned long long *device_buffer); /* cuda_backend.cu */

/* TIMELINE_REPLAYS replays of each configuration's graph, the buffer cleared before each: every CTA of the pass
   rewrites its record (its launch's region was fixed at capture). */
static void timeline_dump(const bench *b, unsigned long long *buf, const cudaGraphExec_t *ex, int64_t M, FILE *f) {
  unsigned long long *h = xmalloc(TL_BYTES);
  for (int rep = 0; rep < TIMELINE_REPLAYS; ++rep)
    for (int cfg = 0; cfg < NCFG; ++cfg) {
      CK(cudaMemsetAsync(buf, 0, TL_BYTES, b->s));
      CK(cudaGraphLaunch(ex[cfg], b->s));
      CK(cudaStreamSynchronize(b->s));
      CK(cudaMemcpy(h, buf, TL_BYTES, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < (size_t)TL_LAUNCHES * TL_CTAS; ++i) {
        const unsigned long long *r = h + i * TL_WORDS, w = r[1];
        if (!r[2]) continue; /* no CTA there */
        fprintf(f, "%lld,%s,%d,%llx,%llu,%llu,%llu,%llu", (long long)M, CFG_NAME[cfg], rep, r[0], w & 0xffff,
                (w >> 16) & 0xffff, (w >> 32) & 0xffff, w >> 48);
        for (int k = 2; k < TL_WORDS; ++k) fprintf(f, ",%llu", r[k]);
        fprintf(f, "\n");
      }
    }
  free(h);
}
#endif

/* --- main ------------------------------------------------------------------------------------------------- */
typedef struct {
  int M;
  stats graph[NCFG], eager[NCFG];
  int kernels[NCFG]; /* kernel nodes per layer in the graph */
  double split[NCFG][NG];
  int split_ok;
  double alone[NG]; /* merged configuration, each group alone */
  double err[NCHK];
  int pass;
} result;

int main(int argc, char **argv) {
  const char *csv_path = NULL, *timeline_path = NULL;
  int ms[MAX_MS] = {1, 16, 32}, nms = 3, reps = DEFAULT_REPS, copies = 0, split = 1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--copies") && i + 1 < argc) copies = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-split")) split = 0;
    else if (!strcmp(argv[i], "--bf16")) bf16_mode = 1;
    else if (!strcmp(argv[i], "--timeline") && i + 1 < argc) timeline_path = argv[++i];
    else if (!strcmp(argv[i], "--ms") && i + 1 < argc) {
      nms = 0;
      for (char *t = strtok(argv[++i], ","); t && nms < MAX_MS; t = strtok(NULL, ",")) ms[nms++] = atoi(t);
    } else {
      fprintf(stderr, "usage: %s [--ms 1,16,32] [--csv FILE] [--reps R] [--copies C] [--no-split] [--bf16] [--timeline FILE]\n",
              argv[0]);
      return 2;
    }
  }
  int max_m = W4A16_DEFAULT_MAX_M;
  for (int i = 0; i < nms; ++i) {
    if (ms[i] < 1 || ms[i] > 4096) {
      fprintf(stderr, "M = %d out of range (1..4096)\n", ms[i]);
      return 2;
    }
    if (ms[i] > max_m) max_m = ms[i];
  }
  if (reps < 3 || reps > 100000 || copies < 0 || nms == 0) {
    fprintf(stderr, "bad --reps, --copies or --ms\n");
    return 2;
  }
  FILE *csv = NULL, *tl_csv = NULL;
  if (csv_path && !(csv = fopen(csv_path, "w"))) {
    fprintf(stderr, "cannot write %s\n", csv_path);
    return 2;
  }
#ifndef W4A16_TIMELINE
  if (timeline_path) {
    fprintf(stderr, "--timeline needs a runtime built with -DW4A16_TIMELINE=ON (bench/prebuilt-gpu.sh timeline)\n");
    return 2;
  }
#endif
  if (timeline_path && !(tl_csv = fopen(timeline_path, "w"))) {
    fprintf(stderr, "cannot write %s\n", timeline_path);
    return 2;
  }
  if (!w4a16_cuda_available()) {
    fprintf(stderr, "no CUDA device (or the runtime was built without CUDA): %s\n", w4a16_last_error());
    return 2;
  }

  struct cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  double layer_bytes = 0; /* int4 codes + f16 scales of one layer (the separate plans; merged reads the same) */
  for (int i = 0; i < NW; ++i) layer_bytes += weight_bytes(i);
  const double l2 = fmax(L2_BYTES, (double)prop.l2CacheSize);
  if (copies == 0) copies = (int)ceil(4.0 * l2 / layer_bytes) + 1;
  printf("device %s, %d SMs, L2 %d MB; LLaMA-7B layer projections (hidden %d, FFN %d), %s, group %d, symmetric int4\n",
         prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, HID, FFN, bf16_mode ? "bf16" : "f16", GROUP);
  printf("%.1f MB of weights per layer; %d layer copies (%.0f MB per pass, > 4 x %.0f MB L2); %d timed passes per "
         "mode and configuration; plans reserved for M <= %d\n",
         layer_bytes / 1e6, copies, copies * layer_bytes / 1e6, l2 / 1e6, reps, max_m);
  fflush(stdout);

  bench b;
  memset(&b, 0, sizeof b);
  b.copies = copies;
  CK(cudaStreamCreateWithFlags(&b.s, cudaStreamNonBlocking));
  const double t_build = now_s();
  b.L = calloc((size_t)copies, sizeof *b.L);
  if (!b.L) return 2;
  for (int c = 0; c < copies; ++c) build_layer(&b.L[c], c, max_m);
  printf("built %d x (7 separate + 2 merged) plans in %.1f s\n", copies, now_s() - t_build);

  { /* activations: x U(-1, 1), the outputs NaN until written */
    const size_t xe = (size_t)max_m * HID;
    uint16_t *hx = xmalloc(xe * 2);
    uint64_t st = 777;
    for (size_t i = 0; i < xe; ++i) hx[i] = to16((float)uniform(&st, -1.0, 1.0));
    b.x = dmalloc(xe * 2);
    CK(cudaMemcpy(b.x, hx, xe * 2, cudaMemcpyHostToDevice));
    free(hx);
    for (int cfg = 0; cfg < NCFG; ++cfg) {
      acts *a = &b.a[cfg];
      uint16_t **hidden[] = {&a->q, &a->k, &a->v, &a->h, &a->y}, **ffn[] = {&a->g, &a->u, &a->p};
      for (int i = 0; i < 5; ++i) {
        *hidden[i] = dmalloc(xe * 2);
        CK(cudaMemset(*hidden[i], 0xff, xe * 2));
      }
      for (int i = 0; i < 3; ++i) {
        if (cfg == CFG_MRG && i < 2) continue;
        *ffn[i] = dmalloc((size_t)max_m * FFN * 2);
        CK(cudaMemset(*ffn[i], 0xff, (size_t)max_m * FFN * 2));
      }
    }
  }
  CK(cudaDeviceSynchronize());
  unsigned long long *tl_buf = NULL;
  if (tl_csv) { /* set before any capture: a captured launch keeps the region it was given */
    tl_buf = dmalloc(TL_BYTES);
#ifdef W4A16_TIMELINE
    w4a16_debug_set_timeline(tl_buf);
#endif
    fprintf(tl_csv, "M,config,replay,launch,bx,by,bz,smid,entry_ns,waited_ns,first_weights_ns,first_x_ns,loop_done_ns,"
                    "epilogue_ready_ns,done_ns\n");
  }

  result *res = calloc((size_t)nms, sizeof *res);
  double *tg[NCFG], *te[NCFG];
  for (int cfg = 0; cfg < NCFG; ++cfg) tg[cfg] = xmalloc((size_t)reps * 8), te[cfg] = xmalloc((size_t)reps * 8);
  int failed = 0;
  for (int mi = 0; mi < nms; ++mi) {
    const int64_t M = ms[mi];
    result *r = &res[mi];
    r->M = ms[mi];
    char desc[256];
    for (int i = 0; i < NW; ++i)
      printf("M=%d plan %-5s %5lldx%-5lld %s\n", ms[mi], W_NAME[i], (long long)WK[i], (long long)WN[i],
             w4a16_plan_describe(b.L[0].w[i], M, desc, sizeof desc));
    printf("M=%d plan %-5s %5dx%-5d %s\n", ms[mi], "qkv", HID, 3 * HID, w4a16_plan_describe(b.L[0].qkv, M, desc, sizeof desc));
    printf("M=%d plan %-5s %5dx%-5d %s\n", ms[mi], "glu", HID, 2 * FFN, w4a16_plan_describe(b.L[0].glu, M, desc, sizeof desc));

    cudaGraphExec_t ex[NCFG];
    for (int cfg = 0; cfg < NCFG; ++cfg) ex[cfg] = capture(&b, cfg, M, NULL, &r->kernels[cfg], -1);
    for (int cfg = 0; cfg < NCFG; ++cfg) r->kernels[cfg] /= copies;
    /* warm-up: the first M for >= 1 s (clocks up), then a few replays and eager passes of each */
    const double t0 = now_s();
    do {
      for (int i = 0; i < WARM_REPLAYS; ++i)
        for (int cfg = 0; cfg < NCFG; ++cfg) CK(cudaGraphLaunch(ex[cfg], b.s));
      for (int cfg = 0; cfg < NCFG; ++cfg) enqueue_pass(&b, cfg, M, NULL);
      CK(cudaStreamSynchronize(b.s));
    } while (mi == 0 && now_s() - t0 < 1.0);
    CK(cudaGetLastError());

    time_chain(&b, M, ex, reps, tg);
    time_chain(&b, M, NULL, reps, te);
#ifdef W4A16_TIMELINE
    if (tl_csv) timeline_dump(&b, tl_buf, ex, M, tl_csv);
#endif
    for (int cfg = 0; cfg < NCFG; ++cfg) {
      r->graph[cfg] = summarize(tg[cfg], reps), r->eager[cfg] = summarize(te[cfg], reps);
      CK(cudaGraphExecDestroy(ex[cfg]));
    }
    r->split_ok = split;
    for (int cfg = 0; cfg < NCFG; ++cfg) {
      if (r->split_ok) r->split_ok = time_split(&b, cfg, M, reps, r->split[cfg]);
      if (!r->split_ok)
        for (int g = 0; g < NG; ++g) r->split[cfg][g] = NAN;
    }

    time_alone(&b, M, reps, r->alone);
    check(&b, M, r->err);
    r->pass = 1;
    for (int i = 0; i < NCHK; ++i) r->pass &= !isnan(r->err[i]) && r->err[i] <= 5e-2;
    failed |= !r->pass;
    printf("M=%d: graph us/layer separate %.1f merged %.1f (%.3fx); eager separate %.1f merged %.1f; check %s\n",
           ms[mi], r->graph[CFG_SEP].med, r->graph[CFG_MRG].med, r->graph[CFG_SEP].med / r->graph[CFG_MRG].med,
           r->eager[CFG_SEP].med, r->eager[CFG_MRG].med, r->pass ? "PASS" : "FAIL");
    fflush(stdout);
  }

  /* tables */
  printf("\n== layer table: us per LLaMA-7B layer (4 projection groups), %d copies L2-cold, median/min/max over %d "
         "passes; TB/s = weight bytes (%.1f MB) / graph median\n",
         copies, reps, layer_bytes / 1e6);
  printf("%5s  %-9s %-34s %-34s %8s %7s %6s\n", "M", "config", "graph_us_per_layer(med/min/max)",
         "eager_us_per_layer(med/min/max)", "launches", "kernels", "TB/s");
  if (csv)
    fprintf(csv, "M,config,graph_med_us,graph_min_us,graph_max_us,eager_med_us,eager_min_us,eager_max_us,launches,"
                 "kernels_per_layer,weight_MB_per_layer,graph_TBps,split_qkv_us,split_o_us,split_gateup_us,"
                 "split_down_us,copies,reps\n");
  for (int mi = 0; mi < nms; ++mi)
    for (int cfg = 0; cfg < NCFG; ++cfg) {
      const result *r = &res[mi];
      char g[64], e[64];
      snprintf(g, sizeof g, "%.1f/%.1f/%.1f", r->graph[cfg].med, r->graph[cfg].mn, r->graph[cfg].mx);
      snprintf(e, sizeof e, "%.1f/%.1f/%.1f", r->eager[cfg].med, r->eager[cfg].mn, r->eager[cfg].mx);
      const double tbps = layer_bytes / (r->graph[cfg].med * 1e-6) / 1e12;
      printf("%5d  %-9s %-34s %-34s %8d %7d %6.2f\n", r->M, CFG_NAME[cfg], g, e, LAUNCHES[cfg], r->kernels[cfg], tbps);
      if (csv)
        fprintf(csv, "%d,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%d,%.3f,%.4f,%.3f,%.3f,%.3f,%.3f,%d,%d\n", r->M,
                CFG_NAME[cfg], r->graph[cfg].med, r->graph[cfg].mn, r->graph[cfg].mx, r->eager[cfg].med,
                r->eager[cfg].mn, r->eager[cfg].mx, LAUNCHES[cfg], r->kernels[cfg], layer_bytes / 1e6, tbps,
                r->split[cfg][G_QKV], r->split[cfg][G_O], r->split[cfg][G_GATEUP], r->split[cfg][G_DOWN], copies,
                reps);
    }
  printf("\n== merged vs separate (graph medians): M, separate/merged time, us saved per layer\n");
  for (int mi = 0; mi < nms; ++mi)
    printf("%5d  %.3fx  %+.1f us  (eager %.3fx)\n", res[mi].M, res[mi].graph[CFG_SEP].med / res[mi].graph[CFG_MRG].med,
           res[mi].graph[CFG_SEP].med - res[mi].graph[CFG_MRG].med,
           res[mi].eager[CFG_SEP].med / res[mi].eager[CFG_MRG].med);
  if (split) {
    printf("\n== per-group graph time: us per layer, medians, from event nodes at the group boundaries (they cut the "
           "PDL overlap there: the sum exceeds the plain graph time a little); separate gateup includes the product "
           "kernel\n");
    printf("%5s  %-9s %8s %8s %8s %8s %8s\n", "M", "config", G_NAME[0], G_NAME[1], G_NAME[2], G_NAME[3], "sum");
    for (int mi = 0; mi < nms; ++mi)
      for (int cfg = 0; cfg < NCFG; ++cfg) {
        const double *s = res[mi].split[cfg];
        printf("%5d  %-9s %8.1f %8.1f %8.1f %8.1f %8.1f\n", res[mi].M, CFG_NAME[cfg], s[0], s[1], s[2], s[3],
               s[0] + s[1] + s[2] + s[3]);
      }
  }
  printf("\n== each group alone (merged configuration): its launches over all copies in a graph of their own, timed "
         "as the layer; us per layer, medians; gateup + down = the kernels of the LLaMA MLP block\n");
  printf("MB per pass (copies x the group's weights; cold where > 4 x L2 = %.0f MB):", 4 * l2 / 1e6);
  for (int g = 0; g < NG; ++g) {
    double bytes = 0; /* the weights whose plans the group runs: qkv = q k v, gateup = gate up */
    for (int i = 0; i < NW; ++i) {
      const int gi = i <= W_V ? G_QKV : i == W_O ? G_O : i == W_DOWN ? G_DOWN : G_GATEUP;
      if (gi == g) bytes += weight_bytes(i);
    }
    printf(" %s %.0f (%s)", G_NAME[g], copies * bytes / 1e6, copies * bytes > 4 * l2 ? "cold" : "NOT cold");
  }
  printf("\n%5s %8s %8s %8s %8s %8s %14s\n", "M", G_NAME[0], G_NAME[1], G_NAME[2], G_NAME[3], "sum", "gateup+down");
  for (int mi = 0; mi < nms; ++mi) {
    const double *a = res[mi].alone;
    printf("%5d %8.1f %8.1f %8.1f %8.1f %8.1f %14.1f\n", res[mi].M, a[0], a[1], a[2], a[3], a[0] + a[1] + a[2] + a[3],
           a[G_GATEUP] + a[G_DOWN]);
  }
  printf("\n== correctness: layer copy 0, merged vs separate, max |diff| / max |separate| (fail above 5e-2 or NaN)\n");
  printf("%5s", "M");
  for (int i = 0; i < NCHK; ++i) printf(" %9s", CHK_NAME[i]);
  printf("  result\n");
  for (int mi = 0; mi < nms; ++mi) {
    printf("%5d", res[mi].M);
    for (int i = 0; i < NCHK; ++i) printf(" %9.2e", res[mi].err[i]);
    printf("  %s\n", res[mi].pass ? "PASS" : "FAIL");
  }
  printf("%s\n", failed ? "layer bench: FAIL" : "layer bench: PASS");

  if (csv) fclose(csv);
  if (tl_csv) {
    fclose(tl_csv);
    CK(cudaFree(tl_buf));
  }
  for (int c = 0; c < copies; ++c) {
    for (int i = 0; i < NW; ++i) w4a16_plan_destroy(b.L[c].w[i]);
    w4a16_plan_destroy(b.L[c].qkv);
    w4a16_plan_destroy(b.L[c].glu);
  }
  for (int cfg = 0; cfg < NCFG; ++cfg) {
    acts *a = &b.a[cfg];
    uint16_t *bufs[] = {a->q, a->k, a->v, a->h, a->g, a->u, a->p, a->y};
    for (int i = 0; i < 8; ++i)
      if (bufs[i]) CK(cudaFree(bufs[i]));
    free(tg[cfg]), free(te[cfg]);
  }
  CK(cudaFree(b.x));
  CK(cudaStreamDestroy(b.s));
  free(b.L), free(res);
  return failed ? 1 : 0;
}
