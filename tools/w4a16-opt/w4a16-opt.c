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
 * runs canonicalize, then w4a16-fuse, then cse. The w4a16 passes can be named in the text as well
 * (w4a16RegisterAll registers them), e.g. --pass-pipeline='builtin.module(func.func(w4a16-fuse),w4a16-verify)'.
 *
 * --verify-diagnostics checks the diagnostics against the input's expected-* comments as mlir-opt does
 * (verify_diagnostics.h); --list-passes and --show-dialects print what is registered.
 *
 * Input the MLIR 22 parser would crash on (`array<index ...>` attributes) is rejected with a located error
 * before it is parsed (tools/common/parse_guard.h).
 *
 * Exit status: 0 on success, 1 when any input chunk failed (parse error, verifier error, failed pass),
 * 2 on a command-line error (unknown option, missing value, malformed --pass-pipeline).
 *
 * The command line and --help are in options.c; the string buffer, diagnostics, file I/O and the parse guard
 * are shared with w4a16-compile (tools/common).
 */
#include "options.h"

#include "diagnostics.h"
#include "io.h"
#include "named_parse.h"
#include "parse_guard.h"
#include "strbuf.h"
#include "verify_diagnostics.h"

#include "w4a16/lowering.h"
#include "w4a16/w4a16.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const kToolName = "w4a16-opt";

typedef struct Tool {
  Options opts;
  MlirContext ctx;
  Source src;
  /* Prints diagnostics like mlir-opt; counts errors (reset per chunk); buffers them around the
   * --no-implicit-module parse. Its alias is the file name mlirModuleCreateParse gives its locations, active
   * during that parse, so they show as src.name. */
  DiagHandler diag;
  StrBuf unnamed_buffer; /* storage of diag.alias */
  Verifier verifier;     /* --verify-diagnostics; its mode is VERIFY_NONE otherwise */
} Tool;

static bool verifying(const Tool *t) { return t->verifier.mode != VERIFY_NONE; }

