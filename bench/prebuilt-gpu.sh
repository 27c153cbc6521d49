#!/usr/bin/env bash
# Device checks and timings from binaries built on the build machine, so that a device call spends its minutes
# on the GPU rather than on nvcc. Stage on the build machine (after building the runtime's targets):
#   bench/prebuilt-gpu.sh --stage NAME BUILD_DIR
# packs BUILD_DIR/bin/{w4a16_gpu_test, w4a16_graph_test, w4a16_bench, w4a16_layer_bench, e2e-driver} (stripped,
# xz: ~3 MB; they share their kernels) into .carry/bins/NAME.tar.xz. On the device (device tool, carry [".carry"]):
#   bench/prebuilt-gpu.sh check NAME          gpu_test (full), graph_test, compute-sanitizer memcheck of
#                                             gpu_test --small, and the GPU e2e (test/e2e/run-gpu.sh with
#                                             E2E_DRIVER; stage .carry/e2e first)
#   bench/prebuilt-gpu.sh time NAME[,FLAGS[,ENV]]...
#                                             w4a16_bench --ours-only of binaries NAME with FLAGS ("@" stands for
#                                             a space: "pdl,--act-order@--bf16") and environment ENV ("VAR=1@VAR2=0";
#                                             the runtime's W4A16_* overrides), back-to-back and as CUDA-graph
#                                             replays (MODES), on SHAPES x M = MS, ROUNDS rounds, the runs
#                                             interleaved in each round so that drift hits all alike; ONE_M=1
#                                             runs each M in a process of its own (the power cap: see below)
#   bench/prebuilt-gpu.sh layer NAME...       w4a16_layer_bench of binaries NAME (LLaMA-7B layer projections,
#                                             separate vs merged plans, graph and eager; M = MS) into
#                                             layer-NAME.{log,csv}; its tables go to the summary. PASSES=P: P
#                                             passes, the binaries interleaved in each, into layer-NAME-pP.*
#   bench/prebuilt-gpu.sh timeline NAME       the same from an instrumented build (kernels v3 and v1 stamp each CTA's
#                                             phases: runtime/src/timeline.cuh) with --timeline, and
#                                             bench/timeline.py's per-launch table into the summary. Build and
#                                             stage it with: cmake -S . -B build-tl -G Ninja -DW4A16_RUNTIME_ONLY=ON
#                                             -DW4A16_TIMELINE=ON && ninja -C build-tl w4a16_layer_bench &&
#                                             bench/prebuilt-gpu.sh --stage NAME build-tl
# Output under $OUT (default bench/out/prebuilt-TIME): summary.txt and the logs/CSVs.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BINS=$ROOT/.carry/bins
if [ "${1:-}" = --stage ]; then
  name=$2 build=$3 tmp=$(mktemp -d)
  for b in w4a16_gpu_test w4a16_graph_test w4a16_bench w4a16_layer_bench e2e-driver; do  # those that were built
    [ -x "$build/bin/$b" ] && { strip -o "$tmp/$b" "$build/bin/$b" || exit 1; }
  done
  mkdir -p "$BINS" && tar cf - -C "$tmp" . | xz -9 -T2 >"$BINS/$name.tar.xz" && rm -r "$tmp"
  ls -l "$BINS/$name.tar.xz"
  exit 0
