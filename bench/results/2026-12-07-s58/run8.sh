#!/usr/bin/env bash
# Session 58, a short device call (~250 s) for when little device time is left: run7.sh's first part. t57's GPU-target
# tests; s132 (b58f7c5: relu / gelu_erf, every activation as v * sigmoid(z(v))) gpu_test --small; the layer on s129
# (the kernels before) and s132, M = 1 / 16 / 32, one pass. Predictions as run7.sh. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init t57 s129 s132
call_step gpu-target-t57 40 stdbuf -oL $P/t57/w4a16_test_gpu_target
call_step gpu-kv-t57 40 stdbuf -oL $P/t57/e2e-gpu-kv
call_step gpu-test-small-s132 90 stdbuf -oL $P/s132/w4a16_gpu_test --small
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32 PASSES=1 call_step layer 90 bash bench/prebuilt-gpu.sh layer s129 s132
grep -E "merged" $L/layer.log | tee -a $S
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
