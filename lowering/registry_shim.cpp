// The project's one C++ file (issue #20). The MLIR 22 C API has no call to register a pass or a pass
// pipeline under its name (which textual pipelines, mlirParsePassPipeline and --pass-pipeline need) and none
// to list the registered passes or the dialects a context knows. These four extern "C" functions do exactly
// that through the C++ API; the passes themselves and everything else stay C (register_all.c).
#include "registry_shim.h"
#include "w4a16/lowering.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

extern "C" void w4a16ShimRegisterPass(MlirPass (*create)(void)) {
  // The registry owns what the factory returns; a C-created external pass is a plain mlir::Pass.
  mlir::registerPass([create] { return std::unique_ptr<mlir::Pass>(unwrap(create())); });
}

extern "C" void w4a16ShimRegisterPipeline(const char *argument, const char *description,
                                          MlirLogicalResult (*build)(MlirOpPassManager)) {
  std::string name = argument;
  mlir::registerPassPipeline(
      argument, description,
      [build, name](mlir::OpPassManager &pm, llvm::StringRef options,
                    llvm::function_ref<llvm::LogicalResult(const llvm::Twine &)> errorHandler) {
        if (!options.empty())
          return errorHandler("'" + name + "' takes no options");
        return unwrap(build(wrap(&pm)));
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
}

extern "C" void w4a16ShimPrintRegisteredPasses(const char *const *pipelines, size_t numPipelines) {
  mlir::printRegisteredPasses();
  // MLIR prints no pipelines (mlir-opt neither); the named ones follow in the same format.
  std::vector<const mlir::PassPipelineInfo *> infos;
  size_t width = 0;
  for (size_t i = 0; i < numPipelines; ++i)
    if (const mlir::PassPipelineInfo *info = mlir::PassPipelineInfo::lookup(pipelines[i])) {
      infos.push_back(info);
      width = std::max(width, info->getPassArgument().size() + 8); // "  --<arg>  " + "-   " column
    }
  if (!infos.empty())
    llvm::outs() << "Pass Pipelines:\n";
  for (const mlir::PassPipelineInfo *info : infos)
    info->printHelpStr(/*indent=*/2, width);
  llvm::outs().flush();
}

extern "C" void w4a16GetDialectNames(MlirContext ctx, MlirStringCallback callback, void *userData) {
  // Registered dialects, and loaded ones that no registry names (the IRDL-defined w4a16 dialect).
  mlir::MLIRContext *context = unwrap(ctx);
  std::vector<std::string> names;
  for (llvm::StringRef name : context->getAvailableDialects())
    names.push_back(name.str());
  for (mlir::Dialect *dialect : context->getLoadedDialects())
    names.push_back(dialect->getNamespace().str());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string &name : names)
    callback(mlirStringRefCreate(name.data(), name.size()), userData);
}
