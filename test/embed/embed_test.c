/* A downstream compiler embedding the w4a16 passes through the public C headers, with its own pipelines:
 *
 * 1. parse (own dialect registration: func + whatever w4a16RegisterDialects brings)
 *    -> canonicalize (textual, mlirParsePassPipeline) -> w4a16-fuse (explain on, into a private stream)
 *    -> cse (mlirOpPassManagerAddPipeline) -> w4a16-verify
 *    and checks the result by walking the IR: the GPTQ dequant -> matmul -> bias -> silu chain became one
 *    w4a16.fused_matmul with the right attributes, the matmul without a dequantised weight was left alone, the
 *    explain stream reported the fusion. Prints the fused module to stdout.
 * 2. w4a16VerifyOps and the verify pass reject a malformed fused op with a located error.
 * 3. With w4a16RegisterAll (the one documented registration call): the fuse pass in a pass manager nested on
 *    func.func between upstream passes; the w4a16 passes named in textual pipelines (mlirParsePassPipeline,
 *    mlirOpPassManagerAddPipeline), nested too; the full pipeline (w4a16AddPipeline, and "w4a16-pipeline" by
 *    name) down to the LLVM dialect with the status entry points.
 * 4. Without it the full pipeline fails, and every error is located in the user's input (none in the
 *    lowering's template text).
 * Exit status 0 when every check passed.
 *
 * Built twice: in the build tree against the w4a16_compiler target (ctest "embed"), and by an outside C-only
 * project against the installed package, find_package(W4A16) -> W4A16::compiler (ctest "embed-install"). */
#include "w4a16/lowering.h"
#include "w4a16/w4a16.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include "mlir-c/Transforms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                                                                    \
  do {                                                                                                      \
    if (!(cond)) {                                                                                          \
      fprintf(stderr, "embed_test:%d: check failed: %s: ", __LINE__, #cond);                               \
      fprintf(stderr, __VA_ARGS__);                                                                         \
      fputc('\n', stderr);                                                                                  \
      ++failures;                                                                                           \
    }                                                                                                       \
  } while (0)

/* ---- diagnostics: print them, and remember the last error's location and message ---- */

typedef struct DiagLog {
  int errors;
  int errors_outside; /* errors not located in a file named located_in (when set) */
  const char *located_in;
  char last_file[256];
  unsigned last_line, last_col;
  char last_message[1024];
} DiagLog;

typedef struct Buf {
  char *p;
  size_t n, cap;
} Buf;

static void buf_cb(MlirStringRef s, void *user) {
  Buf *b = user;
  if (b->n + s.length + 1 > b->cap) {
    b->cap = (b->n + s.length + 1) * 2;
    b->p = realloc(b->p, b->cap);
    if (!b->p)
      abort();
  }
  memcpy(b->p + b->n, s.data, s.length);
  b->n += s.length;
  b->p[b->n] = '\0';
}

static MlirLogicalResult on_diagnostic(MlirDiagnostic d, void *user) {
  DiagLog *log = user;
  Buf msg = {0};
  mlirDiagnosticPrint(d, buf_cb, &msg);
  MlirLocation loc = mlirDiagnosticGetLocation(d);
  const char *sev = "remark";
  switch (mlirDiagnosticGetSeverity(d)) {
  case MlirDiagnosticError:
    sev = "error";
    break;
  case MlirDiagnosticWarning:
    sev = "warning";
    break;
  case MlirDiagnosticNote:
    sev = "note";
    break;
  case MlirDiagnosticRemark:
    break;
  }
  Buf where = {0};
  mlirLocationPrint(loc, buf_cb, &where);
  fprintf(stderr, "[embed_test diagnostic] %s: %s: %s\n", where.p ? where.p : "?", sev, msg.p ? msg.p : "");
  if (mlirDiagnosticGetSeverity(d) == MlirDiagnosticError) {
    ++log->errors;
    snprintf(log->last_message, sizeof log->last_message, "%s", msg.p ? msg.p : "");
    log->last_file[0] = '\0';
    log->last_line = log->last_col = 0;
    if (mlirLocationIsAFileLineColRange(loc)) {
      MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
      snprintf(log->last_file, sizeof log->last_file, "%.*s", (int)f.length, f.data);
      log->last_line = (unsigned)mlirLocationFileLineColRangeGetStartLine(loc);
      log->last_col = (unsigned)mlirLocationFileLineColRangeGetStartColumn(loc);
    }
    if (log->located_in && (strcmp(log->last_file, log->located_in) != 0 || log->last_line == 0))
      ++log->errors_outside;
  }
  free(msg.p);
  free(where.p);
  return mlirLogicalResultSuccess();
}

/* ---- IR queries by walking ---- */

typedef struct Census {
  int fused, matmul, generic, exp;
  int non_llvm;          /* ops of other dialects than llvm (builtin.module aside) */
  int status_entry;      /* llvm.func @w4a16c_run_mlp_gate */
  MlirOperation first_fused;
} Census;

static bool name_is(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

static MlirWalkResult count_ops(MlirOperation op, void *user) {
  Census *c = user;
  if (w4a16IsFusedMatmul(op)) {
    if (c->fused++ == 0)
      c->first_fused = op;
  } else if (name_is(op, "linalg.matmul")) {
    ++c->matmul;
  } else if (name_is(op, "linalg.generic")) {
    ++c->generic;
  } else if (name_is(op, "math.exp")) {
    ++c->exp;
  }
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  if (!name_is(op, "builtin.module") && (n.length < 5 || memcmp(n.data, "llvm.", 5) != 0))
    ++c->non_llvm;
  if (name_is(op, "llvm.func")) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef f = mlirAttributeIsNull(sym) ? (MlirStringRef){NULL, 0} : mlirStringAttrGetValue(sym);
    c->status_entry += f.length == 19 && memcmp(f.data, "w4a16c_run_mlp_gate", 19) == 0;
  }
  return MlirWalkResultAdvance;
}

static Census census(MlirOperation root) {
  Census c = {0};
  mlirOperationWalk(root, count_ops, &c, MlirWalkPreOrder);
  return c;
}

static bool string_attr_is(MlirOperation op, const char *name, const char *value) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  return s.length == strlen(value) && memcmp(s.data, value, s.length) == 0;
}

