/* e2e-driver's data and comparison (e2e_data.h). */
#include "e2e_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/test_data.h"

/* ---------------------------------------------------------------------------------------------------- */
/* f16 and deterministic data                                                                           */
/* ---------------------------------------------------------------------------------------------------- */

static uint64_t g_rng;

void e2e_seed(uint64_t seed) { g_rng = seed; }
static uint64_t rng_next(void) { return splitmix64(&g_rng); }
static double rng_uniform(double lo, double hi) { return uniform_in(&g_rng, lo, hi); }

static int64_t numel(const ArgDesc *a, int64_t M) {
  int64_t n = 1;
  for (int d = 0; d < a->rank; ++d)
    n *= a->shape[d] == DYN_M ? M : a->shape[d];
  return n;
}

/* Bytes of one element of each kind of argument (as generate() makes them). */
static size_t elem_bytes(ArgKind kind) {
  switch (kind) {
  case ARG_CODES_PACKED:
  case ARG_GROUP_INDEX: return 4;
  case ARG_CODES_BYTES:
  case ARG_CODE_PAIRS: return 1;
  default: return 2;
  }
}

size_t arg_bytes(const ArgDesc *a, int64_t M) { return (size_t)numel(a, M) * elem_bytes(a->kind); }

void *xmalloc(size_t n) {
  void *p = aligned_alloc(64, (n + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "e2e: out of memory (%zu bytes)\n", n);
    exit(2);
  }
  return p;
}

/* E[(code - 8)^2] for codes uniform in 0..15. */
static const double kCodeMeanSquare = 21.5;

void *generate(const Example *ex, const ArgDesc *a, int64_t M) {
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
  case ARG_SCALES:
  case ARG_SCALES_POSITIVE:
  case ARG_SHIFTS: {
    const Layer *l = &ex->layers[a->layer];
    double s0 = 1.0 / (l->input_rms * sqrt(kCodeMeanSquare * (double)l->K));
    uint16_t *p = xmalloc((size_t)n * 2);
    for (int64_t i = 0; i < n; ++i) {
      double s = s0 * (a->kind == ARG_SHIFTS ? rng_uniform(6.0, 9.0) : rng_uniform(0.5, 1.5));
      p[i] = (ex->scales_bf16 ? double_to_bf16 : double_to_f16)(a->kind == ARG_SCALES && (rng_next() >> 63) ? -s : s);
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


/* The result's element as a double. */
double out_value(const Example *ex, uint16_t bits) {
  return ex->io_bf16 ? bf16_to_double(bits) : f16_to_double(bits);
}

/* bf16 results are held to the norm bound of docs/contract.md §6 (1.6e-2: bf16 keeps 8 significant bits);
 * the element bound stays §1's, tighter than §6's 2^-8 (|ref| + S) for these O(1) outputs. */
Comparison compare(const Example *ex, const uint16_t *out, const uint16_t *ref, int64_t n) {
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

