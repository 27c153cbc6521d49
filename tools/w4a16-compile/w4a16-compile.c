/* w4a16-compile: ahead-of-time compiler from an MLIR file to native code (C17, MLIR + LLVM C APIs only).
 *
 *   w4a16-compile input.mlir|- -o out.o|out.so [--header out.h] [--no-fuse] [--no-merge] [--explain] [--emit-mlir|--emit-llvm]
 *                 [--mcpu=generic|native|<cpu>] [-O0..3]
 *
 * Steps:
 *   0. before any work: the output files (-o, --header) must be writable and --mcpu must name a CPU LLVM can
 *      generate code for (emit.c), else an error naming the path or the CPU (exit 1, resp. 2);
 *   1. parse the input, a file or stdin ('-', shown as <stdin>) (errors are printed as
 *      `file:line:col: error: ...` with the source line; exit 1); input the MLIR 22 parser would crash on
 *      (`array<index ...>` attributes) is rejected with such an error first. Every later diagnostic is
 *      located in this input too (the lowering gives its template code the location of the op it replaces);
 *   2. --header: write a C header declaring `_mlir_ciface_<fn>`, `w4a16c_run_<fn>` and `w4a16c_prepare_<fn>`
 *      for every public function with a body, derived from the signatures as written (tensor types) before
 *      anything is lowered;
 *   3. count the chains the fuse pass rewrites and the LLM.int8 preparations the int8-prep pass does (fuse, fuse-int8-
 *      prep + verify on a clone of the module; --explain prints one remark per candidate there) and report the counts
 *      on stderr;
 *   4. w4a16AddPipeline(fuse = !--no-fuse): fuse -> verify -> lower-to-runtime -> upstream passes to the LLVM
 *      dialect -> entry-points (the status-returning w4a16c_run_/w4a16c_prepare_<fn>; --emit-mlir stops here
 *      and prints it);
 *   5. mlirTranslateModuleToLLVMIR, LLVM's default<O2> pipeline and -O2 code generation for the host triple
 *      (PIC; --mcpu picks the CPU, default "generic" so the result runs on any machine of the architecture;
 *      --emit-llvm stops after optimisation and prints the LLVM IR);
 *   6. `.o`: the object file is the output. `.so`: the object is written next to the output and linked with
 *      `$CC -shared -o out.so obj.o -lm` (CC defaults to `cc`; libm for the expf/tanhf the upstream lowering
 *      calls, libgcc for f16 conversions). The runtime's symbols (`_mlir_ciface_w4a16_rt_matmul_*`,
 *      `w4a16_rt_enter/leave`) stay undefined: link the object with w4a16_rt_abi, or load the .so into a
 *      program that exports them.
 *
 * Exit status: 0 success, 1 processing error, 2 command-line error.
 *
 * This file: options and the steps above; header.c: step 2; emit.c: steps 5-6. Diagnostics, I/O and the
 * parse guard are shared with w4a16-opt (tools/common). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "compile.h"
#include "diagnostics.h"
#include "io.h"
#include "named_parse.h"
#include "parse_guard.h"
#include "strbuf.h"

#include "w4a16/dialect.h"
#include "w4a16/lowering.h"
#include "w4a16/passes.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"
#include "mlir-c/Target/LLVMIR.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const kToolName = "w4a16-compile";

#ifndef W4A16_VERSION
#define W4A16_VERSION "unknown"
#endif

/* ---------------------------------------------------------------------------------------------------- */
/* Options                                                                                               */
/* ---------------------------------------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* sm_<digits>[a]: it goes into the pipeline's text, so nothing else may. */
static bool is_sm_name(const char *s) {
  if (strncmp(s, "sm_", 3) != 0 || !isdigit((unsigned char)s[3]))
    return false;
  s += 3;
  while (isdigit((unsigned char)*s))
    ++s;
  return !*s || (*s == 'a' && !s[1]);
}