fi
O=${OUT:-$ROOT/bench/out/prebuilt-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$O"
S=$O/summary.txt
unpack() { mkdir -p "/tmp/prebuilt/$1" && tar xJf "$BINS/$1.tar.xz" -C "/tmp/prebuilt/$1"; }
echo "== $(date -u +%FT%TZ) $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) $*" | tee "$S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"
mode=$1; shift
if [ "$mode" = check ]; then
  name=$1 && unpack "$name" && B=/tmp/prebuilt/$name
  t0=$(date +%s)
  timeout 240 "$B/w4a16_gpu_test" >"$O/gpu_test.log" 2>&1
  echo "gpu_test: exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' "$O/gpu_test.log") FAIL lines; $(tail -1 "$O/gpu_test.log")" | tee -a "$S"
  grep -iE "act-order" "$O/gpu_test.log" | tail -5 | tee -a "$S"
  t0=$(date +%s)
  timeout 150 "$B/w4a16_graph_test" >"$O/graph_test.log" 2>&1
  echo "graph_test: exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' "$O/graph_test.log") FAIL lines; $(tail -1 "$O/graph_test.log")" | tee -a "$S"
  SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  t0=$(date +%s)
  timeout 120 "$SAN" --tool memcheck --error-exitcode 9 "$B/w4a16_gpu_test" --small >"$O/memcheck.log" 2>&1
  echo "memcheck gpu_test --small: exit $? in $(( $(date +%s) - t0 )) s; $(grep -E 'ERROR SUMMARY' "$O/memcheck.log" | tail -1)" | tee -a "$S"
  t0=$(date +%s)
  E2E_DRIVER=$B/e2e-driver timeout 200 bash "$ROOT/test/e2e/run-gpu.sh" >"$O/e2e.log" 2>&1
  echo "e2e: exit $? in $(( $(date +%s) - t0 )) s; $(tail -1 "$O/e2e.log")" | tee -a "$S"
  grep -E "e2e [a-z_0-9]+: (PASS|FAIL)" "$O/e2e.log" | sort | uniq -c | tee -a "$S"
  # the GPU-target build (e2e-driver --gpu-target) at a glance
  echo "e2e GPU target: $(grep -cE 'e2e [a-z_0-9]+: PASS \(GPU target' "$O/e2e.log") PASS, $(grep -cE 'e2e [a-z_0-9]+: FAIL \(GPU target' "$O/e2e.log") FAIL, $(grep -c 'GPU target: SKIPPED' "$O/e2e.log") skipped" | tee -a "$S"
  exit 0
fi
if [ "$mode" = timeline ]; then
  name=$1 && unpack "$name" && B=/tmp/prebuilt/$name
  t0=$(date +%s)
  timeout 400 "$B/w4a16_layer_bench" --ms "${MS:-1,16,32}" --reps "${REPS:-40}" --no-split \
    --timeline "$O/timeline-$name.csv" >"$O/timeline-$name.log" 2>&1
  echo "timeline $name: exit $? in $(( $(date +%s) - t0 )) s" | tee -a "$S"
  grep -E "^M=[0-9]+: graph" "$O/timeline-$name.log" | tee -a "$S"
  python3 "$ROOT/bench/timeline.py" "$O/timeline-$name.csv" | tee -a "$S"
  xz -T2 "$O/timeline-$name.csv"
  exit 0
fi
if [ "$mode" = layer ]; then  # PASSES > 1: the binaries interleaved pass by pass, files layer-NAME-pP.*
  passes=${PASSES:-1}
  for pass in $(seq 1 "$passes"); do
    for name in "$@"; do
      [ -d "/tmp/prebuilt/$name" ] || unpack "$name"
      B=/tmp/prebuilt/$name
      if [ ! -x "$B/w4a16_layer_bench" ]; then echo "layer $name: no w4a16_layer_bench in $name (staged before it existed)" | tee -a "$S"; continue; fi
      tag=$name; [ "$passes" -gt 1 ] && tag=$name-p$pass
      t0=$(date +%s)
      timeout 300 "$B/w4a16_layer_bench" --ms "${MS:-1,16,32}" --csv "$O/layer-$tag.csv" >"$O/layer-$tag.log" 2>&1
      echo "layer $tag: exit $? in $(( $(date +%s) - t0 )) s" | tee -a "$S"
      if [ "$passes" -gt 1 ]; then  # one line per (M, config) per pass
        grep -E "^ +[0-9]+ +(merged|separate) +[0-9.]+/" "$O/layer-$tag.log" | sed "s/^/$tag /" | tee -a "$S"
      else
        sed -n '/^== /,$p' "$O/layer-$tag.log" | tee -a "$S"  # the tables
      fi
    done
  done
  exit 0
fi
runs=("$@")
for spec in "${runs[@]}"; do [ -d "/tmp/prebuilt/${spec%%,*}" ] || unpack "${spec%%,*}"; done
for r in $(seq 1 "${ROUNDS:-2}"); do
  for shape in ${SHAPES:-8192x8192 14336x4096 8192x28672 28672x8192 4096x4096 4096x11008 11008x4096 4096x12288}; do
    for spec in "${runs[@]}"; do
      n=${spec%%,*} f=${spec#*,} e=; [ "$f" = "$spec" ] && f=
      case $f in *,*) e=${f#*,} f=${f%%,*} ;; esac
      for mode in ${MODES:-eager graph}; do
        label="$n${f:+-${f//[-@ ]/}}${e:+-${e//[=@_]/}}-$mode"
        # ONE_M=1: each M in a process of its own (files ...-rRmM): in one process that runs several M, the power
        # cap leaves the GPU in a different state for each, and one call took 41 or 46 us by that state alone
        # (bench/RESULTS.md session 30, runs 1-3).
        one_m=$([ "${ONE_M:-0}" = 1 ] && echo 1) ms_list=${MS:-1,16,32}
        [ -n "$one_m" ] && ms_list=${ms_list//,/ }
        for ms in $ms_list; do
          tag=r$r${one_m:+m$ms}
          # shellcheck disable=SC2086 # the flags and the environment split into words
          env ${e//@/ } timeout 120 "/tmp/prebuilt/$n/w4a16_bench" --ours-only ${f//@/ } $([ $mode = graph ] && echo --graph) \
            --shape "$shape" --ms "$ms" --csv "$O/bench-$label-$shape-$tag.csv" >"$O/bench-$label-$shape-$tag.log" 2>&1
          rc=$?
          echo "bench $label $shape round $r${one_m:+ M $ms}: exit $rc" >>"$O/bench-runs.txt"
        done
      done
    done
  done
done
echo "bench runs: $(grep -c 'exit 0' "$O/bench-runs.txt") ok, $(grep -vc 'exit 0' "$O/bench-runs.txt") failed" | tee -a "$S"
