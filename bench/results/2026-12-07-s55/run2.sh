#!/usr/bin/env bash
# Session 55, call 2. Run 1: s129 (ticket before the grid wait) took 11008x4096 / 14336x4096 at M = 48 from +5.7 / +6.5
# to +2.7 / +1.4 % over 2655af8 (back-to-back, L2-cold), passed graph_test, racecheck and memcheck, but its full
# gpu_test ran past 150 s with nothing in its log (stdout is block-buffered into a file; gpu_test took 80-124 s in
# earlier sessions), and the whole sweep put 8192x8192 M = 48 at +5.5 % (a cluster row, which the patch leaves alone;
# session 53 had it within +2 %). Here: gpu_test of s129 line-buffered with a longer limit (a hang shows where), then
# o2655p / s127 / s129 on the M = 48 rows. Prediction: gpu_test passes in ~100 s; 8192x8192 s129 = s127 to 1 point.
# carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init o2655p s127 s129
call_step gpu-test-s129 300 stdbuf -oL -eL $P/s129/w4a16_gpu_test
grep -E "^(PASS|FAIL)" $L/gpu-test-s129.log | head -20 | tee -a $S
mkdir -p $L/m48; OUT=$L/m48 SHAPES="8192x8192 11008x4096 4096x4096" MS=48 ROUNDS=3 MODES="eager graph" \
  call_step m48 90 bash bench/prebuilt-gpu.sh time o2655p s127 s129
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
