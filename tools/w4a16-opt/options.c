/* w4a16-opt's option parsing and --help (split from w4a16-opt.c, which keeps the processing). */
#include "options.h"

#include "strbuf.h"
#include "w4a16/w4a16.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifndef W4A16_VERSION
#define W4A16_VERSION "unknown"
#endif

/* Pass flags of this tool. The description comes from w4a16PassInfos() when the library lists the pass. */
typedef struct PassFlag {
  const char *flag; /* without leading dashes */
  ItemKind kind;
  const char *fallback_description;
} PassFlag;

static const PassFlag kPassFlags[] = {
    {"w4a16-fuse", ITEM_W4A16_FUSE,
     "Fuse dequant -> matmul -> bias -> activation -> residual chains into w4a16.fused_matmul"},
    {"w4a16-split-chunked-glu", ITEM_W4A16_SPLIT_CHUNKED_GLU,
     "Split a fused gate_up projection chunked into gate and up halves (Phi-3) into two fused ops for a GLU"},
    {"w4a16-merge-siblings", ITEM_W4A16_MERGE_SIBLINGS,
     "Merge fused matmuls that read the same x into one w4a16.merged_matmul (one launch)"},
    {"w4a16-explain", ITEM_W4A16_EXPLAIN,
     "Run w4a16-fuse, w4a16-split-chunked-glu and w4a16-merge-siblings and report, for every matmul fed by a "
     "dequantised weight, \"fused as ...\" or why not, for a chunked gate_up projection whether it was split, and "
     "for sibling projections what they merged with or why not"},
    {"w4a16-verify", ITEM_W4A16_VERIFY, "Check the w4a16 ops (shapes, element types, attributes)"},
    {"w4a16-lower-to-runtime", ITEM_W4A16_LOWER_TO_RUNTIME, "Lower w4a16.fused_matmul to calls into the w4a16 runtime"},
    {"w4a16-pipeline", ITEM_W4A16_PIPELINE,
     "Fuse, lower to runtime calls, then upstream bufferization and conversion to the LLVM dialect"},
    {"w4a16-gpu-pipeline", ITEM_W4A16_GPU_PIPELINE,
     "w4a16-pipeline for the GPU target: device-resident tensors, upstream GPU kernels, the caller's stream"},
    {"w4a16-entry-points", ITEM_W4A16_ENTRY_POINTS,
     "Add status-returning w4a16c_run_<f> and w4a16c_prepare_<f> for every _mlir_ciface_<f> (LLVM dialect)"},
    {"w4a16-fuse-int8-prep", ITEM_W4A16_FUSE_INT8_PREP,
     "Fuse the LLM.int8 correction-operand preparation into w4a16.int8_prep"},
    {"w4a16-explain-int8-prep", ITEM_W4A16_EXPLAIN_INT8_PREP,
     "Run w4a16-fuse-int8-prep and report, for every matmul fed by a column gather, \"fused as ...\" or why not"},
};
static const size_t kNumPassFlags = sizeof(kPassFlags) / sizeof(kPassFlags[0]);

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
    {"--verify-diagnostics[=all|only-expected]",
     "Check that the diagnostics match the expected-{error,warning,remark,note} lines of the input, as mlir-opt "
     "does; exit 0 when they all do. only-expected: other diagnostics are ignored"},
    {"--list-passes", "Print every registered pass and pass pipeline (upstream and w4a16) and exit"},
    {"--show-dialects", "Print the dialects the tool knows and exit"},
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

void print_usage(FILE *f) {
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
    sb_printf(&name, "%s (no flag: name it in --pass-pipeline)", infos[j].argument);
    print_row(f, name.data, infos[j].description ? infos[j].description : "");
  }
  sb_free(&name);
  fprintf(f, "\nEvery pass above and every upstream pass (canonicalize, cse, ...) can also be named in --pass-pipeline,\n"
             "e.g. 'builtin.module(func.func(canonicalize,w4a16-fuse),w4a16-verify)'; --list-passes lists them all.\n");
  fprintf(f, "Exit status: 0 success, 1 processing error (located diagnostic on stderr), 2 command-line error.\n");
}

