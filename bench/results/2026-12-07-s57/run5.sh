#!/usr/bin/env bash
# Session 57, the short call for when little device time is left (~150 s): w4a16_test_gpu_target and e2e-gpu-kv
# at main b6144fc+
# (t57: w4a16_rt_device_read's GPU checks), the layer on main's kernels (s129; on an H200 #21's numbers) and s131,
# and s131's graph_test (the slot-is-split patch's first check). carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init t57 s129 s131
call_step gpu-target-t57 60 stdbuf -oL $P/t57/w4a16_test_gpu_target
call_step gpu-kv-t57 60 stdbuf -oL $P/t57/e2e-gpu-kv
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32,48 PASSES=2 call_step layer 30 bash bench/prebuilt-gpu.sh layer s129 s131
grep -E "merged" $L/layer.log | tee -a $S
call_step graph-s131 60 stdbuf -oL $P/s131/w4a16_graph_test
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
