#!/usr/bin/env bash
# Session 52, call 2: #16's sanitizer checks on main's final kernels and chooser (s120 = main b0bf68b:
# fbe8cb7's kernels and chooser, the chooser test for 4096x11008), as runtime/test/run-gpu.sh runs them: gpu_test --chooser, compute-sanitizer
# memcheck of graph_test --small (graph replays of every configuration class), racecheck of graph_test --small per
# path (the classes of run-gpu.sh plus W = 3 through the workspace, which 4096x11008 now takes up to 16 tokens, and
# v1's decode variant), then memcheck and racecheck of gpu_test --small. Each step only while time is left.
# carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
B=/tmp/prebuilt/s120; mkdir -p $B && tar xJf .carry/bins/s120.tar.xz -C $B
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
left() { echo $(( 560 - ($(date +%s) - T0) )); }
timeout 60 $B/w4a16_gpu_test --chooser >$L/chooser-s120.txt 2>&1
echo "gpu_test --chooser s120: exit $?; $(grep -c '^FAIL' $L/chooser-s120.txt) FAIL lines; $(tail -1 $L/chooser-s120.txt)" | tee -a $O/summary.txt
sanitize() {  # tool log args...
  local tool=$1 log=$2; shift 2
  local t; t=$(left); [ "$t" -gt 30 ] || { echo "$log: skipped (time)" | tee -a $O/summary.txt; return; }
  timeout $t "$SAN" --tool $tool --error-exitcode 9 "$@" >"$L/$log.log" 2>&1
  echo "compute-sanitizer $tool $log: exit $? at $(( $(date +%s) - T0 )) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/$log.log" | tail -1); $(grep -E 'passed|PASS|FAIL' "$L/$log.log" | tail -1)" | tee -a $O/summary.txt
  pack
}
sanitize memcheck memcheck-graph --report-api-errors no $B/w4a16_graph_test --small
for cls in v3-W4-S1 v3-W4-cluster3 v3-W4-workspace3 v3-W3-workspace3 v1-cluster2 v1-sliced; do
  sanitize racecheck "racecheck-graph-$cls" $B/w4a16_graph_test --small --class $cls
done
sanitize memcheck memcheck-gpu_test $B/w4a16_gpu_test --small
sanitize racecheck racecheck-gpu_test $B/w4a16_gpu_test --small
