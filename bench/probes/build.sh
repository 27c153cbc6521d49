#!/usr/bin/env bash
# Builds the probes kept in bench/probes (issue #15). They include the runtime's building blocks by
# name -- sm90.cuh and wgmma_rs.cuh (runtime/src), cuda_check.h (runtime/test), w4a16/runtime.h
# (runtime/include) -- through the -I flags below, never by relative path, and never the kernel itself.
#   bench/probes/build.sh [BUILD_DIR]
#     mma_energy  f16 vs integer wgmma, time and energy per weight (needs no runtime library);
#     param_size  time per call against a kernel's parameter-block size (needs no runtime library);
#     energy      energy per call through the runtime; built when BUILD_DIR/lib/libw4a16_runtime.a
#                 exists (a runtime-only CMake build, as bench/run-gpu.sh makes).
#   Binaries go to BUILD_DIR/bin, or to bench/out/probes (git-ignored) without BUILD_DIR.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
B=${1:+$(cd "$1" && pwd)}
BIN=${B:+$B/bin}
BIN=${BIN:-$ROOT/bench/out/probes}
mkdir -p "$BIN"
cd "$ROOT"
FLAGS=(-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I runtime/src -I runtime/test -I runtime/include)
"$NVCC" "${FLAGS[@]}" -o "$BIN/mma_energy" bench/probes/mma_energy.cu -ldl
echo "built $BIN/mma_energy"
"$NVCC" "${FLAGS[@]}" -o "$BIN/param_size" bench/probes/param_size.cu
echo "built $BIN/param_size"
if [ -n "$B" ] && [ -f "$B/lib/libw4a16_runtime.a" ]; then
  "$NVCC" "${FLAGS[@]}" -o "$BIN/energy" bench/probes/energy.cu "$B/lib/libw4a16_runtime.a" -lcuda -ldl
  echo "built $BIN/energy"
else
  echo "energy: skipped (needs BUILD_DIR/lib/libw4a16_runtime.a)"
fi
