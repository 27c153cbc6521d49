/* w4a16-compile's back end: MLIR LLVM dialect -> LLVM IR -> optimised LLVM IR, object file or shared library
 * (the object linked by $CC). */
#define _POSIX_C_SOURCE 200809L /* posix_spawnp, getpid */

#include "compile.h"
#include "io.h"

#include "mlir-c/Target/LLVMIR.h"

#include "llvm-c/Analysis.h"
#include "llvm-c/Core.h"
#include "llvm-c/Error.h"
#include "llvm-c/ErrorHandling.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"
#include "llvm-c/Transforms/PassBuilder.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool llvm_error(const char *what, char *msg) {
  fprintf(stderr, "%s: error: %s: %s\n", kToolName, what, msg ? msg : "(no message)");
  if (msg)
    LLVMDisposeMessage(msg);
  return false;
}

/* ---- --mcpu ----
 * LLVM's C API cannot ask whether a CPU name is valid. An unknown one is only a warning on stderr when the
 * target machine makes its subtarget, after which code generation may die ("LLVM ERROR: 64-bit code requested
 * on a subtarget that doesn't support it!"). So before any work a target machine is made for the CPU and a
 * one-function module is compiled, with stderr captured and LLVM's fatal-error handler reporting cleanly. */

static const char *g_probe_cpu;   /* the CPU being probed, NULL after the probe */
static int g_saved_stderr = -1;   /* stderr while it is captured */
static FILE *g_captured;          /* what LLVM printed meanwhile */

static void stop_capture(StrBuf *out) {
  if (g_saved_stderr < 0)
    return;
  fflush(stderr);
  dup2(g_saved_stderr, 2);
  close(g_saved_stderr);
  g_saved_stderr = -1;
  rewind(g_captured);
  io_read_stream(g_captured, out);
  fclose(g_captured);
  g_captured = NULL;
}

static void start_capture(void) {
  fflush(stderr);
  g_captured = tmpfile();
  g_saved_stderr = g_captured ? dup(2) : -1;
  if (g_saved_stderr < 0 || dup2(fileno(g_captured), 2) < 0) {
    if (g_saved_stderr >= 0)
      close(g_saved_stderr);
    g_saved_stderr = -1;
    if (g_captured)
      fclose(g_captured);
    g_captured = NULL;
  }
}

/* What LLVM said about the CPU, as an error of ours. */
static void cpu_error(const char *llvm_text, const char *triple) {
  if (strstr(llvm_text, "is not a recognized processor"))
    fprintf(stderr, "%s: error: --mcpu=%s: LLVM does not know this CPU for %s (use generic, native or a CPU "
                    "name of `llc -mtriple=%s -mcpu=help`)\n",
            kToolName, g_probe_cpu, triple, triple);
  else
    fprintf(stderr, "%s: error: --mcpu=%s: LLVM cannot generate code for this CPU: %s\n", kToolName, g_probe_cpu,
            llvm_text);
}

static char *g_probe_triple;

static void on_llvm_fatal_error(const char *reason) {
  StrBuf captured = {0};
  stop_capture(&captured);
  if (g_probe_cpu) {
    cpu_error(strstr(sb_cstr(&captured), "is not a recognized processor") ? sb_cstr(&captured) : reason,
              g_probe_triple);
    exit(2); /* a command-line error */
  }
  fprintf(stderr, "%s: error: LLVM: %s\n", kToolName, reason);
  exit(1);
}

bool check_target_cpu(const Options *o) {
  if (!strcmp(o->mcpu, "native") || !strcmp(o->mcpu, "generic"))
    return true;
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter())
    return true; /* emit_native reports it */
  g_probe_cpu = o->mcpu;
  g_probe_triple = LLVMGetDefaultTargetTriple();
  LLVMInstallFatalErrorHandler(on_llvm_fatal_error); /* stays installed: no "LLVM ERROR" later either */
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(g_probe_triple, &target, &err)) {
    LLVMDisposeMessage(err);
    g_probe_cpu = NULL;
    return true; /* emit_native reports it */
  }
  start_capture();
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, g_probe_triple, o->mcpu, "", LLVMCodeGenLevelDefault,
                                                    LLVMRelocPIC, LLVMCodeModelDefault);
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("w4a16_cpu_probe", ctx);
  LLVMSetTarget(mod, g_probe_triple);
  LLVMTypeRef f64 = LLVMDoubleTypeInContext(ctx);
  LLVMTypeRef params[] = {f64, f64};
  LLVMValueRef fn = LLVMAddFunction(mod, "probe", LLVMFunctionType(f64, params, 2, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMBuildRet(b, LLVMBuildFMul(b, LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), "p"));
  LLVMDisposeBuilder(b);
  LLVMMemoryBufferRef obj = NULL;
  bool emitted = tm && !LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &err, &obj);
  StrBuf captured = {0};
  stop_capture(&captured);
  if (obj)
    LLVMDisposeMemoryBuffer(obj);
  LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  if (tm)
    LLVMDisposeTargetMachine(tm);
  bool ok = emitted && !strstr(sb_cstr(&captured), "is not a recognized processor");
  if (!ok)
    cpu_error(emitted || !err ? sb_cstr(&captured) : err, g_probe_triple);
  else if (captured.len) /* anything else LLVM said stays visible */
    fwrite(captured.data, 1, captured.len, stderr);
  if (err)
    LLVMDisposeMessage(err);
  sb_free(&captured);
  g_probe_cpu = NULL;
  LLVMDisposeMessage(g_probe_triple);
  g_probe_triple = NULL;
  return ok;
}

static bool run_cc_shared(const char *object, const char *output) {
  const char *cc = getenv("CC");
  if (!cc || !*cc)
    cc = "cc";
  char *argv[] = {(char *)cc, "-shared", "-o", (char *)output, (char *)object, "-lm", NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, cc, NULL, NULL, argv, environ);
  if (rc != 0) {
    fprintf(stderr, "%s: error: cannot run '%s' to link %s: %s\n", kToolName, cc, output, strerror(rc));
    return false;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    ;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "%s: error: '%s -shared -o %s %s -lm' failed\n", kToolName, cc, output, object);
    return false;
  }
  return true;
}

bool emit_native(const Options *o, MlirModule module) {
  bool ok = false;
  LLVMContextRef llctx = LLVMContextCreate();
  LLVMModuleRef mod = mlirTranslateModuleToLLVMIR(mlirModuleGetOperation(module), llctx);
  if (!mod) {
    fprintf(stderr, "%s: error: translation to LLVM IR failed\n", kToolName);
    LLVMContextDispose(llctx);
    return false;
  }
  LLVMTargetMachineRef tm = NULL;
  char *triple = NULL, *cpu = NULL, *features = NULL, *err = NULL, *obj = NULL;
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
    fprintf(stderr, "%s: error: LLVM has no native target\n", kToolName);
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
    fprintf(stderr, "%s: error: cannot create a target machine for %s (cpu '%s')\n", kToolName, triple, cpu);
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
    ok = io_write_file(o->output, text, strlen(text)) == IO_OK;
    if (!ok)
      fprintf(stderr, "%s: error: cannot write output file '%s'\n", kToolName, o->output);
    LLVMDisposeMessage(text);
    goto done;
  }
  const char *obj_path = o->output;
  if (kind == OUT_SHARED) {
    size_t n = strlen(o->output) + 32;
    obj = malloc(n);
    if (!obj)
      tool_out_of_memory();
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
