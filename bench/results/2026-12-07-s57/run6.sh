#!/usr/bin/env bash
# Session 57, the shortest call (~60 s): w4a16_test_gpu_target and e2e-gpu-kv at main c66153e (t57), then the
# layer on main's kernels (s129; on an H200 #21's numbers). carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init t57 s129
call_step gpu-target-t57 60 stdbuf -oL $P/t57/w4a16_test_gpu_target
call_step gpu-kv-t57 60 stdbuf -oL $P/t57/e2e-gpu-kv
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32 PASSES=2 call_step layer 30 bash bench/prebuilt-gpu.sh layer s129
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
