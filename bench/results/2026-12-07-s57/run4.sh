#!/usr/bin/env bash
# Session 57, one device call: first the GPU checks of w4a16_test_gpu_target and e2e-gpu-kv (a KV append at a
# device position, eager and replayed from a CUDA graph at new positions) at main b6144fc+ (t57: the new
# w4a16_rt_device_read -- a read after a launch on the call's stream, its widths, its refusal inside a capture --
# beside the arena, JIT and capture checks it had), then session 56's run2.sh (s131 = slot-is-split: graph_test,
# memcheck, racecheck, gpu_test; the layer, on an H200 also #21's numbers; a short A/B against s129).
# Predictions: t57 PASS; s131's checks pass and it is within noise of s129. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init t57 s129 s131
call_step gpu-target-t57 60 stdbuf -oL $P/t57/w4a16_test_gpu_target
call_step gpu-kv-t57 60 stdbuf -oL $P/t57/e2e-gpu-kv
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
