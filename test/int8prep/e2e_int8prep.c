/* CPU end-to-end test of issue #6: test/int8prep/Inputs/llm_int8_correction.mlir compiled twice into MLIR's
 * ExecutionEngine -- with the w4a16 pipeline (the preparation fused into w4a16.int8_prep, lowered to a call
 * of the runtime's CPU reference) and with upstream MLIR only (the unfused reference build) -- and run on the
 * same inputs. subA, subB and the corrected output must be equal bit for bit (no tolerance), over:
 *   every int8 code; SCB zero, normal, near FLT_MIN, f32-subnormal, large finite (f32 overflow), around the
 *   f16 overflow boundary and in the f16-subnormal range; L in {0, 1, 2, 5, 16, 64}; first, last, unsorted,
 *   repeated and descending columns; M in {1, 3}; dynamic L, static L = 5 and static L = 0.
 * The fused build must call the runtime exactly once per call with L > 0 and never with L = 0, and at L = 0 it
 * must be no slower than the unfused build (timed, interleaved). Both are called through w4a16c_run_<f>, which
 * must return 0; a column index out of range must make it return W4A16_ERR_BAD_ARGUMENT with a message
 * naming the op and the function, without stopping the program.
 *
 *   int8prep-e2e <path/to/llm_int8_correction.mlir>
 *   int8prep-e2e --expect-mismatch <path>   the fused build's runtime flips the lowest bit of one subB element
 *                                           per call: the comparison must see it (exit 0 only if it does)
 *   int8prep-e2e [--expect-mismatch] --upstream-fusion <path/to/llm_int8_correction_out.mlir>
 *                                           both builds run upstream's linalg-generalize-named-ops and
 *                                           linalg-fuse-elementwise-ops first, which put the gathers and CB's
 *                                           dequantisation inside the correction's contraction body; the
 *                                           functions return only the corrected output, compared bit for bit
 *                                           (one runtime call per call with L > 0, as above) */
#include "w4a16/int8prep.h"
#include "w4a16/lowering.h"
#include "w4a16/passes.h"

#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../common/jit_context.h"
#include "../common/test_data.h"

enum { K = 256, N = 264 };

W4A16_MEMREF(1, Memref1f32, float);
W4A16_MEMREF(1, Memref1i64, int64_t);
W4A16_MEMREF(2, Memref2f16, uint16_t);
W4A16_MEMREF(2, Memref2i8, int8_t);
typedef struct Results {
  Memref2f16 subA, subB, out;
} Results;
/* w4a16c_run_<f>: ret points at the function's results, a Results for the prep_* functions, one Memref2f16 for
 * the corr_* functions of --upstream-fusion. */
typedef int32_t (*EntryFn)(void *ret, Memref2f16 *A, Memref2i8 *CB, Memref1f32 *SCB, Memref1i64 *cols, Memref2f16 *out);

static int g_failures;

static uint64_t g_rng = 0x6a09e667;
static uint64_t rng(void) { return splitmix64(&g_rng); }

static float bitsToFloat(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

/* The negative test: the real entry point, then one bit of subB[0, 0] flipped. */
static int32_t perturbedEntry(w4a16_memref2d_f16 *A, w4a16_memref2d_i8 *CB, w4a16_memref1d_f32 *SCB,
                              w4a16_memref1d_i64 *cols, w4a16_memref2d_f16 *subA, w4a16_memref2d_f16 *subB) {
  int32_t status = _mlir_ciface_w4a16_rt_int8_prep(A, CB, SCB, cols, subA, subB);
  if (subB->sizes[0] > 0 && subB->sizes[1] > 0)
    subB->aligned[subB->offset] ^= 1;
  return status;
}
static bool g_perturb;

/* --- compiling -------------------------------------------------------------------------------------------- */

static bool g_upstreamFusion;

static MlirExecutionEngine compile(MlirContext ctx, const char *path, bool fuse) {
  MlirModule module = mlirModuleCreateParseFromFile(ctx, mlirStringRefCreateFromCString(path));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "e2e: cannot parse %s\n", path);
    exit(1);
  }
  MlirPassManager pm = mlirPassManagerCreateOnOperation(ctx, mlirStringRefCreateFromCString("builtin.module"));
  if (g_upstreamFusion &&
      mlirLogicalResultIsFailure(mlirOpPassManagerAddPipeline(
          mlirPassManagerGetAsOpPassManager(pm),
          mlirStringRefCreateFromCString("linalg-generalize-named-ops,linalg-fuse-elementwise-ops"), NULL, NULL))) {
    fprintf(stderr, "e2e: cannot add upstream's elementwise fusion\n");
    exit(1);
  }
  if (mlirLogicalResultIsFailure(
          w4a16AddPipeline(mlirPassManagerGetAsOpPassManager(pm), (W4a16PipelineOptions){.fuse = fuse})) ||
      mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    fprintf(stderr, "e2e: the %s pipeline failed\n", fuse ? "fused" : "unfused");
    exit(1);
  }
  mlirPassManagerDestroy(pm);
  MlirExecutionEngine jit = mlirExecutionEngineCreate(module, 2, 0, NULL, false, false);
  if (mlirExecutionEngineIsNull(jit)) {
    fprintf(stderr, "e2e: cannot create the ExecutionEngine\n");
    exit(1);
  }
  mlirExecutionEngineRegisterSymbol(jit, mlirStringRefCreateFromCString("_mlir_ciface_w4a16_rt_int8_prep"),
                                    g_perturb ? (void *)perturbedEntry : (void *)_mlir_ciface_w4a16_rt_int8_prep);
  mlirExecutionEngineRegisterSymbol(jit, mlirStringRefCreateFromCString("w4a16_rt_enter"), (void *)w4a16_rt_enter);
  mlirExecutionEngineRegisterSymbol(jit, mlirStringRefCreateFromCString("w4a16_rt_leave"), (void *)w4a16_rt_leave);
  mlirExecutionEngineInitialize(jit);
  mlirModuleDestroy(module);
  return jit;
}

