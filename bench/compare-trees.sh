#!/usr/bin/env bash
# Device-side comparison of runtime trees (issue #15's SASS check, A/B rows of the ledger):
#   bench/compare-trees.sh build NAME=SRC...   build each source tree (runtime-only) into build-NAME, in parallel
#   bench/compare-trees.sh sass A B            diff the sm_90a SASS of the kernels of build-A and build-B,
#                                              ignoring symbol names (mangled names carry template parameters)
#   bench/compare-trees.sh ptx SRC_A SRC_B     the same check on PTX, without a GPU or cuobjdump
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
  CUOBJDUMP=$(command -v cuobjdump || echo "$(dirname "$NVCC")/cuobjdump")
  [ -x "$CUOBJDUMP" ] || { echo "compare-trees.sh: no cuobjdump (PATH or next to nvcc): cannot compare SASS" >&2; exit 2; }
  for side in "$1" "$2"; do
    : >"$O/sass-$side.txt"
    for obj in $(find "$ROOT/build-$side/runtime" -name 'gemm_v*.cu.o' | sort); do
      "$CUOBJDUMP" -sass -arch sm_90a "$obj" >>"$O/sass-$side.txt" 2>&1 || exit 2
    done
    # keep instructions only: drop addresses, encodings, symbol names and labels
    grep -E '^\s+/\*[0-9a-f]{4}\*/' "$O/sass-$side.txt" | sed -E 's#/\*[0-9a-f]+\*/##; s#;.*##; s#`\([^)]*\)#SYM#g' \
      >"$O/sass-$side.norm"
  done
  a=$(wc -l <"$O/sass-$1.norm") b=$(wc -l <"$O/sass-$2.norm")
  # no instructions on a side means no objects or no sm_90a code: never report that as "identical"
  [ "$a" -gt 0 ] && [ "$b" -gt 0 ] || { echo "compare-trees.sh: no sm_90a SASS found ($a / $b instructions)" >&2; exit 2; }
  if diff -q "$O/sass-$1.norm" "$O/sass-$2.norm" >/dev/null; then
    echo "SASS sm_90a: identical ($a instructions, symbol names ignored)"
  else
    diff "$O/sass-$1.norm" "$O/sass-$2.norm" >"$O/sass.diff"
    echo "SASS sm_90a: differs: $a vs $b instructions, $(grep -c '^[<>]' "$O/sass.diff") lines in sass.diff"
  fi
  gzip -f "$O"/sass-*.txt ;;
ptx)  # runs anywhere nvcc is (no GPU): the kernels' sm_90a PTX of two source trees, virtual register numbers
      # and labels ignored; the SASS check on the device stays the final word
  norm() { grep -v '^\s*//' "$1" | sed -E 's/%(r|rd|f|p|rs|fd|h|hh)[0-9]+/%\1N/g; s/\$L__BB[0-9_]+/LBL/g'; }
  for side in "$1" "$2"; do
    for tu in gemm_v1 gemm_v3; do
      "$NVCC" -ptx -gencode=arch=compute_90a,code=sm_90a -std=c++17 -fmad=false -I "$side/runtime/src" \
        -I "$side/runtime/include" "$side/runtime/src/$tu.cu" -o "$O/$(basename "$side")-$tu.ptx" || exit 1
    done
  done
  for tu in gemm_v1 gemm_v3; do
    n=$(diff <(norm "$O/$(basename "$1")-$tu.ptx") <(norm "$O/$(basename "$2")-$tu.ptx") | grep -c '^[<>]')
    echo "PTX sm_90a $tu: $n differing lines (register numbers and labels ignored)"
  done ;;
*) echo "usage: $0 build NAME=SRC... | sass A B | ptx SRC_A SRC_B" >&2; exit 2 ;;
esac
