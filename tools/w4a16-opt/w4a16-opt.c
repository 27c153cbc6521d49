/* w4a16-opt: an mlir-opt-like driver for the w4a16 dialect and passes, written against the MLIR C API.
 *
 *   w4a16-opt [options] [input.mlir | -]
 *
 * Input is read from a file or stdin, parsed (with an implicit builtin.module around top-level ops, as
 * mlir-opt does), verified (MLIR verifier + w4a16VerifyOps), run through the passes named on the command
 * line, verified again and printed. Diagnostics go to stderr as `<file>:<line>:<col>: error: msg`, followed by
 * the source line and a caret, like mlir-opt.
 *
 * Pass ordering: the pass flags (--w4a16-fuse, --w4a16-explain, --w4a16-verify) and every --pass-pipeline
 * string are appended to one pass manager in the order they appear on the command line. Example:
 *   w4a16-opt --pass-pipeline='builtin.module(canonicalize)' --w4a16-fuse --pass-pipeline='builtin.module(cse)'
 * runs canonicalize, then w4a16-fuse, then cse. (C-API passes cannot be named inside a textual pipeline in
 * MLIR 22, so the text is parsed for upstream passes only.)
 *
 * Exit status: 0 on success, 1 when any input chunk failed (parse error, verifier error, failed pass),
 * 2 on a command-line error (unknown option, missing value, malformed --pass-pipeline).
 */
#include "w4a16/lowering.h"
#include "w4a16/w4a16.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef W4A16_VERSION
#define W4A16_VERSION "unknown"
#endif

static const char *const kToolName = "w4a16-opt";
static const char *const kDefaultSplitMarker = "// -----";

/* ------------------------------------------------------------------------------------------------------ */
/* Growable string buffer.                                                                                 */
/* ------------------------------------------------------------------------------------------------------ */

typedef struct StrBuf {
  char *data;
  size_t len, cap;
} StrBuf;

static void sb_reserve(StrBuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap)
    return;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1)
    cap *= 2;
  char *data = realloc(sb->data, cap);
  if (!data) {
    fprintf(stderr, "%s: error: out of memory\n", kToolName);
    exit(1);
  }
  sb->data = data;
  sb->cap = cap;
}

