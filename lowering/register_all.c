/* w4a16RegisterAll and w4a16RegisterPasses (w4a16/lowering.h): one call for everything the pipeline and
 * textual pipelines need. */
#include "decompose_aggregates.h"
#include "registry_shim.h"
#include "w4a16/lowering.h"

#include "mlir-c/RegisterEverything.h"

#include <pthread.h>
#include <string.h>

static MlirPass createFuse(void) { return w4a16CreateFusePass((W4a16FuseOptions){0}); }
static MlirPass createSplitChunkedGlu(void) { return w4a16CreateSplitChunkedGluPass((W4a16FuseOptions){0}); }
static MlirPass createMergeSiblings(void) { return w4a16CreateMergeSiblingsPass((W4a16FuseOptions){0}); }
static MlirPass createFuseInt8Prep(void) { return w4a16CreateFuseInt8PrepPass((W4a16FuseOptions){0}); }
static MlirPass createVerify(void) { return w4a16CreateVerifyPass(); }
static MlirPass createLowerToRuntime(void) { return w4a16CreateLowerToRuntimePass(); }
static MlirPass createLowerInt8Prep(void) { return w4a16CreateLowerInt8PrepPass(); }
static MlirPass createEntryPoints(void) { return w4a16CreateEntryPointsPass(); }
static MlirPass createSplitReductions(void) { return w4a16CreateSplitReductionsPass(); }
static MlirPass createCopiesToKernels(void) { return w4a16CreateCopiesToKernelsPass(); }
static MlirPass createStridedCopiesToLoops(void) { return w4a16CreateStridedCopiesToLoopsPass(); }
static MlirPass createDependentLaunch(void) { return w4a16CreateDependentLaunchPass(); }
static MlirPass createGpuHostCode(void) { return w4a16CreateGpuHostCodePass(); }
static MlirPass createCallerStream(void) { return w4a16CreateCallerStreamPass(); }
static MlirPass createDeviceMemory(void) { return w4a16CreateDeviceMemoryPass(); }
static MlirPass createDecomposeAggregates(void) { return w4a16CreateDecomposeAggregatesPass(); }
static MlirPass createSerialKernels(void) { return w4a16CreateSerialKernelsPass(); }
static MlirPass createExpandF8(void) { return w4a16CreateExpandF8Pass(); }
static MlirPass createTensorBitcasts(void) { return w4a16CreateTensorBitcastsPass(); }

/* Explain mode is an option of the fuse passes, whose argument stays w4a16-fuse(-int8-prep): the explain
 * variants get their own names as one-pass pipelines. Remarks go to stderr. */
static MlirLogicalResult buildExplain(MlirOpPassManager pm) {
  w4a16AddFusePass(pm, (W4a16FuseOptions){.explain = true});
  w4a16AddSplitChunkedGluPass(pm, (W4a16FuseOptions){.explain = true});
  w4a16AddMergeSiblingsPass(pm, (W4a16FuseOptions){.explain = true});
  return mlirLogicalResultSuccess();
}
static MlirLogicalResult buildExplainInt8Prep(MlirOpPassManager pm) {
  w4a16AddFuseInt8PrepPass(pm, (W4a16FuseOptions){.explain = true});
  return mlirLogicalResultSuccess();
}
static MlirLogicalResult buildPipeline(MlirOpPassManager pm) {
  return w4a16AddPipeline(pm, (W4a16PipelineOptions){.fuse = true});
}
static MlirLogicalResult buildGpuPipeline(MlirOpPassManager pm) {
  return w4a16AddPipeline(pm, (W4a16PipelineOptions){.fuse = true, .target = W4A16_TARGET_GPU});
}

static const char *describe(const char *argument) {
  size_t n = 0;
  const W4a16PassInfo *infos = w4a16PassInfos(&n);
  for (size_t i = 0; i < n; ++i)
    if (strcmp(infos[i].argument, argument) == 0)
      return infos[i].description;
  return "";
}

static const char *const kPipelines[] = {"w4a16-explain", "w4a16-explain-int8-prep", "w4a16-pipeline",
                                         "w4a16-gpu-pipeline"};

static void registerPassesOnce(void) {
  mlirRegisterAllPasses(); /* the upstream ones, which w4a16AddPipeline names in text too */
  MlirPass (*const passes[])(void) = {createFuse,          createSplitChunkedGlu, createMergeSiblings, createFuseInt8Prep, createVerify,       createLowerToRuntime,
                                      createLowerInt8Prep, createEntryPoints,  createSplitReductions, createCopiesToKernels, createStridedCopiesToLoops, createGpuHostCode,
                                      createCallerStream,  createDeviceMemory, createDependentLaunch, createDecomposeAggregates,
                                      createSerialKernels, createExpandF8, createTensorBitcasts};
  for (size_t i = 0; i < sizeof passes / sizeof passes[0]; ++i)
    w4a16ShimRegisterPass(passes[i]);
  w4a16ShimRegisterPipeline("w4a16-explain", describe("w4a16-explain"), buildExplain);
  w4a16ShimRegisterPipeline("w4a16-explain-int8-prep", describe("w4a16-explain-int8-prep"), buildExplainInt8Prep);
  w4a16ShimRegisterPipeline("w4a16-pipeline", describe("w4a16-pipeline"), buildPipeline);
  w4a16ShimRegisterPipeline("w4a16-gpu-pipeline", describe("w4a16-gpu-pipeline"), buildGpuPipeline);
}

static pthread_once_t passesOnce = PTHREAD_ONCE_INIT;

void w4a16RegisterPasses(void) { pthread_once(&passesOnce, registerPassesOnce); }

void w4a16RegisterAll(MlirContext ctx) {
  /* Every upstream dialect with its external interface models and extensions: one-shot bufferization, the
   * inliner and convert-to-llvm find their implementations only through these. */
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(ctx); /* mlirTranslateModuleToLLVMIR, the execution engine */
  w4a16RegisterDialects(ctx);
  w4a16RegisterPasses();
}

void w4a16PrintRegisteredPasses(void) {
  w4a16RegisterPasses();
  w4a16ShimPrintRegisteredPasses(kPipelines, sizeof kPipelines / sizeof kPipelines[0]);
}
