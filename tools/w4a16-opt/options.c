/* w4a16-opt's option parsing and --help (split from w4a16-opt.c, which keeps the processing). */
#include "options.h"

#include "strbuf.h"
#include "w4a16/w4a16.h"

#include <errno.h>
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
    {"w4a16-explain", ITEM_W4A16_EXPLAIN,
     "Run w4a16-fuse and report, for every matmul fed by a dequantised weight, \"fused as ...\" or why not"},
    {"w4a16-verify", ITEM_W4A16_VERIFY, "Check the w4a16 ops (shapes, element types, attributes)"},
    {"w4a16-lower-to-runtime", ITEM_W4A16_LOWER_TO_RUNTIME, "Lower w4a16.fused_matmul to calls into the w4a16 runtime"},
    {"w4a16-pipeline", ITEM_W4A16_PIPELINE,
     "Fuse, lower to runtime calls, then upstream bufferization and conversion to the LLVM dialect"},
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

int parse_args(int argc, char **argv, Options *o) {
  *o = (Options){.input = "-",
                 .output = "-",
                 .split_marker = W4A16_OPT_DEFAULT_SPLIT_MARKER,
                 .output_split_marker = W4A16_OPT_DEFAULT_SPLIT_MARKER,
                 .verify_each = true,
                 .elide_elements = -1};
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

void options_free(Options *o) {
  for (size_t i = 0; i < o->num_items; ++i) {
    free(o->items[i].anchor);
    free(o->items[i].elements);
  }
  free(o->items);
  o->items = NULL;
  o->num_items = o->cap_items = 0;
}
