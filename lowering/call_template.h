/* What the lowering passes share: an op of ours becomes a func.call of a private function written as IR
 * text (the template reads like the IR it produces), parsed and merged into the module; entry_points.c
 * merges its text the same way. */
#ifndef W4A16_CALL_TEMPLATE_H
#define W4A16_CALL_TEMPLATE_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

typedef struct Text {
  char *buf;
  size_t used, size;
} Text;

void append(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void appendType(Text *t, MlirType type);
/* "tensor<?x256xf16>" -> "memref<?x256xf16>" */
void appendMemrefOf(Text *t, MlirType tensor);
/* "tensor<32x64xi32>" -> "memref<32x64xi32, strided<[?, ?], offset: ?>>": any window of a buffer (a bufferized
 * tensor.extract_slice) has this type without a copy. */
void appendStridedMemrefOf(Text *t, MlirType tensor);

/* Parses template text into a module whose ops and block arguments all carry `at`, the location of what the
 * template stands for, so that any later diagnostic about them points into the user's input. The parse's own
 * diagnostics (located in the template text) are not passed on: a template that does not parse is reported
 * once, at `at`, as "<what>: <the parse's first error>", and the result is null. */
MlirModule parseTemplate(MlirContext ctx, const char *text, MlirLocation at, const char *what);

bool hasSymbol(MlirOperation module, MlirStringRef name);
/* Moves the top-level ops of `from` into `module`, skipping symbols it already has (the declarations a
 * template repeats so that it parses on its own). */
void moveSymbols(MlirModule from, MlirOperation module);

/* Replaces op by a func.call of @name, first merging into `module` the functions of `text` (the template of
 * @name, parsed at op's location; NULL: the module has @name already). `what` prefixes a parse error. False, with
 * the error reported, when the template does not parse or op has too many operands or results for a call. */
bool replaceWithTemplateCall(MlirOperation module, MlirOperation op, const char *name, const char *text,
                             const char *what);

/* For each op under root that `select` picks (in post-order), rewrite(root, op, its number); the first rewrite
 * that fails signals the pass's failure and ends the run. */
void rewriteEach(MlirOperation root, MlirExternalPass pass, bool (*select)(MlirOperation op, void *data),
                 bool (*rewrite)(MlirOperation root, MlirOperation op, int index));

typedef struct TemplateLoweringSpec {
  const void *typeId; /* address of a static, 8-byte aligned object unique to the pass */
  const char *name, *argument, *description;
  const char *opNames[3];     /* the ops lowered, e.g. "w4a16.fused_matmul" (NULL-terminated) */
  const char *functionPrefix; /* private functions are named <prefix>_<n> */
  /* Writes the runtime declaration(s) and `func.func private @<name>` taking the op's operands and
   * returning its results. */
  void (*writeCallFunction)(Text *t, MlirOperation op, const char *name);
  MlirDialectHandle (*dialects[8])(void); /* dialects the template uses (handle getters, NULL-terminated) */
} TemplateLoweringSpec;

/* A pass on builtin.module that replaces every op named in spec->opNames by a call of its template function and
 * gives public functions llvm.emit_c_interface (compiled code then exports _mlir_ciface_<name>). */
MlirPass createTemplateLoweringPass(const TemplateLoweringSpec *spec);

#endif