static void sb_append(StrBuf *sb, const char *s, size_t n) {
  sb_reserve(sb, n);
  if (n)
    memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

static void sb_puts(StrBuf *sb, const char *s) { sb_append(sb, s, strlen(s)); }

static void sb_putc_n(StrBuf *sb, char c, size_t n) {
  sb_reserve(sb, n);
  memset(sb->data + sb->len, c, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

static void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    sb_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    sb->len += (size_t)n;
  }
  va_end(ap2);
}

static void sb_clear(StrBuf *sb) {
  sb->len = 0;
  if (sb->data)
    sb->data[0] = '\0';
}

static void sb_free(StrBuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

/* MlirStringCallback that appends to a StrBuf. */
static void sb_callback(MlirStringRef s, void *user) { sb_append((StrBuf *)user, s.data, s.length); }

static bool strref_eq(MlirStringRef a, const char *b) {
  size_t n = strlen(b);
  return a.length == n && (n == 0 || memcmp(a.data, b, n) == 0);
}

/* ------------------------------------------------------------------------------------------------------ */
/* Options.                                                                                                */
/* ------------------------------------------------------------------------------------------------------ */

typedef enum ItemKind {
  ITEM_W4A16_FUSE,    /* --w4a16-fuse */
  ITEM_W4A16_EXPLAIN, /* --w4a16-explain: the fuse pass with explain on */
  ITEM_W4A16_VERIFY,  /* --w4a16-verify */
  ITEM_W4A16_LOWER_TO_RUNTIME, /* --w4a16-lower-to-runtime */
  ITEM_W4A16_PIPELINE,         /* --w4a16-pipeline: fuse, lower, upstream passes down to the LLVM dialect */
  ITEM_W4A16_FUSE_INT8_PREP,   /* --w4a16-fuse-int8-prep, --w4a16-explain-int8-prep (issue #6) */
  ITEM_W4A16_EXPLAIN_INT8_PREP,
  ITEM_UPSTREAM_PIPELINE /* --pass-pipeline=<text> */
} ItemKind;

typedef struct PipelineItem {
  ItemKind kind;
  const char *text;   /* --pass-pipeline: the text as given */
  char *anchor;       /* --pass-pipeline: anchor op name ("builtin.module"), NULL when given without one */
  char *elements;     /* --pass-pipeline: the pass list inside the anchor (or the whole text) */
} PipelineItem;

/* Pass flags of this tool. The description comes from w4a16PassInfos() when the library lists the pass. */
typedef struct PassFlag {
  const char *flag; /* without leading dashes */
  ItemKind kind;
  const char *fallback_description;
} PassFlag;

static const PassFlag kPassFlags[] = {
    {"w4a16-fuse", ITEM_W4A16_FUSE,
     "Fuse dequant -> matmul -> bias -> activation -> residual chains into w4a16.fused_matmul"},
    {"w4a16-explain", ITEM_W4A16_EXPLAIN,
     "Run w4a16-fuse and report, for every matmul fed by a dequantised weight, \"fused as ...\" or why not"},
    {"w4a16-verify", ITEM_W4A16_VERIFY, "Check the w4a16 ops (shapes, element types, attributes)"},
    {"w4a16-lower-to-runtime", ITEM_W4A16_LOWER_TO_RUNTIME, "Lower w4a16.fused_matmul to calls into the w4a16 runtime"},
    {"w4a16-pipeline", ITEM_W4A16_PIPELINE,
     "Fuse, lower to runtime calls, then upstream bufferization and conversion to the LLVM dialect"},
    {"w4a16-fuse-int8-prep", ITEM_W4A16_FUSE_INT8_PREP,
     "Fuse the LLM.int8 correction-operand preparation into w4a16.int8_prep"},
    {"w4a16-explain-int8-prep", ITEM_W4A16_EXPLAIN_INT8_PREP,
     "Run w4a16-fuse-int8-prep and report, for every matmul fed by a column gather, \"fused as ...\" or why not"},
};
static const size_t kNumPassFlags = sizeof(kPassFlags) / sizeof(kPassFlags[0]);

typedef struct Options {
  const char *input;  /* "-" = stdin */
  const char *output; /* "-" = stdout */
  bool split_input;
  const char *split_marker;
  const char *output_split_marker;
  bool allow_unregistered;
  bool no_implicit_module;
  bool verify_each;
  bool print_generic;
  bool print_debuginfo;
  bool pretty_debuginfo;
  bool print_local_scope;
  long long elide_elements; /* < 0: off */
  bool disable_threading;
  bool timing;
  bool statistics;
  bool print_ir_before_all;
  bool print_ir_after_all;
  PipelineItem *items;
  size_t num_items, cap_items;
} Options;

/* One row of --help. */
typedef struct OptionHelp {
  const char *name;
  const char *help;
} OptionHelp;

static const OptionHelp kOptionHelp[] = {
    {"<input file>", "Input file, or '-' for stdin (default '-'); MLIR text or bytecode"},
    {"-o <file>", "Output file, or '-' for stdout (default '-'); not written when processing fails"},
    {"--split-input-file[=<marker>]",
     "Split the input at each marker (default \"// -----\") and process every chunk independently; "
     "keeps going after a failing chunk, exits non-zero; diagnostics keep the lines of the whole file"},
    {"--output-split-marker=<marker>", "Marker printed between the output chunks (default \"// -----\")"},
    {"--allow-unregistered-dialect", "Allow operations of unregistered dialects"},
    {"--no-implicit-module", "Do not wrap top-level operations in a builtin.module; the input must hold one op"},
    {"--pass-pipeline=<pipeline>",
     "Upstream MLIR passes as text, e.g. 'builtin.module(canonicalize,cse)' (the anchor may be omitted). "
     "May be repeated; runs in command-line order with the w4a16 pass flags"},
    {"--verify-each[=true|false]", "Run the MLIR verifier after each pass (default true)"},
    {"--mlir-print-op-generic", "Print operations in the generic form"},
    {"--mlir-print-debuginfo", "Print locations"},
    {"--mlir-pretty-debuginfo", "Print locations in the pretty form"},
    {"--mlir-print-local-scope", "Print with local scope (no attribute/type/location aliases)"},
    {"--mlir-elide-elementsattrs-if-larger=<n>", "Elide ElementsAttrs with more than n elements"},
    {"--mlir-disable-threading", "Disable multi-threading in MLIR"},
    {"--mlir-timing", "Print pass execution times to stderr"},
    {"--mlir-pass-statistics", "Print pass statistics to stderr"},
    {"--mlir-print-ir-before-all", "Print the IR before every pass to stderr"},
    {"--mlir-print-ir-after-all", "Print the IR after every pass to stderr"},
    {"-h, --help", "Print this help and exit"},
    {"--version", "Print the version and exit"},
};

static void print_row(FILE *f, const char *name, const char *help) {
  const int width = 42;
  if ((int)strlen(name) + 2 >= width)
    fprintf(f, "  %s\n  %*s - %s\n", name, width - 2, "", help);
  else
    fprintf(f, "  %-*s - %s\n", width - 2, name, help);
}

static void print_usage(FILE *f) {
  fprintf(f, "USAGE: %s [options] [<input file>]\n", kToolName);
  fprintf(f, "Run '%s --help' for the list of options and passes.\n", kToolName);
}

static void print_help(FILE *f) {
  fprintf(f, "OVERVIEW: w4a16 optimizer driver (mlir-opt for the w4a16 dialect and passes)\n\n");
  fprintf(f, "USAGE: %s [options] [<input file>]\n\n", kToolName);
  fprintf(f, "OPTIONS:\n");
  for (size_t i = 0; i < sizeof(kOptionHelp) / sizeof(kOptionHelp[0]); ++i)
    print_row(f, kOptionHelp[i].name, kOptionHelp[i].help);

  fprintf(f, "\nW4A16 PASSES (flags; they run in command-line order, interleaved with --pass-pipeline):\n");
  size_t n_infos = 0;
  const W4a16PassInfo *infos = w4a16PassInfos(&n_infos);
  StrBuf name = {0};
  for (size_t i = 0; i < kNumPassFlags; ++i) {
    const char *description = kPassFlags[i].fallback_description;
    for (size_t j = 0; j < n_infos; ++j)
      if (infos[j].argument && strcmp(infos[j].argument, kPassFlags[i].flag) == 0 && infos[j].description)
        description = infos[j].description;
    sb_clear(&name);
    sb_printf(&name, "--%s", kPassFlags[i].flag);
    print_row(f, name.data, description);
  }
  /* Every pass the library describes, also those the tool has no flag for. */
  for (size_t j = 0; j < n_infos; ++j) {
    if (!infos[j].argument)
      continue;
    bool has_flag = false;
    for (size_t i = 0; i < kNumPassFlags; ++i)
      has_flag |= strcmp(infos[j].argument, kPassFlags[i].flag) == 0;
    if (has_flag)
      continue;
    sb_clear(&name);
    sb_printf(&name, "%s (no flag; add it with the C API)", infos[j].argument);
    print_row(f, name.data, infos[j].description ? infos[j].description : "");
  }
  sb_free(&name);
  fprintf(f, "\nUpstream passes (canonicalize, cse, ...) are given with --pass-pipeline; see 'mlir-opt --help'.\n");
  fprintf(f, "Exit status: 0 success, 1 processing error (located diagnostic on stderr), 2 command-line error.\n");
}

static void add_item(Options *o, PipelineItem item) {
  if (o->num_items == o->cap_items) {
    o->cap_items = o->cap_items ? 2 * o->cap_items : 8;
    o->items = realloc(o->items, o->cap_items * sizeof(PipelineItem));
    if (!o->items) {
      fprintf(stderr, "%s: error: out of memory\n", kToolName);
      exit(1);
    }
  }
  o->items[o->num_items++] = item;
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "%s: error: ", kToolName);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  print_usage(stderr);
  return 2;
}

static bool parse_bool(const char *v, bool *out) {
  if (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "TRUE") || !strcmp(v, "True")) {
    *out = true;
    return true;
  }
  if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "FALSE") || !strcmp(v, "False")) {
    *out = false;
    return true;
  }
  return false;
}

