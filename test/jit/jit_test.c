/* JIT test (issue #4): examples/gpt_mlp.mlir through the w4a16 pipeline into MLIR's ExecutionEngine, from C.
 *
 * Parses the example, runs w4a16AddPipeline (fuse -> verify -> lower-to-runtime -> upstream lowering to the
 * LLVM dialect -> entry points), creates an ExecutionEngine, registers the runtime symbols the compiled code
 * calls (every one w4a16_rt_symbols lists, with mlirExecutionEngineRegisterSymbol), calls w4a16c_prepare_gpt_mlp once on an empty batch (M = 0: it
 * only makes the two plans), then w4a16c_run_gpt_mlp at M = 1, 3, 5, each returning status 0. The result
 * is checked against the CPU reference runtime called directly through its plan API (w4a16_plan_*: the
 * weights repacked by hand to docs/contract.md §1's (K/8, N) words and (K/128, N) scales):
 *   ref = plan2(gelu_tanh(plan1(x) + b1)) + b2 + x
 * within docs/contract.md §1 tolerance; bitwise equality is reported too (both run the same CPU kernels).
 *
 *   w4a16-jit-test <path/to/examples/gpt_mlp.mlir>
 */
#include "w4a16/lowering.h"
#include "w4a16/passes.h"
#include "w4a16/runtime.h"
#include "w4a16/runtime_abi.h"

#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/jit_context.h"
#include "../common/test_data.h"

enum { D = 4096, F = 16384, G1 = D / 128, G2 = F / 128 };

typedef struct Memref1 {
  uint16_t *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} Memref1;
typedef struct Memref2 {
  uint16_t *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Memref2;
typedef struct Memref3i8 {
  uint8_t *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} Memref3i8;

typedef int32_t (*GptMlpFn)(Memref2 *ret, Memref2 *x, Memref3i8 *w1, Memref2 *s1, Memref1 *b1, Memref3i8 *w2,
                         Memref2 *s2, Memref1 *b2);

static uint64_t g_rng = 4242;
static uint64_t rng(void) { return splitmix64(&g_rng); }
static double uniform(double lo, double hi) { return uniform_in(&g_rng, lo, hi); }

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    fprintf(stderr, "jit: out of memory\n");
    exit(2);
  }
  return p;
}

/* (N, K/128, 128) codes, one per byte, and (N, K/128) scales -> docs/contract.md §1 (K/8, N) words and (K/128, N) scales. */
static void repack(const uint8_t *codes, const uint16_t *scales_ng, int64_t N, int64_t K, int32_t *qw,
                   uint16_t *scales_gn) {
  memset(qw, 0, sizeof(int32_t) * (size_t)(K / 8 * N));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      qw[(k / 8) * N + n] = (int32_t)((uint32_t)qw[(k / 8) * N + n] | ((uint32_t)codes[n * K + k] << (4 * (k % 8))));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < K / 128; ++g)
      scales_gn[g * N + n] = scales_ng[n * (K / 128) + g];
}

