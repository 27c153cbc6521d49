#!/usr/bin/env bash
# Session 55, call 3. After s129 (merged as d9de155; s129's binaries are main's kernels, PTX byte-identical),
# 11008x4096 at M = 48 is still +2.1..+2.7 % over 2655af8 back-to-back L2-cold, +6 % L2-hot: ~1 us of fixed cost.
# One difference left in that configuration (W = 2, 48 tokens, 4 splits through the workspace): main stages the
# epilogue's residual rows and bias in shared memory while the main loop runs (since session 51; 139.5 KB of shared
# memory), 2655af8 read them from global memory in the finish. s130 = main + that staging off for W = 2 at 41-48
# tokens. Prediction: if the staging's copies (issued after the grid wait by the finishing split) delay that split,
# 11008x4096 M = 48 within +2 % and the layer at M = 48 (its down projection is this call) no slower; otherwise s130 =
# s129 to 1 point, and the staging stays. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init o2655p s129 s130
call_step gpu-small-s130 60 stdbuf -oL $P/s130/w4a16_gpu_test --small
mkdir -p $L/m48; OUT=$L/m48 SHAPES="11008x4096 14336x4096" MS=48 ROUNDS=3 MODES="eager graph" \
  call_step m48 90 bash bench/prebuilt-gpu.sh time o2655p s129 s130
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32,48 PASSES=2 call_step layer 60 bash bench/prebuilt-gpu.sh layer s129 s130
grep -E "merged" $L/layer.log | tee -a $S
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
