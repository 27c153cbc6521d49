/* w4a16-compile: ahead-of-time compiler from an MLIR file to native code (C17, MLIR + LLVM C APIs only).
 *
 *   w4a16-compile input.mlir -o out.o|out.so [--header out.h] [--no-fuse] [--explain] [--emit-mlir|--emit-llvm]
 *                 [--mcpu=generic|native|<cpu>] [-O0..3]
 *
 * Steps:
 *   1. parse the input (errors are printed as `file:line:col: error: ...` with the source line; exit 1);
 *   2. --header: write a C header declaring `_mlir_ciface_<fn>` for every public function with a body, derived
 *      from the signatures as written (tensor types) before anything is lowered;
 *   3. count the chains the fuse pass rewrites (fuse + verify on a clone of the module; --explain prints one
 *      remark per candidate matmul there) and report the count on stderr;
 *   4. w4a16AddPipeline(fuse = !--no-fuse): fuse -> verify -> lower-to-runtime -> upstream passes to the LLVM
 *      dialect (--emit-mlir stops here and prints it);
 *   5. mlirTranslateModuleToLLVMIR, LLVM's default<O2> pipeline and -O2 code generation for the host triple
 *      (PIC; --mcpu picks the CPU, default "generic" so the result runs on any machine of the architecture;
 *      --emit-llvm stops after optimisation and prints the LLVM IR);
 *   6. `.o`: the object file is the output. `.so`: the object is written next to the output and linked with
 *      `$CC -shared -o out.so obj.o -lm` (CC defaults to `cc`; libm for the expf/tanhf the upstream lowering
 *      calls, libgcc for f16 conversions). Runtime entry points (`_mlir_ciface_w4a16_rt_matmul_*`) stay
 *      undefined: link the object with w4a16_rt_abi, or load the .so into a program that exports them.
 *
 * Exit status: 0 success, 1 processing error, 2 command-line error. */
#define _POSIX_C_SOURCE 200809L

#include "w4a16/dialect.h"
#include "w4a16/lowering.h"
#include "w4a16/passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"
#include "mlir-c/Target/LLVMIR.h"

#include "llvm-c/Core.h"
#include "llvm-c/Analysis.h"
#include "llvm-c/Error.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"
#include "llvm-c/Transforms/PassBuilder.h"

#include <ctype.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *const kTool = "w4a16-compile";

/* ---------------------------------------------------------------------------------------------------- */
/* Small helpers                                                                                         */
/* ---------------------------------------------------------------------------------------------------- */

typedef struct Buf {
  char *data;
  size_t len, cap;
} Buf;

static void oom(void) {
  fprintf(stderr, "%s: error: out of memory\n", kTool);
  exit(1);
}

static void buf_append(Buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
      cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d)
      oom();
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void buf_printf(Buf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    char *tmp = malloc((size_t)n + 1);
    if (!tmp)
      oom();
    vsnprintf(tmp, (size_t)n + 1, fmt, ap2);
    buf_append(b, tmp, (size_t)n);
    free(tmp);
  }
  va_end(ap2);
}

static void buf_callback(MlirStringRef s, void *user) { buf_append((Buf *)user, s.data, s.length); }

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  Buf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    buf_append(&b, chunk, n);
  bool err = ferror(f);
  fclose(f);
  if (err) {
    free(b.data);
    return NULL;
  }
  if (!b.data)
    buf_append(&b, "", 0);
  *len = b.len;
  return b.data;
}

