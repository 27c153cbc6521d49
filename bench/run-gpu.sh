#!/usr/bin/env bash
# One device call: build runtime-only, run the runtime's GPU checks, run the benchmark, make the report.
#   bench/run-gpu.sh [extra w4a16_bench args, e.g. --quick]
# Output in $OUT (default bench/out/run-gpu-TIME, git-ignored), in two parts (issue #15):
#   summary, committed under bench/results/DATE-NAME/ (at most 200 KB together; the total is printed):
#     summary.txt, table.md, bench.csv, sweep.csv (every M in 1..64, L2-cold), latency_vs_M.png;
#   raw/logs.tgz, never committed (keep it under bench/out/): build, gpu_test, sanitizer, ctest, SASS and
#     bench logs, the SM clock and power during the benchmark (smi.csv, summarised in summary.txt), and
#     with W4A16_NCU=1 an ncu profile of 8192x28672 M=32 (ncu.txt; headline figures in summary.txt).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
O=${OUT:-$ROOT/bench/out/run-gpu-$(date -u +%Y%m%dT%H%M%SZ)}
B=$ROOT/build-gpu
export LOGDIR=$O/logs  # packed into $O/raw/logs.tgz at the end
mkdir -p "$LOGDIR" "$O/raw"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
# Only this component's targets: the rest of the tree may be mid-change and is not needed here.
TARGETS="w4a16_runtime w4a16_gpu_test w4a16_graph_test w4a16_bench w4a16_test_half w4a16_test_cpu_matrix w4a16_test_bad_inputs w4a16_test_checker_fails w4a16_test_cpu_threads w4a16_test_zero_points w4a16_test_act_order w4a16_test_gpu_target"
start=$(date +%s)
{
  echo "== $(date -u +%FT%TZ) commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+dirty')"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
  "$NVCC" --version | tail -1
} 2>&1 | tee "$O/summary.txt"

t0=$(date +%s)
# PREBUILT=dir (binaries in dir/bin, objects in dir/runtime): built on the workstation with the same
# nvcc 13.0, used when the loader finds everything they need; saves the device build (~1 min).
if [ -n "${PREBUILT:-}" ] && [ -x "$PREBUILT/bin/w4a16_bench" ] && \
   ! ldd "$PREBUILT/bin/w4a16_bench" "$PREBUILT/bin/w4a16_gpu_test" 2>&1 | grep -q "not found"; then
  B=$PREBUILT
  brc=0
  echo "build: prebuilt binaries from $B ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) tree)" | tee -a "$O/summary.txt"
else
{ cmake -G Ninja -S "$ROOT" -B "$B" -DW4A16_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CUDA_COMPILER="$NVCC" && cmake --build "$B" -j "$(nproc)" --target $TARGETS; } >"$LOGDIR/build.log" 2>&1
brc=$?
echo "build: exit $brc in $(( $(date +%s) - t0 )) s" | tee -a "$O/summary.txt"
fi
if [ $brc -ne 0 ]; then tail -60 "$LOGDIR/build.log"; tar czf "$O/raw/logs.tgz" -C "$O" logs; rm -rf "$LOGDIR"; exit 1; fi

t0=$(date +%s)
bash "$ROOT/runtime/test/run-gpu.sh" "$B" 2>&1 | tee -a "$O/summary.txt"
trc=${PIPESTATUS[0]}
echo "runtime GPU checks: exit $trc in $(( $(date +%s) - t0 )) s" | tee -a "$O/summary.txt"

t0=$(date +%s)
bash "$ROOT/bench/smi-log.sh" start "$LOGDIR/smi.csv"
timeout 330 "$B/bin/w4a16_bench" --csv "$O/bench.csv" --sweep "$O/sweep.csv" "$@" 2>&1 | tee "$LOGDIR/bench.log"
echo "bench: exit ${PIPESTATUS[0]} in $(( $(date +%s) - t0 )) s" | tee -a "$O/summary.txt"
bash "$ROOT/bench/smi-log.sh" stop "$LOGDIR/smi.csv" | tee -a "$O/summary.txt"
grep -E "bandwidth|rel-norm|^sweep" "$LOGDIR/bench.log" >>"$O/summary.txt"
python3 "$ROOT/bench/report.py" "$O/bench.csv" "$O" "$O/sweep.csv" >>"$O/summary.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >>"$O/summary.txt" 2>&1
if [ "${W4A16_NCU:-0}" = 1 ]; then bash "$ROOT/bench/ncu.sh" "$B" "$LOGDIR" | tee -a "$O/summary.txt"; fi
echo "total $(( $(date +%s) - start )) s" | tee -a "$O/summary.txt"
tar czf "$O/raw/logs.tgz" -C "$O" logs && rm -rf "$LOGDIR"
( cd "$O" && du -cb summary.txt table.md bench.csv sweep.csv latency_vs_M.png 2>/dev/null | tail -1 |
  awk '{ printf "summary files (to commit): %.0f KB%s; raw logs: raw/logs.tgz (not to commit)\n", $1 / 1024, ($1 > 204800 ? " -- over 200 KB" : "") }' )
exit $trc