static void print_cb(MlirStringRef s, void *user) { fwrite(s.data, 1, s.length, (FILE *)user); }

static void pipeline_error_cb(MlirStringRef s, void *user) {
  (void)user;
  fwrite(s.data, 1, s.length, stderr);
}

/* ---- inputs ---- */

/* One GPTQ-packed chain with bias and silu (must fuse), and one plain f16 matmul (must stay). */
static const char *const kModule =
    "func.func @mlp_gate(%x: tensor<?x256xf16>, %qweight: tensor<32x64xi32>, %scales: tensor<2x64xf16>,\n"
    "                    %bias: tensor<64xf16>) -> tensor<?x64xf16> {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %one = arith.constant 1.000000e+00 : f16\n"
    "  %m = tensor.dim %x, %c0 : tensor<?x256xf16>\n"
    "  %de = tensor.empty() : tensor<256x64xf16>\n"
    "  %deq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],\n"
    "                        iterator_types = [\"parallel\", \"parallel\"]} outs(%de : tensor<256x64xf16>) {\n"
    "  ^bb0(%out: f16):\n"
    "    %c8_i = arith.constant 8 : index\n"
    "    %c128_i = arith.constant 128 : index\n"
    "    %c4_i32 = arith.constant 4 : i32\n"
    "    %c15_i32 = arith.constant 15 : i32\n"
    "    %zp = arith.constant 8.000000e+00 : f16\n"
    "    %k = linalg.index 0 : index\n"
    "    %n = linalg.index 1 : index\n"
    "    %kw = arith.divui %k, %c8_i : index\n"
    "    %word = tensor.extract %qweight[%kw, %n] : tensor<32x64xi32>\n"
    "    %lane = arith.remui %k, %c8_i : index\n"
    "    %lane_i32 = arith.index_cast %lane : index to i32\n"
    "    %sh = arith.muli %lane_i32, %c4_i32 : i32\n"
    "    %v = arith.shrui %word, %sh : i32\n"
    "    %code = arith.andi %v, %c15_i32 : i32\n"
    "    %cf = arith.uitofp %code : i32 to f16\n"
    "    %cz = arith.subf %cf, %zp : f16\n"
    "    %g = arith.divui %k, %c128_i : index\n"
    "    %sc = tensor.extract %scales[%g, %n] : tensor<2x64xf16>\n"
    "    %w = arith.mulf %cz, %sc : f16\n"
    "    linalg.yield %w : f16\n"
    "  } -> tensor<256x64xf16>\n"
    "  %zero = arith.constant 0.000000e+00 : f16\n"
    "  %acc_e = tensor.empty(%m) : tensor<?x64xf16>\n"
    "  %acc = linalg.fill ins(%zero : f16) outs(%acc_e : tensor<?x64xf16>) -> tensor<?x64xf16>\n"
    "  %mm = linalg.matmul ins(%x, %deq : tensor<?x256xf16>, tensor<256x64xf16>)\n"
    "                      outs(%acc : tensor<?x64xf16>) -> tensor<?x64xf16>\n"
    "  %be = tensor.empty(%m) : tensor<?x64xf16>\n"
    "  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,\n"
    "                                        affine_map<(d0, d1) -> (d0, d1)>],\n"
    "                      iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%mm, %bias : tensor<?x64xf16>, tensor<64xf16>) outs(%be : tensor<?x64xf16>) {\n"
    "  ^bb0(%in: f16, %in_0: f16, %out: f16):\n"
    "    %s = arith.addf %in, %in_0 : f16\n"
    "    linalg.yield %s : f16\n"
    "  } -> tensor<?x64xf16>\n"
    "  %se = tensor.empty(%m) : tensor<?x64xf16>\n"
    "  %silu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],\n"
    "                         iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%y : tensor<?x64xf16>) outs(%se : tensor<?x64xf16>) {\n"
    "  ^bb0(%in: f16, %out: f16):\n"
    "    %0 = arith.negf %in : f16\n"
    "    %1 = math.exp %0 : f16\n"
    "    %2 = arith.addf %1, %one : f16\n"
    "    %3 = arith.divf %one, %2 : f16\n"
    "    %4 = arith.mulf %in, %3 : f16\n"
    "    linalg.yield %4 : f16\n"
    "  } -> tensor<?x64xf16>\n"
    "  return %silu : tensor<?x64xf16>\n"
    "}\n"
    "\n"
    "func.func @dense(%a: tensor<4x256xf16>, %b: tensor<256x64xf16>) -> tensor<4x64xf16> {\n"
    "  %zero = arith.constant 0.000000e+00 : f16\n"
    "  %e = tensor.empty() : tensor<4x64xf16>\n"
    "  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x64xf16>) -> tensor<4x64xf16>\n"
    "  %r = linalg.matmul ins(%a, %b : tensor<4x256xf16>, tensor<256x64xf16>)\n"
    "                     outs(%f : tensor<4x64xf16>) -> tensor<4x64xf16>\n"
    "  return %r : tensor<4x64xf16>\n"
    "}\n";