static void print_usage(FILE *f) {
  fprintf(f,
          "usage: %s <input.mlir> -o <out.o|out.so> [options]\n"
          "\n"
          "Compiles an MLIR file (tensor-level linalg IR, e.g. from torch-mlir or IREE) to native code: the\n"
          "w4a16 pipeline (fuse -> verify -> lower-to-runtime -> upstream lowering to the LLVM dialect), LLVM-IR\n"
          "translation, LLVM -O2 and code generation for the host triple. Every public function with a body is\n"
          "exported as _mlir_ciface_<name> (MLIR's C interface: memref arguments by pointer, a single memref\n"
          "result through a pointer passed as the first argument, its buffer malloc'ed by the compiled code),\n"
          "and as w4a16c_run_<name> and w4a16c_prepare_<name>, which take the same arguments and return 0 or a\n"
          "w4a16_status (message: w4a16_rt_last_error()); prepare first makes the plans of the weights.\n"
          "\n"
          "Options:\n"
          "  <input.mlir>       The input, MLIR text or bytecode; '-' reads stdin\n"
          "  -o <file>          Output: <name>.o (object file), <name>.so (shared library, linked with\n"
          "                     `$CC -shared ... -lm`, CC defaults to cc); '-' = stdout with --emit-mlir/--emit-llvm\n"
          "  --header <file>    Also write a C header declaring every exported function, with memref descriptor\n"
          "                     structs per (rank, element type); f16 elements are uint16_t, i4 one code per byte;\n"
          "                     its comment says how to call them\n"
          "  --no-fuse          Upstream lowering only (no w4a16 fusion): the reference build\n"
          "  --no-merge         Keep fused chains that read the same x as separate calls (no w4a16.merged_matmul:\n"
          "                     by default q/k/v become one launch, gate/up and their product one GLU launch)\n"
          "  --explain          Print, for every matmul fed by a dequantised weight, what it was fused as or why not\n"
          "  --emit-mlir        Write the IR after the pipeline (LLVM dialect) instead of native code\n"
          "  --emit-llvm        Write the optimised LLVM IR instead of native code\n"
          "  --mcpu=<cpu>       Target CPU: generic (default, portable), native (this machine), or an LLVM CPU name\n"
          "  -O0|-O1|-O2|-O3    LLVM optimisation and code generation level (default -O2)\n"
          "  --target=host|gpu  Where compiled code runs (default host). gpu: tensors are device pointers, fused\n"
          "                     ops call the runtime on them, every other op becomes a GPU kernel (upstream MLIR\n"
          "                     GPU codegen; PTX embedded, JIT-loaded once per process), all on the stream the\n"
          "                     entry points take first; needs CUDA's libdevice (nvvm/libdevice) for math\n"
          "  --gpu-chip=sm_XX   GPU target: the architecture the PTX is generated for (default sm_90)\n"
          "  -q, --quiet        Do not print the fusion summary\n"
          "  -h, --help         This text\n"
          "  --version          Print the version and exit\n"
          "\n"
          "The number of fused chains is printed on stderr. The generated code calls the runtime entry points\n"
          "_mlir_ciface_w4a16_rt_matmul_{i32,i8,i4} and w4a16_rt_enter/leave (w4a16/runtime_abi.h): link with\n"
          "w4a16_rt_abi, or load the .so into a program that exports them.\n"
          "Exit status: 0 success, 1 processing error (located diagnostic on stderr), 2 command-line error.\n",
          kToolName);
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "%s: error: ", kToolName);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see '%s --help')\n", kToolName);
  return 2;
}

/* Returns -1 to continue, else an exit code. */
static int parse_args(int argc, char **argv, Options *o) {
  *o = (Options){.fuse = true, .mcpu = "generic", .opt_level = 2};
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      print_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("%s %s (MLIR C API, LLVM 22)\n", kToolName, W4A16_VERSION);
      return 0;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--header")) {
      if (i + 1 >= argc)
        return usage_error("%s needs a file name", a);
      if (!strcmp(a, "-o"))
        o->output = argv[++i];
      else
        o->header = argv[++i];
    } else if (!strncmp(a, "-o", 2) && a[2]) {
      o->output = a + 2;
    } else if (!strncmp(a, "--header=", 9)) {
      o->header = a + 9;
    } else if (!strcmp(a, "--no-fuse")) {
      o->fuse = false;
    } else if (!strcmp(a, "--no-merge")) {
      o->no_merge = true;
    } else if (!strcmp(a, "--explain")) {
      o->explain = true;
    } else if (!strcmp(a, "--emit-mlir")) {
      o->emit_mlir = true;
    } else if (!strcmp(a, "--emit-llvm")) {
      o->emit_llvm = true;
    } else if (!strncmp(a, "--mcpu=", 7) && a[7]) {
      o->mcpu = a + 7;
    } else if (!strcmp(a, "--mcpu")) {
      if (i + 1 >= argc)
        return usage_error("%s needs a CPU name", a);
      o->mcpu = argv[++i];
    } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
      o->opt_level = a[2] - '0';
    } else if (!strcmp(a, "--target=host") || !strcmp(a, "--target=gpu")) {
      o->gpu = !strcmp(a, "--target=gpu");
    } else if (!strncmp(a, "--target", 8)) {
      return usage_error("unknown target in '%s' (--target=host or --target=gpu)", a);
    } else if (!strncmp(a, "--gpu-chip=", 11) && is_sm_name(a + 11)) {
      o->gpu_chip = a + 11;
    } else if (!strncmp(a, "--gpu-chip", 10)) {
      return usage_error("'%s': --gpu-chip=sm_XX names an NVIDIA architecture, e.g. sm_90", a);
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      o->quiet = true;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else {
      if (o->input)
        return usage_error("more than one input file ('%s')", a);
      o->input = a;
    }
  }
  if (!o->input)
    return usage_error("%s", "no input file");
  if (o->emit_mlir && o->emit_llvm)
    return usage_error("%s", "--emit-mlir and --emit-llvm are exclusive");
  if (!o->output) {
    if (o->emit_mlir || o->emit_llvm)
      o->output = "-";
    else
      return usage_error("%s", "no output file (-o out.o or -o out.so)");
  }
  if (!o->emit_mlir && !o->emit_llvm && !ends_with(o->output, ".o") && !ends_with(o->output, ".so"))
    return usage_error("cannot tell the output kind of '%s' (use a .o or .so name, or --emit-mlir/--emit-llvm)",
                       o->output);
  return -1;
}

