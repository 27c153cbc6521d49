/* Unit test of runtime/int8prep: f16 rounding, the CPU reference, the memref entry point and, with --cuda
 * (or --cpu on a machine with a GPU), the CUDA kernel against the CPU reference bit for bit over the data of
 * issue #6: every int8 code, SCB zero / normal / near-subnormal / large finite, L in {1, 2, 5, 16, 64},
 * first / last / unsorted / repeated columns.
 *
 *   w4a16-int8prep-test --cpu    CPU checks (CI); also the CUDA comparison when a GPU is present
 *   w4a16-int8prep-test --cuda   CUDA comparison required (exit 77 = skipped when no GPU) */
#include "w4a16/int8prep.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if W4A16_INT8PREP_WITH_CUDA
#include <cuda_runtime.h>
#endif

uint16_t w4a16_int8prep_f32_to_f16(float f); /* internal.h */

static int g_failures;
#define CHECK(cond, ...)                                                                                            \
  do {                                                                                                              \
    if (!(cond)) {                                                                                                  \
      ++g_failures;                                                                                                 \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                          \
      fprintf(stderr, __VA_ARGS__);                                                                                 \
      fprintf(stderr, "\n");                                                                                        \
    }                                                                                                               \
  } while (0)

static uint64_t g_rng = 0x1234567;
static uint64_t rng(void) {
  uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static float bitsToFloat(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

/* --- f16 rounding against the compiler's _Float16 (IEEE, round to nearest even) --------------------------- */
static void testHalf(void) {
#ifdef __FLT16_MAX__
  long long checked = 0, bad = 0;
  /* f32 from 2^-27 to 2^17 (f16 subnormals, normals, the overflow boundary), both signs: every 31st
   * mantissa (31 is odd, so every pattern of the 13 bits rounding drops appears), every mantissa where f16
   * subnormals round to 0 or 2^-24 and at the overflow boundary; then a sparse sweep of all f32 */
  for (uint32_t e = 100; e <= 144; ++e)
    for (uint32_t m = 0; m < (1u << 23); m += (e == 102 || e == 142) ? 1 : 31)
      for (uint32_t s = 0; s < 2; ++s) {
        float f = bitsToFloat((s << 31) | (e << 23) | m);
        _Float16 h = (_Float16)f;
        uint16_t want;
        memcpy(&want, &h, 2);
        bad += w4a16_int8prep_f32_to_f16(f) != want;
        ++checked;
      }
  for (uint64_t x = 0; x < (1ull << 32); x += 65521) {
    float f = bitsToFloat((uint32_t)x);
    if (isnan(f))
      continue;
    _Float16 h = (_Float16)f;
    uint16_t want;
    memcpy(&want, &h, 2);
    bad += w4a16_int8prep_f32_to_f16(f) != want;
    ++checked;
  }
  CHECK(bad == 0, "f32 -> f16: %lld of %lld conversions differ from _Float16", bad, checked);
  printf("f16 rounding: %lld conversions checked against _Float16, %lld differ\n", checked, bad);
#else
  printf("f16 rounding: no _Float16 in this compiler, spot checks only\n");
#endif
  CHECK(w4a16_int8prep_f32_to_f16(1.0f) == 0x3c00, "1.0");
  CHECK(w4a16_int8prep_f32_to_f16(-0.0f) == 0x8000, "-0");
  CHECK(w4a16_int8prep_f32_to_f16(65520.0f) == 0x7c00, "65520 -> inf");
  CHECK(w4a16_int8prep_f32_to_f16(65519.996f) == 0x7bff, "65519.996 -> 65504");
  CHECK(w4a16_int8prep_f32_to_f16(0x1p-25f) == 0x0000, "2^-25 ties to 0");
  CHECK(w4a16_int8prep_f32_to_f16(0x1.000002p-25f) == 0x0001, "just above 2^-25");
  CHECK(w4a16_int8prep_f32_to_f16(0x3p-25f) == 0x0002, "3 * 2^-25 ties to even 2 * 2^-24");
}

/* --- data of issue #6 ---------------------------------------------------------------------------------- */

typedef struct Problem {
  int64_t M, N, K, L;
  uint16_t *A;
  int8_t *CB;
  float *SCB;
  int64_t *cols;
} Problem;

static void makeProblem(Problem *p, int64_t M, int64_t N, int64_t K, int64_t L, int colPattern) {
  *p = (Problem){M, N, K, L, malloc(2 * (size_t)(M * K) + 2), malloc((size_t)(N * K) + 1), malloc(4 * (size_t)N + 4),
                 malloc(8 * (size_t)L + 8)};
  for (int64_t i = 0; i < M * K; ++i) /* every f16 bit pattern but NaN */
    p->A[i] = (uint16_t)(rng() & 0xffff), p->A[i] = ((p->A[i] & 0x7c00) == 0x7c00 && (p->A[i] & 0x3ff)) ? 0x3c00 : p->A[i];
  for (int64_t n = 0; n < N; ++n) /* column k of CB walks the whole int8 range; rows are shifted */
    for (int64_t k = 0; k < K; ++k)
      p->CB[n * K + k] = (int8_t)(uint8_t)((n * 7 + k * 13 + (int64_t)(rng() % 3)) & 0xff);
  for (int64_t n = 0; n < N; ++n) {
    switch (n % 8) {
    case 0: p->SCB[n] = 0.0f; break;                                        /* zero */
    case 1: p->SCB[n] = 0.5f + (float)(rng() % 100000) / 1000.0f; break;    /* normal absmax */
    case 2: p->SCB[n] = bitsToFloat(0x00800000u + (uint32_t)(rng() % 4096)); break; /* near FLT_MIN */
    case 3: p->SCB[n] = bitsToFloat((uint32_t)(rng() % 0x7fffff) + 1); break;  /* f32 subnormal */
    case 4: p->SCB[n] = FLT_MAX / (float)(1 + rng() % 1000); break;          /* large finite: f32 inf */
    case 5: p->SCB[n] = 65504.0f + (float)(rng() % 2000); break;             /* f16 overflow boundary */
    case 6: p->SCB[n] = ldexpf(1.0f + (float)(rng() % 4096) / 4096.0f, -8 - (int)(rng() % 10)); break; /* f16 subnormal */
    default: p->SCB[n] = bitsToFloat(0x3c000000u + (uint32_t)(rng() % 0x3000000)); break; /* random mantissas */
    }
  }
  for (int64_t l = 0; l < L; ++l) {
    switch (colPattern) {
    case 0: p->cols[l] = l == 0 ? 0 : l == 1 ? K - 1 : (int64_t)(rng() % (uint64_t)K); break; /* first, last, unsorted */
    case 1: p->cols[l] = (int64_t)(rng() % 3); break;                                        /* repeated */
    default: p->cols[l] = K - 1 - l % K; break;                                              /* descending from last */
    }
  }
}

static void freeProblem(Problem *p) { free(p->A), free(p->CB), free(p->SCB), free(p->cols); }

static float f32(float x) { return x; }

/* An independent spelling of the reference with the compiler's f16 conversion (when there is one). */
static uint16_t referenceElement(int8_t code, float scb) {
  float p = f32((float)code * scb);
  float q = f32(p * bitsToFloat(W4A16_INT8PREP_SCALE_BITS));
#ifdef __FLT16_MAX__
  _Float16 h = (_Float16)q;
  uint16_t bits;
  memcpy(&bits, &h, 2);
  return bits;
#else
  return w4a16_int8prep_f32_to_f16(q);
#endif
}

static void testCpu(void) {
  const int64_t Ls[] = {1, 2, 5, 16, 64};
  int64_t compared = 0;
  for (size_t t = 0; t < sizeof Ls / sizeof Ls[0]; ++t)
    for (int pattern = 0; pattern < 3; ++pattern) {
      Problem p;
      makeProblem(&p, 3, 264, 256, Ls[t], pattern);
      uint16_t *subA = malloc(2 * (size_t)(p.M * p.L)), *subB = malloc(2 * (size_t)(p.L * p.N));
      CHECK(w4a16_int8prep_cpu(p.A, p.K, p.CB, p.K, p.SCB, p.cols, p.M, p.N, p.K, p.L, subA, subB) == W4A16_OK, "cpu");
      for (int64_t m = 0; m < p.M; ++m)
        for (int64_t l = 0; l < p.L; ++l)
          CHECK(subA[m * p.L + l] == p.A[m * p.K + p.cols[l]], "subA[%lld, %lld]", (long long)m, (long long)l);
      for (int64_t l = 0; l < p.L; ++l)
        for (int64_t n = 0; n < p.N; ++n) {
          uint16_t want = referenceElement(p.CB[n * p.K + p.cols[l]], p.SCB[n]);
          CHECK(subB[l * p.N + n] == want, "subB[%lld, %lld] = 0x%04x, want 0x%04x", (long long)l, (long long)n,
                subB[l * p.N + n], want);
          ++compared;
        }
      free(subA), free(subB);
      freeProblem(&p);
    }
  /* Every int8 code times a few scales, bit for bit. */
  const float scales[] = {0.0f, 1.0f, 127.0f, 3.1415927f, 1e-38f, 1e-45f, 3.4e38f, 65504.0f, 8.3e6f, 1e-5f};
  for (int code = -128; code < 128; ++code)
    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; ++s) {
      int8_t cb = (int8_t)code;
      int64_t col = 0;
      uint16_t a = 0, subA, subB;
      CHECK(w4a16_int8prep_cpu(&a, 1, &cb, 1, &scales[s], &col, 1, 1, 1, 1, &subA, &subB) == W4A16_OK, "1x1");
      CHECK(subB == referenceElement(cb, scales[s]), "code %d scale %g", code, (double)scales[s]);
    }
  CHECK(referenceElement(127, 1.0f) == 0x3c00, "127 * 1 / 127 = 1");
  printf("cpu reference: %lld subB elements + 2560 single codes bit-exact against an independent spelling\n",
         (long long)compared);

  /* L = 0: nothing read or written; a bad column is refused before anything is written. */
  uint16_t sentinel = 0xabcd;
  int64_t bad = 256;
  Problem p;
  makeProblem(&p, 2, 8, 256, 1, 0);
  CHECK(w4a16_int8prep_cpu(NULL, 256, NULL, 256, NULL, p.cols, 2, 8, 256, 0, NULL, NULL) == W4A16_OK, "L = 0");
  CHECK(w4a16_int8prep_cpu(p.A, 256, p.CB, 256, p.SCB, &bad, 2, 8, 256, 1, &sentinel, &sentinel) ==
            W4A16_ERR_BAD_ARGUMENT && sentinel == 0xabcd, "bad column");
  freeProblem(&p);
}

/* --- the memref entry point --------------------------------------------------------------------------------- */
static void testEntryPoint(void) {
  w4a16_int8prep_set_backend(W4A16_BACKEND_CPU);
  Problem p;
  makeProblem(&p, 4, 40, 96, 5, 0);
  /* A and subB strided: A read as every other row of an (8, 96) buffer, subB written transposed in memory. */
  uint16_t *A2 = calloc(8 * 96, 2), *subA = calloc(4 * 5, 2), *subBt = calloc(40 * 5, 2), *ref = calloc(40 * 5, 2);
  uint16_t *refA = calloc(4 * 5, 2);
  for (int m = 0; m < 4; ++m)
    memcpy(A2 + 2 * m * 96, p.A + m * 96, 96 * 2);
  w4a16_memref2d_f16 mA = {A2, A2, 0, {4, 96}, {192, 1}}, mSubA = {subA, subA, 0, {4, 5}, {5, 1}};
  w4a16_memref2d_f16 mSubB = {subBt, subBt, 0, {5, 40}, {1, 5}};
  w4a16_memref2d_i8 mCB = {(uint8_t *)p.CB, (uint8_t *)p.CB, 0, {40, 96}, {96, 1}};
  w4a16_memref1d_f32 mSCB = {p.SCB, p.SCB, 0, {40}, {1}};
  w4a16_memref1d_i64 mCols = {p.cols, p.cols, 0, {5}, {1}};
  int64_t calls = w4a16_int8prep_entry_calls();
  CHECK(_mlir_ciface_w4a16_rt_int8_prep(&mA, &mCB, &mSCB, &mCols, &mSubA, &mSubB) == 0, "entry point");
  CHECK(w4a16_int8prep_cpu(p.A, 96, p.CB, 96, p.SCB, p.cols, 4, 40, 96, 5, refA, ref) == W4A16_OK, "cpu");
  CHECK(memcmp(subA, refA, 2 * 20) == 0, "entry point subA");
  for (int l = 0; l < 5; ++l)
    for (int n = 0; n < 40; ++n)
      CHECK(subBt[n * 5 + l] == ref[l * 40 + n], "entry point subB[%d, %d] (strided)", l, n);
  CHECK(w4a16_int8prep_entry_calls() == calls + 1, "entry call counted");
  /* L = 0: returns 0 and reaches no backend. */
  w4a16_memref1d_i64 none = {p.cols, p.cols, 0, {0}, {1}};
  w4a16_memref2d_f16 emptyA = {subA, subA, 0, {4, 0}, {0, 1}}, emptyB = {subBt, subBt, 0, {0, 40}, {40, 1}};
  CHECK(_mlir_ciface_w4a16_rt_int8_prep(&mA, &mCB, &mSCB, &none, &emptyA, &emptyB) == 0, "entry point L = 0");
  CHECK(w4a16_int8prep_entry_calls() == calls + 1, "L = 0 reached a backend");
  /* Errors: a column out of range, mismatched shapes. */
  int64_t badCols[1] = {96};
  w4a16_memref1d_i64 mBad = {badCols, badCols, 0, {1}, {1}};
  w4a16_memref2d_f16 oneA = {subA, subA, 0, {4, 1}, {1, 1}}, oneB = {subBt, subBt, 0, {1, 40}, {40, 1}};
  CHECK(_mlir_ciface_w4a16_rt_int8_prep(&mA, &mCB, &mSCB, &mBad, &oneA, &oneB) == W4A16_ERR_BAD_ARGUMENT,
        "column out of range");
  CHECK(_mlir_ciface_w4a16_rt_int8_prep(&mA, &mCB, &mSCB, &mCols, &oneA, &oneB) == W4A16_ERR_BAD_SHAPE,
        "shape mismatch");
  free(A2), free(subA), free(subBt), free(ref), free(refA);
  freeProblem(&p);
  printf("entry point: strided operands, L = 0 without a backend call, errors\n");
}

/* --- CUDA against the CPU reference ------------------------------------------------------------------------ */
#if W4A16_INT8PREP_WITH_CUDA
#define CU(x)                                                                                                       \
  do {                                                                                                              \
    cudaError_t e_ = (x);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                        \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                                      \
      exit(1);                                                                                                      \
    }                                                                                                               \
  } while (0)