static void add_item(Options *o, PipelineItem item) {
  if (o->num_items == o->cap_items) {
    o->cap_items = o->cap_items ? 2 * o->cap_items : 8;
    o->items = realloc(o->items, o->cap_items * sizeof(PipelineItem));
    if (!o->items)
      tool_out_of_memory();
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

/* One "-name[=value]" or "--name[=value]" argument, split. */
typedef struct Flag {
  const char *arg;   /* as given, for messages */
  const char *name;  /* without the dashes; not terminated at '=' */
  size_t name_len;
  const char *value; /* after '=', or NULL */
} Flag;

static Flag split_flag(const char *arg) {
  Flag f = {.arg = arg, .name = arg + 1};
  if (*f.name == '-')
    ++f.name;
  const char *eq = strchr(f.name, '=');
  f.name_len = eq ? (size_t)(eq - f.name) : strlen(f.name);
  f.value = eq ? eq + 1 : NULL;
  return f;
}

static bool flag_is(const Flag *f, const char *name) {
  return f->name_len == strlen(name) && !strncmp(f->name, name, f->name_len);
}

/* Options that take a value take it as =value or as the next argument. -1 when there is one, else the exit
 * code after the error. */
static int take_value(Flag *f, int argc, char **argv, int *i) {
  if (f->value)
    return -1;
  if (*i + 1 >= argc)
    return usage_error("option '%s' requires a value", f->arg);
  f->value = argv[++*i];
  return -1;
}

/* Switches: the flag sets one bool of Options and takes no value. */
static const struct {
  const char *name;
  size_t offset;
} kSwitches[] = {
    {"allow-unregistered-dialect", offsetof(Options, allow_unregistered)},
    {"no-implicit-module", offsetof(Options, no_implicit_module)},
    {"mlir-print-op-generic", offsetof(Options, print_generic)},
    {"mlir-print-debuginfo", offsetof(Options, print_debuginfo)},
    /* as in mlir-opt, only has an effect with --mlir-print-debuginfo */
    {"mlir-pretty-debuginfo", offsetof(Options, pretty_debuginfo)},
    {"mlir-print-local-scope", offsetof(Options, print_local_scope)},
    {"mlir-disable-threading", offsetof(Options, disable_threading)},
    {"mlir-timing", offsetof(Options, timing)},
    {"mlir-pass-statistics", offsetof(Options, statistics)},
    {"mlir-print-ir-before-all", offsetof(Options, print_ir_before_all)},
    {"mlir-print-ir-after-all", offsetof(Options, print_ir_after_all)},
    {"list-passes", offsetof(Options, list_passes)},
    {"show-dialects", offsetof(Options, show_dialects)},
};

/* A switch or a pass flag (both take no value). Returns -1 when parsed, 0 when f is neither, else an exit
 * code after the error. */
static int parse_switch_or_pass(Options *o, const Flag *f) {
  for (size_t k = 0; k < sizeof kSwitches / sizeof kSwitches[0]; ++k)
    if (flag_is(f, kSwitches[k].name)) {
      if (f->value)
        return usage_error("option '%s' does not take a value", f->arg);
      *(bool *)((char *)o + kSwitches[k].offset) = true;
      return -1;
    }
  for (size_t k = 0; k < kNumPassFlags; ++k)
    if (flag_is(f, kPassFlags[k].flag)) {
      if (f->value)
        return usage_error("option '%s' does not take a value", f->arg);
      add_item(o, (PipelineItem){.kind = kPassFlags[k].kind});
      return -1;
    }
  return 0;
}

/* Options with a value (required or optional). Same returns as parse_switch_or_pass. */
static int parse_valued(Options *o, Flag *f, int argc, char **argv, int *i) {
  int rc = -1;
  if (flag_is(f, "o")) {
    if ((rc = take_value(f, argc, argv, i)) < 0)
      o->output = f->value;
  } else if (flag_is(f, "split-input-file")) {
    o->split_input = true;
    if (f->value && *f->value)
      o->split_marker = f->value;
  } else if (flag_is(f, "output-split-marker")) {
    if ((rc = take_value(f, argc, argv, i)) < 0)
      o->output_split_marker = f->value;
  } else if (flag_is(f, "verify-each")) {
    if (f->value && !parse_bool(f->value, &o->verify_each))
      return usage_error("invalid value for --verify-each: '%s'", f->value);
    if (!f->value)
      o->verify_each = true;
  } else if (flag_is(f, "verify-diagnostics")) {
    /* as mlir-opt: no value, "" or "all" check every diagnostic; "only-expected" ignores the others */
    if (!f->value || !*f->value || !strcmp(f->value, "all"))
      o->verify_diagnostics = VERIFY_ALL;
    else if (!strcmp(f->value, "only-expected"))
      o->verify_diagnostics = VERIFY_ONLY_EXPECTED;
    else
      return usage_error("invalid value for --verify-diagnostics: '%s' (all or only-expected)", f->value);
  } else if (flag_is(f, "mlir-elide-elementsattrs-if-larger")) {
    if ((rc = take_value(f, argc, argv, i)) >= 0)
      return rc;
    char *end = NULL;
    errno = 0;
    long long n = strtoll(f->value, &end, 10);
    if (errno || !*f->value || *end || n < 0)
      return usage_error("invalid value for --mlir-elide-elementsattrs-if-larger: '%s'", f->value);
    o->elide_elements = n;
  } else if (flag_is(f, "pass-pipeline")) {
    if ((rc = take_value(f, argc, argv, i)) < 0)
      add_item(o, (PipelineItem){.kind = ITEM_UPSTREAM_PIPELINE, .text = f->value});
  } else {
    return 0;
  }
  return rc;
}

/* One argument that starts with '-' (not "-" or "--"); argv[*i + 1] may be taken as its value. Returns -1 to
 * go on, else the exit code. */
static int parse_option(Options *o, int argc, char **argv, int *i) {
  Flag f = split_flag(argv[*i]);
  if (flag_is(&f, "h") || flag_is(&f, "help") || flag_is(&f, "help-list")) {
    print_help(stdout);
    return 0;
  }
  if (flag_is(&f, "version")) {
    printf("%s %s (MLIR C API, LLVM 22)\n", kToolName, W4A16_VERSION);
    return 0;
  }
  int rc = parse_switch_or_pass(o, &f);
  if (rc == 0)
    rc = parse_valued(o, &f, argc, argv, i);
  return rc == 0 ? usage_error("unknown option '%s'", f.arg) : rc;
}

int parse_args(int argc, char **argv, Options *o) {
  *o = (Options){.input = "-",
                 .output = "-",
                 .split_marker = W4A16_OPT_DEFAULT_SPLIT_MARKER,
                 .output_split_marker = W4A16_OPT_DEFAULT_SPLIT_MARKER,
                 .verify_each = true,
                 .elide_elements = -1};
  bool only_positional = false, have_input = false;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (only_positional || arg[0] != '-' || !strcmp(arg, "-")) {
      if (have_input)
        return usage_error("more than one input file given ('%s')", arg);
      o->input = arg;
      have_input = true;
    } else if (!strcmp(arg, "--")) {
      only_positional = true;
    } else {
      int rc = parse_option(o, argc, argv, &i);
      if (rc >= 0)
        return rc;
    }
  }
  return -1;
}

void options_free(Options *o) {
  for (size_t i = 0; i < o->num_items; ++i) {
    free(o->items[i].anchor);
    free(o->items[i].elements);
  }
  free(o->items);
  o->items = NULL;
  o->num_items = o->cap_items = 0;
}