/* Returns -1 when parsing may continue, otherwise the exit code (0 after --help/--version). */
static int parse_args(int argc, char **argv, Options *o) {
  bool only_positional = false;
  bool have_input = false;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (only_positional || arg[0] != '-' || !strcmp(arg, "-")) {
      if (have_input)
        return usage_error("more than one input file given ('%s')", arg);
      o->input = arg;
      have_input = true;
      continue;
    }
    if (!strcmp(arg, "--")) {
      only_positional = true;
      continue;
    }
    /* Accept both -name and --name, with an optional =value. */
    const char *name = arg + 1;
    if (*name == '-')
      ++name;
    const char *eq = strchr(name, '=');
    size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
    const char *value = eq ? eq + 1 : NULL;
#define IS(lit) (name_len == sizeof(lit) - 1 && !strncmp(name, lit, name_len))
    /* Options that take a value either as =value or as the next argument. */
#define TAKE_VALUE()                                                                                        \
  do {                                                                                                      \
    if (!value) {                                                                                           \
      if (i + 1 >= argc)                                                                                    \
        return usage_error("option '%s' requires a value", arg);                                            \
      value = argv[++i];                                                                                    \
    }                                                                                                       \
  } while (0)
#define NO_VALUE()                                                                                          \
  do {                                                                                                      \
    if (value)                                                                                              \
      return usage_error("option '%s' does not take a value", arg);                                         \
  } while (0)

    if (IS("h") || IS("help") || IS("help-list")) {
      print_help(stdout);
      return 0;
    } else if (IS("version")) {
      printf("%s %s (MLIR C API, LLVM 22)\n", kToolName, W4A16_VERSION);
      return 0;
    } else if (IS("o")) {
      TAKE_VALUE();
      o->output = value;
    } else if (IS("split-input-file")) {
      o->split_input = true;
      if (value && *value)
        o->split_marker = value;
    } else if (IS("output-split-marker")) {
      TAKE_VALUE();
      o->output_split_marker = value;
    } else if (IS("allow-unregistered-dialect")) {
      NO_VALUE();
      o->allow_unregistered = true;
    } else if (IS("no-implicit-module")) {
      NO_VALUE();
      o->no_implicit_module = true;
    } else if (IS("verify-each")) {
      if (value && !parse_bool(value, &o->verify_each))
        return usage_error("invalid value for --verify-each: '%s'", value);
      if (!value)
        o->verify_each = true;
    } else if (IS("mlir-print-op-generic")) {
      NO_VALUE();
      o->print_generic = true;
    } else if (IS("mlir-print-debuginfo")) {
      NO_VALUE();
      o->print_debuginfo = true;
    } else if (IS("mlir-pretty-debuginfo")) {
      NO_VALUE();
      o->pretty_debuginfo = true; /* as in mlir-opt, only has an effect with --mlir-print-debuginfo */
    } else if (IS("mlir-print-local-scope")) {
      NO_VALUE();
      o->print_local_scope = true;
    } else if (IS("mlir-elide-elementsattrs-if-larger")) {
      TAKE_VALUE();
      char *end = NULL;
      errno = 0;
      long long n = strtoll(value, &end, 10);
      if (errno || !*value || *end || n < 0)
        return usage_error("invalid value for --mlir-elide-elementsattrs-if-larger: '%s'", value);
      o->elide_elements = n;
    } else if (IS("mlir-disable-threading")) {
      NO_VALUE();
      o->disable_threading = true;
    } else if (IS("mlir-timing")) {
      NO_VALUE();
      o->timing = true;
    } else if (IS("mlir-pass-statistics")) {
      NO_VALUE();
      o->statistics = true;
    } else if (IS("mlir-print-ir-before-all")) {
      NO_VALUE();
      o->print_ir_before_all = true;
    } else if (IS("mlir-print-ir-after-all")) {
      NO_VALUE();
      o->print_ir_after_all = true;
    } else if (IS("pass-pipeline")) {
      TAKE_VALUE();
      add_item(o, (PipelineItem){.kind = ITEM_UPSTREAM_PIPELINE, .text = value});
    } else {
      bool matched = false;
      for (size_t k = 0; k < kNumPassFlags && !matched; ++k) {
        if (name_len == strlen(kPassFlags[k].flag) && !strncmp(name, kPassFlags[k].flag, name_len)) {
          NO_VALUE();
          add_item(o, (PipelineItem){.kind = kPassFlags[k].kind});
          matched = true;
        }
      }
      if (!matched)
        return usage_error("unknown option '%s'", arg);
    }
#undef IS
#undef TAKE_VALUE
#undef NO_VALUE
  }
  return -1;
}

