/* w4a16-compile --header: C declarations of the exported functions, from their signatures as written
 * (tensor types) before anything is lowered. */
#include "compile.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  if (mlirTypeIsAFloat8E4M3FN(t) || mlirTypeIsAFloat8E5M2(t)) { /* FP8 checkpoints and KV caches */
    if (scalar)
      return false;
    *out = mlirTypeIsAFloat8E4M3FN(t) ? (CType){"uint8_t", "f8e4m3fn", "f8E4M3FN elements as raw bits"}
                                      : (CType){"uint8_t", "f8e5m2", "f8E5M2 elements as raw bits"};
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

static void print_type(MlirType t, StrBuf *out) { mlirTypePrint(t, sb_callback, out); }

/* Declares (once per header, and guarded so several generated headers can be included together) the memref
 * descriptor struct for (rank, element type); writes its name to name. */
static void memref_struct(StrBuf *defs, StructSet *seen, int64_t rank, const CType *ct, char *name, size_t size) {
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
  sb_printf(defs, "#ifndef %s\n#define %s\n", guard, guard);
  sb_printf(defs, "/* Memref descriptor, rank %" PRId64 "%s%s. */\n", rank, ct->note ? ", " : "",
             ct->note ? ct->note : "");
  sb_printf(defs, "typedef struct %s {\n  %s *allocated;\n  %s *aligned;\n  int64_t offset;\n", name, ct->c, ct->c);
  if (rank > 0)
    sb_printf(defs, "  int64_t sizes[%" PRId64 "];\n  int64_t strides[%" PRId64 "];\n", rank, rank);
  sb_printf(defs, "} %s;\n#endif\n\n", name);
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
static void arg_name(const Source *src, MlirValue arg, intptr_t index, char *out, size_t size) {
  snprintf(out, size, "arg%ld", (long)index);
  MlirStringRef file;
  unsigned line, col;
  if (!diag_find_file_loc(mlirValueGetLocation(arg), &file, &line, &col))
    return;
  size_t n;
  const char *l;
  if (!source_line(src, line, &l, &n) || col == 0 || col > n || l[col - 1] != '%')
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

/* What the declarations of all functions accumulate: struct definitions (each once) and declarations. */
typedef struct Header {
  const Source *src;
  bool gpu; /* GPU target: device pointers, the entry points take the caller's stream first */
  StrBuf defs, decls;
  StructSet seen;
  int nfuncs;
} Header;

/* One function's C signature, built from its type. */
typedef struct Signature {
  MlirStringRef name;
  MlirType type;
  StrBuf params;    /* the parameters of _mlir_ciface_<f> */
  StrBuf doc;       /* the comment above its declarations */
  char ret_c[96];   /* what _mlir_ciface_<f> returns: "void" unless a single scalar result */
} Signature;

/* The C name of a memref struct or a scalar type for t (declaring the struct on first use). */
static bool c_type_of(Header *h, MlirType t, char *name, size_t size) {
  CType ct;
  if (is_shaped_memref_like(t)) {
    if (!element_ctype(mlirShapedTypeGetElementType(t), false, &ct))
      return false;
    memref_struct(&h->defs, &h->seen, mlirShapedTypeGetRank(t), &ct, name, size);
    return true;
  }
  if (!element_ctype(t, true, &ct))
    return false;
  snprintf(name, size, "%s", ct.c);
  return true;
}

/* The first line of the comment: f(tensor<...>, ...) -> tensor<...>, the types as written. */
static void describe_type(Signature *sig) {
  intptr_t nin = mlirFunctionTypeGetNumInputs(sig->type), nres = mlirFunctionTypeGetNumResults(sig->type);
  sb_printf(&sig->doc, "/* %.*s(", (int)sig->name.length, sig->name.data);
  for (intptr_t i = 0; i < nin; ++i) {
    sb_printf(&sig->doc, "%s", i ? ", " : "");
    print_type(mlirFunctionTypeGetInput(sig->type, i), &sig->doc);
  }
  sb_printf(&sig->doc, ")");
  for (intptr_t i = 0; i < nres; ++i) {
    sb_printf(&sig->doc, "%s", i ? ", " : " -> ");
    print_type(mlirFunctionTypeGetResult(sig->type, i), &sig->doc);
  }
  sb_printf(&sig->doc, "\n");
}

/* Results (MLIR's C-interface convention). One scalar: returned by value. One memref: through a pointer
 * passed first. Several: packed in a struct, through a pointer passed first. */
static bool result_params(Header *h, Signature *sig) {
  intptr_t nres = mlirFunctionTypeGetNumResults(sig->type);
  snprintf(sig->ret_c, sizeof sig->ret_c, "void");
  if (nres == 0)
    return true;
  if (nres == 1 && !is_shaped_memref_like(mlirFunctionTypeGetResult(sig->type, 0)))
    return c_type_of(h, mlirFunctionTypeGetResult(sig->type, 0), sig->ret_c, sizeof sig->ret_c);
  char result_struct[96] = "";
  StrBuf fields = {0};
  bool ok = true;
  for (intptr_t i = 0; i < nres && ok; ++i) {
    char sname[64];
    ok = c_type_of(h, mlirFunctionTypeGetResult(sig->type, i), sname, sizeof sname);
    if (ok && nres == 1)
      snprintf(result_struct, sizeof result_struct, "%s", sname);
    else if (ok)
      sb_printf(&fields, "  %s r%ld;\n", sname, (long)i);
  }
  if (ok && nres > 1) {
    snprintf(result_struct, sizeof result_struct, "w4a16c_%.*s_results", (int)sig->name.length, sig->name.data);
    sb_printf(&h->defs, "/* The results of %.*s, in order. */\ntypedef struct %s {\n%s} %s;\n\n", (int)sig->name.length,
              sig->name.data, result_struct, fields.data, result_struct);
  }
  sb_free(&fields);
  if (!ok)
    return false;
  sb_printf(&sig->params, "%s *ret", result_struct);
  sb_printf(&sig->doc, " *   ret: the result%s (written by the call; free ret->allocated%s)\n", nres > 1 ? "s" : "",
            nres > 1 ? " of each memref" : " with free()");
  return true;
}

/* Arguments: memrefs by pointer, scalars by value, named as in the source. */
static bool argument_params(Header *h, MlirOperation func, Signature *sig) {
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (intptr_t i = 0; i < mlirFunctionTypeGetNumInputs(sig->type); ++i) {
    MlirType it = mlirFunctionTypeGetInput(sig->type, i);
    char name[64], ctype[64];
    arg_name(h->src, mlirBlockGetArgument(entry, i), i, name, sizeof name);
    if ((!is_shaped_memref_like(it) && (mlirTypeIsATensor(it) || mlirTypeIsAUnrankedMemRef(it))) ||
        !c_type_of(h, it, ctype, sizeof ctype))
      return false;
    bool memref = is_shaped_memref_like(it);
    sb_printf(&sig->params, "%s%s %s%s", sig->params.len ? ", " : "", ctype, memref ? "*" : "", name);
    if (memref) {
      sb_printf(&sig->doc, " *   %s: ", name);
      print_type(it, &sig->doc);
      sb_printf(&sig->doc, "\n");
    }
  }
  return true;
}

/* The three declarations of f: MLIR's C interface and the two status-returning entry points
 * (lowering/entry_points.c), which take a result returned by value through a pointer passed first. */
static void declare(Header *h, Signature *sig) {
  int n = (int)sig->name.length;
  const char *f = sig->name.data;
  const char *params = sig->params.len ? sig->params.data : "void";
  bool by_value = strcmp(sig->ret_c, "void") != 0;
  if (by_value)
    sb_printf(&sig->doc, " *   ret (w4a16c_run_/w4a16c_prepare_ only): the result\n");
  sb_printf(&sig->doc, " */\n");
  sb_append(&h->decls, sig->doc.data, sig->doc.len);
  sb_printf(&h->decls, "typedef %s w4a16c_%.*s_fn(%s);\n", sig->ret_c, n, f, params);
  sb_printf(&h->decls, "w4a16c_%.*s_fn _mlir_ciface_%.*s;\n", n, f, n, f);
  const char *stream = h->gpu ? "void *stream" : "";
  if (by_value)
    sb_printf(&h->decls, "typedef int32_t w4a16c_%.*s_status_fn(%s%s%s *ret%s%s);\n", n, f, stream,
              h->gpu ? ", " : "", sig->ret_c, sig->params.len ? ", " : "", sig->params.len ? sig->params.data : "");
  else if (h->gpu)
    sb_printf(&h->decls, "typedef int32_t w4a16c_%.*s_status_fn(%s%s%s);\n", n, f, stream,
              sig->params.len ? ", " : "", sig->params.len ? sig->params.data : "");
  else
    sb_printf(&h->decls, "typedef int32_t w4a16c_%.*s_status_fn(%s);\n", n, f, params);
  sb_printf(&h->decls, "w4a16c_%.*s_status_fn w4a16c_run_%.*s, w4a16c_prepare_%.*s;\n\n", n, f, n, f, n, f);
}

static bool declare_function(Header *h, MlirOperation op) {
  Signature sig = {
      .name = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"))),
      .type = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("function_type")))};
  describe_type(&sig);
  bool ok = result_params(h, &sig) && argument_params(h, op, &sig);
  if (ok) {
    declare(h, &sig);
    ++h->nfuncs;
  } else {
    fprintf(stderr, "%s: error: --header: the signature of '%.*s' has a type C cannot express (unranked tensors, "
                    "f16/bf16/i1/i4 scalars, exotic element types are not supported)\n",
            kToolName, (int)sig.name.length, sig.name.data);
  }
  sb_free(&sig.params);
  sb_free(&sig.doc);
  return ok;
}

