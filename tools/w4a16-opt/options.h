/* w4a16-opt's command line: the options, the ordered list of passes to run, --help. */
#ifndef W4A16_OPT_OPTIONS_H
#define W4A16_OPT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define W4A16_OPT_DEFAULT_SPLIT_MARKER "// -----"

typedef enum ItemKind {
  ITEM_W4A16_FUSE,    /* --w4a16-fuse */
  ITEM_W4A16_SPLIT_CHUNKED_GLU, /* --w4a16-split-chunked-glu */
  ITEM_W4A16_MERGE_SIBLINGS, /* --w4a16-merge-siblings */
  ITEM_W4A16_EXPLAIN, /* --w4a16-explain: the fuse, split-chunked-glu and merge-siblings passes with explain on */
  ITEM_W4A16_VERIFY,  /* --w4a16-verify */
  ITEM_W4A16_LOWER_TO_RUNTIME, /* --w4a16-lower-to-runtime */
  ITEM_W4A16_PIPELINE,         /* --w4a16-pipeline: fuse, lower, upstream passes down to the LLVM dialect */
  ITEM_W4A16_GPU_PIPELINE,     /* --w4a16-gpu-pipeline: the same for the GPU target */
  ITEM_W4A16_ENTRY_POINTS,     /* --w4a16-entry-points: w4a16c_run_<f> / w4a16c_prepare_<f> (LLVM dialect) */
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

/* --verify-diagnostics[=all|only-expected] */
typedef enum VerifyMode { VERIFY_NONE, VERIFY_ALL, VERIFY_ONLY_EXPECTED } VerifyMode;

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
  VerifyMode verify_diagnostics;
  bool list_passes;   /* print the registered passes and exit */
  bool show_dialects; /* print the dialects the context knows and exit */
  PipelineItem *items;
  size_t num_items, cap_items;
} Options;

/* Fills o with the defaults, then the command line. Returns -1 when the tool should go on, otherwise its exit
 * code (0 after --help/--version, 2 after a command-line error, already reported). */
int parse_args(int argc, char **argv, Options *o);
void options_free(Options *o);
void print_usage(FILE *f);

#endif
