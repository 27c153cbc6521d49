/* Diagnostics of the w4a16 tools, printed the way mlir-opt's SourceMgrDiagnosticHandler does:
 *
 *   <file>:<line>:<col>: error: <message>
 *   <the source line>
 *   <spaces>^
 *
 * The tools' lit tests diff this text against mlir-opt's, so the format is the contract. */
#ifndef W4A16_TOOLS_DIAGNOSTICS_H
#define W4A16_TOOLS_DIAGNOSTICS_H

#include "strbuf.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

/* The input text with a line table, so that a diagnostic can quote its line. */
typedef struct Source {
  const char *name; /* file name as locations spell it ("<stdin>" for stdin) */
  const char *text; /* whole input, not owned */
  size_t len;
  size_t *line_starts; /* offsets of the starts of lines 1..num_lines */
  size_t num_lines;
} Source;

void source_init(Source *s, const char *name, const char *text, size_t len);
void source_free(Source *s);
/* Line `line` (1-based) without its line break; false when there is no such line. */
bool source_line(const Source *s, unsigned line, const char **start, size_t *len);
/* 1-based line and byte column of text[offset], as MLIR locations count them. */
void source_position(const Source *s, size_t offset, unsigned *line, unsigned *col);

/* The first file:line:col in loc, looking through name, call-site (callee first) and fused locations. */
bool diag_find_file_loc(MlirLocation loc, MlirStringRef *file, unsigned *line, unsigned *col);
const char *diag_severity_name(MlirDiagnosticSeverity s);

/* Where the two tools' renderings differ. w4a16-opt matches mlir-opt byte for byte (its tests diff against
 * mlir-opt); w4a16-compile's rendering predates the shared code and its output is kept as it was. */
typedef struct DiagStyle {
  /* Diagnostics without a file location start with "<unlocated_prefix>: "; NULL: with the location as MLIR
   * prints it, or nothing for an unknown location (mlir-opt). */
  const char *unlocated_prefix;
  /* Tabs of the quoted line: expanded to 8-column stops (mlir-opt), or kept, with a tab in the caret line
   * under each. */
  bool expand_tabs;
  /* A note quotes its line only when its location differs from the previous one's (mlir-opt). */
  bool notes_quote_changed_locs_only;
} DiagStyle;

/* State of the diagnostic handler of a tool's context. Zero-initialise, then set src and style. */
typedef struct DiagHandler {
  const Source *src; /* diagnostics located in src->name quote its lines */
  DiagStyle style;
  /* While alias_active, locations in the file `alias` are shown as src->name (w4a16-opt: the name that
   * mlirModuleCreateParse gives its unnamed buffer). */
  MlirStringRef alias;
  bool alias_active;
  size_t num_errors; /* error diagnostics seen; the tool resets it when it likes */
  /* Buffering: diagnostics are kept instead of printed, so that the tool can replace them. */
  bool buffering;
  StrBuf buffered;
  size_t buffered_errors;
  StrBuf first_error_message; /* message of the first buffered error, without location */
} DiagHandler;

/* Renders d and its notes. */
void diag_render(const DiagHandler *h, MlirDiagnostic d, StrBuf *out);
/* Renders an error of the tool's own at loc, located and quoted like a diagnostic. */
void diag_render_error_at(const DiagHandler *h, MlirLocation loc, const char *message, StrBuf *out);
/* "<h->src->name>:<line>:<col>: error: <message>", the line quoted and a caret under col with `~` under the
 * range_len - 1 bytes after it, as llvm::SourceMgr prints a message about a range of the source. */
void diag_render_source_error(const DiagHandler *h, unsigned line, unsigned col, size_t range_len,
                              const char *message, StrBuf *out);
/* MlirDiagnosticHandler; user data is the DiagHandler. Prints to stderr unless buffering. */
MlirLogicalResult diag_handle(MlirDiagnostic d, void *handler);
void diag_start_buffering(DiagHandler *h);
/* Ends buffering; flush prints what was kept, otherwise it is dropped. */
void diag_stop_buffering(DiagHandler *h, bool flush);
void diag_handler_free(DiagHandler *h);

#endif
