#!/usr/bin/env bash
# Session 56, for the last ~170 s of device time after a start: the layer on main's kernels (s129; on an H200 #21's
# numbers, the first since session 46), then the checks of s131 that fit (graph_test, memcheck of the workspace
# class, racecheck of gpu_test --chain). carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init s129 s131
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32 PASSES=2 call_step layer 30 bash bench/prebuilt-gpu.sh layer s129
grep -E "merged" $L/layer.log | tee -a $S
call_step graph-s131 60 stdbuf -oL $P/s131/w4a16_graph_test
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
call_step memcheck-graph-ws-s131 30 $SAN --tool memcheck --error-exitcode 9 $P/s131/w4a16_graph_test --small \
  --class v3-W4-workspace3
call_step racecheck-chain-s131 90 $SAN --tool racecheck --error-exitcode 9 $P/s131/w4a16_gpu_test --chain 1
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