OutputKind output_kind(const Options *o) {
  if (o->emit_mlir)
    return OUT_MLIR;
  if (o->emit_llvm)
    return OUT_LLVM;
  return ends_with(o->output, ".so") ? OUT_SHARED : OUT_OBJECT;
}

typedef struct Tool {
  Options opts;
  Source src;
  MlirContext ctx;
  DiagHandler diag; /* counts errors: a failure that printed none gets a message of its own */
} Tool;

/* ---------------------------------------------------------------------------------------------------- */
/* Fusion count                                                                                          */
/* ---------------------------------------------------------------------------------------------------- */

static MlirWalkResult count_fused(MlirOperation op, void *user) {
  if (w4a16IsFusedMatmul(op))
    ++*(int *)user;
  return MlirWalkResultAdvance;
}

static MlirWalkResult count_int8_preps(MlirOperation op, void *user) {
  if (w4a16IsInt8Prep(op))
    ++*(int *)user;
  return MlirWalkResultAdvance;
}

/* merged[0]: w4a16.merged_matmul ops, merged[1]: the chains they hold. */
static MlirWalkResult count_merged(MlirOperation op, void *user) {
  W4a16MergedSlots slots;
  if (w4a16IsMergedMatmul(op) && w4a16MergedSlots(op, &slots))
    ++((int *)user)[0], ((int *)user)[1] += slots.members;
  return MlirWalkResultAdvance;
}

/* Prints the merge pass's remarks (explain) as they are: they are not candidates left unfused. */
static void print_lines(const char *text) {
  if (text && *text)
    fprintf(stderr, "%s%s", text, text[strlen(text) - 1] == '\n' ? "" : "\n");
}

/* Runs fuse + verify on a clone of the module to count the chains the pipeline will fuse, printing the explain
 * remarks (if asked). The remarks are counted: `fused as ...` ones and the rest (candidates left unfused).
 * merged[0]: merged ops, merged[1]: the projections they hold, merged[2]: chains split into gate and up halves;
 * int8_preps: the LLM.int8 preparations the pipeline fuses too (their remarks printed, not counted as candidates). */
