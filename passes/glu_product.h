/* The GLU product that w4a16-merge-siblings merges and w4a16-split-chunked-glu splits a gate_up projection for
 * (issue #21): two values, gate and up, each used only through the same view ops by one elementwise consumer
 * that computes act(gate) * up -- act applied inside the gate's fused op, or on the way to the consumer by
 * elementwise ops that only the gate's path holds (torch-mlir's Phi3MLP: one generic for silu(gate), one for
 * up * that). Checked by evaluation at sample points: any spelling of the product, either factor order. */
#ifndef W4A16_GLU_PRODUCT_H
#define W4A16_GLU_PRODUCT_H

#include "eval.h"

enum { kGluMaxPath = 8 };

typedef struct GluProduct {
  MlirOperation consumer;  /* the op computing the product; its result is what a merged glu result replaces */
  MlirValue aSeen, bSeen;  /* a and b through their (identical) views: the factors the consumer's path reads */
  MlirOperation path[2][kGluMaxPath]; /* the elementwise ops between aSeen (bSeen) and the consumer */
  int pathLength[2];
  bool bIsGate;            /* the activation applies to b (with none, a is the gate) */
  int activation;          /* W4A16_ACT_NONE, _SILU or _GELU_TANH: applied to the gate on the consumer's path */
} GluProduct;

/* The ops from v on, each the only data user (besides tensor.dim) of the one before: elementwise ops with one
 * result (and views, with throughViews), and the op after the last of them; at most max. Returns how many. */
int gluForwardPath(MlirValue v, bool throughViews, MlirOperation *ops, int max);

/* NULL when a and b (of one type) feed such a product, with *p filled; else why not. Besides the one data use,
 * a value on the way may be read by tensor.dim (exporters size their outputs so). With pathActivation false the
 * consumer's path must compute the plain product gate * up (the gate's fused op applies its activation). */
const char *findGluProduct(MlirValue a, MlirValue b, bool pathActivation, GluProduct *p);

/* Makes the consumer's users read `merged` (act(gate) * up, of a's type, defined before every user of a and b)
 * through the views p sees a through, and every tensor.dim on the way read the same dim of it: a, b and the
 * ops between them and the consumer are then unused (eraseDeadOps takes the consumer and what only it used). */
void replaceGluConsumer(const GluProduct *p, MlirValue a, MlirValue b, MlirValue merged);

#endif
