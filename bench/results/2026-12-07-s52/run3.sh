#!/usr/bin/env bash
# Session 52, call 3: #16's A/B over w4a16_bench's whole default sweep (M = 1, 16, 18, 24, 31, 32, 48, 64; the
# 32-row tables since session 37 took M = 1 / 16 / 32 / 64, the --quick set), o2655 = 2655af8 against s120 = main
# b0bf68b, back-to-back, 2 rounds; then every W = 2 / 4 configuration at M = 48 on the five shapes over +2 % there in
# session 51 run 6 (data for a chooser term at 48 tokens). carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in o2655 s120; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
OUT=$L/ab16 MODES=eager ROUNDS=2 MS=1,16,18,24,31,32,48,64 timeout 260 bash bench/prebuilt-gpu.sh time o2655 s120 >$L/ab16.txt 2>&1
echo "ab16: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/ab16.txt)" | tee -a $O/summary.txt; pack
t=$(( 540 - ($(date +%s) - T0) ))
OUT=$L WS="2 4" SPLITS="1 2 3 4 5 6 7 8" MS=48 SHAPES="4096x12288 11008x4096 14336x4096 4096x11008 28672x8192" \
  timeout $t bash bench/config-sweep.sh s120 >$L/sweep.txt 2>&1
echo "sweep: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/sweep.txt)" | tee -a $O/summary.txt; pack