/* ------------------------------------------------------------------------------------------------------ */
/* Diagnostics, printed the way mlir-opt's SourceMgrDiagnosticHandler does.                                */
/* ------------------------------------------------------------------------------------------------------ */

typedef struct Source {
  const char *name; /* file name as shown in diagnostics ("<stdin>" for stdin) */
  const char *text; /* whole input */
  size_t len;
  size_t *line_starts; /* offsets of the starts of lines 1..num_lines */
  size_t num_lines;
} Source;

typedef struct Tool {
  Options opts;
  MlirContext ctx;
  Source src;
  size_t num_errors;   /* errors reported since the counter was last reset */
  bool buffering;      /* diagnostics go to `buffered` instead of stderr */
  StrBuf buffered;
  size_t buffered_errors;
  StrBuf first_error_message;
  StrBuf unnamed_buffer; /* the file name mlirModuleCreateParse gives its locations */
  bool parsing_unnamed;  /* inside mlirModuleCreateParse: show unnamed_buffer locations as src.name */
} Tool;

static void compute_lines(Source *s) {
  size_t n = 1;
  for (size_t i = 0; i < s->len; ++i)
    n += s->text[i] == '\n';
  s->line_starts = malloc(n * sizeof(size_t));
  if (!s->line_starts) {
    fprintf(stderr, "%s: error: out of memory\n", kToolName);
    exit(1);
  }
  s->num_lines = 0;
  s->line_starts[s->num_lines++] = 0;
  for (size_t i = 0; i < s->len; ++i)
    if (s->text[i] == '\n')
      s->line_starts[s->num_lines++] = i + 1;
}

/* Finds the first file:line:col location in loc (looking through name, call-site and fused locations). */
static bool find_file_loc(MlirLocation loc, MlirStringRef *file, unsigned *line, unsigned *col) {
  if (mlirLocationIsNull(loc))
    return false;
  if (mlirLocationIsAFileLineColRange(loc)) {
    *file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    *line = (unsigned)mlirLocationFileLineColRangeGetStartLine(loc);
    *col = (unsigned)mlirLocationFileLineColRangeGetStartColumn(loc);
    return true;
  }
  if (mlirLocationIsAName(loc))
    return find_file_loc(mlirLocationNameGetChildLoc(loc), file, line, col);
  if (mlirLocationIsACallSite(loc))
    return find_file_loc(mlirLocationCallSiteGetCallee(loc), file, line, col) ||
           find_file_loc(mlirLocationCallSiteGetCaller(loc), file, line, col);
  if (mlirLocationIsAFused(loc)) {
    intptr_t n = mlirLocationFusedGetNumLocations(loc);
    if (n <= 0)
      return false;
    MlirLocation *locs = malloc((size_t)n * sizeof(MlirLocation));
    if (!locs)
      return false;
    mlirLocationFusedGetLocations(loc, locs);
    bool found = false;
    for (intptr_t i = 0; i < n && !found; ++i)
      found = find_file_loc(locs[i], file, line, col);
    free(locs);
    return found;
  }
  return false;
}

static bool is_unknown_loc(MlirLocation loc) {
  return mlirLocationIsNull(loc) || mlirLocationEqual(loc, mlirLocationUnknownGet(mlirLocationGetContext(loc)));
}