static EntryFn lookup(MlirExecutionEngine jit, const char *name) {
  char full[128];
  snprintf(full, sizeof full, "w4a16c_run_%s", name);
  EntryFn fn = (EntryFn)mlirExecutionEngineLookup(jit, mlirStringRefCreateFromCString(full));
  if (!fn) {
    fprintf(stderr, "e2e: %s not found\n", full);
    exit(1);
  }
  return fn;
}

/* --- data -------------------------------------------------------------------------------------------------- */

typedef struct Inputs {
  uint16_t A[3 * K];
  int8_t CB[N * K];
  float SCB[N];
} Inputs;

static void makeInputs(Inputs *in) {
  for (int i = 0; i < 3 * K; ++i) { /* finite f16 of any exponent up to 2^3, both signs */
    uint16_t h = (uint16_t)(rng() & 0xffff);
    in->A[i] = (uint16_t)((h & 0x8000) | (h & 0x3ff) | ((uint16_t)(((h >> 10) & 31) % 19) << 10));
  }
  for (int n = 0; n < N; ++n) /* each column of CB walks every int8 code */
    for (int k = 0; k < K; ++k)
      in->CB[n * K + k] = (int8_t)(uint8_t)((n * 7 + k * 13 + (int)(rng() % 3)) & 0xff);
  for (int n = 0; n < N; ++n) {
    switch (n % 8) {
    case 0: in->SCB[n] = 0.0f; break;
    case 1: in->SCB[n] = 0.5f + (float)(rng() % 100000) / 1000.0f; break;
    case 2: in->SCB[n] = bitsToFloat(0x00800000u + (uint32_t)(rng() % 4096)); break; /* near FLT_MIN */
    case 3: in->SCB[n] = bitsToFloat((uint32_t)(rng() % 0x7fffff) + 1); break;     /* f32 subnormal */
    case 4: in->SCB[n] = FLT_MAX / (float)(1 + rng() % 1000); break;             /* f32 overflow */
    case 5: in->SCB[n] = 65504.0f + (float)(rng() % 2000); break;                /* f16 overflow boundary */
    case 6: in->SCB[n] = ldexpf(1.0f + (float)(rng() % 4096) / 4096.0f, -8 - (int)(rng() % 10)); break;
    default: in->SCB[n] = bitsToFloat(0x3c000000u + (uint32_t)(rng() % 0x3000000)); break;
    }
  }
}

static const char *const kPatterns[] = {"first/last/unsorted", "repeated", "descending"};

static void makeCols(int64_t *cols, int64_t L, int pattern) {
  for (int64_t l = 0; l < L; ++l)
    cols[l] = pattern == 0 ? (l == 0 ? 0 : l == 1 ? K - 1 : (int64_t)(rng() % K))
              : pattern == 1 ? (int64_t)(rng() % 3)
                             : K - 1 - l;
}

/* --- running and comparing -------------------------------------------------------------------------------- */

