#!/usr/bin/env bash
# One device call: build runtime-only, run the runtime's GPU checks, run the benchmark, make the report.
#   bench/run-gpu.sh [extra w4a16_bench args, e.g. --quick]
# Everything lands in $OUT (at most 8 files come back): summary.txt, bench.csv, table.md,
# latency_vs_M.png, logs.tgz (build, gpu_test, sanitizer, ctest, SASS, bench logs).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
O=${OUT:-$ROOT/build-gpu/out}
B=$ROOT/build-gpu
export LOGDIR=$O/logs
mkdir -p "$LOGDIR"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
# Only this component's targets: the rest of the tree may be mid-change and is not needed here.
TARGETS="w4a16_runtime w4a16_gpu_test w4a16_bench w4a16_test_half w4a16_test_cpu_matrix w4a16_test_bad_inputs w4a16_test_checker_fails w4a16_test_cpu_threads"
start=$(date +%s)
{
  echo "== $(date -u +%FT%TZ) commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+dirty')"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
  "$NVCC" --version | tail -1
} 2>&1 | tee "$O/summary.txt"

t0=$(date +%s)
{ cmake -G Ninja -S "$ROOT" -B "$B" -DW4A16_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CUDA_COMPILER="$NVCC" && cmake --build "$B" --target $TARGETS; } >"$LOGDIR/build.log" 2>&1
brc=$?
echo "build: exit $brc in $(( $(date +%s) - t0 )) s" | tee -a "$O/summary.txt"
if [ $brc -ne 0 ]; then tail -60 "$LOGDIR/build.log"; tar czf "$O/logs.tgz" -C "$O" logs; rm -rf "$LOGDIR"; exit 1; fi

t0=$(date +%s)
bash "$ROOT/runtime/test/run-gpu.sh" "$B" 2>&1 | tee -a "$O/summary.txt"
trc=${PIPESTATUS[0]}
echo "runtime GPU checks: exit $trc in $(( $(date +%s) - t0 )) s" | tee -a "$O/summary.txt"

t0=$(date +%s)
timeout 330 "$B/bin/w4a16_bench" --csv "$O/bench.csv" "$@" 2>&1 | tee "$LOGDIR/bench.log"
echo "bench: exit ${PIPESTATUS[0]} in $(( $(date +%s) - t0 )) s" | tee -a "$O/summary.txt"
grep -E "bandwidth|rel-norm" "$LOGDIR/bench.log" >>"$O/summary.txt"
python3 "$ROOT/bench/report.py" "$O/bench.csv" "$O" >>"$O/summary.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >>"$O/summary.txt" 2>&1
echo "total $(( $(date +%s) - start )) s" | tee -a "$O/summary.txt"
tar czf "$O/logs.tgz" -C "$O" logs && rm -rf "$LOGDIR"
exit $trc