static bool write_file(const char *path, const char *data, size_t len) {
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
  if (!f)
    return false;
  bool ok = fwrite(data, 1, len, f) == len;
  if (f != stdout)
    ok = (fclose(f) == 0) && ok;
  else
    fflush(stdout);
  return ok;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Options                                                                                               */
/* ---------------------------------------------------------------------------------------------------- */

typedef enum OutputKind { OUT_OBJECT, OUT_SHARED, OUT_MLIR, OUT_LLVM } OutputKind;

typedef struct Options {
  const char *input;
  const char *output;
  const char *header;
  bool fuse;
  bool explain;
  bool emit_mlir;
  bool emit_llvm;
  const char *mcpu;
  int opt_level;
  bool quiet;
} Options;

static void print_usage(FILE *f) {
  fprintf(f,
          "usage: %s <input.mlir> -o <out.o|out.so> [options]\n"
          "\n"
          "Compiles an MLIR file (tensor-level linalg IR, e.g. from torch-mlir or IREE) to native code: the\n"
          "w4a16 pipeline (fuse -> verify -> lower-to-runtime -> upstream lowering to the LLVM dialect), LLVM-IR\n"
          "translation, LLVM -O2 and code generation for the host triple. Every public function with a body is\n"
          "exported as _mlir_ciface_<name> (MLIR's C interface: memref arguments by pointer, a single memref\n"
          "result through a pointer passed as the first argument, its buffer malloc'ed by the compiled code).\n"
          "\n"
          "Options:\n"
          "  -o <file>          Output: <name>.o (object file), <name>.so (shared library, linked with\n"
          "                     `$CC -shared ... -lm`, CC defaults to cc); '-' = stdout with --emit-mlir/--emit-llvm\n"
          "  --header <file>    Also write a C header declaring every exported function, with memref descriptor\n"
          "                     structs per (rank, element type); f16 elements are uint16_t, i4 one code per byte\n"
          "  --no-fuse          Upstream lowering only (no w4a16 fusion): the reference build\n"
          "  --explain          Print, for every matmul fed by a dequantised weight, what it was fused as or why not\n"
          "  --emit-mlir        Write the IR after the pipeline (LLVM dialect) instead of native code\n"
          "  --emit-llvm        Write the optimised LLVM IR instead of native code\n"
          "  --mcpu=<cpu>       Target CPU: generic (default, portable), native (this machine), or an LLVM CPU name\n"
          "  -O0|-O1|-O2|-O3    LLVM optimisation and code generation level (default -O2)\n"
          "  -q, --quiet        Do not print the fusion summary\n"
          "  -h, --help         This text\n"
          "\n"
          "The number of fused chains is printed on stderr. The generated code calls the runtime entry points\n"
          "_mlir_ciface_w4a16_rt_matmul_{i32,i8,i4} (w4a16/runtime_abi.h): link with w4a16_rt_abi, or load the\n"
          ".so into a program that exports them.\n"
          "Exit status: 0 success, 1 processing error (located diagnostic on stderr), 2 command-line error.\n",
          kTool);
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "%s: error: ", kTool);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see '%s --help')\n", kTool);
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

static OutputKind output_kind(const Options *o) {
  if (o->emit_mlir)
    return OUT_MLIR;
  if (o->emit_llvm)
    return OUT_LLVM;
  return ends_with(o->output, ".so") ? OUT_SHARED : OUT_OBJECT;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Diagnostics: `file:line:col: error: message`, then the source line and a caret (like mlir-opt).       */
/* ---------------------------------------------------------------------------------------------------- */

typedef struct Source {
  const char *name;
  const char *text;
  size_t len;
} Source;

typedef struct Tool {
  Options opts;
  Source src;
  MlirContext ctx;
  int errors;
} Tool;

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
    MlirLocation *locs = malloc(sizeof(MlirLocation) * (size_t)(n > 0 ? n : 1));
    if (!locs)
      oom();
    mlirLocationFusedGetLocations(loc, locs);
    bool found = false;
    for (intptr_t i = 0; i < n && !found; ++i)
      found = find_file_loc(locs[i], file, line, col);
    free(locs);
    return found;
  }
  return false;
}

