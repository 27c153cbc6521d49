#include "named_parse.h"

#include <string.h>

void named_parse_init(MlirContext ctx, DiagHandler *h, StrBuf *out) {
  MlirModule probe = mlirModuleCreateParse(ctx, mlirStringRefCreate("", 0));
  if (!mlirModuleIsNull(probe)) {
    MlirLocation loc = mlirOperationGetLocation(mlirModuleGetOperation(probe));
    if (mlirLocationIsAFileLineColRange(loc)) {
      MlirStringRef n = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
      sb_append(out, n.data, n.length);
    }
    mlirModuleDestroy(probe);
  }
  if (!out->data)
    sb_append(out, "", 0);
  h->alias = mlirStringRefCreate(out->data, out->len);
}

typedef struct Rename {
  MlirStringRef from; /* the buffer name mlirModuleCreateParse used */
  MlirStringRef to;
} Rename;

static MlirLocation rename_loc(MlirLocation loc, const Rename *rn) {
  if (mlirLocationIsNull(loc) || !mlirLocationIsAFileLineColRange(loc))
    return loc;
  MlirStringRef file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
  if (!mlirStringRefEqual(file, rn->from))
    return loc;
  unsigned l0 = (unsigned)mlirLocationFileLineColRangeGetStartLine(loc);
  unsigned c0 = (unsigned)mlirLocationFileLineColRangeGetStartColumn(loc);
  unsigned l1 = (unsigned)mlirLocationFileLineColRangeGetEndLine(loc);
  unsigned c1 = (unsigned)mlirLocationFileLineColRangeGetEndColumn(loc);
  MlirContext ctx = mlirLocationGetContext(loc);
  if (l0 == l1 && c0 == c1)
    return mlirLocationFileLineColGet(ctx, rn->to, l0, c0);
  return mlirLocationFileLineColRangeGet(ctx, rn->to, l0, c0, l1, c1);
}

static MlirWalkResult rename_walk(MlirOperation op, void *user) {
  const Rename *rn = user;
  mlirOperationSetLocation(op, rename_loc(mlirOperationGetLocation(op), rn));
  intptr_t num_regions = mlirOperationGetNumRegions(op);
  for (intptr_t r = 0; r < num_regions; ++r) {
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b)) {
      intptr_t num_args = mlirBlockGetNumArguments(b);
      for (intptr_t a = 0; a < num_args; ++a) {
        MlirValue arg = mlirBlockGetArgument(b, a);
        mlirBlockArgumentSetLocation(arg, rename_loc(mlirValueGetLocation(arg), rn));
      }
    }
  }
  return MlirWalkResultAdvance;
}

MlirOperation named_parse(MlirContext ctx, DiagHandler *h, const char *text, size_t len, const char *name,
                          unsigned line, unsigned col) {
  h->alias_active = true;
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreate(text, len));
  h->alias_active = false;
  if (mlirModuleIsNull(module))
    return (MlirOperation){NULL};
  MlirOperation op = mlirModuleGetOperation(module); /* owned by the caller now */
  MlirLocation module_loc = mlirOperationGetLocation(op);
  Rename rn = {h->alias, mlirStringRefCreateFromCString(name)};
  /* The module the parser made up sits at <unnamed>:0:0; a written one has a real line. */
  bool implicit = mlirLocationIsAFileLineColRange(module_loc) &&
                  mlirLocationFileLineColRangeGetStartLine(module_loc) == 0 &&
                  mlirLocationFileLineColRangeGetStartColumn(module_loc) == 0 &&
                  mlirStringRefEqual(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(module_loc)), rn.from);
  if (!mlirStringRefEqual(rn.from, rn.to))
    mlirOperationWalk(op, rename_walk, &rn, MlirWalkPreOrder);
  if (implicit)
    mlirOperationSetLocation(op, mlirLocationFileLineColGet(ctx, rn.to, line, col));
  return op;
}
