#!/usr/bin/env bash
# Session 54, call 2. Run 1 found main's loss at M = 48 only with programmatic dependent launch: without PDL 2655af8
# and main are within 1 % (11008x4096, 14336x4096), in isolation (ncu) main's kernel is 1 % faster. 2655af8 drew its
# ticket before the grid dependency wait (hidden behind the previous call); main draws its arrival number after the
# wait and stores it to shared memory at once, so the consumer warp that draws it (and its warpgroup's first wgmma)
# stalls for the atomic's round trip. s128 = main + the number kept in that thread's register until the finish.
# Prediction: s128's workspace calls at M = 48 within +2 % of 2655af8 (main +6..+7 %), other workspace rows 1-3 %
# faster, the layer at M = 16-48 0.3-1 us faster. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs-s54-2; rm -rf $L; mkdir -p $L
for b in o2655p s127 s128; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
timeout 30 /tmp/prebuilt/s128/w4a16_graph_test --small >$L/graph-small-s128.txt 2>&1
echo "graph_test --small s128: exit $?; $(grep -c '^FAIL' $L/graph-small-s128.txt) FAIL lines; $(tail -1 $L/graph-small-s128.txt)" | tee -a $O/summary.txt
pack  # (device time is short: 6 minutes left, so the call is trimmed to what decides keep / revert)
mkdir -p $L/time; OUT=$L/time SHAPES="11008x4096 14336x4096 8192x8192" MS=16,48 ROUNDS=2 \
  MODES="eager graph" timeout 100 bash bench/prebuilt-gpu.sh time o2655p s127 s128 >$L/time.txt 2>&1
echo "time: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/time.txt)" | tee -a $O/summary.txt; pack
mkdir -p $L/layer; OUT=$L/layer MS=16,32,48 PASSES=1 timeout 40 bash bench/prebuilt-gpu.sh layer s127 s128 >$L/layer.txt 2>&1
echo "layer: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
grep -E "merged|^layer" $L/layer.txt | tee -a $O/summary.txt
pack; echo "done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
