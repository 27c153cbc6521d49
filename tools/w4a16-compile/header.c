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

bool generate_header(const Source *src, MlirModule module, const char *header_path, StrBuf *out) {
  StrBuf defs = {0}, decls = {0};
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
    StrBuf params = {0}, doc = {0};
    char ret_c[96] = "void";
    char result_struct[96] = "";

    sb_printf(&doc, "/* %.*s(", (int)fname.length, fname.data);
    for (intptr_t i = 0; i < nin; ++i) {
      sb_printf(&doc, "%s", i ? ", " : "");
      print_type(mlirFunctionTypeGetInput(ftype, i), &doc);
    }
    sb_printf(&doc, ")");
    if (nres) {
      sb_printf(&doc, " -> ");
      for (intptr_t i = 0; i < nres; ++i) {
        sb_printf(&doc, "%s", i ? ", " : "");
        print_type(mlirFunctionTypeGetResult(ftype, i), &doc);
      }
    }
    sb_printf(&doc, "\n");

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
      StrBuf fields = {0};
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
          sb_printf(&fields, "  %s r%ld;\n", sname, (long)i);
      }
      if (ok && nres > 1) {
        snprintf(result_struct, sizeof result_struct, "w4a16c_%.*s_results", (int)fname.length, fname.data);
        sb_printf(&defs, "/* The results of %.*s, in order. */\ntypedef struct %s {\n%s} %s;\n\n", (int)fname.length,
                   fname.data, result_struct, fields.data, result_struct);
      }
      sb_free(&fields);
      if (!ok)
        break;
      sb_printf(&params, "%s *ret", result_struct);
      sb_printf(&doc, " *   ret: the result%s (written by the call; free ret->allocated%s)\n", nres > 1 ? "s" : "",
                 nres > 1 ? " of each memref" : " with free()");
    }

    for (intptr_t i = 0; i < nin && ok; ++i) {
      MlirType it = mlirFunctionTypeGetInput(ftype, i);
      char name[64];
      arg_name(src, mlirBlockGetArgument(entry, i), i, name, sizeof name);
      CType ct;
      if (params.len)
        sb_append(&params, ", ", 2);
      if (is_shaped_memref_like(it)) {
        if (!element_ctype(mlirShapedTypeGetElementType(it), false, &ct)) {
          ok = false;
          break;
        }
        char sname[64];
        memref_struct(&defs, &seen, mlirShapedTypeGetRank(it), &ct, sname, sizeof sname);
        sb_printf(&params, "%s *%s", sname, name);
        sb_printf(&doc, " *   %s: ", name);
        print_type(it, &doc);
        sb_printf(&doc, "\n");
      } else if (mlirTypeIsATensor(it) || mlirTypeIsAUnrankedMemRef(it)) {
        ok = false;
        break;
      } else {
        if (!element_ctype(it, true, &ct)) {
          ok = false;
          break;
        }
        sb_printf(&params, "%s %s", ct.c, name);
      }
    }
    if (!ok) {
      fprintf(stderr, "%s: error: --header: the signature of '%.*s' has a type C cannot express (unranked tensors, "
                      "f16/bf16/i1/i4 scalars, exotic element types are not supported)\n",
              kToolName, (int)fname.length, fname.data);
      sb_free(&params);
      sb_free(&doc);
      break;
    }
    if (!params.len)
      sb_printf(&params, "void");
    sb_printf(&doc, " */\n");
    sb_append(&decls, doc.data, doc.len);
    sb_printf(&decls, "typedef %s w4a16c_%.*s_fn(%s);\n", ret_c, (int)fname.length, fname.data, params.data);
    sb_printf(&decls, "w4a16c_%.*s_fn _mlir_ciface_%.*s;\n\n", (int)fname.length, fname.data, (int)fname.length,
               fname.data);
    sb_free(&params);
    sb_free(&doc);
    ++nfuncs;
  }
  if (ok) {
    char guard[128];
    const char *base = strrchr(header_path, '/');
    base = base ? base + 1 : header_path;
    snprintf(guard, sizeof guard, "W4A16C_GENERATED_%s", base);
    for (char *p = guard; *p; ++p)
      *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    sb_printf(out,
               "/* Generated by w4a16-compile from %s. Do not edit.\n"
               " *\n"
               " * C declarations of the functions the compiled object exports (MLIR's C interface). Tensor\n"
               " * arguments and results are memref descriptors with identity (row-major) layout: pass\n"
               " * allocated = aligned = the data, offset 0, sizes, and strides {sizes[1]*..., ..., 1}. A memref\n"
               " * result is returned through the pointer passed first; its buffer is malloc'ed by the compiled\n"
               " * code (free(ret->allocated)). Inputs are never written. */\n"
               "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
               src->name, guard, guard);
    if (defs.data)
      sb_append(out, defs.data, defs.len);
    if (decls.data)
      sb_append(out, decls.data, decls.len);
    sb_printf(out, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
    if (nfuncs == 0)
      fprintf(stderr, "%s: warning: --header: no public function with a body in %s\n", kToolName, src->name);
  }
  sb_free(&defs);
  sb_free(&decls);
  return ok;
}
