#include "diagnostics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void source_init(Source *s, const char *name, const char *text, size_t len) {
  *s = (Source){.name = name, .text = text, .len = len};
  size_t n = 1;
  for (size_t i = 0; i < len; ++i)
    n += text[i] == '\n';
  s->line_starts = malloc(n * sizeof(size_t));
  if (!s->line_starts)
    tool_out_of_memory();
  s->line_starts[s->num_lines++] = 0;
  for (size_t i = 0; i < len; ++i)
    if (text[i] == '\n')
      s->line_starts[s->num_lines++] = i + 1;
}

void source_free(Source *s) {
  free(s->line_starts);
  *s = (Source){0};
}

bool source_line(const Source *s, unsigned line, const char **start, size_t *len) {
  if (!s->text || !s->line_starts || line == 0 || line > s->num_lines)
    return false;
  size_t b = s->line_starts[line - 1], e = b;
  while (e < s->len && s->text[e] != '\n' && s->text[e] != '\r')
    ++e;
  *start = s->text + b;
  *len = e - b;
  return true;
}

void source_position(const Source *s, size_t offset, unsigned *line, unsigned *col) {
  /* The last line starting at or before offset. */
  size_t lo = 0, hi = s->num_lines;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->line_starts[mid] <= offset)
      lo = mid;
    else
      hi = mid;
  }
  *line = (unsigned)lo + 1;
  *col = (unsigned)(offset - s->line_starts[lo]) + 1;
}

bool diag_find_file_loc(MlirLocation loc, MlirStringRef *file, unsigned *line, unsigned *col) {
  if (mlirLocationIsNull(loc))
    return false;
  if (mlirLocationIsAFileLineColRange(loc)) {
    *file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    *line = (unsigned)mlirLocationFileLineColRangeGetStartLine(loc);
    *col = (unsigned)mlirLocationFileLineColRangeGetStartColumn(loc);
    return true;
  }
  if (mlirLocationIsAName(loc))
    return diag_find_file_loc(mlirLocationNameGetChildLoc(loc), file, line, col);
  if (mlirLocationIsACallSite(loc))
    return diag_find_file_loc(mlirLocationCallSiteGetCallee(loc), file, line, col) ||
           diag_find_file_loc(mlirLocationCallSiteGetCaller(loc), file, line, col);
  if (mlirLocationIsAFused(loc)) {
    intptr_t n = mlirLocationFusedGetNumLocations(loc);
    if (n <= 0)
      return false;
    MlirLocation *locs = malloc((size_t)n * sizeof(MlirLocation));
    if (!locs)
      tool_out_of_memory();
    mlirLocationFusedGetLocations(loc, locs);
    bool found = false;
    for (intptr_t i = 0; i < n && !found; ++i)
      found = diag_find_file_loc(locs[i], file, line, col);
    free(locs);
    return found;
  }
  return false;
}

const char *diag_severity_name(MlirDiagnosticSeverity s) {
  switch (s) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "error";
}

static bool is_unknown_loc(MlirLocation loc) {
  return mlirLocationIsNull(loc) || mlirLocationEqual(loc, mlirLocationUnknownGet(mlirLocationGetContext(loc)));
}

/* Appends source line `line` and a caret under column `col` (1-based bytes; 0 = the first column), followed by
 * `~` under the next range_len - 1 bytes (llvm::SourceMgr's rendering of a range; expanded tabs only). */
static void render_source_line(const Source *src, unsigned line, unsigned col, size_t range_len, bool expand_tabs,
                               StrBuf *out) {
  const char *l;
  size_t n;
  if (!source_line(src, line, &l, &n))
    return;
  size_t target = col ? (size_t)col - 1 : 0;
  if (!expand_tabs) {
    sb_append(out, l, n);
    sb_puts(out, "\n");
    for (size_t i = 0; i < target; ++i)
      sb_append(out, i < n && l[i] == '\t' ? "\t" : " ", 1);
    sb_puts(out, "^\n");
    return;
  }
  size_t vis_col = 0, caret_col = 0, range_end = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i == target)
      caret_col = vis_col;
    if (range_len && i == target + range_len - 1)
      range_end = vis_col;
    if (l[i] == '\t') {
      size_t next = (vis_col / 8 + 1) * 8;
      sb_putc_n(out, ' ', next - vis_col);
      vis_col = next;
    } else {
      sb_append(out, &l[i], 1);
      ++vis_col;
    }
  }
  if (col && target >= n) /* past the end of the line: one column per byte after it */
    caret_col = vis_col + (target - n);
  sb_puts(out, "\n");
  sb_putc_n(out, ' ', caret_col);
  sb_puts(out, "^");
  if (range_end > caret_col)
    sb_putc_n(out, '~', range_end - caret_col);
  sb_puts(out, "\n");
}

