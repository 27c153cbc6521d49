/* w4a16-compile's back end: MLIR LLVM dialect -> LLVM IR -> optimised LLVM IR, object file or shared library
 * (the object linked by $CC). */
#define _POSIX_C_SOURCE 200809L /* posix_spawnp, getpid */

#include "compile.h"
#include "io.h"

#include "mlir-c/Target/LLVMIR.h"

#include "llvm-c/Analysis.h"
#include "llvm-c/Core.h"
#include "llvm-c/Error.h"
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
      fprintf(stderr, "%s: error: cannot write %s\n", kToolName, o->output);
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
