/* What the fuse passes share once a chain has matched: erasing the producers it leaves dead, located
 * explain remarks, and the external-pass plumbing of "visit every contraction, rewrite where it matches". */
#ifndef W4A16_REWRITE_H
#define W4A16_REWRITE_H

#include "match.h"
#include "w4a16/passes.h"

/* Erases the candidates left without users, then the pure producers (tensor.empty/dim, constants, views,
 * elementwise ops, values captured by their bodies) that this in turn leaves without users. */
void eraseDeadOps(OpSet *candidates);

/* `<file>:<line>:<col>: remark: <tag>: <message>` on the explain stream, when explain is on. */
void explainRemark(const W4a16FuseOptions *options, const char *tag, MlirOperation at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A pass of this library that takes W4a16FuseOptions (explain mode and stream). Set one of the two functions. */
typedef struct OptionsPassSpec {
  const void *typeId; /* address of a static, 8-byte aligned object unique to the pass */
  const char *name, *argument, *description;
  /* Called once per linalg contraction (collected before any rewrite, so erasing ops is safe as long as
   * a rewrite erases no other contraction). */
  void (*rewriteAt)(MlirOperation contraction, const W4a16FuseOptions *options);
  /* Or called once on the pass's root (w4a16-merge-siblings). */
  void (*runOnRoot)(MlirOperation root, const W4a16FuseOptions *options);
  /* With rewriteAt, optional: the contractions for which it holds are rewritten first (in walk order), then the rest. */
  bool (*rewriteFirst)(MlirOperation contraction);
} OptionsPassSpec;

/* collectOps' filter for every w4a16.fused_matmul (the whole-root passes' starting set). */
bool isFusedMatmulOp(MlirOperation op, void *unused);

MlirPass createOptionsPass(const OptionsPassSpec *spec, W4a16FuseOptions options);

#endif
