/* --verify-diagnostics; see verify_diagnostics.h. Messages and rules follow mlir-opt's verifier (MLIR 22,
 * mlir/lib/IR/Diagnostics.cpp), so that tests written for one pass with the other. */
#include "verify_diagnostics.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Expected {
  MlirDiagnosticSeverity kind;
  bool unknown_loc;         /* @unknown: matches diagnostics without a file location */
  unsigned line;            /* the line the diagnostic must be reported at */
  unsigned at_line, at_col; /* where "expected-..." is written, for messages */
  char *text;               /* between {{ and }} */
  size_t text_len;
  bool is_regex;
  regex_t re;
  bool matched;
};

struct Deferred {
  MlirLocation loc; /* uniqued by the context: valid after the handler returned */
  MlirDiagnosticSeverity kind;
  char *message;
};

static const struct {
  const char *name;
  MlirDiagnosticSeverity severity;
} kKinds[] = {{"error", MlirDiagnosticError},
              {"note", MlirDiagnosticNote},
              {"remark", MlirDiagnosticRemark},
              {"warning", MlirDiagnosticWarning}};

static void *grow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return p;
  *cap = *cap ? 2 * *cap : 8;
  if (*cap < need)
    *cap = need;
  p = realloc(p, *cap * size);
  if (!p)
    tool_out_of_memory();
  return p;
}

static void print_error(StrBuf *text) {
  fwrite(sb_cstr(text), 1, text->len, stderr);
  fflush(stderr);
  sb_free(text);
}

/* ---- designators ---- */

typedef enum { AT_LINE, AT_OFFSET, AT_ABOVE, AT_BELOW, AT_UNKNOWN } AtKind;

typedef struct Designator {
  size_t start; /* of "expected-" */
  int kind;     /* index into kKinds */
  bool regex;
  AtKind at;
  long offset;
  size_t text_begin, text_end;
} Designator;

static bool has_word(const char *l, size_t n, size_t p, const char *word) {
  size_t m = strlen(word);
  return p + m <= n && memcmp(l + p, word, m) == 0;
}

/* The leftmost match in the line of
 *   expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *{{(.*)}}$ */
static bool match_designator(const char *l, size_t n, Designator *out) {
  for (size_t i = 0; i + 9 <= n; ++i) {
    if (memcmp(l + i, "expected-", 9) != 0)
      continue;
    Designator d = {.start = i, .kind = -1, .at = AT_LINE};
    size_t p = i + 9;
    for (int k = 0; k < 4 && d.kind < 0; ++k)
      if (has_word(l, n, p, kKinds[k].name)) {
        d.kind = k;
        p += strlen(kKinds[k].name);
      }
    if (d.kind < 0)
      continue;
    if (has_word(l, n, p, "-re")) {
      d.regex = true;
      p += 3;
    }
    while (p < n && l[p] == ' ')
      ++p;
    if (p < n && l[p] == '@') {
      ++p;
      if (p < n && (l[p] == '+' || l[p] == '-')) {
        size_t q = p + 1;
        while (q < n && isdigit((unsigned char)l[q]))
          ++q;
        if (q == p + 1)
          continue;
        char digits[32];
        snprintf(digits, sizeof digits, "%.*s", (int)(q - p - 1), l + p + 1);
        d.offset = strtol(digits, NULL, 0) * (l[p] == '-' ? -1 : 1); /* radix 0, as StringRef::getAsInteger */
        d.at = AT_OFFSET;
        p = q;
      } else if (has_word(l, n, p, "above")) {
        d.at = AT_ABOVE;
        p += 5;
      } else if (has_word(l, n, p, "below")) {
        d.at = AT_BELOW;
        p += 5;
      } else if (has_word(l, n, p, "unknown")) {
        d.at = AT_UNKNOWN;
        p += 7;
      } else {
        continue;
      }
    }
    while (p < n && l[p] == ' ')
      ++p;
    if (p + 4 > n || l[p] != '{' || l[p + 1] != '{' || l[n - 2] != '}' || l[n - 1] != '}')
      continue;
    d.text_begin = p + 2;
    d.text_end = n - 2;
    *out = d;
    return true;
  }
  return false;
}

/* The -re text as one POSIX extended regex: literal parts escaped, {{...}} parts as groups. NULL after a
 * reported error. */