static const char kPreamble[] =
    " *\n"
    " * C declarations of the functions the compiled object exports. Tensor arguments and results are memref\n"
    " * descriptors with identity (row-major) layout: pass allocated = aligned = the data, offset 0, sizes, and\n"
    " * strides {sizes[1]*..., ..., 1}. A memref result is returned through the pointer passed first; its buffer\n"
    " * is malloc'ed by the compiled code (free(ret->allocated)). Inputs are never written.\n"
    " *\n"
    " * Each function f is exported three ways:\n"
    " *   _mlir_ciface_<f>     MLIR's C interface. Does not report runtime failures.\n"
    " *   w4a16c_run_<f>       the same call; returns 0 on success, else a w4a16_status (the outputs are then\n"
    " *                        unspecified) whose message w4a16_rt_last_error() returns (w4a16/runtime_abi.h).\n"
    " *                        Nothing compiled aborts.\n"
    " *   w4a16c_prepare_<f>   like w4a16c_run_<f>, and first (re)creates the plan of every weight f's fused\n"
    " *                        calls use, from the weight's bytes now. It runs f on the arguments given (with\n"
    " *                        an empty batch, M = 0, it only prepares). Call it before the first run, and\n"
    " *                        again after updating a weight in place: a plan is a snapshot, nothing is re-read\n"
    " *                        or cached behind your back, and a run whose weight has no plan fails with\n"
    " *                        \"weight not prepared\". w4a16_rt_release_plans() frees every plan.\n"
    " * Functions without fused calls never fail this way: their run/prepare return 0.\n";

