#!/usr/bin/env bash
# Session 53, call 1. (a) session 52's prepared M = 48 experiment (next-m48.sh): s123 = main + bench/patches/
# cluster-rule-to-48.patch against s122 (main's kernels and chooser) and o2655 (2655af8). (b) s124 = main with no
# layer rule for N <= 4096 at 17-24 tokens (2655af8's W = 2 7-CTA clusters come back there): single calls at
# M = 18 / 24 against o2655 / s122, and the layer at M = 18 / 24, which decides. (c) ncu of o2655 and s122 on
# 11008x4096 at M = 48, where both run the same configuration and s122 is 6 % slower: where the time goes.
# carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in o2655 s122 s123 s124; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
for b in s123 s124; do
  timeout 40 /tmp/prebuilt/$b/w4a16_gpu_test --chooser >$L/chooser-$b.txt 2>&1
  echo "gpu_test --chooser $b: exit $?; $(grep -c '^FAIL' $L/chooser-$b.txt) FAIL lines; $(tail -1 $L/chooser-$b.txt)" | tee -a $O/summary.txt
done
# (a)
OUT=$L/ab48 MODES=eager ROUNDS=2 MS=48,64 timeout 150 bash bench/prebuilt-gpu.sh time o2655 s122 s123 >$L/ab48.txt 2>&1
echo "ab48: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/ab48.txt)" | tee -a $O/summary.txt; pack
OUT=$L/calls48 MODES=graph ROUNDS=1 ONE_M=1 MS=40,48 SHAPES="4096x11008 4096x12288 4096x22016 8192x8192" timeout 80 \
  bash bench/prebuilt-gpu.sh time s122 s123 >$L/calls48.txt 2>&1
echo "calls48: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/calls48.txt)" | tee -a $O/summary.txt; pack
mkdir -p $L/layer48; OUT=$L/layer48 MS=40,48 PASSES=2 timeout 90 bash bench/prebuilt-gpu.sh layer s122 s123 >$L/layer48.txt 2>&1
echo "layer48: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; grep -E "^ +[0-9]+ +merged +[0-9]" $L/layer48.txt | tee -a $O/summary.txt; pack
# (b)
OUT=$L/ab24 MODES=eager ROUNDS=2 MS=18,24 SHAPES="4096x4096 11008x4096 14336x4096" timeout 80 \
  bash bench/prebuilt-gpu.sh time o2655 s122 s124 >$L/ab24.txt 2>&1
echo "ab24: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/ab24.txt)" | tee -a $O/summary.txt; pack
mkdir -p $L/layer24; OUT=$L/layer24 MS=18,24 PASSES=2 timeout 90 bash bench/prebuilt-gpu.sh layer s122 s124 >$L/layer24.txt 2>&1
echo "layer24: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; grep -E "^ +[0-9]+ +merged +[0-9]" $L/layer24.txt | tee -a $O/summary.txt; pack
# (c)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
for b in o2655 s122; do
  [ $(( $(date +%s) - T0 )) -gt 480 ] && { echo "ncu $b skipped (time)" | tee -a $O/summary.txt; continue; }
  timeout 60 "$NCU" --clock-control none -k regex:gemm_v --launch-skip 200 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section InstructionStats \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_bytes.sum,launch__cluster_dim_x,launch__grid_size,launch__registers_per_thread \
    /tmp/prebuilt/$b/w4a16_bench --shape 11008x4096 --ms 48 --ours-only --csv /tmp/ncu-$b.csv >$L/ncu-$b.txt 2>&1
  echo "ncu $b: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
  grep -E "gemm_v|Duration|gpu__time|inst_executed|Registers|Grid Size|Block Size|cluster|Issued Warp|No Eligible|Warp Cycles Per Issued" $L/ncu-$b.txt | head -20 | tee -a $O/summary.txt
  pack
done
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