static char *regex_of(Verifier *v, const Expected *e) {
  StrBuf re = {0};
  const char *s = e->text, *end = e->text + e->text_len;
  while (s < end) {
    const char *open = strstr(s, "{{");
    if (!open || open >= end)
      open = end;
    for (; s < open; ++s) {
      if (strchr("()^$|*+?.[]\\{}", *s))
        sb_putc_n(&re, '\\', 1);
      sb_append(&re, s, 1);
    }
    if (s == end)
      break;
    s += 2;
    const char *close = strstr(s, "}}");
    StrBuf msg = {0};
    if (!close || close > end) {
      diag_render_source_error(v->h, e->at_line, e->at_col, e->text_len, "found start of regex with no end '}}'", &msg);
      print_error(&msg);
      sb_free(&re);
      return NULL;
    }
    StrBuf part = {0};
    sb_append(&part, s, (size_t)(close - s));
    regex_t check;
    int rc = regcomp(&check, sb_cstr(&part), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[256];
      regerror(rc, &check, why, sizeof why);
      StrBuf text = {0};
      sb_printf(&text, "invalid regex: %s", why);
      diag_render_source_error(v->h, e->at_line, e->at_col, e->text_len, sb_cstr(&text), &msg);
      print_error(&msg);
      sb_free(&text);
      sb_free(&part);
      sb_free(&re);
      return NULL;
    }
    regfree(&check);
    sb_puts(&re, "(");
    sb_append(&re, part.data, part.len);
    sb_puts(&re, ")");
    sb_free(&part);
    s = close + 2;
  }
  sb_append(&re, "", 0);
  return re.data;
}

void verifier_begin(Verifier *v, const char *text, size_t len) {
  v->num_expected = 0;
  v->failed = false;
  /* Lines as StringRef::split('\n') gives them, compared right-trimmed. */
  size_t num_lines = 1;
  for (size_t i = 0; i < len; ++i)
    num_lines += text[i] == '\n';
  unsigned last_plain = 0; /* 0-based index of the last line without a designator */
  size_t *below = NULL;    /* the @below designators waiting for the next such line */
  size_t num_below = 0, cap_below = 0;
  size_t line_begin = 0;
  for (unsigned index = 0; line_begin <= len; ++index) {
    const char *l = text + line_begin;
    size_t n = 0;
    while (line_begin + n < len && l[n] != '\n')
      ++n;
    size_t next = line_begin + n + 1;
    while (n > 0 && isspace((unsigned char)l[n - 1]))
      --n;
    Designator d;
    if (!match_designator(l, n, &d)) {
      for (size_t k = 0; k < num_below; ++k)
        v->expected[below[k]].line = index + 1;
      num_below = 0;
      last_plain = index;
    } else {
      v->expected = grow(v->expected, &v->cap_expected, v->num_expected + 1, sizeof *v->expected);
      Expected *e = &v->expected[v->num_expected];
      *e = (Expected){.kind = kKinds[d.kind].severity,
                      .line = index + 1,
                      .at_line = index + 1,
                      .at_col = (unsigned)d.start + 1,
                      .text_len = d.text_end - d.text_begin,
                      .is_regex = d.regex};
      e->text = malloc(e->text_len + 1);
      if (!e->text)
        tool_out_of_memory();
      memcpy(e->text, l + d.text_begin, e->text_len);
      e->text[e->text_len] = '\0';
      bool keep = true;
      if (d.regex) {
        char *pattern = regex_of(v, e);
        keep = pattern && regcomp(&e->re, pattern, REG_EXTENDED | REG_NOSUB) == 0;
        free(pattern);
        if (!keep) {
          v->failed = true;
          free(e->text);
        }
      }
      if (keep) {
        switch (d.at) {
        case AT_LINE:
          break;
        case AT_OFFSET:
          e->line = (unsigned)((long)e->line + d.offset);
          break;
        case AT_ABOVE:
          e->line = last_plain + 1;
          break;
        case AT_BELOW:
          below = grow(below, &cap_below, num_below + 1, sizeof *below);
          below[num_below++] = v->num_expected;
          e->line = (unsigned)num_lines; /* if no plain line follows */
          break;
        case AT_UNKNOWN:
          e->unknown_loc = true;
          break;
        }
        ++v->num_expected;
      }
    }
    if (next > len)
      break;
    line_begin = next;
  }
  free(below);
}

/* ---- diagnostics ---- */

static bool text_matches(const Expected *e, const char *message) {
  if (e->is_regex)
    return regexec(&e->re, message, 0, NULL, 0) == 0;
  return strstr(message, e->text) != NULL;
}

static const char *kind_name(MlirDiagnosticSeverity s) { return diag_severity_name(s); }

