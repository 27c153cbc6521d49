#!/usr/bin/env bash
# Session 52, call 1: session 51's next-w3-ab.sh, plus graph_test of s119. s119 = branch w3-short (8be9afe on
# a3c2ad9: session 51's rule of aaadf55 written again, that branch did not survive the checkout): choose_v3
# takes W = 3 at up to 16 tokens where each split has at most 20 groups (cost x 0.94). By a Python replica of the cost
# model only 4096x11008 changes among the benchmark and LLaMA shapes (W = 4 / 3 splits -> W = 3 / 2 splits, forced
# 2.9 / 6.4 % faster than 2655af8 at M = 1 / 16 in session 51 run 4).
# s118 = main's kernels and chooser (a3c2ad9; kernels as 0823e50).
# Merge rule: #16's two rows (4096x11008 M = 1 / 16) within +2 % of o2655, no other row's configuration or time
# changed beyond noise (0.5 %), gpu_test --chooser passes, the layer unchanged. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in o2655 s118 s119; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
timeout 60 /tmp/prebuilt/s119/w4a16_gpu_test --chooser >$L/chooser-s119.txt 2>&1
echo "gpu_test --chooser s119: exit $?; $(tail -1 $L/chooser-s119.txt)" | tee -a $O/summary.txt
OUT=$L/ab16 MODES=eager ROUNDS=2 MS=1,16,32 timeout 200 bash bench/prebuilt-gpu.sh time o2655 s118 s119 >$L/ab16.txt 2>&1
echo "ab16: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/ab16.txt)" | tee -a $O/summary.txt; pack
OUT=$L/calls MODES=graph ROUNDS=1 ONE_M=1 MS=1,8,16 SHAPES="4096x11008 8192x8192 28672x8192 4096x12288" timeout 80 \
  bash bench/prebuilt-gpu.sh time s118 s119 >$L/calls.txt 2>&1
echo "calls: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/calls.txt)" | tee -a $O/summary.txt; pack
OUT=$L PASSES=2 timeout 60 bash bench/prebuilt-gpu.sh layer s118 s119 >$L/layer.txt 2>&1
grep -E "merged" $L/layer.txt >>$O/summary.txt; pack
timeout 150 /tmp/prebuilt/s119/w4a16_graph_test >$L/graph-s119.txt 2>&1
echo "graph_test s119: exit $?; $(tail -1 $L/graph-s119.txt)" | tee -a $O/summary.txt; pack
rem=$(( 540 - ($(date +%s) - T0) ))
if [ $rem -gt 60 ]; then
  timeout $rem /tmp/prebuilt/s119/w4a16_gpu_test >$L/gpu_test-s119.txt 2>&1
  echo "gpu_test (full) s119: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/gpu_test-s119.txt)" | tee -a $O/summary.txt; pack
fi
