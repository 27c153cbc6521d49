/* Splitting an expression of a linalg body into elementwise generics of its own, one per input it combines: the
 * inverse of upstream's elementwise fusion, for the chains that fusion merged (split_by_input.c). */
#ifndef W4A16_SPLIT_BY_INPUT_H
#define W4A16_SPLIT_BY_INPUT_H

#include "ir_query.h"

/* Body value v of view's op as a tensor shaped like input `over` (whose map reads every loop that the inputs v
 * reads do), computed before `before`: each part of v that reads one full input by an elementwise generic of its
 * own, then one generic combining the parts. */
MlirValue splitByInput(const LinalgView *view, MlirValue v, int over, MlirOperation before, MlirLocation loc);

/* Where y (a contraction's result) is read by an elementwise linalg.generic that combines it with another tensor of
 * y's shape (the product of a GLU's gate and up), replaces that generic by its parts and their combination
 * (splitByInput). False, and nothing changed, where y's part would be y itself, or the generic is not of that kind. */
bool splitConsumerOf(MlirValue y);

#endif