static void process(Verifier *v, MlirLocation loc, MlirDiagnosticSeverity kind, const char *message) {
  MlirStringRef file = {0};
  unsigned line = 0, col = 0;
  bool has_file = diag_find_file_loc(loc, &file, &line, &col);
  const Source *src = v->h->src;
  bool in_source = has_file && ((v->h->alias_active && mlirStringRefEqual(file, v->h->alias)) ||
                                (src && src->name && strref_eq(file, src->name)));
  const Expected *near_miss = NULL;
  for (size_t i = 0; i < v->num_expected; ++i) {
    Expected *e = &v->expected[i];
    /* By line in this input; a diagnostic without a file location against the @unknown ones. */
    if (has_file ? !in_source || e->unknown_loc || e->line != line : !e->unknown_loc)
      continue;
    if (!text_matches(e, message))
      continue;
    if (e->kind == kind) {
      e->matched = true;
      return;
    }
    near_miss = e;
  }
  if (v->mode == VERIFY_ONLY_EXPECTED)
    return;
  StrBuf text = {0}, out = {0};
  if (near_miss) {
    sb_printf(&text, "'%s' diagnostic emitted when expecting a '%s'", kind_name(kind), kind_name(near_miss->kind));
    diag_render_source_error(v->h, near_miss->at_line, near_miss->at_col, 0, sb_cstr(&text), &out);
  } else {
    sb_printf(&text, "unexpected %s: %s", kind_name(kind), message);
    diag_render_error_at(v->h, loc, sb_cstr(&text), &out);
  }
  sb_free(&text);
  print_error(&out);
  v->failed = true;
}

/* The note MLIR attaches to an op's error with the op printed: mlir-opt turns it off while verifying
 * diagnostics (MLIRContext::printOpOnDiagnostic, which the C API cannot reach), so the verifier passes over it. */
static bool is_op_dump_note(MlirDiagnostic d) {
  if (mlirDiagnosticGetSeverity(d) != MlirDiagnosticNote)
    return false;
  StrBuf message = {0};
  mlirDiagnosticPrint(d, sb_callback, &message);
  bool dump = strncmp(sb_cstr(&message), "see current operation: ", 23) == 0;
  sb_free(&message);
  return dump;
}

static void process_diagnostic(Verifier *v, MlirDiagnostic d) {
  if (is_op_dump_note(d))
    return;
  StrBuf message = {0};
  mlirDiagnosticPrint(d, sb_callback, &message);
  process(v, mlirDiagnosticGetLocation(d), mlirDiagnosticGetSeverity(d), sb_cstr(&message));
  sb_free(&message);
}

static void defer(Verifier *v, MlirDiagnostic d) {
  if (is_op_dump_note(d))
    return;
  StrBuf message = {0};
  mlirDiagnosticPrint(d, sb_callback, &message);
  sb_append(&message, "", 0);
  v->deferred = grow(v->deferred, &v->cap_deferred, v->num_deferred + 1, sizeof *v->deferred);
  v->deferred[v->num_deferred++] =
      (Deferred){mlirDiagnosticGetLocation(d), mlirDiagnosticGetSeverity(d), message.data};
}

MlirLogicalResult verifier_handle(MlirDiagnostic d, void *verifier) {
  Verifier *v = verifier;
  intptr_t num_notes = mlirDiagnosticGetNumNotes(d);
  if (v->h->buffering) {
    defer(v, d);
    for (intptr_t i = 0; i < num_notes; ++i)
      defer(v, mlirDiagnosticGetNote(d, i));
    return mlirLogicalResultFailure(); /* the printing handler keeps its count of the buffered errors */
  }
  if (mlirDiagnosticGetSeverity(d) == MlirDiagnosticError)
    ++v->h->num_errors;
  process_diagnostic(v, d);
  for (intptr_t i = 0; i < num_notes; ++i) /* notes are verified on their own, as in mlir-opt */
    process_diagnostic(v, mlirDiagnosticGetNote(d, i));
  return mlirLogicalResultSuccess();
}

void verifier_flush_deferred(Verifier *v, bool flush) {
  for (size_t i = 0; i < v->num_deferred; ++i) {
    if (flush)
      process(v, v->deferred[i].loc, v->deferred[i].kind, v->deferred[i].message);
    free(v->deferred[i].message);
  }
  v->num_deferred = 0;
}

static void report_unmatched(Verifier *v, const Expected *e) {
  StrBuf text = {0}, out = {0};
  sb_printf(&text, "expected %s \"%s\" was not produced", kind_name(e->kind), e->text);
  if (e->unknown_loc) /* mlir-opt reports these without a source location */
    sb_printf(&out, "<unknown>:0: error: %s\n", sb_cstr(&text));
  else
    diag_render_source_error(v->h, e->at_line, e->at_col, e->text_len, sb_cstr(&text), &out);
  sb_free(&text);
  print_error(&out);
  v->failed = true;
}

bool verifier_end(Verifier *v) {
  /* Located expectations in order, then the @unknown ones (mlir-opt's order). */
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < v->num_expected; ++i)
      if (v->expected[i].unknown_loc == (pass == 1) && !v->expected[i].matched)
        report_unmatched(v, &v->expected[i]);
  for (size_t i = 0; i < v->num_expected; ++i) {
    if (v->expected[i].is_regex)
      regfree(&v->expected[i].re);
    free(v->expected[i].text);
  }
  v->num_expected = 0;
  bool ok = !v->failed;
  v->failed = false;
  return ok;
}

void verifier_free(Verifier *v) {
  verifier_flush_deferred(v, false);
  (void)verifier_end(v);
  free(v->expected);
  free(v->deferred);
  *v = (Verifier){0};
}