/* A fused op whose scales have the wrong shape (K/128 = 2 groups, not 3): IRDL accepts it, the C verifier
 * must not. The op (its name token) is at line 3, column 10 of "bad.mlir". */
static const char *const kBadModule =
    "module {\n"
    "  func.func @bad(%x: tensor<4x256xf16>, %w: tensor<32x64xi32>, %s: tensor<3x64xf16>) -> tensor<4x64xf16> {\n"
    "    %r = \"w4a16.fused_matmul\"(%x, %w, %s) {activation = \"none\", group_size = 128 : i64,\n"
    "         operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>, scales_layout = \"g_n\",\n"
    "         weight_layout = \"packed_k8_n\"}\n"
    "         : (tensor<4x256xf16>, tensor<32x64xi32>, tensor<3x64xf16>) -> tensor<4x64xf16>\n"
    "    return %r : tensor<4x64xf16>\n"
    "  }\n"
    "}\n";

/* A context as a downstream compiler makes one: the dialects it uses itself (func here) plus the w4a16
 * dialect and the dialects the fuse pass creates ops of (w4a16RegisterDialects), diagnostics into log. */
static MlirContext downstreamContext(DiagLog *log) {
  MlirContext ctx = mlirContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, on_diagnostic, log, NULL);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__func__(), registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  w4a16RegisterDialects(ctx);
  return ctx;
}

