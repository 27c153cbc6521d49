/* Parsing text into a module under a file name of the tool's choosing.
 *
 * mlirModuleCreateParse behaves like mlir-opt (one module op is taken as is, other top-level ops are wrapped
 * in a new module) but cannot name its buffer: its locations carry a fixed file name. The tools learn that name
 * once, show it as the real one while parsing (DiagHandler's alias) and rename the locations afterwards, so
 * that every later diagnostic points into the user's input. */
#ifndef W4A16_TOOLS_NAMED_PARSE_H
#define W4A16_TOOLS_NAMED_PARSE_H

#include "diagnostics.h"
#include "strbuf.h"

#include "mlir-c/IR.h"

#include <stdbool.h>

/* The file name mlirModuleCreateParse gives its locations (that of the implicit module of an empty input),
 * appended to out; h->alias is pointed at it. */
void named_parse_init(MlirContext ctx, DiagHandler *h, StrBuf *out);

/* Parses text[0, len) as a module whose locations name `name` (diagnostics during the parse too). The
 * module the parser made up around bare top-level ops gets <name>:<line>:<col>; null after a diagnosed
 * failure. The caller owns the result (mlirOperationDestroy). */
MlirOperation named_parse(MlirContext ctx, DiagHandler *h, const char *text, size_t len, const char *name,
                          unsigned line, unsigned col);

#endif
