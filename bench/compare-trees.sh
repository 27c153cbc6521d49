#!/usr/bin/env bash
# Device-side comparison of runtime trees (issue #15's SASS check, A/B rows of the ledger):
#   bench/compare-trees.sh build NAME=SRC...   build each source tree (runtime-only) into build-NAME, in parallel
#   bench/compare-trees.sh sass A B            diff the sm_90a SASS of the kernels of build-A and build-B,
#                                              ignoring symbol names (mangled names carry template parameters)
# SRC is a source tree (e.g. `git archive COMMIT runtime bench CMakeLists.txt cmake` unpacked into a carried,
# git-ignored folder, or . for the working tree). Output under $OUT (default bench/out/compare-TIME).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
O=${OUT:-$ROOT/bench/out/compare-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$O"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
TARGETS="w4a16_runtime w4a16_gpu_test w4a16_bench"
cmd=$1; shift
case $cmd in
build)
  for spec in "$@"; do
    name=${spec%%=*} src=$(cd "${spec#*=}" && pwd)
    t=$TARGETS; [ -f "$src/runtime/test/graph_test.c" ] && t="$t w4a16_graph_test"
    ( cmake -G Ninja -S "$src" -B "$ROOT/build-$name" -DW4A16_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CUDA_COMPILER="$NVCC" >"$O/build-$name.log" 2>&1 &&
      cmake --build "$ROOT/build-$name" -j 8 --target $t >>"$O/build-$name.log" 2>&1
      echo "build $name ($src): exit $?" ) &
  done
  wait ;;
sass)
  for side in "$1" "$2"; do
    : >"$O/sass-$side.txt"
    for obj in $(find "$ROOT/build-$side/runtime" -name 'gemm_v*.cu.o' | sort); do
      cuobjdump -sass -arch sm_90a "$obj" >>"$O/sass-$side.txt" 2>&1
    done
    # keep instructions only: drop addresses, encodings, symbol names and labels
    grep -E '^\s+/\*[0-9a-f]{4}\*/' "$O/sass-$side.txt" | sed -E 's#/\*[0-9a-f]+\*/##; s#;.*##; s#`\([^)]*\)#SYM#g' \
      >"$O/sass-$side.norm"
  done
  a=$(wc -l <"$O/sass-$1.norm") b=$(wc -l <"$O/sass-$2.norm")
  if diff -q "$O/sass-$1.norm" "$O/sass-$2.norm" >/dev/null; then
    echo "SASS sm_90a: identical ($a instructions, symbol names ignored)"
  else
    diff "$O/sass-$1.norm" "$O/sass-$2.norm" >"$O/sass.diff"
    echo "SASS sm_90a: differs: $a vs $b instructions, $(grep -c '^[<>]' "$O/sass.diff") lines in sass.diff"
  fi
  gzip -f "$O"/sass-*.txt ;;
*) echo "usage: $0 build NAME=SRC... | sass A B" >&2; exit 2 ;;
esac
