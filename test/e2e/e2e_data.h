/* e2e-driver's data: deterministic inputs for an example's arguments, and the comparison of a result with the
 * reference (docs/contract.md §1 and §6 tolerances). */
#ifndef W4A16_E2E_DATA_H
#define W4A16_E2E_DATA_H

#define W4A16_E2E_TYPES_ONLY /* the example table stays in e2e_driver.c */
#include "examples.h"
#undef W4A16_E2E_TYPES_ONLY

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Restarts the generator: the same seed gives the same data. */
void e2e_seed(uint64_t seed);
/* Bytes of argument a at batch size M. */
size_t arg_bytes(const ArgDesc *a, int64_t M);
/* 64-byte aligned; exits (status 2) when out of memory. */
void *xmalloc(size_t n);
/* Fresh data for argument a of ex at batch size M (free it). */
void *generate(const Example *ex, const ArgDesc *a, int64_t M);

typedef struct Comparison {
  double rel_l2;      /* ||out - ref|| / ||ref|| */
  double max_rel;     /* max |out - ref| / (1 + |ref|) */
  double ref_rms;     /* sanity: the reference is not trivial */
  int64_t nonfinite;  /* NaN/Inf in out or ref */
  int64_t worst;      /* index of the max_rel element */
  bool pass;
} Comparison;

/* The result's element as a double. */
double out_value(const Example *ex, uint16_t bits);
Comparison compare(const Example *ex, const uint16_t *out, const uint16_t *ref, int64_t n);

#endif