static void freeResult(Memref2f16 *m, const void *const *inputs, int numInputs) {
  for (int i = 0; i < numInputs; ++i)
    if ((const void *)m->allocated == inputs[i])
      return; /* an input buffer updated in place */
  free(m->allocated);
}

static int32_t run(EntryFn fn, const Inputs *in, int64_t M, const int64_t *cols, int64_t L, const uint16_t *out0,
                   uint16_t *outCopy, void *r) {
  memcpy(outCopy, out0, 2 * (size_t)(M * N)); /* the matmul may accumulate in place */
  Memref2f16 A = {(uint16_t *)in->A, (uint16_t *)in->A, 0, {M, K}, {K, 1}};
  Memref2i8 CB = {(int8_t *)in->CB, (int8_t *)in->CB, 0, {N, K}, {K, 1}};
  Memref1f32 SCB = {(float *)in->SCB, (float *)in->SCB, 0, {N}, {1}};
  Memref1i64 C = {(int64_t *)cols, (int64_t *)cols, 0, {L}, {1}};
  Memref2f16 out = {outCopy, outCopy, 0, {M, N}, {N, 1}};
  return fn(r, &A, &CB, &SCB, &C, &out);
}

static bool sameF16(uint16_t a, uint16_t b) {
  bool nanA = (a & 0x7c00) == 0x7c00 && (a & 0x3ff), nanB = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
  return a == b || (nanA && nanB);
}

/* Elements that differ between two (rows, cols) results, and a shape check. */
static int64_t compare(const char *what, const Memref2f16 *x, const Memref2f16 *y, int64_t rows, int64_t cols,
                       bool nanEqual) {
  if (x->sizes[0] != rows || x->sizes[1] != cols || y->sizes[0] != rows || y->sizes[1] != cols) {
    fprintf(stderr, "e2e: %s has shape %lldx%lld / %lldx%lld, expected %lldx%lld\n", what, (long long)x->sizes[0],
            (long long)x->sizes[1], (long long)y->sizes[0], (long long)y->sizes[1], (long long)rows, (long long)cols);
    return rows * cols + 1;
  }
  int64_t differ = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      uint16_t a = x->aligned[x->offset + i * x->strides[0] + j * x->strides[1]];
      uint16_t b = y->aligned[y->offset + i * y->strides[0] + j * y->strides[1]];
      if (nanEqual ? !sameF16(a, b) : a != b) {
        if (differ < 3)
          fprintf(stderr, "e2e: %s[%lld, %lld]: fused 0x%04x, unfused 0x%04x\n", what, (long long)i, (long long)j, a, b);
        ++differ;
      }
    }
  return differ;
}

/* The out tensor a case accumulates into: M rows of finite f16. */
static void randomOut(uint16_t *out0, int64_t M) {
  for (int64_t i = 0; i < M * N; ++i)
    out0[i] = (uint16_t)(rng() % 0x7800) | (uint16_t)((rng() & 1) << 15);
}

/* Both builds of fnName on the same data into rf and ru; returns the fused build's runtime calls. */
static int64_t runBoth(const char *fnName, EntryFn fused, EntryFn unfused, const Inputs *in, int64_t M,
                       const int64_t *cols, int64_t L, const uint16_t *out0, uint16_t *outF, uint16_t *outU, void *rf,
                       void *ru) {
  int64_t callsBefore = w4a16_int8prep_entry_calls();
  int32_t statusF = run(fused, in, M, cols, L, out0, outF, rf);
  int64_t calls = w4a16_int8prep_entry_calls() - callsBefore;
  int32_t statusU = run(unfused, in, M, cols, L, out0, outU, ru);
  if (statusF || statusU) {
    fprintf(stderr, "e2e: %s returned %d (fused) and %d (unfused): %s\n", fnName, statusF, statusU, w4a16_rt_last_error());
    ++g_failures;
  }
  return calls;
}

static void report(const char *fnName, int64_t M, int64_t L, const char *pattern, const char *what, int64_t differ,
                   int64_t calls) {
  bool callsOk = calls == (L > 0 ? 1 : 0);
  printf("%-11s M=%lld L=%-2lld %-20s %s raw bits: %s (%lld differ), runtime calls %lld%s\n", fnName, (long long)M,
         (long long)L, pattern, what, differ ? "DIFFER" : "equal", (long long)differ, (long long)calls,
         callsOk ? "" : " (WRONG)");
  g_failures += differ != 0 || !callsOk;
}

