#!/usr/bin/env bash
# Session 55, call 1: session 54's run 3, never run, plus the checks that s129 needs before it could merge.
# s129 = main c74986d + bench/patches/ticket-before-wait.patch: each CTA takes (tile, split) from a ticket drawn at its
# start, before the grid dependency wait, as 2655af8 did; the grid's last draw resets the counter and fences before
# its CTA lets the next grid launch; the tile's last split finishes and alone stages the epilogue's inputs.
# Prediction: the M = 48 rows of 11008x4096 / 14336x4096 within +2 % of 2655af8 back-to-back (main: +6.0 / +7.1 %),
# M = 16 unchanged; graph_test, gpu_test, memcheck and racecheck pass. On an H200 the layer rows are #21's numbers.
# carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init o2655p s127 s129 tl127
run() { call_step "$@"; }
run graph-small-s129 30 $P/s129/w4a16_graph_test --small
mkdir -p $L/time; OUT=$L/time SHAPES="11008x4096 14336x4096" MS=16,48 ROUNDS=2 MODES="eager graph" \
  run time 90 bash bench/prebuilt-gpu.sh time o2655p s127 s129
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32,48 PASSES=2 run layer 40 bash bench/prebuilt-gpu.sh layer s127 s129
grep -E "merged|^layer" $L/layer.log | tee -a $S
# Per-CTA timelines of main's layer at M = 48 (its down projection is 11008x4096 through the workspace)
mkdir -p $L/tl; OUT=$L/tl MS=48 REPS=20 run timeline 60 bash bench/prebuilt-gpu.sh timeline tl127
run graph-s129 60 $P/s129/w4a16_graph_test
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
run racecheck-chain-s129 90 $SAN --tool racecheck --error-exitcode 9 $P/s129/w4a16_gpu_test --chain 1
grep -E "RACECHECK SUMMARY" $L/racecheck-chain-s129.log | tail -1 | tee -a $S
run memcheck-graph-ws-s129 60 $SAN --tool memcheck --error-exitcode 9 $P/s129/w4a16_graph_test --small \
  --class v3-W4-workspace3
grep -E "ERROR SUMMARY" $L/memcheck-graph-ws-s129.log | tail -1 | tee -a $S
mkdir -p $L/ab; OUT=$L/ab MODES=eager ROUNDS=2 MS=1,16,18,24,31,32,48,64 \
  run ab-sweep 130 bash bench/prebuilt-gpu.sh time o2655p s129
run gpu-test-s129 150 $P/s129/w4a16_gpu_test
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
