/* Template-based lowering shared by w4a16-lower-to-runtime and w4a16-lower-int8-prep; see call_template.h. */
#include "call_template.h"
#include "ir_build.h"
#include "ir_query.h"

#include "w4a16/dialect.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- text ----------------------------------------------------------------------------------------- */

void append(Text *t, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->size - t->used, fmt, ap);
    va_end(ap);
    if (n >= 0 && t->used + (size_t)n < t->size) {
      t->used += (size_t)n;
      return;
    }
    t->size = 2 * t->size + (size_t)n + 256;
    t->buf = realloc(t->buf, t->size);
  }
}

static void appendStringRef(MlirStringRef s, void *userData) { append(userData, "%.*s", (int)s.length, s.data); }

void appendType(Text *t, MlirType type) { mlirTypePrint(type, appendStringRef, t); }

void appendMemrefOf(Text *t, MlirType tensor) {
  Text tmp = {NULL, 0, 0};
  appendType(&tmp, tensor);
  append(t, "memref%s", strchr(tmp.buf, '<'));
  free(tmp.buf);
}

/* The layout goes right after the element type: a tensor's encoding (appendMemrefOf's memory space) comes last. */
void appendStridedMemrefOf(Text *t, MlirType tensor) {
  const intptr_t rank = mlirShapedTypeGetRank(tensor);
  append(t, "memref<");
  for (intptr_t d = 0; d < rank; ++d) {
    const int64_t n = mlirShapedTypeGetDimSize(tensor, d);
    if (mlirShapedTypeIsDynamicSize(n))
      append(t, "?x");
    else
      append(t, "%lldx", (long long)n);
  }
  appendType(t, mlirShapedTypeGetElementType(tensor));
  append(t, ", strided<[");
  for (intptr_t d = 0; d < rank; ++d)
    append(t, "%s?", d ? ", " : "");
  append(t, "], offset: ?>");
  const MlirAttribute encoding = mlirRankedTensorTypeGetEncoding(tensor);
  if (!mlirAttributeIsNull(encoding)) {
    append(t, ", ");
    mlirAttributePrint(encoding, appendStringRef, t);
  }
  append(t, ">");
}

/* --- parsing a template ---------------------------------------------------------------------------- */

typedef struct ParseErrors {
  Text first; /* message of the first error */
  int count;
} ParseErrors;

static MlirLogicalResult captureParseDiagnostic(MlirDiagnostic d, void *userData) {
  ParseErrors *errors = userData;
  if (mlirDiagnosticGetSeverity(d) == MlirDiagnosticError && errors->count++ == 0)
    mlirDiagnosticPrint(d, appendStringRef, &errors->first);
  return mlirLogicalResultSuccess(); /* handled: no other handler sees a template location */
}

static MlirWalkResult relocate(MlirOperation op, void *userData) {
  MlirLocation at = *(const MlirLocation *)userData;
  mlirOperationSetLocation(op, at);
  for (intptr_t r = 0, nr = mlirOperationGetNumRegions(op); r < nr; ++r)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (intptr_t a = 0, na = mlirBlockGetNumArguments(b); a < na; ++a)
        mlirBlockArgumentSetLocation(mlirBlockGetArgument(b, a), at);
  return MlirWalkResultAdvance;
}

MlirModule parseTemplate(MlirContext ctx, const char *text, MlirLocation at, const char *what) {
  ParseErrors errors = {{NULL, 0, 0}, 0};
  MlirDiagnosticHandlerID handler = mlirContextAttachDiagnosticHandler(ctx, captureParseDiagnostic, &errors, NULL);
  MlirModule parsed = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  mlirContextDetachDiagnosticHandler(ctx, handler);
  if (mlirModuleIsNull(parsed)) {
    Text msg = {NULL, 0, 0};
    append(&msg, "%s", what);
    if (errors.first.buf)
      append(&msg, ": %s", errors.first.buf);
    mlirEmitError(at, msg.buf);
    free(msg.buf);
  } else {
    mlirOperationWalk(mlirModuleGetOperation(parsed), relocate, &at, MlirWalkPreOrder);
  }
  free(errors.first.buf);
  return parsed;
}

/* --- symbols and functions ------------------------------------------------------------------------ */

bool hasSymbol(MlirOperation module, MlirStringRef name) {
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  bool found = !mlirOperationIsNull(mlirSymbolTableLookup(table, name));
  mlirSymbolTableDestroy(table);
  return found;
}