/* Ends the buffering of diagnostics around a parse: what was kept is reported (flush) or dropped. */
static void stop_buffering(Tool *t, bool flush) {
  diag_stop_buffering(&t->diag, flush && !verifying(t));
  if (verifying(t))
    verifier_flush_deferred(&t->verifier, flush);
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
  if (!r)
    tool_out_of_memory();
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
      if (it->kind == ITEM_W4A16_EXPLAIN) {
        w4a16AddSplitChunkedGluPass(opm, fo);
        w4a16AddMergeSiblingsPass(opm, fo);
      }
      break;
    }
    case ITEM_W4A16_SPLIT_CHUNKED_GLU:
      w4a16AddSplitChunkedGluPass(opm, (W4a16FuseOptions){.explain_stream = stderr});
      break;
    case ITEM_W4A16_MERGE_SIBLINGS:
      w4a16AddMergeSiblingsPass(opm, (W4a16FuseOptions){.explain_stream = stderr});
      break;
    case ITEM_W4A16_FUSE_INT8_PREP:
    case ITEM_W4A16_EXPLAIN_INT8_PREP:
      w4a16AddFuseInt8PrepPass(opm, (W4a16FuseOptions){.explain = it->kind == ITEM_W4A16_EXPLAIN_INT8_PREP,
                                                       .explain_stream = stderr});
      break;
    case ITEM_W4A16_VERIFY:
      mlirOpPassManagerAddOwnedPass(opm, w4a16CreateVerifyPass());
      break;
    case ITEM_W4A16_LOWER_TO_RUNTIME:
    case ITEM_W4A16_ENTRY_POINTS:
    case ITEM_W4A16_PIPELINE:
    case ITEM_W4A16_GPU_PIPELINE: {
      if (!strref_eq(top_name, "builtin.module")) {
        mlirEmitError(loc, "--w4a16-lower-to-runtime, --w4a16-entry-points, --w4a16-pipeline and "
                           "--w4a16-gpu-pipeline run on a builtin.module");
        return false;
      }
      if (it->kind == ITEM_W4A16_ENTRY_POINTS) {
        mlirOpPassManagerAddOwnedPass(opm, w4a16CreateEntryPointsPass());
      } else if (it->kind == ITEM_W4A16_LOWER_TO_RUNTIME) {
        w4a16AddLowerToRuntimePass(opm);
        w4a16AddLowerInt8PrepPass(opm); /* w4a16.int8_prep (issue #6) */
      } else if (mlirLogicalResultIsFailure(w4a16AddPipeline(
                     opm, (W4a16PipelineOptions){.fuse = true,
                                                 .fuseOptions = {.explain_stream = stderr},
                                                 .target = it->kind == ITEM_W4A16_GPU_PIPELINE ? W4A16_TARGET_GPU
                                                                                               : W4A16_TARGET_HOST}))) {
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

/* Parses text (already padded so that its lines and columns are those of the whole input) into a top-level
 * op owned by the caller: a builtin.module unless --no-implicit-module. Null on failure (diagnosed).
 * An implicit module gets the location <file>:<chunk_line>:<chunk_col>, as in mlir-opt (0:0 for a whole file or
 * the first chunk, else the position right after the split marker).
 *
 * The text is parsed exactly once (a second parse would, e.g., rename dense_resource blobs that the first one
 * registered). With the implicit module that is mlirModuleCreateParse, which behaves like mlir-opt (one module
 * op is taken as is, anything else is wrapped in a new module) but cannot name its buffer: its locations say
 * t->unnamed_buffer (e.g. "-":3:5). Diagnostics during the parse are shown with the real name, and afterwards
 * every such location is renamed in the IR (tools/common/named_parse.h). --no-implicit-module uses mlirOperationCreateParse, which takes a
 * name but wants exactly one top-level op. */
static MlirOperation parse_input(Tool *t, const char *text, size_t len, unsigned chunk_line, unsigned chunk_col) {
  MlirStringRef name = mlirStringRefCreateFromCString(t->src.name);
  MlirStringRef source = mlirStringRefCreate(text, len);

  if (t->opts.no_implicit_module) {
    diag_start_buffering(&t->diag);
    MlirOperation op = mlirOperationCreateParse(t->ctx, source, name);
    bool only_top_level_error =
        mlirOperationIsNull(op) && t->diag.buffered_errors == 1 &&
        strncmp(sb_cstr(&t->diag.first_error_message), "source must contain a single top-level operation", 48) == 0;
    if (only_top_level_error && chunk_line > 0) {
      /* mlir-opt reports this at the start of the chunk; the padded buffer would say 0:0. */
      stop_buffering(t, /*flush=*/false);
      StrBuf msg = {0};
      sb_append(&msg, t->diag.first_error_message.data, t->diag.first_error_message.len);
      mlirEmitError(mlirLocationFileLineColGet(t->ctx, name, chunk_line, chunk_col), msg.data);
      sb_free(&msg);
      return (MlirOperation){NULL};
    }
    stop_buffering(t, /*flush=*/true);
    return op;
  }

  return named_parse(t->ctx, &t->diag, text, len, t->src.name, chunk_line, chunk_col);
}

/* Processes one chunk of the input: text[begin, end). Appends the printed result to out on success. */
static bool process_chunk(Tool *t, size_t begin, size_t end, StrBuf *out) {
  /* Text the MLIR parser would crash on never reaches it: this chunk fails with a located error. */
  if (!parse_guard_check(t->ctx, &t->src, begin, end))
    return false;
  StrBuf padded = {0};
  const char *text = t->src.text + begin;
  size_t len = end - begin;
  unsigned chunk_line = 0, chunk_col = 0;
  if (begin > 0 && !parse_guard_is_bytecode(text, len)) {
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

  t->diag.num_errors = 0;
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
      size_t errors_before = t->diag.num_errors;
      if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, top))) {
        ok = false;
        /* (mlir-opt says nothing either when verifying diagnostics) */
        if (t->diag.num_errors == errors_before && !verifying(t))
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

/* Reads the input, processes it (chunk by chunk with --split-input-file) and writes the output. */
static int run(Tool *t) {
  StrBuf input = {0};
  bool from_stdin = !strcmp(t->opts.input, "-");
  IoStatus read = from_stdin ? io_read_stream(stdin, &input) : io_read_file(t->opts.input, &input);
  if (read == IO_OPEN_FAILED) {
    fprintf(stderr, "%s: error: could not open input file '%s': %s\n", kToolName, t->opts.input, strerror(errno));
    sb_free(&input);
    return 1;
  }
  if (read != IO_OK) {
    tool_error("could not read input '%s'", t->opts.input);
    sb_free(&input);
    return 1;
  }
  source_init(&t->src, from_stdin ? "<stdin>" : t->opts.input, input.data, input.len);

  StrBuf out = {0};
  bool all_ok = true;
  /* --verify-diagnostics: the designators of the whole input, checked once at the end (as mlir-opt does, also
   * with --split-input-file); the exit status is the verifier's. */
  bool bytecode = parse_guard_is_bytecode(input.data, input.len);
  if (verifying(t))
    verifier_begin(&t->verifier, bytecode ? "" : input.data, bytecode ? 0 : input.len);
  if (t->opts.split_input && !bytecode && *t->opts.split_marker) {
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

  if (verifying(t))
    all_ok = verifier_end(&t->verifier);

  if (!strcmp(t->opts.output, "-")) {
    /* As mlir-opt: what succeeded is printed even when another chunk failed. */
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    fflush(stdout);
  } else if (all_ok) {
    IoStatus wrote = io_write_file(t->opts.output, out.data, out.len);
    if (wrote == IO_OPEN_FAILED)
      fprintf(stderr, "%s: error: could not open output file '%s': %s\n", kToolName, t->opts.output,
              strerror(errno));
    else if (wrote != IO_OK)
      fprintf(stderr, "%s: error: could not write output file '%s'\n", kToolName, t->opts.output);
    all_ok = wrote == IO_OK;
  }
  sb_free(&out);
  source_free(&t->src);
  sb_free(&input);
  return all_ok ? 0 : 1;
}

typedef struct ShowDialects {
  bool first;
} ShowDialects;

static void print_dialect_name(MlirStringRef name, void *user) {
  ShowDialects *show = user;
  if (!show->first)
    fputc(',', stdout);
  show->first = false;
  fwrite(name.data, 1, name.length, stdout);
}

int main(int argc, char **argv) {
  Tool t = {0};
  int rc = parse_args(argc, argv, &t.opts);
  if (rc >= 0)
    return rc;

  /* Context: every upstream dialect and pass (as mlir-opt has them), the w4a16 dialect and passes - the one
   * call the library documents for embedders. */
  t.ctx = mlirContextCreateWithThreading(!t.opts.disable_threading);
  mlirContextSetAllowUnregisteredDialects(t.ctx, t.opts.allow_unregistered);
  t.diag = (DiagHandler){.src = &t.src,
                         .style = {.expand_tabs = true, .notes_quote_changed_locs_only = true}}; /* mlir-opt */
  mlirContextAttachDiagnosticHandler(t.ctx, diag_handle, &t.diag, NULL);
  w4a16RegisterAll(t.ctx);
  if (t.opts.show_dialects || t.opts.list_passes) {
    fflush(stdout);
    if (t.opts.show_dialects) { /* mlir-opt's format */
      ShowDialects show = {true};
      fputs("Available Dialects: ", stdout);
      w4a16GetDialectNames(t.ctx, print_dialect_name, &show);
      fputc('\n', stdout);
      fflush(stdout);
    } else {
      w4a16PrintRegisteredPasses();
    }
    options_free(&t.opts);
    mlirContextDestroy(t.ctx);
    return 0;
  }
  /* Attached last, the verifier sees every diagnostic before the printing handler. */
  t.verifier = (Verifier){.mode = t.opts.verify_diagnostics, .h = &t.diag};
  if (verifying(&t))
    mlirContextAttachDiagnosticHandler(t.ctx, verifier_handle, &t.verifier, NULL);

  named_parse_init(t.ctx, &t.diag, &t.unnamed_buffer); /* the name mlirModuleCreateParse gives its buffer */

  if (validate_pipelines(&t)) {
    rc = run(&t);
  } else {
    print_usage(stderr);
    rc = 2;
  }

  verifier_free(&t.verifier);
  diag_handler_free(&t.diag);
  sb_free(&t.unnamed_buffer);
  options_free(&t.opts);
  mlirContextDestroy(t.ctx);
  return rc;
}
