#!/usr/bin/env bash
# Compiles the CUDA kernels of a source tree for sm_90a (no GPU needed) and reports, per file, the kernels that
# spill and those whose wgmma ptxas serialises (C7512, "insufficient register resources"): a kernel change can
# cause the second without the first, and it slows the kernel (bench/RESULTS.md, session 50). A build prints the same
# C7512 lines among its ptxas output, unflagged; this is the summary without a build. The flags are
# runtime/CMakeLists.txt's for sm_90a: keep them in step.
# Usage: bench/ptxas-check.sh [SRCDIR (default: this tree)]. Exit status 1 if any wgmma is serialised.
set -uo pipefail
S=${1:-$(cd "$(dirname "$0")/.." && pwd)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
bad=0
for f in "$S"/runtime/src/gemm_v*.cu; do
  n=$(basename "$f" .cu)
  "$NVCC" -O2 -DNDEBUG -gencode=arch=compute_90a,code=sm_90a -fmad=false -std=c++17 -DW4A16_WITH_CUDA=1 -Xptxas=-v \
    -I"$S/runtime/include" -I"$S/runtime/src" -cubin -o "$T/$n.cubin" "$f" >"$T/$n.log" 2>&1 || { echo "$n: build failed"; bad=1; continue; }
  spills=$(grep -c "bytes spill stores" "$T/$n.log"); spilling=$(grep "bytes spill stores" "$T/$n.log" | grep -vc " 0 bytes spill stores")
  serial=$(grep -c C7512 "$T/$n.log")
  echo "$n: $spills kernels, $spilling spill, $serial serialise their wgmma"
  grep C7512 "$T/$n.log" | grep -o "function '[^']*'" | sed "s/^function '//; s/'$//" |
    { if command -v c++filt >/dev/null; then c++filt; else cat; fi; } | sed 's/^/  /'
  [ "$serial" -eq 0 ] || bad=1
done
exit $bad
