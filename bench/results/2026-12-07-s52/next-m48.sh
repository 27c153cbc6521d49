#!/usr/bin/env bash
# Prepared for the next session (not run in session 52): bench/patches/cluster-rule-to-48.patch, the 17-32-token
# cluster rule extended to 48 tokens. Session 52's M = 48 sweep (run 3) had 4096x11008 and 4096x12288 10 % faster on
# a W = 4 cluster of 2 than on the pick (the same split through the workspace), and #16's whole-sweep A/B 3.0 / 6.3 %
# over 2655af8 on them. By the sweep's timings (clusters of 4 or more splits ran 40-60 % slower than the picks: two
# waves) no other benchmark shape has a one-wave cluster of its pick's width with as many splits at 48 tokens, so only
# those two should move there (and whatever moves at 33-40 tokens); the layer's qkv (4096x12288) moves too, so the
# layer at M = 40 / 48 decides.
# Stage first (bench/prebuilt-gpu.sh --stage, runtime-only builds): o2655 = 2655af8, s122 = main, s123 = main with the
# patch (git am bench/patches/cluster-rule-to-48.patch). carry [".carry"].
# Merge rule: both rows faster, no other row's configuration changed, the layer at M = 48 not slower (0.3 us),
# gpu_test --chooser passes.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in o2655 s122 s123; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
timeout 40 /tmp/prebuilt/s123/w4a16_gpu_test --chooser >$L/chooser-s123.txt 2>&1
echo "gpu_test --chooser s123: exit $?; $(tail -1 $L/chooser-s123.txt)" | tee -a $O/summary.txt
OUT=$L/ab MODES=eager ROUNDS=2 MS=48,64 timeout 150 bash bench/prebuilt-gpu.sh time o2655 s122 s123 >$L/ab.txt 2>&1
echo "ab: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/ab.txt)" | tee -a $O/summary.txt; pack
OUT=$L/calls MODES=graph ROUNDS=1 ONE_M=1 MS=40,48 SHAPES="4096x11008 4096x12288 4096x22016 8192x8192" timeout 80 \
  bash bench/prebuilt-gpu.sh time s122 s123 >$L/calls.txt 2>&1
echo "calls: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/calls.txt)" | tee -a $O/summary.txt; pack
OUT=$L MS=40,48 PASSES=2 timeout 90 bash bench/prebuilt-gpu.sh layer s122 s123 >$L/layer.txt 2>&1
grep -E "merged" $L/layer.txt | tee -a $O/summary.txt; pack
