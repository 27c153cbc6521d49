#!/usr/bin/env bash
# Session 59 (prepared, not run: loans paused), one device call (~500 s): session 58's run7.sh with t59 in place of
# t57. t59 = main at d05a0aa (relu / gelu_erf reverted from main; FP8 conversions, tensor.bitcast added):
# w4a16_test_gpu_target and e2e-gpu-kv (session 57's GPU-target changes) and e2e-gpu-fp8 (FP8 conversions in generated
# kernels), none run on a GPU yet. s132 = branch acts-poly's kernels (relu and gelu_erf, every activation as v *
# sigmoid(z(v)), z a polynomial whose coefficients the activation picks; 5f866f4): gpu_test --small (every activation
# on every kernel path against the f64 oracle, GLUs, NaN propagation), graph_test --small. s131 = slot-is-split
# (session 56): graph_test, memcheck, racecheck, gpu_test --small. Layer s129 (main's kernels) vs s131 vs s132, M = 1
# / 16 / 32, 2 passes; single calls s129 vs s132 (silu, gelu_tanh, gelu_erf, relu) at M = 1 / 32. Predictions: t59
# PASS (all three); s132 passes and its layer is within 0.3 us of s129 at each M; s131 passes and is within noise of
# s129. acts-poly can only come back to main with an issue or a SPEC change that lets relu / erf-gelu extend the
# chain. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init t59 s129 s131 s132
call_step gpu-target-t59 60 stdbuf -oL $P/t59/w4a16_test_gpu_target
call_step gpu-kv-t59 60 stdbuf -oL $P/t59/e2e-gpu-kv
call_step gpu-fp8-t59 60 stdbuf -oL $P/t59/e2e-gpu-fp8
call_step gpu-test-small-s132 120 stdbuf -oL $P/s132/w4a16_gpu_test --small
call_step graph-small-s132 60 stdbuf -oL $P/s132/w4a16_graph_test --small
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32 PASSES=2 call_step layer 120 bash bench/prebuilt-gpu.sh layer s129 s131 s132
grep -E "merged" $L/layer.log | tee -a $S
mkdir -p $L/acts; OUT=$L/acts MODES=graph ROUNDS=1 MS=1,32 SHAPES="4096x11008 11008x4096" call_step acts 90 \
  bash bench/prebuilt-gpu.sh time s129 s132 s132,--act@gelu_tanh s132,--act@gelu_erf s132,--act@relu
call_step graph-s131 60 stdbuf -oL $P/s131/w4a16_graph_test
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
call_step memcheck-graph-ws-s131 30 $SAN --tool memcheck --error-exitcode 9 $P/s131/w4a16_graph_test --small \
  --class v3-W4-workspace3
call_step racecheck-chain-s131 60 $SAN --tool racecheck --error-exitcode 9 $P/s131/w4a16_gpu_test --chain 1
call_step gpu-test-small-s131 100 stdbuf -oL $P/s131/w4a16_gpu_test --small
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