static const char kGpuPreamble[] =
    " *\n"
    " * GPU target (w4a16-compile --target=gpu): every pointer in a descriptor is a device pointer, results\n"
    " * included, and w4a16c_run_<f>/w4a16c_prepare_<f> take the caller's cudaStream_t first (NULL: the legacy\n"
    " * default stream). A call only enqueues work on that stream: no copy between host and device, no\n"
    " * synchronisation, and no allocation once the stream's buffer arena has grown to the call's needs, so a\n"
    " * run can be captured in a CUDA graph (prepare first, with the largest batch, outside capture). A result\n"
    " * lives in that arena: valid until the next call on the same stream (copy it to keep it); do not free it.\n"
    " * _mlir_ciface_<f> has no stream: call it only through the entry points. w4a16_rt_release_device()\n"
    " * frees the arenas and the device copies of constants. */\n";

/* The guard macro: the header's file name, upper-cased, non-alphanumerics as '_'. */
static void header_guard(const char *header_path, char *guard, size_t size) {
  const char *base = strrchr(header_path, '/');
  snprintf(guard, size, "W4A16C_GENERATED_%s", base ? base + 1 : header_path);
  for (char *p = guard; *p; ++p)
    *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
}

static void write_header(const Header *h, const char *header_path, StrBuf *out) {
  char guard[128];
  header_guard(header_path, guard, sizeof guard);
  sb_printf(out, "/* Generated by w4a16-compile from %s. Do not edit.\n%s%s", h->src->name, kPreamble,
            h->gpu ? kGpuPreamble : " */\n");
  sb_printf(out, "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", guard,
            guard);
  if (h->defs.data)
    sb_append(out, h->defs.data, h->defs.len);
  if (h->decls.data)
    sb_append(out, h->decls.data, h->decls.len);
  sb_printf(out, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
}

bool generate_header(const Source *src, MlirModule module, const char *header_path, bool gpu, StrBuf *out) {
  Header h = {.src = src, .gpu = gpu};
  bool ok = true;
  MlirBlock body = mlirModuleGetBody(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op) && ok;
       op = mlirOperationGetNextInBlock(op))
    if (is_public_definition(op))
      ok = declare_function(&h, op);
  if (ok) {
    write_header(&h, header_path, out);
    if (h.nfuncs == 0)
      fprintf(stderr, "%s: warning: --header: no public function with a body in %s\n", kToolName, src->name);
  }
  sb_free(&h.defs);
  sb_free(&h.decls);
  return ok;
}
