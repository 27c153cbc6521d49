/* Helpers shared by the matchers: reasons, op sets, synthetic data. */
#include "match.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

void setReason(Reason *why, MlirOperation at, const char *fmt, ...) {
  if (why->text[0])
    return; /* keep the first reason: it is the one a user must fix first */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why->text, sizeof why->text, fmt, ap);
  va_end(ap);
  why->at = at;
}

void opSetAdd(OpSet *set, MlirOperation op) {
  if (mlirOperationIsNull(op) || opSetHas(set, op) || set->count == (int)(sizeof set->ops / sizeof set->ops[0]))
    return;
  set->ops[set->count++] = op;
}

bool opSetHas(const OpSet *set, MlirOperation op) {
  for (int i = 0; i < set->count; ++i)
    if (opEq(set->ops[i], op))
      return true;
  return false;
}

double activationValue(int act, double v) {
  switch (act) {
  case W4A16_ACT_SILU: return v / (1 + exp(-v));
  case W4A16_ACT_GELU_TANH: return 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  default: return v;
  }
}

/* splitmix64 finaliser: good enough to make coincidental matches of synthetic data vanishingly rare. */
uint64_t mix64(uint64_t x) {
  x += UINT64_C(0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
  return x ^ (x >> 31);
}

int64_t linearIndex(MlirValue tensor, const int64_t *idx) {
  int64_t linear = 0;
  for (int i = 0, r = rankOf(tensor); i < r; ++i)
    linear = linear * (dimOf(tensor, i) < 0 ? 1 : dimOf(tensor, i)) + idx[i];
  return linear;
}