static const char *severity_name(MlirDiagnosticSeverity s) {
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

/* Appends the source line `line` with a caret under column `col` (tabs expanded to 8 columns). */
static void render_source_line(const Source *src, unsigned line, unsigned col, StrBuf *out) {
  if (line == 0 || line > src->num_lines)
    return;
  size_t start = src->line_starts[line - 1];
  size_t end = start;
  while (end < src->len && src->text[end] != '\n' && src->text[end] != '\r')
    ++end;
  size_t vis_col = 0, caret_col = 0;
  for (size_t i = start; i < end; ++i) {
    if (i - start == (size_t)(col ? col - 1 : 0))
      caret_col = vis_col;
    if (src->text[i] == '\t') {
      size_t next = (vis_col / 8 + 1) * 8;
      sb_putc_n(out, ' ', next - vis_col);
      vis_col = next;
    } else {
      sb_append(out, &src->text[i], 1);
      ++vis_col;
    }
  }
  if (col && (size_t)(col - 1) >= end - start)
    caret_col = vis_col + ((size_t)(col - 1) - (end - start));
  sb_puts(out, "\n");
  sb_putc_n(out, ' ', caret_col);
  sb_puts(out, "^\n");
}

static void render_one(Tool *t, MlirDiagnostic d, bool show_source_line, StrBuf *out) {
  MlirDiagnosticSeverity sev = mlirDiagnosticGetSeverity(d);
  MlirLocation loc = mlirDiagnosticGetLocation(d);
  MlirStringRef file = {0};
  unsigned line = 0, col = 0;
  bool has_file = find_file_loc(loc, &file, &line, &col);
  if (has_file && t->parsing_unnamed &&
      mlirStringRefEqual(file, mlirStringRefCreate(t->unnamed_buffer.data, t->unnamed_buffer.len)))
    file = mlirStringRefCreateFromCString(t->src.name);
  if (has_file) {
    sb_append(out, file.data, file.length);
    sb_printf(out, ":%u:%u: ", line, col);
  } else if (!is_unknown_loc(loc)) {
    mlirLocationPrint(loc, sb_callback, out);
    sb_puts(out, ": ");
  }
  sb_printf(out, "%s: ", severity_name(sev));
  mlirDiagnosticPrint(d, sb_callback, out);
  sb_puts(out, "\n");
  if (show_source_line && has_file && t->src.text && t->src.name && strref_eq(file, t->src.name))
    render_source_line(&t->src, line, col, out);
}

/* A diagnostic and its notes; like mlir-opt, a note shows the source line only when its location differs from
 * the previous one. */
static void render_diagnostic(Tool *t, MlirDiagnostic d, StrBuf *out) {
  render_one(t, d, true, out);
  MlirLocation prev = mlirDiagnosticGetLocation(d);
  intptr_t num_notes = mlirDiagnosticGetNumNotes(d);
  for (intptr_t i = 0; i < num_notes; ++i) {
    MlirDiagnostic note = mlirDiagnosticGetNote(d, i);
    MlirLocation loc = mlirDiagnosticGetLocation(note);
    render_one(t, note, !mlirLocationEqual(loc, prev), out);
    prev = loc;
  }
}

static MlirLogicalResult diagnostic_handler(MlirDiagnostic d, void *user) {
  Tool *t = user;
  StrBuf text = {0};
  render_diagnostic(t, d, &text);
  bool is_error = mlirDiagnosticGetSeverity(d) == MlirDiagnosticError;
  if (is_error)
    ++t->num_errors;
  if (t->buffering) {
    if (is_error && t->buffered_errors++ == 0)
      mlirDiagnosticPrint(d, sb_callback, &t->first_error_message);
    sb_append(&t->buffered, text.data ? text.data : "", text.len);
  } else {
    fwrite(text.data ? text.data : "", 1, text.len, stderr);
    fflush(stderr);
  }
  sb_free(&text);
  return mlirLogicalResultSuccess();
}

static void start_buffering(Tool *t) {
  t->buffering = true;
  t->buffered_errors = 0;
  sb_clear(&t->buffered);
  sb_clear(&t->first_error_message);
}

static void stop_buffering(Tool *t, bool flush) {
  t->buffering = false;
  if (flush && t->buffered.len) {
    fwrite(t->buffered.data, 1, t->buffered.len, stderr);
    fflush(stderr);
  }
  sb_clear(&t->buffered);
}

/* An error not tied to the IR (command line, I/O). */
static void tool_error(const char *fmt, const char *arg) {
  fprintf(stderr, "%s: error: ", kToolName);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
}

/* ------------------------------------------------------------------------------------------------------ */
/* --pass-pipeline handling.                                                                               */
/* ------------------------------------------------------------------------------------------------------ */

static char *dup_range(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (!r) {
    fprintf(stderr, "%s: error: out of memory\n", kToolName);
    exit(1);
  }
  memcpy(r, s, n);
  r[n] = '\0';
  return r;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Splits "anchor(elements)" into its parts. Returns false when the text has no anchor (e.g. "canonicalize,cse",
 * "func.func(cse),canonicalize"): then it is a plain list of pass elements for the top-level op. */
static bool split_anchor(const char *text, char **anchor, char **elements) {
  size_t b = 0, e = strlen(text);
  while (b < e && is_space(text[b]))
    ++b;
  while (e > b && is_space(text[e - 1]))
    --e;
  size_t p = b;
  while (p < e && (text[p] == '_' || text[p] == '.' || text[p] == '$' || text[p] == '-' ||
                   (text[p] >= 'a' && text[p] <= 'z') || (text[p] >= 'A' && text[p] <= 'Z') ||
                   (text[p] >= '0' && text[p] <= '9')))
    ++p;
  size_t name_end = p;
  while (p < e && is_space(text[p]))
    ++p;
  if (name_end == b || p >= e || text[p] != '(' || text[e - 1] != ')')
    return false;
  /* The parenthesis opened after the anchor must close at the very end. */
  int depth = 0;
  for (size_t i = p; i < e; ++i) {
    if (text[i] == '(')
      ++depth;
    else if (text[i] == ')' && --depth == 0 && i != e - 1)
      return false;
  }
  *anchor = dup_range(text + b, name_end - b);
  *elements = dup_range(text + p + 1, e - 1 - (p + 1));
  return true;
}

/* Checks every --pass-pipeline up front, so that a bad one is reported once, before any input is read. */
static bool validate_pipelines(Tool *t) {
  bool ok = true;
  for (size_t i = 0; i < t->opts.num_items; ++i) {
    PipelineItem *it = &t->opts.items[i];
    if (it->kind != ITEM_UPSTREAM_PIPELINE)
      continue;
    StrBuf full = {0}, errors = {0};
    if (split_anchor(it->text, &it->anchor, &it->elements)) {
      sb_puts(&full, it->text);
    } else {
      it->anchor = NULL;
      it->elements = dup_range(it->text, strlen(it->text));
      sb_printf(&full, "builtin.module(%s)", it->text);
    }
    MlirPassManager scratch = mlirPassManagerCreate(t->ctx);
    MlirLogicalResult r = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(scratch),
                                                mlirStringRefCreate(full.data, full.len), sb_callback, &errors);
    mlirPassManagerDestroy(scratch);
    if (mlirLogicalResultIsFailure(r)) {
      fprintf(stderr, "%s: error: invalid --pass-pipeline '%s'", kToolName, it->text);
      if (errors.len)
        fprintf(stderr, ":\n%s%s", errors.data, errors.data[errors.len - 1] == '\n' ? "" : "\n");
      else
        fputc('\n', stderr);
      ok = false;
    }
    sb_free(&full);
    sb_free(&errors);
  }
  return ok;
}

/* Adds the command-line pass items, in order, to the pass manager of a top-level op named top_name. Reports
 * a located error at loc and returns false when an item cannot run on that op. */
static bool add_items_to_pm(Tool *t, MlirPassManager pm, MlirStringRef top_name, MlirLocation loc) {
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  for (size_t i = 0; i < t->opts.num_items; ++i) {
    const PipelineItem *it = &t->opts.items[i];
    switch (it->kind) {
    case ITEM_W4A16_FUSE:
    case ITEM_W4A16_EXPLAIN: {
      W4a16FuseOptions fo = {.explain = it->kind == ITEM_W4A16_EXPLAIN, .explain_stream = stderr};
      w4a16AddFusePass(opm, fo);
      break;
    }
    case ITEM_W4A16_FUSE_INT8_PREP:
    case ITEM_W4A16_EXPLAIN_INT8_PREP:
      w4a16AddFuseInt8PrepPass(opm, (W4a16FuseOptions){.explain = it->kind == ITEM_W4A16_EXPLAIN_INT8_PREP,
                                                       .explain_stream = stderr});
      break;
    case ITEM_W4A16_VERIFY:
      mlirOpPassManagerAddOwnedPass(opm, w4a16CreateVerifyPass());
      break;
    case ITEM_W4A16_LOWER_TO_RUNTIME:
    case ITEM_W4A16_PIPELINE: {
      if (!strref_eq(top_name, "builtin.module")) {
        mlirEmitError(loc, "--w4a16-lower-to-runtime and --w4a16-pipeline run on a builtin.module");
        return false;
      }
      if (it->kind == ITEM_W4A16_LOWER_TO_RUNTIME) {
        w4a16AddLowerToRuntimePass(opm);
        w4a16AddLowerInt8PrepPass(opm); /* w4a16.int8_prep (issue #6) */
      } else if (mlirLogicalResultIsFailure(w4a16AddPipeline(
                     opm, (W4a16PipelineOptions){.fuse = true, .fuseOptions = {.explain_stream = stderr}}))) {
        mlirEmitError(loc, "cannot build the w4a16 pipeline");
        return false;
      }
      break;
    }
    case ITEM_UPSTREAM_PIPELINE: {
      if (it->anchor && !strref_eq(top_name, it->anchor) && strcmp(it->anchor, "any") != 0) {
        StrBuf msg = {0};
        sb_printf(&msg, "--pass-pipeline '%s' is anchored on '%s' but the top-level operation is '", it->text,
                  it->anchor);
        sb_append(&msg, top_name.data, top_name.length);
        sb_puts(&msg, "'");
        mlirEmitError(loc, msg.data);
        sb_free(&msg);
        return false;
      }
      size_t k = 0;
      while (it->elements[k] && is_space(it->elements[k]))
        ++k;
      if (!it->elements[k])
        break; /* empty pipeline */
      StrBuf errors = {0};
      MlirLogicalResult r =
          mlirOpPassManagerAddPipeline(opm, mlirStringRefCreateFromCString(it->elements), sb_callback, &errors);
      if (mlirLogicalResultIsFailure(r)) {
        StrBuf msg = {0};
        sb_printf(&msg, "cannot add --pass-pipeline '%s': %s", it->text, errors.len ? errors.data : "");
        mlirEmitError(loc, msg.data);
        sb_free(&msg);
        sb_free(&errors);
        return false;
      }
      sb_free(&errors);
      break;
    }
    }
  }
  return true;
}

/* ------------------------------------------------------------------------------------------------------ */
/* Parsing and processing one chunk.                                                                       */
/* ------------------------------------------------------------------------------------------------------ */

/* After the fallback parse (mlirModuleCreateParse cannot name its buffer), give every location that was created
 * from that buffer the real file name, so --mlir-print-debuginfo and later diagnostics show it. */
typedef struct Rename {
  MlirStringRef from; /* the buffer name mlirModuleCreateParse used */
  MlirStringRef to;
} Rename;

static MlirLocation rename_loc(MlirLocation loc, const Rename *rn) {
  if (mlirLocationIsNull(loc) || !mlirLocationIsAFileLineColRange(loc))
    return loc;
  MlirStringRef file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
  if (file.length != rn->from.length || (file.length && memcmp(file.data, rn->from.data, file.length) != 0))
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

static bool is_bytecode(const char *data, size_t len) {
  return len >= 4 && data[0] == 'M' && data[1] == 'L' && (unsigned char)data[2] == 0xEF && data[3] == 'R';
}

/* Parses text (already padded so that its lines and columns are those of the whole input) into a top-level
 * op owned by the caller: a builtin.module unless --no-implicit-module. Null on failure (diagnosed).
 * An implicit module gets the location <file>:<chunk_line>:<chunk_col>, as in mlir-opt (0:0 for a whole file or
 * the first chunk, else the position right after the split marker).
 *
 * The text is parsed exactly once (a second parse would, e.g., rename dense_resource blobs that the first one
 * registered). With the implicit module that is mlirModuleCreateParse, which behaves like mlir-opt (one module
 * op is taken as is, anything else is wrapped in a new module) but cannot name its buffer: its locations say
 * t->unnamed_buffer (e.g. "-":3:5). Diagnostics during the parse are shown with the real name, and afterwards
 * every such location is renamed in the IR. --no-implicit-module uses mlirOperationCreateParse, which takes a
 * name but wants exactly one top-level op. */
static MlirOperation parse_input(Tool *t, const char *text, size_t len, unsigned chunk_line, unsigned chunk_col) {
  MlirStringRef name = mlirStringRefCreateFromCString(t->src.name);
  MlirStringRef source = mlirStringRefCreate(text, len);

  if (t->opts.no_implicit_module) {
    start_buffering(t);
    MlirOperation op = mlirOperationCreateParse(t->ctx, source, name);
    bool only_top_level_error =
        mlirOperationIsNull(op) && t->buffered_errors == 1 &&
        strncmp(t->first_error_message.data ? t->first_error_message.data : "",
                "source must contain a single top-level operation", 48) == 0;
    if (only_top_level_error && chunk_line > 0) {
      /* mlir-opt reports this at the start of the chunk; the padded buffer would say 0:0. */
      stop_buffering(t, /*flush=*/false);
      StrBuf msg = {0};
      sb_append(&msg, t->first_error_message.data, t->first_error_message.len);
      mlirEmitError(mlirLocationFileLineColGet(t->ctx, name, chunk_line, chunk_col), msg.data);
      sb_free(&msg);
      return (MlirOperation){NULL};
    }
    stop_buffering(t, /*flush=*/true);
    return op;
  }

  t->parsing_unnamed = true;
  MlirModule module = mlirModuleCreateParse(t->ctx, source);
  t->parsing_unnamed = false;
  if (mlirModuleIsNull(module))
    return (MlirOperation){NULL};
  MlirOperation op = mlirModuleGetOperation(module); /* owned by us now; destroyed with mlirOperationDestroy */
  MlirLocation module_loc = mlirOperationGetLocation(op);
  Rename rn = {mlirStringRefCreate(t->unnamed_buffer.data, t->unnamed_buffer.len), name};
  /* The module the parser made up sits at <unnamed>:0:0; a written one has a real line. */
  bool implicit = mlirLocationIsAFileLineColRange(module_loc) &&
                  mlirLocationFileLineColRangeGetStartLine(module_loc) == 0 &&
                  mlirLocationFileLineColRangeGetStartColumn(module_loc) == 0 &&
                  mlirStringRefEqual(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(module_loc)), rn.from);
  if (!mlirStringRefEqual(rn.from, rn.to))
    mlirOperationWalk(op, rename_walk, &rn, MlirWalkPreOrder);
  if (implicit)
    mlirOperationSetLocation(op, mlirLocationFileLineColGet(t->ctx, name, chunk_line, chunk_col));
  return op;
}

/* Processes one chunk of the input: text[begin, end). Appends the printed result to out on success. */
static bool process_chunk(Tool *t, size_t begin, size_t end, StrBuf *out) {
  StrBuf padded = {0};
  const char *text = t->src.text + begin;
  size_t len = end - begin;
  unsigned chunk_line = 0, chunk_col = 0;
  if (begin > 0 && !is_bytecode(text, len)) {
    /* Keep line and column numbers of the whole file: replace everything before the chunk by as many newlines
     * as it had, then spaces up to the chunk's column. */
    size_t line_start = 0;
    chunk_line = 1;
    for (size_t i = 0; i < begin; ++i) {
      if (t->src.text[i] == '\n') {
        sb_puts(&padded, "\n");
        line_start = i + 1;
        ++chunk_line;
      }
    }
    chunk_col = (unsigned)(begin - line_start) + 1;
    sb_putc_n(&padded, ' ', begin - line_start);
    sb_append(&padded, text, len);
    text = padded.data;
    len = padded.len;
  }

  t->num_errors = 0;
  MlirOperation top = parse_input(t, text, len, chunk_line, chunk_col);
  sb_free(&padded);
  if (mlirOperationIsNull(top))
    return false;

  bool ok = true;
  MlirLocation top_loc = mlirOperationGetLocation(top);
  if (mlirLogicalResultIsFailure(w4a16VerifyOps(top)))
    ok = false;

  if (ok) {
    MlirStringRef top_name = mlirIdentifierStr(mlirOperationGetName(top));
    MlirPassManager pm = mlirPassManagerCreateOnOperation(t->ctx, top_name);
    mlirPassManagerEnableVerifier(pm, t->opts.verify_each);
    if (t->opts.timing)
      mlirPassManagerEnableTiming(pm);
    if (t->opts.statistics)
      mlirPassManagerEnableStatistics(pm, MLIR_PASS_DISPLAY_MODE_LIST);
    if (t->opts.print_ir_before_all || t->opts.print_ir_after_all) {
      MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
      mlirPassManagerEnableIRPrinting(pm, t->opts.print_ir_before_all, t->opts.print_ir_after_all,
                                      /*printModuleScope=*/false, false, false, flags, mlirStringRefCreate(NULL, 0));
      mlirOpPrintingFlagsDestroy(flags);
    }
    ok = add_items_to_pm(t, pm, top_name, top_loc);
    if (ok) {
      size_t errors_before = t->num_errors;
      if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, top))) {
        ok = false;
        if (t->num_errors == errors_before)
          mlirEmitError(top_loc, "pass pipeline failed");
      }
    }
    mlirPassManagerDestroy(pm);
  }
  if (ok && mlirLogicalResultIsFailure(w4a16VerifyOps(top)))
    ok = false;

  if (ok) {
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    if (t->opts.print_generic)
      mlirOpPrintingFlagsPrintGenericOpForm(flags);
    if (t->opts.print_debuginfo)
      mlirOpPrintingFlagsEnableDebugInfo(flags, true, t->opts.pretty_debuginfo);
    if (t->opts.print_local_scope)
      mlirOpPrintingFlagsUseLocalScope(flags);
    if (t->opts.elide_elements >= 0)
      mlirOpPrintingFlagsElideLargeElementsAttrs(flags, (intptr_t)t->opts.elide_elements);
    mlirOperationPrintWithFlags(top, flags, sb_callback, out);
    sb_puts(out, "\n");
    mlirOpPrintingFlagsDestroy(flags);
  }
  mlirOperationDestroy(top);
  return ok;
}

