#!/usr/bin/env bash
# Session 51, call 4: #16's three rows over +2 % in run 3 (4096x11008 M = 1 / 16: +2.6 / +2.2 %, both builds W = 4,
# 3 splits through the workspace; 14336x4096 M = 64: +5.6 %, both W = 2, 4 splits through the workspace), with
# main's kernels (s113) forced to other configurations (W4A16_FORCE_WG / _SPLITS / _GLOBAL), against o2655
# (2655af8) and s113's own pick, back-to-back as #16's A/B, 2 rounds. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
f() { echo "s113,,W4A16_FORCE_WG=$1@W4A16_FORCE_SPLITS=$2${3:+@W4A16_FORCE_GLOBAL=$3}"; }
A=(o2655 s113 "$(f 4 2 0)" "$(f 4 2 1)" "$(f 4 3 0)" "$(f 4 4 0)" "$(f 4 4 1)" "$(f 3 2 0)" "$(f 3 2 1)" "$(f 3 3 0)"
   "$(f 3 3 1)" "$(f 3 4 1)" "$(f 2 2 1)" "$(f 2 1)")
OUT=$L/rowsA MODES=eager ROUNDS=2 MS=1,16 SHAPES=4096x11008 timeout 200 bash bench/prebuilt-gpu.sh time "${A[@]}" >$L/rowsA.txt 2>&1
echo "rowsA: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/rowsA.txt)" | tee -a $O/summary.txt; pack
B=(o2655 s113 "$(f 2 4 0)" "$(f 2 3 0)" "$(f 2 3 1)" "$(f 2 5 1)" "$(f 2 6 1)" "$(f 3 4 1)" "$(f 3 5 1)" "$(f 3 6 1)"
   "$(f 3 5 0)" "$(f 4 6 1)" "$(f 4 8 1)")
OUT=$L/rowsB MODES=eager ROUNDS=2 MS=64 SHAPES=14336x4096 timeout 200 bash bench/prebuilt-gpu.sh time "${B[@]}" >$L/rowsB.txt 2>&1
echo "rowsB: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/rowsB.txt)" | tee -a $O/summary.txt; pack