static void testCuda(void) {
  const int64_t Ls[] = {1, 2, 5, 16, 64}, Ms[] = {1, 3, 64};
  int64_t elements = 0, differ = 0;
  for (size_t t = 0; t < sizeof Ls / sizeof Ls[0]; ++t)
    for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; ++mi)
      for (int pattern = 0; pattern < 3; ++pattern) {
        Problem p;
        makeProblem(&p, Ms[mi], 1032, 512, Ls[t], pattern);
        size_t bA = 2 * (size_t)(p.M * p.K), bCB = (size_t)(p.N * p.K), bS = 4 * (size_t)p.N, bC = 8 * (size_t)p.L;
        size_t bSA = 2 * (size_t)(p.M * p.L), bSB = 2 * (size_t)(p.L * p.N);
        void *dA, *dCB, *dS, *dC, *dSA, *dSB;
        CU(cudaMalloc(&dA, bA)); CU(cudaMalloc(&dCB, bCB)); CU(cudaMalloc(&dS, bS)); CU(cudaMalloc(&dC, bC));
        CU(cudaMalloc(&dSA, bSA)); CU(cudaMalloc(&dSB, bSB));
        CU(cudaMemcpy(dA, p.A, bA, cudaMemcpyHostToDevice)); CU(cudaMemcpy(dCB, p.CB, bCB, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(dS, p.SCB, bS, cudaMemcpyHostToDevice)); CU(cudaMemcpy(dC, p.cols, bC, cudaMemcpyHostToDevice));
        CHECK(w4a16_int8prep_cuda(dA, dCB, dS, dC, p.M, p.N, p.K, p.L, dSA, dSB, NULL) == W4A16_OK, "cuda");
        CU(cudaDeviceSynchronize());
        uint16_t *gA = malloc(bSA), *gB = malloc(bSB), *rA = malloc(bSA), *rB = malloc(bSB);
        CU(cudaMemcpy(gA, dSA, bSA, cudaMemcpyDeviceToHost)); CU(cudaMemcpy(gB, dSB, bSB, cudaMemcpyDeviceToHost));
        w4a16_int8prep_cpu(p.A, p.K, p.CB, p.K, p.SCB, p.cols, p.M, p.N, p.K, p.L, rA, rB);
        for (int64_t i = 0; i < p.M * p.L; ++i)
          differ += gA[i] != rA[i];
        for (int64_t i = 0; i < p.L * p.N; ++i)
          differ += gB[i] != rB[i];
        elements += p.M * p.L + p.L * p.N;
        free(gA), free(gB), free(rA), free(rB);
        cudaFree(dA), cudaFree(dCB), cudaFree(dS), cudaFree(dC), cudaFree(dSA), cudaFree(dSB);
        freeProblem(&p);
      }
  CHECK(differ == 0, "cuda vs cpu: %lld of %lld elements differ", (long long)differ, (long long)elements);
  /* L = 0 launches nothing. */
  int64_t before = w4a16_int8prep_launches();
  CHECK(w4a16_int8prep_cuda(NULL, NULL, NULL, NULL, 64, 4096, 4096, 0, NULL, NULL, NULL) == W4A16_OK, "L = 0");
  CHECK(w4a16_int8prep_launches() == before, "L = 0 launched a kernel");
  /* The entry point on the CUDA backend (host memrefs staged through the device). */
  w4a16_int8prep_set_backend(W4A16_BACKEND_CUDA);
  Problem p;
  makeProblem(&p, 3, 40, 96, 16, 0);
  uint16_t *sA = calloc(3 * 16, 2), *sB = calloc(16 * 40, 2), *rA = calloc(3 * 16, 2), *rB = calloc(16 * 40, 2);
  w4a16_memref2d_f16 mA = {p.A, p.A, 0, {3, 96}, {96, 1}}, mSA = {sA, sA, 0, {3, 16}, {16, 1}},
                     mSB = {sB, sB, 0, {16, 40}, {40, 1}};
  w4a16_memref2d_i8 mCB = {(uint8_t *)p.CB, (uint8_t *)p.CB, 0, {40, 96}, {96, 1}};
  w4a16_memref1d_f32 mS = {p.SCB, p.SCB, 0, {40}, {1}};
  w4a16_memref1d_i64 mC = {p.cols, p.cols, 0, {16}, {1}};
  CHECK(_mlir_ciface_w4a16_rt_int8_prep(&mA, &mCB, &mS, &mC, &mSA, &mSB) == 0, "entry point on CUDA");
  w4a16_int8prep_cpu(p.A, 96, p.CB, 96, p.SCB, p.cols, 3, 40, 96, 16, rA, rB);
  CHECK(!memcmp(sA, rA, 2 * 48) && !memcmp(sB, rB, 2 * 640), "entry point on CUDA differs from the CPU");
  free(sA), free(sB), free(rA), free(rB);
  freeProblem(&p);
  w4a16_int8prep_set_backend(W4A16_BACKEND_CPU);
  printf("cuda: %lld elements compared with the CPU reference, %lld differ; L = 0 launched nothing\n",
         (long long)elements, (long long)differ);
}
#endif

int main(int argc, char **argv) {
  int wantCuda = argc > 1 && strcmp(argv[1], "--cuda") == 0;
  if (!wantCuda) {
    testHalf();
    testCpu();
    testEntryPoint();
  }
#if W4A16_INT8PREP_WITH_CUDA
  if (w4a16_int8prep_cuda_available())
    testCuda();
  else if (wantCuda) {
    printf("no CUDA device: skipped\n");
    return 77;
  }
#else
  if (wantCuda) {
    printf("built without nvcc: skipped\n");
    return 77;
  }
#endif
  printf("%s\n", g_failures ? "FAIL" : "PASS");
  return g_failures ? 1 : 0;
}