/* ------------------------------------------------------------------------------------------------------ */
/* main                                                                                                    */
/* ------------------------------------------------------------------------------------------------------ */

static bool read_all(FILE *f, StrBuf *out) {
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
    sb_append(out, chunk, n);
  if (!out->data)
    sb_reserve(out, 0);
  return !ferror(f);
}

static bool write_all(const char *path, const StrBuf *data) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "%s: error: could not open output file '%s': %s\n", kToolName, path, strerror(errno));
    return false;
  }
  bool ok = fwrite(data->data ? data->data : "", 1, data->len, f) == data->len;
  ok = (fclose(f) == 0) && ok;
  if (!ok)
    fprintf(stderr, "%s: error: could not write output file '%s'\n", kToolName, path);
  return ok;
}

/* Reads the input, processes it (chunk by chunk with --split-input-file) and writes the output. */
static int run(Tool *t) {
  StrBuf input = {0};
  bool read_ok;
  if (!strcmp(t->opts.input, "-")) {
    t->src.name = "<stdin>";
    read_ok = read_all(stdin, &input);
  } else {
    t->src.name = t->opts.input;
    FILE *f = fopen(t->opts.input, "rb");
    if (!f) {
      fprintf(stderr, "%s: error: could not open input file '%s': %s\n", kToolName, t->opts.input, strerror(errno));
      return 1;
    }
    read_ok = read_all(f, &input);
    fclose(f);
  }
  if (!read_ok) {
    tool_error("could not read input '%s'", t->opts.input);
    sb_free(&input);
    return 1;
  }
  t->src.text = input.data;
  t->src.len = input.len;
  compute_lines(&t->src);

  StrBuf out = {0};
  bool all_ok = true;
  if (t->opts.split_input && !is_bytecode(input.data, input.len) && *t->opts.split_marker) {
    /* Like mlir-opt: split at every occurrence of the marker; a chunk starts right after it. */
    size_t marker_len = strlen(t->opts.split_marker);
    size_t begin = 0;
    for (bool first = true;; first = false) {
      size_t end = input.len;
      for (size_t i = begin; i + marker_len <= input.len; ++i)
        if (!memcmp(input.data + i, t->opts.split_marker, marker_len)) {
          end = i;
          break;
        }
      if (!first) {
        sb_puts(&out, t->opts.output_split_marker);
        sb_puts(&out, "\n");
      }
      if (!process_chunk(t, begin, end, &out))
        all_ok = false;
      if (end == input.len)
        break;
      begin = end + marker_len;
    }
  } else {
    all_ok = process_chunk(t, 0, input.len, &out);
  }

  if (!strcmp(t->opts.output, "-")) {
    /* As mlir-opt: what succeeded is printed even when another chunk failed. */
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    fflush(stdout);
  } else if (all_ok && !write_all(t->opts.output, &out)) {
    all_ok = false;
  }
  sb_free(&out);
  sb_free(&input);
  free(t->src.line_starts);
  t->src.line_starts = NULL;
  t->src.text = NULL;
  return all_ok ? 0 : 1;
}

