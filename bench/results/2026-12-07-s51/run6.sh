#!/usr/bin/env bash
# Session 51, call 6. s118 = branch w2-alone (on main 055f481): kernel v3's W = 2 CTAs whose rings outgrow half an SM
# (the symmetric form from 48 tokens) are declared one per SM (__launch_bounds__ min 1 instead of 2: the 64-token
# kernels no longer spill) and stage the epilogue's residual and bias in shared memory like W = 4 does. Prediction:
# #16's 14336x4096 M = 64 (W = 2, 4 splits, workspace; +5.6 % over 2655af8 in run 3) 1-2 us faster, the other W = 2
# picks at M = 48 / 64 (4096x4096, 11008x4096, 8192x8192 M = 64) faster too, M <= 32 unchanged (same kernels).
# carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in s113 o2655 s118; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
OUT=$L/ab16 MODES=eager ROUNDS=2 MS=48,64 timeout 150 bash bench/prebuilt-gpu.sh time o2655 s113 s118 >$L/ab16.txt 2>&1
echo "ab16: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/ab16.txt)" | tee -a $O/summary.txt; pack
run() { local name=$1 lim=$2; shift 2; local t0=$(date +%s); timeout $lim "$@" >$L/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' $L/$name.log) FAIL; $(tail -1 $L/$name.log)" | tee -a $O/summary.txt
  grep "^FAIL" $L/$name.log | head -5 | tee -a $O/summary.txt; pack; }
run graph_test-s118 60 /tmp/prebuilt/s118/w4a16_graph_test
OUT=$L/calls MODES=graph ROUNDS=1 ONE_M=1 MS=48,64 timeout 60 bash bench/prebuilt-gpu.sh time s113 s118 >$L/calls.txt 2>&1
echo "calls: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/calls.txt)" | tee -a $O/summary.txt; pack
run gpu_test-full-s118 150 /tmp/prebuilt/s118/w4a16_gpu_test
