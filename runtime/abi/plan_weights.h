/* The compiled-code plans' weights (w4a16_rt_abi.c's plan cache, weights.c's conversion): what a plan is looked
 * up by, and making a plan from the weight's bytes in any layout the op accepts. Internal to w4a16_rt_abi. */
#ifndef W4A16_PLAN_WEIGHTS_H
#define W4A16_PLAN_WEIGHTS_H

#include "w4a16/runtime_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a plan is looked up by: the weight's buffers, shape, layouts, code width and backend. */
typedef struct PlanKey {
  const void *weight;
  const uint16_t *scales;
  int64_t K, N, groupSize;
  int weightLayout, scalesLayout, codeBytes;
  w4a16_backend backend;
  /* Zero points (none: the constant zeroPoint, 8 for the symmetric form): the tensor's data, its element
   * kind and the layout and offset the op states. */
  const void *zeroPoints;
  int zpKind, zpLayout, zpOffset;
  double zeroPoint;
  /* Element types of x/bias/residual/out and of the scales (w4a16_element_type). */
  int ioType, scalesType;
  /* Act-order's g_idx (K int32, row k's group), NULL: row k is in group k / G. */
  const int32_t *groupIndex;
  /* The pointers above are device pointers (GPU-target code). */
  bool onDevice;
  /* Element strides of the weight, scales and zero-point tensors, (rows, cols) as their layouts state them: a
   * window of a larger buffer (a column slice of a gate_up projection) is not row-major, and two windows of one
   * buffer may start at the same element. */
  int64_t weightStrides[2], scalesStrides[2], zpStrides[2];
} PlanKey;

/* One plan's weights: one PlanKey, or the members of a w4a16.merged_matmul (issue #21) in call order, whose
 * columns the plan holds side by side (glu: gate and up interleaved by fours, runtime.h). */
typedef struct GroupKey {
  int count;
  bool glu;
  PlanKey member[W4A16_MAX_MERGED];
} GroupKey;

enum { ZP_NONE, ZP_I4, ZP_I8, ZP_I32, ZP_F16, ZP_BF16, ZP_F32 };

/* Failures write their detail to why (WHY_SIZE bytes); the entry point reports it once. */
enum { WHY_SIZE = 320, FALLBACK_SIZE = 160 };

/* A plan from the weights' current bytes (read through their strides), converted to docs/contract.md §1's format where they are not. It runs
 * on the key's backend, except where the CUDA kernels do not take the shape (K not a multiple of 128): host
 * memory then runs on the CPU reference (*runsOn says so and fallback, FALLBACK_SIZE bytes, why); device memory
 * (GPU-target code) is an error. */
w4a16_status planFromWeights(const GroupKey *key, w4a16_plan **plan, w4a16_backend *runsOn, char *fallback,
                             char *why);

/* The (rows, cols) of a zero-point tensor of this layout (flags ignored) for `groups` groups and N columns;
 * the bits of the element that packs its nibbles (32: i32 words, 8: bytes), 0 when one element holds one. */
int zeroPointShape(int zpLayout, int64_t groups, int64_t N, int64_t *rows, int64_t *cols);

/* A device copy of `bytes` bytes at host: NULL for a NULL host pointer, or once *ok is false (a failed copy sets
 * it; cudaGetLastError says why). Only in CUDA builds. */
void *copyToDevice(const void *host, size_t bytes, bool *ok);

#endif