/* Start of line `line` (1-based) in the source, or NULL. */
static const char *source_line(const Source *src, unsigned line, size_t *len) {
  if (!src->text || line == 0)
    return NULL;
  const char *p = src->text, *end = src->text + src->len;
  for (unsigned l = 1; l < line; ++l) {
    p = memchr(p, '\n', (size_t)(end - p));
    if (!p)
      return NULL;
    ++p;
  }
  const char *e = p;
  while (e < end && *e != '\n' && *e != '\r')
    ++e;
  *len = (size_t)(e - p);
  return p;
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

static void format_diagnostic(const Tool *t, MlirDiagnostic d, Buf *out) {
  MlirStringRef file;
  unsigned line = 0, col = 0;
  bool located = find_file_loc(mlirDiagnosticGetLocation(d), &file, &line, &col);
  if (located)
    buf_printf(out, "%.*s:%u:%u: ", (int)file.length, file.data, line, col);
  else
    buf_printf(out, "%s: ", kTool);
  buf_printf(out, "%s: ", severity_name(mlirDiagnosticGetSeverity(d)));
  mlirDiagnosticPrint(d, buf_callback, out);
  buf_append(out, "\n", 1);
  size_t n;
  const char *l = located && file.length == strlen(t->src.name) && !memcmp(file.data, t->src.name, file.length)
                      ? source_line(&t->src, line, &n)
                      : NULL;
  if (l) {
    buf_append(out, l, n);
    buf_append(out, "\n", 1);
    for (unsigned c = 1; c < col; ++c)
      buf_append(out, (c - 1 < n && l[c - 1] == '\t') ? "\t" : " ", 1);
    buf_append(out, "^\n", 2);
  }
  for (intptr_t i = 0, k = mlirDiagnosticGetNumNotes(d); i < k; ++i)
    format_diagnostic(t, mlirDiagnosticGetNote(d, i), out);
}

static MlirLogicalResult diagnostic_handler(MlirDiagnostic d, void *user) {
  Tool *t = user;
  if (mlirDiagnosticGetSeverity(d) == MlirDiagnosticError)
    ++t->errors;
  Buf b = {0};
  format_diagnostic(t, d, &b);
  fputs(b.data ? b.data : "", stderr);
  free(b.data);
  return mlirLogicalResultSuccess();
}

/* ---------------------------------------------------------------------------------------------------- */
/* C header generation from the function signatures as written (before lowering).                       */
/* ---------------------------------------------------------------------------------------------------- */

typedef struct CType {
  const char *c;      /* C element type */
  const char *suffix; /* element tag in struct names: f16, i32, ... */
  const char *note;   /* how elements are stored, or NULL */
} CType;

/* C type of a memref element (or scalar). Returns false for types C cannot express here. */
static bool element_ctype(MlirType t, bool scalar, CType *out) {
  if (mlirTypeIsAF16(t)) {
    if (scalar)
      return false; /* passed as LLVM half: no C17 type has that ABI */
    *out = (CType){"uint16_t", "f16", "f16 elements as raw IEEE binary16 bits"};
    return true;
  }
  if (mlirTypeIsABF16(t)) {
    if (scalar)
      return false;
    *out = (CType){"uint16_t", "bf16", "bf16 elements as raw bits"};
    return true;
  }
  if (mlirTypeIsAF32(t)) {
    *out = (CType){"float", "f32", NULL};
    return true;
  }
  if (mlirTypeIsAF64(t)) {
    *out = (CType){"double", "f64", NULL};
    return true;
  }
  if (mlirTypeIsAIndex(t)) {
    *out = (CType){"int64_t", "index", "index is 64-bit"};
    return true;
  }
  if (mlirTypeIsAInteger(t)) {
    unsigned w = mlirIntegerTypeGetWidth(t);
    bool u = mlirIntegerTypeIsUnsigned(t);
    switch (w) {
    case 1:
      *out = (CType){"uint8_t", "i1", "i1 stored one per byte (0 or 1)"};
      return !scalar; /* an i1 scalar is passed as LLVM i1: use memrefs */
    case 4:
      *out = (CType){"uint8_t", "i4", "i4 stored one per byte, code in the low nibble"};
      return !scalar;
    case 8:
      *out = u ? (CType){"uint8_t", "ui8", NULL} : (CType){"int8_t", "i8", NULL};
      return true;
    case 16:
      *out = u ? (CType){"uint16_t", "ui16", NULL} : (CType){"int16_t", "i16", NULL};
      return true;
    case 32:
      *out = u ? (CType){"uint32_t", "ui32", NULL} : (CType){"int32_t", "i32", NULL};
      return true;
    case 64:
      *out = u ? (CType){"uint64_t", "ui64", NULL} : (CType){"int64_t", "i64", NULL};
      return true;
    default:
      return false;
    }
  }
  return false;
}

typedef struct StructSet {
  char names[64][48];
  int count;
} StructSet;

static bool is_shaped_memref_like(MlirType t) { return mlirTypeIsARankedTensor(t) || mlirTypeIsAMemRef(t); }

static void print_type(MlirType t, Buf *out) { mlirTypePrint(t, buf_callback, out); }

/* Declares (once per header, and guarded so several generated headers can be included together) the memref
 * descriptor struct for (rank, element type); writes its name to name. */
static void memref_struct(Buf *defs, StructSet *seen, int64_t rank, const CType *ct, char *name, size_t size) {
  snprintf(name, size, "w4a16c_memref%" PRId64 "d_%s", rank, ct->suffix);
  for (int i = 0; i < seen->count; ++i)
    if (!strcmp(seen->names[i], name))
      return;
  if (seen->count < 64)
    snprintf(seen->names[seen->count++], sizeof seen->names[0], "%s", name);
  char guard[80];
  snprintf(guard, sizeof guard, "W4A16C_MEMREF%" PRId64 "D_%s_DEFINED", rank, ct->suffix);
  for (char *p = guard; *p; ++p)
    *p = (char)toupper((unsigned char)*p);
  buf_printf(defs, "#ifndef %s\n#define %s\n", guard, guard);
  buf_printf(defs, "/* Memref descriptor, rank %" PRId64 "%s%s. */\n", rank, ct->note ? ", " : "",
             ct->note ? ct->note : "");
  buf_printf(defs, "typedef struct %s {\n  %s *allocated;\n  %s *aligned;\n  int64_t offset;\n", name, ct->c, ct->c);
  if (rank > 0)
    buf_printf(defs, "  int64_t sizes[%" PRId64 "];\n  int64_t strides[%" PRId64 "];\n", rank, rank);
  buf_printf(defs, "} %s;\n#endif\n\n", name);
}

static bool is_c_keyword(const char *s) {
  static const char *const kw[] = {"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
                                   "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
                                   "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
                                   "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
                                   "true", "false", "ret"};
  for (size_t i = 0; i < sizeof kw / sizeof kw[0]; ++i)
    if (!strcmp(s, kw[i]))
      return true;
  return false;
}

/* The SSA name an argument had in the source (`%x` -> "x"), read at the argument's location; else argN. */
static void arg_name(const Tool *t, MlirValue arg, intptr_t index, char *out, size_t size) {
  snprintf(out, size, "arg%ld", (long)index);
  MlirStringRef file;
  unsigned line, col;
  if (!find_file_loc(mlirValueGetLocation(arg), &file, &line, &col))
    return;
  size_t n;
  const char *l = source_line(&t->src, line, &n);
  if (!l || col == 0 || col > n || l[col - 1] != '%')
    return;
  size_t j = 0;
  char name[64];
  for (size_t i = col; i < n && j + 1 < sizeof name; ++i) {
    char c = l[i];
    if (!(isalnum((unsigned char)c) || c == '_'))
      break;
    name[j++] = c;
  }
  name[j] = '\0';
  if (j == 0 || isdigit((unsigned char)name[0]) || is_c_keyword(name))
    return;
  snprintf(out, size, "%s", name);
}

static bool is_public_definition(MlirOperation op) {
  if (!mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), mlirStringRefCreateFromCString("func.func")))
    return false;
  MlirAttribute vis = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_visibility"));
  if (!mlirAttributeIsNull(vis) && mlirAttributeIsAString(vis) &&
      !mlirStringRefEqual(mlirStringAttrGetValue(vis), mlirStringRefCreateFromCString("public")))
    return false;
  MlirRegion body = mlirOperationGetRegion(op, 0);
  return !mlirBlockIsNull(mlirRegionGetFirstBlock(body));
}

