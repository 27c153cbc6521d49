#!/usr/bin/env bash
# Session 56: run1.sh trimmed to what fits the ~350 s of device time left after six failed starts: the checks of
# s131 (main c9ae29e + bench/patches/slot-is-split.patch) first, then a short A/B against s129 (main's kernels) and
# the layer (on an H200 also #21's numbers). Prediction: every check passes; s131 within noise of s129.
# carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init s129 s131
call_step graph-s131 60 stdbuf -oL $P/s131/w4a16_graph_test
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
call_step memcheck-graph-ws-s131 30 $SAN --tool memcheck --error-exitcode 9 $P/s131/w4a16_graph_test --small \
  --class v3-W4-workspace3
call_step racecheck-chain-s131 90 $SAN --tool racecheck --error-exitcode 9 $P/s131/w4a16_gpu_test --chain 1
call_step gpu-test-s131 180 stdbuf -oL $P/s131/w4a16_gpu_test
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32,48 PASSES=2 call_step layer 30 bash bench/prebuilt-gpu.sh layer s129 s131
grep -E "merged" $L/layer.log | tee -a $S
mkdir -p $L/ab; OUT=$L/ab MODES=eager ROUNDS=2 MS=16,48 SHAPES="11008x4096 14336x4096" \
  call_step ab 60 bash bench/prebuilt-gpu.sh time s129 s131
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