static bool count_chains(Tool *t, MlirModule module, int *fused, int *unfused_candidates, int merged[3],
                         int *int8_preps) {
  MlirOperation clone = mlirOperationClone(mlirModuleGetOperation(module));
  MlirPassManager pm = mlirPassManagerCreateOnOperation(t->ctx, mlirStringRefCreateFromCString("builtin.module"));
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  char *remarks = NULL;
  size_t remarks_len = 0;
  FILE *stream = t->opts.explain ? open_memstream(&remarks, &remarks_len) : NULL;
  w4a16AddPreFusionPasses(opm); /* as the pipeline does before it fuses */
  w4a16AddFusePass(opm, (W4a16FuseOptions){.explain = t->opts.explain, .explain_stream = stream});
  w4a16AddFuseInt8PrepPass(opm, (W4a16FuseOptions){.explain = t->opts.explain, .explain_stream = stream});
  mlirOpPassManagerAddOwnedPass(opm, w4a16CreateVerifyPass());
  MlirLogicalResult r = mlirPassManagerRunOnOp(pm, clone);
  if (stream)
    fclose(stream);
  *fused = 0;
  *unfused_candidates = 0;
  *int8_preps = 0;
  if (mlirLogicalResultIsSuccess(r)) {
    mlirOperationWalk(clone, count_fused, fused, MlirWalkPreOrder);
    mlirOperationWalk(clone, count_int8_preps, int8_preps, MlirWalkPreOrder);
  }
  /* Then the siblings, on the fused clone: how many launches the chains become. */
  char *mergeRemarks = NULL;
  size_t mergeRemarksLen = 0;
  merged[0] = merged[1] = merged[2] = 0;
  if (mlirLogicalResultIsSuccess(r) && !t->opts.no_merge) {
    FILE *mergeStream = t->opts.explain ? open_memstream(&mergeRemarks, &mergeRemarksLen) : NULL;
    MlirPassManager mpm = mlirPassManagerCreateOnOperation(t->ctx, mlirStringRefCreateFromCString("builtin.module"));
    const W4a16FuseOptions mergeOptions = {.explain = t->opts.explain, .explain_stream = mergeStream};
    w4a16AddSplitChunkedGluPass(mlirPassManagerGetAsOpPassManager(mpm), mergeOptions);
    w4a16AddMergeSiblingsPass(mlirPassManagerGetAsOpPassManager(mpm), mergeOptions);
    r = mlirPassManagerRunOnOp(mpm, clone);
    if (mergeStream)
      fclose(mergeStream);
    int left_fused = 0;
    if (mlirLogicalResultIsSuccess(r)) {
      mlirOperationWalk(clone, count_merged, merged, MlirWalkPreOrder);
      mlirOperationWalk(clone, count_fused, &left_fused, MlirWalkPreOrder);
      merged[2] = left_fused + merged[1] - *fused; /* each split makes one op of two */
    }
    mlirPassManagerDestroy(mpm);
  }
  for (char *line = remarks; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (*line) {
      fprintf(stderr, "%s\n", line);
      if (strstr(line, ": remark: w4a16: ") && !strstr(line, ": remark: w4a16: fused as "))
        ++*unfused_candidates;
    }
    line = nl ? nl + 1 : line + strlen(line);
  }
  free(remarks);
  print_lines(mergeRemarks);
  free(mergeRemarks);
  mlirPassManagerDestroy(pm);
  mlirOperationDestroy(clone);
  return mlirLogicalResultIsSuccess(r);
}

/* ---------------------------------------------------------------------------------------------------- */
/* Main                                                                                                  */
/* ---------------------------------------------------------------------------------------------------- */