/* Builds the header text; returns false (after an error message) for a signature C cannot express. */
static bool generate_header(const Tool *t, MlirModule module, const char *header_path, Buf *out) {
  Buf defs = {0}, decls = {0};
  StructSet seen = {0};
  int nfuncs = 0;
  bool ok = true;
  MlirBlock body = mlirModuleGetBody(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op) && ok;
       op = mlirOperationGetNextInBlock(op)) {
    if (!is_public_definition(op))
      continue;
    MlirStringRef fname =
        mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name")));
    MlirType ftype =
        mlirTypeAttrGetValue(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("function_type")));
    MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    intptr_t nin = mlirFunctionTypeGetNumInputs(ftype), nres = mlirFunctionTypeGetNumResults(ftype);
    Buf params = {0}, doc = {0};
    char ret_c[96] = "void";
    char result_struct[96] = "";

    buf_printf(&doc, "/* %.*s(", (int)fname.length, fname.data);
    for (intptr_t i = 0; i < nin; ++i) {
      buf_printf(&doc, "%s", i ? ", " : "");
      print_type(mlirFunctionTypeGetInput(ftype, i), &doc);
    }
    buf_printf(&doc, ")");
    if (nres) {
      buf_printf(&doc, " -> ");
      for (intptr_t i = 0; i < nres; ++i) {
        buf_printf(&doc, "%s", i ? ", " : "");
        print_type(mlirFunctionTypeGetResult(ftype, i), &doc);
      }
    }
    buf_printf(&doc, "\n");

    /* Results. One scalar: returned by value. One memref: through a pointer passed first. Several: packed in
     * a struct, through a pointer passed first (MLIR's C-interface convention). */
    if (nres == 1 && !is_shaped_memref_like(mlirFunctionTypeGetResult(ftype, 0))) {
      CType ct;
      if (!element_ctype(mlirFunctionTypeGetResult(ftype, 0), true, &ct)) {
        ok = false;
        break;
      }
      snprintf(ret_c, sizeof ret_c, "%s", ct.c);
    } else if (nres >= 1) {
      Buf fields = {0};
      for (intptr_t i = 0; i < nres && ok; ++i) {
        MlirType rt = mlirFunctionTypeGetResult(ftype, i);
        CType ct;
        char sname[64];
        if (is_shaped_memref_like(rt)) {
          if (!element_ctype(mlirShapedTypeGetElementType(rt), false, &ct)) {
            ok = false;
            break;
          }
          memref_struct(&defs, &seen, mlirShapedTypeGetRank(rt), &ct, sname, sizeof sname);
        } else {
          if (!element_ctype(rt, true, &ct)) {
            ok = false;
            break;
          }
          snprintf(sname, sizeof sname, "%s", ct.c);
        }
        if (nres == 1)
          snprintf(result_struct, sizeof result_struct, "%s", sname);
        else
          buf_printf(&fields, "  %s r%ld;\n", sname, (long)i);
      }
      if (ok && nres > 1) {
        snprintf(result_struct, sizeof result_struct, "w4a16c_%.*s_results", (int)fname.length, fname.data);
        buf_printf(&defs, "/* The results of %.*s, in order. */\ntypedef struct %s {\n%s} %s;\n\n", (int)fname.length,
                   fname.data, result_struct, fields.data, result_struct);
      }
      free(fields.data);
      if (!ok)
        break;
      buf_printf(&params, "%s *ret", result_struct);
      buf_printf(&doc, " *   ret: the result%s (written by the call; free ret->allocated%s)\n", nres > 1 ? "s" : "",
                 nres > 1 ? " of each memref" : " with free()");
    }

    for (intptr_t i = 0; i < nin && ok; ++i) {
      MlirType it = mlirFunctionTypeGetInput(ftype, i);
      char name[64];
      arg_name(t, mlirBlockGetArgument(entry, i), i, name, sizeof name);
      CType ct;
      if (params.len)
        buf_append(&params, ", ", 2);
      if (is_shaped_memref_like(it)) {
        if (!element_ctype(mlirShapedTypeGetElementType(it), false, &ct)) {
          ok = false;
          break;
        }
        char sname[64];
        memref_struct(&defs, &seen, mlirShapedTypeGetRank(it), &ct, sname, sizeof sname);
        buf_printf(&params, "%s *%s", sname, name);
        buf_printf(&doc, " *   %s: ", name);
        print_type(it, &doc);
        buf_printf(&doc, "\n");
      } else if (mlirTypeIsATensor(it) || mlirTypeIsAUnrankedMemRef(it)) {
        ok = false;
        break;
      } else {
        if (!element_ctype(it, true, &ct)) {
          ok = false;
          break;
        }
        buf_printf(&params, "%s %s", ct.c, name);
      }
    }
    if (!ok) {
      fprintf(stderr, "%s: error: --header: the signature of '%.*s' has a type C cannot express (unranked tensors, "
                      "f16/bf16/i1/i4 scalars, exotic element types are not supported)\n",
              kTool, (int)fname.length, fname.data);
      free(params.data);
      free(doc.data);
      break;
    }
    if (!params.len)
      buf_printf(&params, "void");
    buf_printf(&doc, " */\n");
    buf_append(&decls, doc.data, doc.len);
    buf_printf(&decls, "typedef %s w4a16c_%.*s_fn(%s);\n", ret_c, (int)fname.length, fname.data, params.data);
    buf_printf(&decls, "w4a16c_%.*s_fn _mlir_ciface_%.*s;\n\n", (int)fname.length, fname.data, (int)fname.length,
               fname.data);
    free(params.data);
    free(doc.data);
    ++nfuncs;
  }
  if (ok) {
    char guard[128];
    const char *base = strrchr(header_path, '/');
    base = base ? base + 1 : header_path;
    snprintf(guard, sizeof guard, "W4A16C_GENERATED_%s", base);
    for (char *p = guard; *p; ++p)
      *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    buf_printf(out,
               "/* Generated by w4a16-compile from %s. Do not edit.\n"
               " *\n"
               " * C declarations of the functions the compiled object exports (MLIR's C interface). Tensor\n"
               " * arguments and results are memref descriptors with identity (row-major) layout: pass\n"
               " * allocated = aligned = the data, offset 0, sizes, and strides {sizes[1]*..., ..., 1}. A memref\n"
               " * result is returned through the pointer passed first; its buffer is malloc'ed by the compiled\n"
               " * code (free(ret->allocated)). Inputs are never written. */\n"
               "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
               t->src.name, guard, guard);
    if (defs.data)
      buf_append(out, defs.data, defs.len);
    if (decls.data)
      buf_append(out, decls.data, decls.len);
    buf_printf(out, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
    if (nfuncs == 0)
      fprintf(stderr, "%s: warning: --header: no public function with a body in %s\n", kTool, t->src.name);
  }
  free(defs.data);
  free(decls.data);
  return ok;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Fusion count                                                                                          */
/* ---------------------------------------------------------------------------------------------------- */

static MlirWalkResult count_fused(MlirOperation op, void *user) {
  if (w4a16IsFusedMatmul(op))
    ++*(int *)user;
  return MlirWalkResultAdvance;
}

/* Runs fuse + verify on a clone of the module to count the chains the pipeline will fuse, printing the explain
 * remarks (if asked). The remarks are counted: `fused as ...` ones and the rest (candidates left unfused). */
static bool count_chains(Tool *t, MlirModule module, int *fused, int *unfused_candidates) {
  MlirOperation clone = mlirOperationClone(mlirModuleGetOperation(module));
  MlirPassManager pm = mlirPassManagerCreateOnOperation(t->ctx, mlirStringRefCreateFromCString("builtin.module"));
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  char *remarks = NULL;
  size_t remarks_len = 0;
  FILE *stream = t->opts.explain ? open_memstream(&remarks, &remarks_len) : NULL;
  w4a16AddFusePass(opm, (W4a16FuseOptions){.explain = t->opts.explain, .explain_stream = stream});
  mlirOpPassManagerAddOwnedPass(opm, w4a16CreateVerifyPass());
  MlirLogicalResult r = mlirPassManagerRunOnOp(pm, clone);
  if (stream)
    fclose(stream);
  *fused = 0;
  *unfused_candidates = 0;
  if (mlirLogicalResultIsSuccess(r))
    mlirOperationWalk(clone, count_fused, fused, MlirWalkPreOrder);
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
  mlirPassManagerDestroy(pm);
  mlirOperationDestroy(clone);
  return mlirLogicalResultIsSuccess(r);
}

/* ---------------------------------------------------------------------------------------------------- */
/* LLVM: optimise and emit                                                                               */
/* ---------------------------------------------------------------------------------------------------- */

static bool llvm_error(const char *what, char *msg) {
  fprintf(stderr, "%s: error: %s: %s\n", kTool, what, msg ? msg : "(no message)");
  if (msg)
    LLVMDisposeMessage(msg);
  return false;
}

static bool run_cc_shared(const char *object, const char *output) {
  const char *cc = getenv("CC");
  if (!cc || !*cc)
    cc = "cc";
  char *argv[] = {(char *)cc, "-shared", "-o", (char *)output, (char *)object, "-lm", NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, cc, NULL, NULL, argv, environ);
  if (rc != 0) {
    fprintf(stderr, "%s: error: cannot run '%s' to link %s: %s\n", kTool, cc, output, strerror(rc));
    return false;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    ;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "%s: error: '%s -shared -o %s %s -lm' failed\n", kTool, cc, output, object);
    return false;
  }
  return true;
}

