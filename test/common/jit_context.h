/* A context ready to parse, lower and JIT-compile w4a16 IR from a test program: every upstream dialect
 * and pass, the LLVM translations, and the w4a16 dialect. Threading is off: the tests are single-threaded
 * and this keeps their runs deterministic. */
#ifndef W4A16_TEST_JIT_CONTEXT_H
#define W4A16_TEST_JIT_CONTEXT_H

#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"
#include "w4a16/w4a16.h"

static inline MlirContext create_jit_context(void) {
  mlirRegisterAllPasses();
  MlirContext ctx = mlirContextCreateWithThreading(false);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(ctx);
  w4a16RegisterDialects(ctx);
  return ctx;
}

#endif
