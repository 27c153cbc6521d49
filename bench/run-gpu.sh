#!/usr/bin/env bash
# One device call: build runtime-only, run the runtime's GPU checks, run the benchmark, make the report.
#   bench/run-gpu.sh [extra w4a16_bench args, e.g. --quick]
# Everything lands in $OUT (at most 8 files come back): summary.txt, bench.csv, sweep.csv (every M in
# 1..64, L2-cold), table.md, latency_vs_M.png, logs.tgz (build, gpu_test, sanitizer, ctest, SASS,
# bench logs, the SM clock and power during the benchmark: smi.csv, summarised in summary.txt). With
# W4A16_NCU=1 it also profiles 8192x28672 M=32 with ncu (ncu.txt, in logs.tgz).
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
if [ $brc -ne 0 ]; then tail -60 "$LOGDIR/build.log"; tar czf "$O/logs.tgz" -C "$O" logs; rm -rf "$LOGDIR"; exit 1; fi

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
tar czf "$O/logs.tgz" -C "$O" logs && rm -rf "$LOGDIR"
exit $trc