static bool emit_native(const Options *o, MlirModule module) {
  bool ok = false;
  LLVMContextRef llctx = LLVMContextCreate();
  LLVMModuleRef mod = mlirTranslateModuleToLLVMIR(mlirModuleGetOperation(module), llctx);
  if (!mod) {
    fprintf(stderr, "%s: error: translation to LLVM IR failed\n", kTool);
    LLVMContextDispose(llctx);
    return false;
  }
  LLVMTargetMachineRef tm = NULL;
  char *triple = NULL, *cpu = NULL, *features = NULL, *err = NULL, *obj = NULL;
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
    fprintf(stderr, "%s: error: LLVM has no native target\n", kTool);
    goto done;
  }
  triple = LLVMGetDefaultTargetTriple();
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    llvm_error("no LLVM target for the host triple", err);
    goto done;
  }
  if (!strcmp(o->mcpu, "native")) {
    cpu = LLVMGetHostCPUName();
    features = LLVMGetHostCPUFeatures();
  } else {
    cpu = LLVMCreateMessage(o->mcpu);
    features = LLVMCreateMessage("");
  }
  static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess, LLVMCodeGenLevelDefault,
                                               LLVMCodeGenLevelAggressive};
  tm = LLVMCreateTargetMachine(target, triple, cpu, features, levels[o->opt_level], LLVMRelocPIC,
                               LLVMCodeModelDefault);
  if (!tm) {
    fprintf(stderr, "%s: error: cannot create a target machine for %s (cpu '%s')\n", kTool, triple, cpu);
    goto done;
  }
  LLVMSetTarget(mod, triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(mod, layout);
  LLVMDisposeTargetData(layout);

  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%d>", o->opt_level);
  LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
  LLVMErrorRef perr = LLVMRunPasses(mod, pipeline, tm, pbo);
  LLVMDisposePassBuilderOptions(pbo);
  if (perr) {
    llvm_error("LLVM optimisation failed", LLVMGetErrorMessage(perr));
    goto done;
  }
  if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &err)) {
    llvm_error("invalid LLVM module", err);
    goto done;
  }
  if (err) {
    LLVMDisposeMessage(err);
    err = NULL;
  }

  OutputKind kind = output_kind(o);
  if (kind == OUT_LLVM) {
    char *text = LLVMPrintModuleToString(mod);
    ok = write_file(o->output, text, strlen(text));
    if (!ok)
      fprintf(stderr, "%s: error: cannot write %s\n", kTool, o->output);
    LLVMDisposeMessage(text);
    goto done;
  }
  const char *obj_path = o->output;
  if (kind == OUT_SHARED) {
    size_t n = strlen(o->output) + 32;
    obj = malloc(n);
    if (!obj)
      oom();
    snprintf(obj, n, "%s.%ld.tmp.o", o->output, (long)getpid());
    obj_path = obj;
  }
  if (LLVMTargetMachineEmitToFile(tm, mod, (char *)obj_path, LLVMObjectFile, &err)) {
    llvm_error("code generation failed", err);
    err = NULL;
    goto done;
  }
  ok = kind == OUT_SHARED ? run_cc_shared(obj_path, o->output) : true;
  if (kind == OUT_SHARED)
    remove(obj_path);

