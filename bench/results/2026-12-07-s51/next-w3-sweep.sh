#!/usr/bin/env bash
# Prepared for the next session (not run in session 51): the data a chooser term for W = 3 against W = 4 needs.
# W = 3 with one split fewer beat the pick (W = 4) on 4096x11008 at M = 1 / 16 (H100 and H200) and on 8192x8192 at
# M = 16 (H200), and lost on 28672x8192 and on 8192x8192 at M = 1 (session 46's correction). This sweeps W = 3 / 4,
# 1-6 splits, both reductions, at M = 1 / 8 / 16 over short and long K, main's kernels (stage main as NAME first:
# bench/prebuilt-gpu.sh --stage NAME BUILD_DIR). About 36 s per shape. carry [".carry"]; argument: NAME.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
OUT=$O WS="3 4" SPLITS="1 2 3 4 5 6" MS=1,8,16 \
  SHAPES="4096x11008 4096x12288 4096x22016 8192x8192 11008x4096 14336x4096 8192x28672 28672x8192" \
  timeout 500 bash bench/config-sweep.sh "$1" | tee -a $O/summary.txt