/* "<location>: <severity>: <message>" and, when quote_line, the quoted line of the source. */
static void render_at(const DiagHandler *h, MlirLocation loc, const char *severity, MlirStringRef message,
                      bool quote_line, StrBuf *out) {
  MlirStringRef file = {0};
  unsigned line = 0, col = 0;
  bool has_file = diag_find_file_loc(loc, &file, &line, &col);
  const Source *src = h->src;
  if (has_file && h->alias_active && src && src->name && mlirStringRefEqual(file, h->alias))
    file = mlirStringRefCreateFromCString(src->name);
  if (has_file) {
    sb_append(out, file.data, file.length);
    sb_printf(out, ":%u:%u: ", line, col);
  } else if (h->style.unlocated_prefix) {
    sb_printf(out, "%s: ", h->style.unlocated_prefix);
  } else if (!is_unknown_loc(loc)) {
    mlirLocationPrint(loc, sb_callback, out);
    sb_puts(out, ": ");
  }
  sb_printf(out, "%s: ", severity);
  sb_append(out, message.data, message.length);
  sb_puts(out, "\n");
  if (quote_line && has_file && src && src->name && strref_eq(file, src->name))
    render_source_line(src, line, col, 0, h->style.expand_tabs, out);
}

static void render_one(const DiagHandler *h, MlirDiagnostic d, bool quote_line, StrBuf *out) {
  StrBuf message = {0};
  mlirDiagnosticPrint(d, sb_callback, &message);
  render_at(h, mlirDiagnosticGetLocation(d), diag_severity_name(mlirDiagnosticGetSeverity(d)),
            mlirStringRefCreate(sb_cstr(&message), message.len), quote_line, out);
  sb_free(&message);
}

void diag_render_error_at(const DiagHandler *h, MlirLocation loc, const char *message, StrBuf *out) {
  render_at(h, loc, "error", mlirStringRefCreateFromCString(message), true, out);
}

void diag_render_source_error(const DiagHandler *h, unsigned line, unsigned col, size_t range_len,
                              const char *message, StrBuf *out) {
  sb_printf(out, "%s:%u:%u: error: %s\n", h->src->name, line, col, message);
  render_source_line(h->src, line, col, range_len, h->style.expand_tabs, out);
}

void diag_render(const DiagHandler *h, MlirDiagnostic d, StrBuf *out) {
  render_one(h, d, true, out);
  MlirLocation prev = mlirDiagnosticGetLocation(d);
  intptr_t num_notes = mlirDiagnosticGetNumNotes(d);
  for (intptr_t i = 0; i < num_notes; ++i) {
    MlirDiagnostic note = mlirDiagnosticGetNote(d, i);
    MlirLocation loc = mlirDiagnosticGetLocation(note);
    render_one(h, note, !h->style.notes_quote_changed_locs_only || !mlirLocationEqual(loc, prev), out);
    prev = loc;
  }
}

MlirLogicalResult diag_handle(MlirDiagnostic d, void *handler) {
  DiagHandler *h = handler;
  StrBuf text = {0};
  diag_render(h, d, &text);
  bool is_error = mlirDiagnosticGetSeverity(d) == MlirDiagnosticError;
  if (is_error)
    ++h->num_errors;
  if (h->buffering) {
    if (is_error && h->buffered_errors++ == 0)
      mlirDiagnosticPrint(d, sb_callback, &h->first_error_message);
    sb_append(&h->buffered, sb_cstr(&text), text.len);
  } else {
    fwrite(sb_cstr(&text), 1, text.len, stderr);
    fflush(stderr);
  }
  sb_free(&text);
  return mlirLogicalResultSuccess();
}

void diag_start_buffering(DiagHandler *h) {
  h->buffering = true;
  h->buffered_errors = 0;
  sb_clear(&h->buffered);
  sb_clear(&h->first_error_message);
}

void diag_stop_buffering(DiagHandler *h, bool flush) {
  h->buffering = false;
  if (flush && h->buffered.len) {
    fwrite(h->buffered.data, 1, h->buffered.len, stderr);
    fflush(stderr);
  }
  sb_clear(&h->buffered);
}

void diag_handler_free(DiagHandler *h) {
  sb_free(&h->buffered);
  sb_free(&h->first_error_message);
}