/* One case: both builds on the same data; returns the number of elements compared. */
static int64_t runCase(const char *fnName, EntryFn fused, EntryFn unfused, const Inputs *in, int64_t M,
                       const int64_t *cols, int64_t L, const char *pattern) {
  uint16_t out0[3 * N], outF[3 * N], outU[3 * N];
  randomOut(out0, M);
  Results rf, ru;
  int64_t calls = runBoth(fnName, fused, unfused, in, M, cols, L, out0, outF, outU, &rf, &ru);
  int64_t differ = compare("subA", &rf.subA, &ru.subA, M, L, false) + compare("subB", &rf.subB, &ru.subB, L, N, false) +
                   compare("out", &rf.out, &ru.out, M, N, true);
  report(fnName, M, L, pattern, "subA/subB/out", differ, calls);
  const void *inputs[] = {outF, outU};
  freeResult(&rf.subA, inputs, 2), freeResult(&rf.subB, inputs, 2), freeResult(&rf.out, inputs, 2);
  freeResult(&ru.subA, inputs, 2), freeResult(&ru.subB, inputs, 2), freeResult(&ru.out, inputs, 2);
  return M * L + L * N + M * N;
}

/* One case of a function that returns only the corrected output (--upstream-fusion). */
static int64_t runCorrection(const char *fnName, EntryFn fused, EntryFn unfused, const Inputs *in, int64_t M,
                             const int64_t *cols, int64_t L, const char *pattern) {
  uint16_t out0[3 * N], outF[3 * N], outU[3 * N];
  randomOut(out0, M);
  Memref2f16 rf, ru;
  int64_t calls = runBoth(fnName, fused, unfused, in, M, cols, L, out0, outF, outU, &rf, &ru);
  report(fnName, M, L, pattern, "out", compare("out", &rf, &ru, M, N, true), calls);
  const void *inputs[] = {outF, outU};
  freeResult(&rf, inputs, 2), freeResult(&ru, inputs, 2);
  return M * N;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A column index outside [0, K): the fused build's run reports it and the program goes on. */
static void badColumn(EntryFn fused, const Inputs *in) {
  int64_t cols[2] = {1, K};
  uint16_t out0[N] = {0}, outCopy[N];
  Results r;
  int32_t status = run(fused, in, 1, cols, 2, out0, outCopy, &r);
  const char *message = w4a16_rt_last_error();
  bool ok = status == W4A16_ERR_BAD_ARGUMENT && w4a16_rt_status() == status && strstr(message, "prep_dyn: ") &&
            strstr(message, "w4a16.int8_prep: cols[1] = 256");
  printf("cols[1] = K: w4a16c_run_prep_dyn returned %d (\"%s\"): %s\n", (int)status, message,
         ok ? "reported, not aborted" : "WRONG");
  g_failures += !ok;
  const void *inputs[] = {outCopy};
  freeResult(&r.subA, inputs, 1), freeResult(&r.subB, inputs, 1), freeResult(&r.out, inputs, 1);
}

/* L = 0 at run time: interleaved groups of calls of both builds; medians of the per-call means. */
static void timeEmpty(EntryFn fused, EntryFn unfused, const Inputs *in) {
  enum { kGroups = 21, kCalls = 2000 };
  double tf[kGroups], tu[kGroups];
  int64_t cols[1] = {0};
  uint16_t out0[N] = {0}, outCopy[N];
  const void *inputs[] = {outCopy};
  for (int g = -2; g < kGroups; ++g) /* two warm-up groups */
    for (int which = 0; which < 2; ++which) {
      EntryFn fn = which ? unfused : fused;
      double t0 = now();
      for (int i = 0; i < kCalls; ++i) {
        Results r;
        run(fn, in, 1, cols, 0, out0, outCopy, &r);
        freeResult(&r.subA, inputs, 1), freeResult(&r.subB, inputs, 1), freeResult(&r.out, inputs, 1);
      }
      double perCall = (now() - t0) / kCalls * 1e9;
      if (g >= 0)
        (which ? tu : tf)[g] = perCall;
    }
  qsort(tf, kGroups, sizeof(double), cmpDouble);
  qsort(tu, kGroups, sizeof(double), cmpDouble);
  double mf = tf[kGroups / 2], mu = tu[kGroups / 2];
  /* CI machines are noisy: fail only on a clear regression, report the numbers either way. */
  bool ok = mf <= 1.25 * mu + 100.0;
  printf("L = 0 at run time, M = 1, N = %d (whole function: prep + correction matmul): fused %.0f ns/call "
         "(%.0f-%.0f), unfused %.0f ns/call (%.0f-%.0f), ratio %.3f: %s\n",
         N, mf, tf[0], tf[kGroups - 1], mu, tu[0], tu[kGroups - 1], mf / mu, ok ? "no slower" : "SLOWER");
  g_failures += !ok;
}

/* The verdict: every case equal, or with --expect-mismatch, some case caught the perturbed runtime. */
static int finish(int64_t compared, const char *what) {
  if (g_perturb) {
    printf("int8prep e2e%s%s, perturbed runtime: %d mismatching cases: %s\n", what[0] ? " " : "", what, g_failures,
           g_failures ? "the comparison sees it (PASS)" : "NOT DETECTED (FAIL)");
    return g_failures ? 0 : 1;
  }
  printf("int8prep e2e%s%s: %lld elements compared: %s\n", what[0] ? " " : "", what, (long long)compared,
         g_failures ? "FAIL" : "PASS");
  return g_failures ? 1 : 0;
}

int main(int argc, char **argv) {
  int arg = 1;
  for (; arg < argc - 1; ++arg)
    if (strcmp(argv[arg], "--expect-mismatch") == 0)
      g_perturb = true;
    else if (strcmp(argv[arg], "--upstream-fusion") == 0)
      g_upstreamFusion = true;
    else
      break;
  if (arg != argc - 1) {
    fprintf(stderr, "usage: %s [--expect-mismatch] path/to/llm_int8_correction.mlir\n"
                    "       %s [--expect-mismatch] --upstream-fusion path/to/llm_int8_correction_out.mlir\n",
            argv[0], argv[0]);
    return 2;
  }
  const char *path = argv[argc - 1];
  w4a16_int8prep_set_backend(W4A16_BACKEND_CPU);
  MlirContext ctx = create_jit_context();
  MlirExecutionEngine fusedJit = compile(ctx, path, true), unfusedJit = compile(ctx, path, false);

  static Inputs in;
  makeInputs(&in);
  int64_t compared = 0, cols[64];
  const int64_t Ls[] = {0, 1, 2, 5, 16, 64};
  if (g_upstreamFusion) {
    EntryFn fDyn = lookup(fusedJit, "corr_dyn"), uDyn = lookup(unfusedJit, "corr_dyn");
    EntryFn f5 = lookup(fusedJit, "corr_l5_f32"), u5 = lookup(unfusedJit, "corr_l5_f32");
    for (int pattern = 0; pattern < 3; ++pattern) {
      for (size_t t = 0; t < sizeof Ls / sizeof Ls[0]; ++t)
        for (int64_t M = 1; M <= 3; M += 2) {
          makeCols(cols, Ls[t], pattern);
          compared += runCorrection("corr_dyn", fDyn, uDyn, &in, M, cols, Ls[t], kPatterns[pattern]);
        }
      makeCols(cols, 5, pattern);
      compared += runCorrection("corr_l5_f32", f5, u5, &in, 3, cols, 5, kPatterns[pattern]);
    }
    mlirExecutionEngineDestroy(fusedJit);
    mlirExecutionEngineDestroy(unfusedJit);
    mlirContextDestroy(ctx);
    return finish(compared, "after upstream's elementwise fusion");
  }
  EntryFn fDyn = lookup(fusedJit, "prep_dyn"), uDyn = lookup(unfusedJit, "prep_dyn");
  for (size_t t = 0; t < sizeof Ls / sizeof Ls[0]; ++t)
    for (int pattern = 0; pattern < 3; ++pattern)
      for (int64_t M = 1; M <= 3; M += 2) {
        makeCols(cols, Ls[t], pattern);
        compared += runCase("prep_dyn", fDyn, uDyn, &in, M, cols, Ls[t], kPatterns[pattern]);
      }
  EntryFn f5 = lookup(fusedJit, "prep_l5"), u5 = lookup(unfusedJit, "prep_l5");
  for (int pattern = 0; pattern < 3; ++pattern) {
    makeCols(cols, 5, pattern);
    compared += runCase("prep_l5", f5, u5, &in, 3, cols, 5, kPatterns[pattern]);
  }
  compared += runCase("prep_l0", lookup(fusedJit, "prep_l0"), lookup(unfusedJit, "prep_l0"), &in, 3, cols, 0, "-");
  if (g_perturb)
    return finish(compared, "");
  timeEmpty(fDyn, uDyn, &in);
  badColumn(fDyn, &in);

  mlirExecutionEngineDestroy(fusedJit);
  mlirExecutionEngineDestroy(unfusedJit);
  mlirContextDestroy(ctx);
  return finish(compared, "");
}