done:
  free(obj);
  if (err)
    LLVMDisposeMessage(err);
  if (tm)
    LLVMDisposeTargetMachine(tm);
  if (cpu)
    LLVMDisposeMessage(cpu);
  if (features)
    LLVMDisposeMessage(features);
  if (triple)
    LLVMDisposeMessage(triple);
  LLVMDisposeModule(mod);
  LLVMContextDispose(llctx);
  return ok;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Main                                                                                                  */
/* ---------------------------------------------------------------------------------------------------- */

static int compile(Tool *t) {
  const Options *o = &t->opts;
  size_t len;
  char *text = read_file(o->input, &len);
  if (!text) {
    fprintf(stderr, "%s: error: cannot read '%s'\n", kTool, o->input);
    return 1;
  }
  t->src = (Source){o->input, text, len};

  MlirModule module = mlirModuleCreateParseFromFile(t->ctx, mlirStringRefCreateFromCString(o->input));
  if (mlirModuleIsNull(module)) {
    if (!t->errors)
      fprintf(stderr, "%s: error: cannot parse '%s'\n", kTool, o->input);
    free(text);
    return 1;
  }
  int rc = 1;
  MlirOperation mop = mlirModuleGetOperation(module);
  if (!mlirOperationVerify(mop) || mlirLogicalResultIsFailure(w4a16VerifyOps(mop)))
    goto out;

  if (o->header) {
    Buf h = {0};
    if (!generate_header(t, module, o->header, &h)) {
      free(h.data);
      goto out;
    }
    bool wrote = write_file(o->header, h.data, h.len);
    free(h.data);
    if (!wrote) {
      fprintf(stderr, "%s: error: cannot write %s\n", kTool, o->header);
      goto out;
    }
  }

  if (o->fuse) {
    int fused, left;
    if (!count_chains(t, module, &fused, &left))
      goto out;
    if (!o->quiet) {
      fprintf(stderr, "%s: %s: fused %d chain%s into w4a16.fused_matmul", kTool, o->input, fused,
              fused == 1 ? "" : "s");
      if (o->explain)
        fprintf(stderr, "; %d candidate matmul%s left unfused (see the remarks above)", left, left == 1 ? "" : "s");
      fprintf(stderr, "\n");
    }
  } else if (!o->quiet) {
    fprintf(stderr, "%s: %s: fusion off (--no-fuse): upstream lowering only, 0 chains fused%s\n", kTool, o->input,
            o->explain ? " (--explain has nothing to report)" : "");
  }

  MlirPassManager pm = mlirPassManagerCreateOnOperation(t->ctx, mlirStringRefCreateFromCString("builtin.module"));
  W4a16PipelineOptions popts = {.fuse = o->fuse, .fuseOptions = {.explain = false, .explain_stream = NULL}};
  if (mlirLogicalResultIsFailure(w4a16AddPipeline(mlirPassManagerGetAsOpPassManager(pm), popts))) {
    fprintf(stderr, "%s: error: the lowering pipeline does not parse\n", kTool);
    mlirPassManagerDestroy(pm);
    goto out;
  }
  MlirLogicalResult r = mlirPassManagerRunOnOp(pm, mop);
  mlirPassManagerDestroy(pm);
  if (mlirLogicalResultIsFailure(r)) {
    if (!t->errors)
      fprintf(stderr, "%s: error: the lowering pipeline failed on %s\n", kTool, o->input);
    goto out;
  }

  if (o->emit_mlir) {
    Buf b = {0};
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    mlirOperationPrintWithFlags(mop, flags, buf_callback, &b);
    mlirOpPrintingFlagsDestroy(flags);
    buf_append(&b, "\n", 1);
    bool wrote = write_file(o->output, b.data, b.len);
    free(b.data);
    if (!wrote) {
      fprintf(stderr, "%s: error: cannot write %s\n", kTool, o->output);
      goto out;
    }
    rc = 0;
    goto out;
  }
  rc = emit_native(o, module) ? 0 : 1;

out:
  mlirModuleDestroy(module);
  free(text);
  return rc;
}

int main(int argc, char **argv) {
  Tool t = {0};
  int rc = parse_args(argc, argv, &t.opts);
  if (rc >= 0)
    return rc;

  mlirRegisterAllPasses();
  t.ctx = mlirContextCreateWithThreading(false);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(t.ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(t.ctx);
  mlirContextAttachDiagnosticHandler(t.ctx, diagnostic_handler, &t, NULL);
  w4a16RegisterDialects(t.ctx);

  rc = compile(&t);
  mlirContextDestroy(t.ctx);
  return rc;
}