static int compile(Tool *t) {
  const Options *o = &t->opts;
  bool from_stdin = !strcmp(o->input, "-");
  const char *name = from_stdin ? "<stdin>" : o->input;
  StrBuf text = {0};
  if ((from_stdin ? io_read_stream(stdin, &text) : io_read_file(o->input, &text)) != IO_OK) {
    fprintf(stderr, "%s: error: cannot read '%s'\n", kToolName, name);
    sb_free(&text);
    return 1;
  }
  source_init(&t->src, name, text.data, text.len);
  /* What the parser would crash on must not reach it. */
  if (!parse_guard_check(t->ctx, &t->src, 0, text.len)) {
    source_free(&t->src);
    sb_free(&text);
    return 1;
  }

  MlirOperation mop = named_parse(t->ctx, &t->diag, text.data, text.len, name, 0, 0);
  if (mlirOperationIsNull(mop)) {
    if (!t->diag.num_errors)
      fprintf(stderr, "%s: error: cannot parse '%s'\n", kToolName, name);
    source_free(&t->src);
    sb_free(&text);
    return 1;
  }
  int rc = 1;
  MlirModule module = mlirModuleFromOperation(mop);
  if (!mlirOperationVerify(mop) || mlirLogicalResultIsFailure(w4a16VerifyOps(mop)))
    goto out;

  if (o->header) {
    StrBuf h = {0};
    if (!generate_header(&t->src, module, o->header, o->gpu, &h)) {
      sb_free(&h);
      goto out;
    }
    bool wrote = io_write_file(o->header, h.data, h.len) == IO_OK;
    sb_free(&h);
    if (!wrote) {
      fprintf(stderr, "%s: error: cannot write header file '%s'\n", kToolName, o->header);
      goto out;
    }
  }

  if (o->fuse) {
    int fused, left, merged[3], int8_preps;
    if (!count_chains(t, module, &fused, &left, merged, &int8_preps))
      goto out;
    if (!o->quiet) {
      fprintf(stderr, "%s: %s: fused %d chain%s into w4a16.fused_matmul", kToolName, name, fused,
              fused == 1 ? "" : "s");
      if (merged[2])
        fprintf(stderr, "; %d of them split into gate and up halves", merged[2]);
      if (merged[0])
        fprintf(stderr, "; %d %s merged into %d w4a16.merged_matmul (one launch each)", merged[1],
                merged[2] ? "projections (halves counted)" : "of them", merged[0]);
      if (o->explain)
        fprintf(stderr, "; %d candidate matmul%s left unfused (see the remarks above)", left, left == 1 ? "" : "s");
      if (int8_preps)
        fprintf(stderr, "; %d LLM.int8 preparation%s fused into w4a16.int8_prep", int8_preps,
                int8_preps == 1 ? "" : "s");
      fprintf(stderr, "\n");
    }
  } else if (!o->quiet) {
    fprintf(stderr, "%s: %s: fusion off (--no-fuse): upstream lowering only, 0 chains fused%s\n", kToolName, name,
            o->explain ? " (--explain has nothing to report)" : "");
  }

  MlirPassManager pm = mlirPassManagerCreateOnOperation(t->ctx, mlirStringRefCreateFromCString("builtin.module"));
  W4a16PipelineOptions popts = {.fuse = o->fuse,
                                .fuseOptions = {.explain = false, .explain_stream = NULL},
                                .target = o->gpu ? W4A16_TARGET_GPU : W4A16_TARGET_HOST,
                                .gpuChip = o->gpu_chip,
                                .noMergeSiblings = o->no_merge};
  if (mlirLogicalResultIsFailure(w4a16AddPipeline(mlirPassManagerGetAsOpPassManager(pm), popts))) {
    fprintf(stderr, "%s: error: the lowering pipeline does not parse\n", kToolName);
    mlirPassManagerDestroy(pm);
    goto out;
  }
  MlirLogicalResult r = mlirPassManagerRunOnOp(pm, mop);
  mlirPassManagerDestroy(pm);
  if (mlirLogicalResultIsFailure(r)) {
    if (!t->diag.num_errors)
      fprintf(stderr, "%s: error: the lowering pipeline failed on %s\n", kToolName, name);
    goto out;
  }

  if (o->emit_mlir) {
    StrBuf b = {0};
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    mlirOperationPrintWithFlags(mop, flags, sb_callback, &b);
    mlirOpPrintingFlagsDestroy(flags);
    sb_append(&b, "\n", 1);
    bool wrote = io_write_file(o->output, b.data, b.len) == IO_OK;
    sb_free(&b);
    if (!wrote) {
      fprintf(stderr, "%s: error: cannot write output file '%s'\n", kToolName, o->output);
      goto out;
    }
    rc = 0;
    goto out;
  }
  rc = emit_native(o, module) ? 0 : 1;

out:
  mlirModuleDestroy(module);
  source_free(&t->src);
  sb_free(&text);
  return rc;
}

/* Step 0: what would otherwise fail only after the whole pipeline ran. Returns -1 to go on, else the exit code. */
static int check_before_work(const Options *o) {
  const char *const paths[] = {o->output, o->header};
  const char *const what[] = {"output", "header"};
  for (int i = 0; i < 2; ++i)
    if (paths[i] && io_check_writable(paths[i]) != IO_OK) {
      fprintf(stderr, "%s: error: cannot write %s file '%s': %s\n", kToolName, what[i], paths[i], strerror(errno));
      return 1;
    }
  if (output_kind(o) != OUT_MLIR && !check_target_cpu(o))
    return 2;
  return -1;
}

int main(int argc, char **argv) {
  Tool t = {0};
  int rc = parse_args(argc, argv, &t.opts);
  if (rc >= 0)
    return rc;
  rc = check_before_work(&t.opts);
  if (rc >= 0)
    return rc;

  t.ctx = mlirContextCreateWithThreading(false);
  /* The rendering this tool always had (see DiagStyle): tabs kept, every note quoting its line. */
  t.diag = (DiagHandler){.src = &t.src, .style = {.unlocated_prefix = kToolName}};
  mlirContextAttachDiagnosticHandler(t.ctx, diag_handle, &t.diag, NULL);
  w4a16RegisterAll(t.ctx); /* every dialect, interface, translation and pass the pipeline needs */
  StrBuf unnamed_buffer = {0};
  named_parse_init(t.ctx, &t.diag, &unnamed_buffer);

  rc = compile(&t);
  mlirContextDestroy(t.ctx);
  diag_handler_free(&t.diag);
  sb_free(&unnamed_buffer);
  return rc;
}
