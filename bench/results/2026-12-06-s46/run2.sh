#!/usr/bin/env bash
# Session 46, call 2: choose_v3's W = 3 correction (s100 = f1129f9) against main (s99 = 3f945d3) and #16's baseline
# (o2655 = 2655af8, runtime only): (1) back-to-back (2655af8's bench has no graph mode), the 8 benchmark shapes at
# M = 1 / 16, 2 rounds; (2) graph, s99 vs s100, the shapes whose pick the correction changes, M = 1 / 8 / 16, one M
# per process; (3) the LLaMA-7B layer, s99 vs s100, M = 1 / 16, if time is left.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs2; mkdir -p $L
T0=$(date +%s)
OUT=$L/ab MODES=eager ROUNDS=2 MS=1,16 timeout 300 bash bench/prebuilt-gpu.sh time o2655 s99 s100 >$L/ab.txt 2>&1
echo "ab eager: exit $? at $(( $(date +%s) - T0 )) s" | tee $O/summary.txt; tail -2 $L/ab.txt >>$O/summary.txt
tar czf $O/results.tgz -C $L .
OUT=$L/graph MODES=graph ROUNDS=1 ONE_M=1 MS=1,8,16 SHAPES="4096x11008 8192x8192 28672x8192" timeout 150 \
  bash bench/prebuilt-gpu.sh time s99 s100 >$L/graph.txt 2>&1
echo "graph: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
tar czf $O/results.tgz -C $L .
if [ $(( $(date +%s) - T0 )) -lt 250 ]; then
  OUT=$L/layer MS=1,16 timeout $(( 430 - ($(date +%s) - T0) )) bash bench/prebuilt-gpu.sh layer s99 s100 >$L/layer.txt 2>&1
  echo "layer: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
fi
tar czf $O/results.tgz -C $L .