int main(int argc, char **argv) {
  Tool t;
  memset(&t, 0, sizeof(t));
  t.opts.input = "-";
  t.opts.output = "-";
  t.opts.split_marker = kDefaultSplitMarker;
  t.opts.output_split_marker = kDefaultSplitMarker;
  t.opts.verify_each = true;
  t.opts.elide_elements = -1;
  int rc = parse_args(argc, argv, &t.opts);
  if (rc >= 0)
    return rc;

  /* Context: every upstream dialect and pass (as mlir-opt has them), plus the w4a16 dialect. */
  mlirRegisterAllPasses();
  t.ctx = mlirContextCreateWithThreading(!t.opts.disable_threading);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(t.ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextSetAllowUnregisteredDialects(t.ctx, t.opts.allow_unregistered);
  mlirContextAttachDiagnosticHandler(t.ctx, diagnostic_handler, &t, NULL);
  w4a16RegisterDialects(t.ctx);

  /* The file name mlirModuleCreateParse puts in its locations: that of the implicit module of an empty input. */
  MlirModule probe = mlirModuleCreateParse(t.ctx, mlirStringRefCreate("", 0));
  if (!mlirModuleIsNull(probe)) {
    MlirLocation loc = mlirOperationGetLocation(mlirModuleGetOperation(probe));
    if (mlirLocationIsAFileLineColRange(loc)) {
      MlirStringRef n = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
      sb_append(&t.unnamed_buffer, n.data, n.length);
    }
    mlirModuleDestroy(probe);
  }
  if (!t.unnamed_buffer.data)
    sb_append(&t.unnamed_buffer, "", 0);

  if (validate_pipelines(&t)) {
    rc = run(&t);
  } else {
    print_usage(stderr);
    rc = 2;
  }

  sb_free(&t.buffered);
  sb_free(&t.first_error_message);
  sb_free(&t.unnamed_buffer);
  for (size_t i = 0; i < t.opts.num_items; ++i) {
    free(t.opts.items[i].anchor);
    free(t.opts.items[i].elements);
  }
  free(t.opts.items);
  mlirContextDestroy(t.ctx);
  return rc;
}
