#!/usr/bin/env bash
# Session 52, call 4 (the device time left): s121 = branch w3-24 (the short-range W = 3 rule up to 24 tokens instead
# of 16) against s120 (main b0bf68b) and o2655 at M = 18 / 24, where run 3 had 4096x11008 on W = 4 / 3 splits +7-8 %
# over 2655af8 (same configuration) while W = 3 / 2 splits (a cluster) is -14 % at 32 tokens. Back-to-back, 2 rounds,
# 8 shapes; gpu_test --chooser on s121; the layer at M = 24. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in o2655 s120 s121; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
timeout 40 /tmp/prebuilt/s121/w4a16_gpu_test --chooser >$L/chooser-s121.txt 2>&1
echo "gpu_test --chooser s121: exit $?; $(grep -c '^FAIL' $L/chooser-s121.txt) FAIL lines; $(tail -1 $L/chooser-s121.txt)" | tee -a $O/summary.txt
OUT=$L/ab MODES=eager ROUNDS=2 MS=18,24 timeout 110 bash bench/prebuilt-gpu.sh time o2655 s120 s121 >$L/ab.txt 2>&1
echo "ab: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/ab.txt)" | tee -a $O/summary.txt; pack
OUT=$L MS=24 PASSES=1 timeout 40 bash bench/prebuilt-gpu.sh layer s120 s121 >$L/layer.txt 2>&1
grep -E "merged" $L/layer.txt | tee -a $O/summary.txt; pack