static int check(w4a16_status st, const char *what) {
  if (st != W4A16_OK) {
    fprintf(stderr, "jit: %s failed: %s (%s)\n", what, w4a16_status_name(st), w4a16_last_error());
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/gpt_mlp.mlir\n", argv[0]);
    return 2;
  }
  w4a16_rt_set_backend(W4A16_BACKEND_CPU);

  /* --- compile: parse, pipeline, ExecutionEngine ------------------------------------------------------ */
  MlirContext ctx = create_jit_context();

  MlirModule module = mlirModuleCreateParseFromFile(ctx, mlirStringRefCreateFromCString(argv[1]));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "jit: cannot parse %s\n", argv[1]);
    return 1;
  }
  MlirPassManager pm = mlirPassManagerCreateOnOperation(ctx, mlirStringRefCreateFromCString("builtin.module"));
  if (mlirLogicalResultIsFailure(w4a16AddPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                                  (W4a16PipelineOptions){.fuse = true}))) {
    fprintf(stderr, "jit: w4a16AddPipeline failed\n");
    return 1;
  }
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    fprintf(stderr, "jit: the pipeline failed on %s\n", argv[1]);
    return 1;
  }
  mlirPassManagerDestroy(pm);

  MlirExecutionEngine jit = mlirExecutionEngineCreate(module, 2, 0, NULL, false, false);
  if (mlirExecutionEngineIsNull(jit)) {
    fprintf(stderr, "jit: cannot create the ExecutionEngine\n");
    return 1;
  }
  int numSymbols = 0;
  const w4a16_rt_symbol *symbols = w4a16_rt_symbols(&numSymbols);
  for (int i = 0; i < numSymbols; ++i)
    mlirExecutionEngineRegisterSymbol(jit, mlirStringRefCreateFromCString(symbols[i].name), symbols[i].address);
  mlirExecutionEngineInitialize(jit);
  GptMlpFn fn = (GptMlpFn)mlirExecutionEngineLookup(jit, mlirStringRefCreateFromCString("w4a16c_run_gpt_mlp"));
  GptMlpFn prepare = (GptMlpFn)mlirExecutionEngineLookup(jit, mlirStringRefCreateFromCString("w4a16c_prepare_gpt_mlp"));
  if (!fn || !prepare) {
    fprintf(stderr, "jit: w4a16c_run_gpt_mlp or w4a16c_prepare_gpt_mlp not found in the JIT\n");
    return 1;
  }

  /* --- weights: (N, K/128, 128) code bytes and (N, K/128) scales, as the example takes them ------------- */
  uint8_t *w1 = xmalloc((size_t)F * D), *w2 = xmalloc((size_t)D * F);
  uint16_t *s1 = xmalloc(2 * (size_t)F * G1), *s2 = xmalloc(2 * (size_t)D * G2);
  uint16_t *b1 = xmalloc(2 * (size_t)F), *b2 = xmalloc(2 * (size_t)D);
  for (size_t i = 0; i < (size_t)F * D; ++i)
    w1[i] = (uint8_t)(rng() >> 60), w2[i] = (uint8_t)(rng() >> 60);
  double sc1 = 1.0 / (1.155 * sqrt(21.5 * D)), sc2 = 1.0 / (0.65 * sqrt(21.5 * F));
  for (size_t i = 0; i < (size_t)F * G1; ++i)
    s1[i] = double_to_f16((rng() >> 63 ? -1 : 1) * sc1 * uniform(0.5, 1.5));
  for (size_t i = 0; i < (size_t)D * G2; ++i)
    s2[i] = double_to_f16((rng() >> 63 ? -1 : 1) * sc2 * uniform(0.5, 1.5));
  for (int i = 0; i < F; ++i)
    b1[i] = double_to_f16(uniform(-0.5, 0.5));
  for (int i = 0; i < D; ++i)
    b2[i] = double_to_f16(uniform(-0.5, 0.5));

  /* Reference plans from the docs/contract.md §1 layout. */
  int32_t *qw1 = xmalloc(4 * (size_t)(D / 8) * F), *qw2 = xmalloc(4 * (size_t)(F / 8) * D);
  uint16_t *sg1 = xmalloc(2 * (size_t)G1 * F), *sg2 = xmalloc(2 * (size_t)G2 * D);
  repack(w1, s1, F, D, qw1, sg1);
  repack(w2, s2, D, F, qw2, sg2);
  w4a16_plan *p1 = NULL, *p2 = NULL;
  if (!check(w4a16_plan_create(W4A16_BACKEND_CPU, qw1, sg1, D, F, 128, &p1), "plan_create(fc1)") ||
      !check(w4a16_plan_create(W4A16_BACKEND_CPU, qw2, sg2, F, D, 128, &p2), "plan_create(fc2)"))
    return 1;

  Memref3i8 mw1 = {w1, w1, 0, {F, G1, 128}, {D, 128, 1}}, mw2 = {w2, w2, 0, {D, G2, 128}, {F, 128, 1}};
  Memref2 ms1 = {s1, s1, 0, {F, G1}, {G1, 1}}, ms2 = {s2, s2, 0, {D, G2}, {G2, 1}};
  Memref1 mb1 = {b1, b1, 0, {F}, {1}}, mb2 = {b2, b2, 0, {D}, {1}};

  /* The plans, made once from the weights as they are now (an empty batch computes nothing else). */
  uint16_t no_rows[8];
  Memref2 empty_x = {no_rows, no_rows, 0, {0, D}, {D, 1}}, empty_out = {0};
  int32_t status = prepare(&empty_out, &empty_x, &mw1, &ms1, &mb1, &mw2, &ms2, &mb2);
  free(empty_out.allocated);
  long long prepared = (long long)w4a16_rt_plans_created();
  if (status != 0 || prepared != 2) {
    fprintf(stderr, "jit: w4a16c_prepare_gpt_mlp returned %d (%s) and made %lld plans (expected 2)\n", (int)status,
            w4a16_rt_last_error(), prepared);
    return 1;
  }

  const int64_t ms[] = {1, 3, 5};
  int failures = 0;
  for (size_t t = 0; t < sizeof ms / sizeof ms[0]; ++t) {
    int64_t M = ms[t];
    uint16_t *x = xmalloc(2 * (size_t)(M * D)), *h = xmalloc(2 * (size_t)(M * F)), *ref = xmalloc(2 * (size_t)(M * D));
    for (int64_t i = 0; i < M * D; ++i)
      x[i] = double_to_f16(uniform(-2, 2));
    Memref2 mx = {x, x, 0, {M, D}, {D, 1}}, out = {0};
    status = fn(&out, &mx, &mw1, &ms1, &mb1, &mw2, &ms2, &mb2);
    if (status != 0) {
      fprintf(stderr, "jit: M=%lld: w4a16c_run_gpt_mlp returned %d: %s\n", (long long)M, (int)status,
              w4a16_rt_last_error());
      return 1;
    }
    if (!check(w4a16_plan_run(p1, x, M, b1, NULL, W4A16_ACT_GELU_TANH, h, NULL), "plan_run(fc1)") ||
        !check(w4a16_plan_run(p2, h, M, b2, x, W4A16_ACT_NONE, ref, NULL), "plan_run(fc2)"))
      return 1;
    if (out.sizes[0] != M || out.sizes[1] != D || out.strides[0] != D || out.strides[1] != 1) {
      fprintf(stderr, "jit: M=%lld: result is %lldx%lld\n", (long long)M, (long long)out.sizes[0],
              (long long)out.sizes[1]);
      return 1;
    }
    const uint16_t *o = out.aligned + out.offset;
    double num = 0, den = 0, max_rel = 0;
    int64_t nonfinite = 0, equal = 0;
    for (int64_t i = 0; i < M * D; ++i) {
      double a = f16_to_double(o[i]), r = f16_to_double(ref[i]);
      equal += o[i] == ref[i];
      if (!isfinite(a) || !isfinite(r)) {
        ++nonfinite;
        continue;
      }
      double d = fabs(a - r);
      num += d * d;
      den += r * r;
      if (d / (1 + fabs(r)) > max_rel)
        max_rel = d / (1 + fabs(r));
    }
    double rel_l2 = den > 0 ? sqrt(num / den) : INFINITY;
    int pass = !nonfinite && rel_l2 <= 2e-3 && max_rel <= 1e-2;
    printf("jit gpt_mlp M=%lld: max rel error %.3e, rel L2 %.3e, bitwise equal %lld/%lld, ref rms %.3f: %s\n",
           (long long)M, max_rel, rel_l2, (long long)equal, (long long)(M * D), sqrt(den / (double)(M * D)),
           pass ? "PASS" : "FAIL");
    failures += !pass;
    free(out.allocated);
    free(x);
    free(h);
    free(ref);
  }
  long long plans = (long long)w4a16_rt_plans_created();
  printf("jit gpt_mlp: runtime plans created by the JIT-compiled code: %lld (expected 2, all by prepare)\n", plans);
  if (plans != 2)
    ++failures;

  w4a16_rt_release_plans();
  w4a16_plan_destroy(p1);
  w4a16_plan_destroy(p2);
  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  free(w1), free(w2), free(s1), free(s2), free(b1), free(b2), free(qw1), free(qw2), free(sg1), free(sg2);
  printf("jit gpt_mlp: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