int main(void) {
  /* Upstream passes the textual pipeline names (canonicalize, cse, ...). */
  mlirRegisterTransformsPasses();
  DiagLog log = {0};
  MlirContext ctx = downstreamContext(&log);

  size_t num_infos = 0;
  const W4a16PassInfo *infos = w4a16PassInfos(&num_infos);
  bool has_fuse_info = false;
  for (size_t i = 0; i < num_infos; ++i)
    has_fuse_info |= infos[i].argument && strcmp(infos[i].argument, "w4a16-fuse") == 0;
  CHECK(has_fuse_info, "w4a16PassInfos() does not describe w4a16-fuse");

  /* ---- 1. own pipeline around the fuse pass ---- */
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "embed_test: the input module does not parse\n");
    return 1;
  }
  MlirOperation root = mlirModuleGetOperation(module);
  CHECK(mlirLogicalResultIsSuccess(w4a16VerifyOps(root)), "w4a16VerifyOps failed on the input");
  Census before = census(root);
  CHECK(before.fused == 0 && before.matmul == 2, "input census: fused=%d matmul=%d", before.fused, before.matmul);

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  mlirPassManagerEnableVerifier(pm, true);
  /* mlirParsePassPipeline replaces the pass manager's contents, so it comes first. */
  CHECK(mlirLogicalResultIsSuccess(mlirParsePassPipeline(
            opm, mlirStringRefCreateFromCString("builtin.module(canonicalize)"), pipeline_error_cb, NULL)),
        "could not parse the upstream pipeline");
  FILE *explain = tmpfile();
  CHECK(explain != NULL, "tmpfile() failed");
  w4a16AddFusePass(opm, (W4a16FuseOptions){.explain = true, .explain_stream = explain});
  CHECK(mlirLogicalResultIsSuccess(
            mlirOpPassManagerAddPipeline(opm, mlirStringRefCreateFromCString("cse"), pipeline_error_cb, NULL)),
        "could not append cse");
  mlirOpPassManagerAddOwnedPass(opm, w4a16CreateVerifyPass());

  MlirLogicalResult ran = mlirPassManagerRunOnOp(pm, root);
  CHECK(mlirLogicalResultIsSuccess(ran), "the pipeline failed");
  CHECK(log.errors == 0, "%d error diagnostics while running the pipeline", log.errors);

  Census after = census(root);
  CHECK(after.fused == 1, "expected one w4a16.fused_matmul, found %d", after.fused);
  CHECK(after.matmul == 1, "expected the dense linalg.matmul to stay (and only it), found %d", after.matmul);
  CHECK(after.generic == 0, "expected the dequant/bias/silu generics to be erased, found %d", after.generic);
  CHECK(after.exp == 0, "expected math.exp to be gone, found %d", after.exp);
  if (after.fused >= 1) {
    MlirOperation f = after.first_fused;
    CHECK(string_attr_is(f, "activation", "silu"), "activation is not \"silu\"");
    CHECK(string_attr_is(f, "weight_layout", "packed_k8_n"), "weight_layout is not \"packed_k8_n\"");
    CHECK(string_attr_is(f, "scales_layout", "g_n"), "scales_layout is not \"g_n\"");
    MlirAttribute group = mlirOperationGetAttributeByName(f, mlirStringRefCreateFromCString("group_size"));
    CHECK(!mlirAttributeIsNull(group) && mlirAttributeIsAInteger(group) && mlirIntegerAttrGetValueInt(group) == 128,
          "group_size is not 128");
    CHECK(mlirOperationGetNumOperands(f) == 4, "expected operands (x, weight, scales, bias), got %d",
          (int)mlirOperationGetNumOperands(f));
    MlirAttribute seg = mlirOperationGetAttributeByName(f, mlirStringRefCreateFromCString("operandSegmentSizes"));
    CHECK(!mlirAttributeIsNull(seg) && mlirAttributeIsADenseI32Array(seg) && mlirDenseArrayGetNumElements(seg) == 7 &&
              mlirDenseI32ArrayGetElement(seg, 3) == 1 && mlirDenseI32ArrayGetElement(seg, 4) == 0 &&
              mlirDenseI32ArrayGetElement(seg, 5) == 0 && mlirDenseI32ArrayGetElement(seg, 6) == 0,
          "operandSegmentSizes is not [1, 1, 1, 1, 0, 0, 0]");
    /* The fused op reads the function arguments directly. */
    MlirBlock entry = mlirOperationGetBlock(f);
    for (intptr_t i = 0; i < 4 && i < mlirOperationGetNumOperands(f); ++i) {
      MlirValue v = mlirOperationGetOperand(f, i);
      CHECK(mlirValueIsABlockArgument(v) && mlirBlockEqual(mlirBlockArgumentGetOwner(v), entry) &&
                mlirBlockArgumentGetArgNumber(v) == i,
            "operand %d is not function argument %d", (int)i, (int)i);
    }
  }

  /* Explain mode wrote to our stream, not to stderr. */
  if (explain) {
    long size = ftell(explain);
    char text[4096] = {0};
    rewind(explain);
    size_t got = fread(text, 1, sizeof text - 1, explain);
    (void)got;
    CHECK(size > 0, "explain mode wrote nothing to the given stream");
    CHECK(strstr(text, "fused") != NULL, "explain output does not say \"fused\": %s", text);
    fclose(explain);
  }

  mlirOperationPrint(root, print_cb, stdout);
  fputc('\n', stdout);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  /* ---- 2. the C verifier, used directly, reports a located error ---- */
  MlirOperation bad = mlirOperationCreateParse(ctx, mlirStringRefCreateFromCString(kBadModule),
                                               mlirStringRefCreateFromCString("bad.mlir"));
  CHECK(!mlirOperationIsNull(bad), "the malformed module did not parse (IRDL should accept it)");
  if (!mlirOperationIsNull(bad)) {
    int errors_before = log.errors;
    CHECK(mlirLogicalResultIsFailure(w4a16VerifyOps(bad)), "w4a16VerifyOps accepted scales of the wrong shape");
    CHECK(log.errors > errors_before, "w4a16VerifyOps failed without an error diagnostic");
    CHECK(strcmp(log.last_file, "bad.mlir") == 0 && log.last_line == 3 && log.last_col == 10,
          "the error is not located at bad.mlir:3:10 but at %s:%u:%u (%s)", log.last_file, log.last_line,
          log.last_col, log.last_message);
    CHECK(strstr(log.last_message, "scales") != NULL, "the error does not mention the scales: %s", log.last_message);

    /* The verify pass does the same inside a pass manager and makes the run fail. */
    MlirPassManager vpm = mlirPassManagerCreate(ctx);
    mlirOpPassManagerAddOwnedPass(mlirPassManagerGetAsOpPassManager(vpm), w4a16CreateVerifyPass());
    errors_before = log.errors;
    CHECK(mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(vpm, bad)), "w4a16-verify accepted the malformed op");
    CHECK(log.errors > errors_before, "w4a16-verify failed without an error diagnostic");
    mlirPassManagerDestroy(vpm);
    mlirOperationDestroy(bad);
  }

  mlirContextDestroy(ctx);

  /* ---- 3. w4a16RegisterAll: nested, textual and full pipelines ---- */
  MlirContext full = mlirContextCreate();
  mlirContextAttachDiagnosticHandler(full, on_diagnostic, &log, NULL);
  w4a16RegisterAll(full);
  static const char *const kPipelines[] = {
      "builtin.module(func.func(canonicalize,w4a16-fuse,cse),w4a16-verify)", /* mlirParsePassPipeline */
      "func.func(w4a16-fuse)",                                                /* mlirOpPassManagerAddPipeline */
  };
  for (int variant = 0; variant < 4; ++variant) {
    MlirModule m = mlirModuleCreateParse(full, mlirStringRefCreateFromCString(kModule));
    CHECK(!mlirModuleIsNull(m), "the input does not parse in a w4a16RegisterAll context");
    if (mlirModuleIsNull(m))
      break;
    MlirPassManager p = mlirPassManagerCreate(full);
    MlirOpPassManager op = mlirPassManagerGetAsOpPassManager(p);
    bool lowers = false;
    if (variant == 0) { /* the fuse pass in a nested pass manager, between upstream passes */
      MlirOpPassManager funcs = mlirOpPassManagerGetNestedUnder(op, mlirStringRefCreateFromCString("func.func"));
      mlirOpPassManagerAddOwnedPass(funcs, mlirCreateTransformsCanonicalizer());
      w4a16AddFusePass(funcs, (W4a16FuseOptions){.explain = false});
      mlirOpPassManagerAddOwnedPass(funcs, mlirCreateTransformsCSE());
    } else if (variant == 1) {
      CHECK(mlirLogicalResultIsSuccess(mlirParsePassPipeline(op, mlirStringRefCreateFromCString(kPipelines[0]),
                                                             pipeline_error_cb, NULL)),
            "mlirParsePassPipeline does not know the w4a16 passes");
    } else if (variant == 2) {
      CHECK(mlirLogicalResultIsSuccess(mlirOpPassManagerAddPipeline(
                op, mlirStringRefCreateFromCString(kPipelines[1]), pipeline_error_cb, NULL)),
            "mlirOpPassManagerAddPipeline does not know w4a16-fuse");
    } else {
      lowers = true;
      CHECK(mlirLogicalResultIsSuccess(w4a16AddPipeline(op, (W4a16PipelineOptions){.fuse = true})),
            "w4a16AddPipeline failed");
    }
    int errors_before = log.errors;
    CHECK(mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(p, mlirModuleGetOperation(m))),
          "pipeline variant %d failed", variant);
    CHECK(log.errors == errors_before, "pipeline variant %d reported errors", variant);
    Census c = census(mlirModuleGetOperation(m));
    if (lowers)
      CHECK(c.non_llvm == 0 && c.status_entry == 1,
            "the full pipeline left %d non-LLVM ops, %d w4a16c_run_mlp_gate", c.non_llvm, c.status_entry);
    else
      CHECK(c.fused == 1 && c.matmul == 1, "pipeline variant %d: fused=%d matmul=%d", variant, c.fused, c.matmul);
    mlirPassManagerDestroy(p);
    mlirModuleDestroy(m);
  }
  /* The full pipeline by name. */
  MlirModule named = mlirModuleCreateParse(full, mlirStringRefCreateFromCString(kModule));
  MlirPassManager np = mlirPassManagerCreate(full);
  CHECK(mlirLogicalResultIsSuccess(mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(np),
                                                         mlirStringRefCreateFromCString("builtin.module(w4a16-pipeline)"),
                                                         pipeline_error_cb, NULL)),
        "mlirParsePassPipeline does not know w4a16-pipeline");
  CHECK(mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(np, mlirModuleGetOperation(named))),
        "builtin.module(w4a16-pipeline) failed");
  Census nc = census(mlirModuleGetOperation(named));
  CHECK(nc.non_llvm == 0 && nc.status_entry == 1, "w4a16-pipeline by name: %d non-LLVM ops", nc.non_llvm);
  mlirPassManagerDestroy(np);
  mlirModuleDestroy(named);
  mlirContextDestroy(full);

  /* ---- 4. without w4a16RegisterAll the pipeline fails, located in the user's input ---- */
  DiagLog bare_log = {.located_in = "user.mlir"};
  MlirContext bare = downstreamContext(&bare_log);
  size_t wrapped_len = strlen(kModule) + 16;
  char *wrapped = malloc(wrapped_len);
  CHECK(wrapped != NULL, "out of memory");
  if (wrapped) {
    snprintf(wrapped, wrapped_len, "module {\n%s}\n", kModule);
    MlirOperation user = mlirOperationCreateParse(bare, mlirStringRefCreateFromCString(wrapped),
                                                  mlirStringRefCreateFromCString("user.mlir"));
    CHECK(!mlirOperationIsNull(user), "the wrapped input does not parse");
    if (!mlirOperationIsNull(user)) {
      MlirPassManager bp = mlirPassManagerCreate(bare);
      CHECK(mlirLogicalResultIsSuccess(
                w4a16AddPipeline(mlirPassManagerGetAsOpPassManager(bp), (W4a16PipelineOptions){.fuse = true})),
            "w4a16AddPipeline failed");
      CHECK(mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(bp, user)),
            "the pipeline ran without w4a16RegisterAll: the test no longer shows why the call is needed");
      CHECK(bare_log.errors > 0 && bare_log.errors_outside == 0,
            "%d of %d errors are not located in user.mlir (last: %s:%u:%u %s)", bare_log.errors_outside,
            bare_log.errors, bare_log.last_file, bare_log.last_line, bare_log.last_col, bare_log.last_message);
      mlirPassManagerDestroy(bp);
      mlirOperationDestroy(user);
    }
    free(wrapped);
  }
  mlirContextDestroy(bare);

  if (failures) {
    fprintf(stderr, "embed_test: %d check(s) failed\n", failures);
    return 1;
  }
  fprintf(stderr, "embed_test: all checks passed\n");
  return 0;
}