static MlirStringRef symbolName(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirSymbolTableGetSymbolAttributeName());
  return mlirAttributeIsNull(a) ? (MlirStringRef){NULL, 0} : mlirStringAttrGetValue(a);
}

void moveSymbols(MlirModule from, MlirOperation module) {
  MlirBlock target = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(from));
  while (!mlirOperationIsNull(op)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (!hasSymbol(module, symbolName(op))) {
      mlirOperationRemoveFromParent(op);
      mlirBlockAppendOwnedOperation(target, op);
    }
    op = next;
  }
}

/* Public functions with a body get the C interface, so compiled code exports _mlir_ciface_<name>. */
static void exportCInterfaces(MlirOperation module) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    bool isFunc = opIs(op, "func.func");
    bool isPrivate = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlirSymbolTableGetVisibilityAttributeName()));
    bool hasBody = isFunc && !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
    if (isFunc && !isPrivate && hasBody)
      mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("llvm.emit_c_interface"), mlirUnitAttrGet(ctx));
  }
}

bool replaceWithTemplateCall(MlirOperation module, MlirOperation op, const char *name, const char *text,
                             const char *what) {
  if (text) {
    MlirModule parsed = parseTemplate(mlirOperationGetContext(op), text, mlirOperationGetLocation(op), what);
    if (mlirModuleIsNull(parsed))
      return false;
    moveSymbols(parsed, module);
    mlirModuleDestroy(parsed);
  }
  return replaceWithCall(op, name);
}

void rewriteEach(MlirOperation root, MlirExternalPass pass, bool (*select)(MlirOperation op, void *data),
                 bool (*rewrite)(MlirOperation root, MlirOperation op, int index)) {
  OpList found = collectOps(root, select, NULL, MlirWalkPostOrder);
  for (int i = 0; i < found.count; ++i)
    if (!rewrite(root, found.ops[i], i)) {
      mlirExternalPassSignalFailure(pass);
      break;
    }
  free(found.ops);
}

/* --- one op ----------------------------------------------------------------------------------------- */

static bool lowerOne(const TemplateLoweringSpec *spec, MlirOperation module, MlirOperation op, int index) {
  char name[96];
  for (int suffix = index;; suffix += 1000) { /* a name the module does not use yet */
    snprintf(name, sizeof name, "%s_%d", spec->functionPrefix, suffix);
    if (!hasSymbol(module, mlirStringRefCreateFromCString(name)))
      break;
  }
  Text text = {NULL, 0, 0};
  spec->writeCallFunction(&text, op, name);
  char what[160];
  snprintf(what, sizeof what, "%s: could not build the runtime call", spec->argument);
  const bool replaced = replaceWithTemplateCall(module, op, name, text.buf, what);
  free(text.buf);
  return replaced;
}

/* --- the pass --------------------------------------------------------------------------------------- */

static bool isOpNamed(MlirOperation op, void *names) {
  for (const char *const *name = names; *name; ++name)
    if (opIs(op, *name))
      return true;
  return false;
}

static void lowerRun(MlirOperation module, MlirExternalPass pass, void *userData) {
  const TemplateLoweringSpec *spec = userData;
  OpList list = collectOps(module, isOpNamed, (void *)spec->opNames, MlirWalkPreOrder);
  for (int i = 0; i < list.count; ++i)
    if (!lowerOne(spec, module, list.ops[i], i)) {
      mlirExternalPassSignalFailure(pass);
      break;
    }
  free(list.ops);
  exportCInterfaces(module);
}

static MlirLogicalResult lowerInitialize(MlirContext ctx, void *userData) {
  (void)userData;
  return w4a16LoadDialect(ctx);
}

static void noop(void *userData) { (void)userData; }
static void *sameSpec(void *userData) { return userData; } /* the spec is static and immutable */

MlirPass createTemplateLoweringPass(const TemplateLoweringSpec *spec) {
  MlirExternalPassCallbacks callbacks = {noop, noop, lowerInitialize, sameSpec, lowerRun};
  MlirDialectHandle dialects[8];
  intptr_t numDialects = 0;
  while (numDialects < 8 && spec->dialects[numDialects]) {
    dialects[numDialects] = spec->dialects[numDialects]();
    ++numDialects;
  }
  return mlirCreateExternalPass(mlirTypeIDCreate(spec->typeId), mlirStringRefCreateFromCString(spec->name),
                                mlirStringRefCreateFromCString(spec->argument),
                                mlirStringRefCreateFromCString(spec->description),
                                mlirStringRefCreateFromCString("builtin.module"), numDialects, dialects, callbacks,
                                (void *)spec);
}
