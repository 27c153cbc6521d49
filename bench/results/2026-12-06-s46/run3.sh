#!/usr/bin/env bash
# Session 46, call 3: the open issues' per-call criteria on the H200 with main's kernels and chooser (s99 = 3f945d3):
# bf16 (#18), act-order (#22) and offsets G = 128 (#17) against the plain f16 call, graph, L2-cold, one M per process,
# M = 1 / 16 / 32, the 8 benchmark shapes, 2 rounds, the four variants interleaved; then the LLaMA-7B layer (#21).
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs3; mkdir -p $L
T0=$(date +%s)
OUT=$L/forms MODES=graph ROUNDS=2 ONE_M=1 MS=1,16,32 timeout 420 \
  bash bench/prebuilt-gpu.sh time s99 s99,--bf16 s99,--act-order s99,--offsets >$L/forms.txt 2>&1
echo "forms: exit $? at $(( $(date +%s) - T0 )) s" | tee $O/summary.txt; tail -2 $L/forms.txt >>$O/summary.txt
tar czf $O/results.tgz -C $L .
OUT=$L/layer MS=1,16,32 timeout 90 bash bench/prebuilt-gpu.sh layer s99 >$L/layer.txt 2>&1
echo "layer: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
tar czf $O/results.tgz -C $L .
