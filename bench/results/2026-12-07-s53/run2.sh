#!/usr/bin/env bash
# Session 53, call 2: s125 = main with the cluster rule to 48 tokens (run 1's s123) and gpu_test --chooser's new
# check of it; ncu of o2655 (2655af8) and s122 (main before it) on 11008x4096 and 14336x4096 at M = 48, where both
# run W = 2 with 4 splits through the workspace and main is 6-7 % slower (run 1's ncu caught a warm-up launch at
# another M: the skip now lands inside the timed M = 48 groups). carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs2; mkdir -p $L
for b in o2655 s122 s125; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
timeout 40 /tmp/prebuilt/s125/w4a16_gpu_test --chooser >$L/chooser-s125.txt 2>&1
echo "gpu_test --chooser s125: exit $?; $(grep -c '^FAIL' $L/chooser-s125.txt) FAIL lines; $(tail -1 $L/chooser-s125.txt)" | tee -a $O/summary.txt
grep -E "4096x11008|4096x12288" $L/chooser-s125.txt | cut -c1-200 | tee -a $O/summary.txt
# #21's layer target is on the H200 (<= 43 / <= 58 us at M = 1 / 32): main's layer wherever this call runs
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32,48 PASSES=2 timeout 90 bash bench/prebuilt-gpu.sh layer s125 >$L/layer.txt 2>&1
echo "layer: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; grep -E "^ *s125-p[12] +[0-9]+ +merged +[0-9]" $L/layer.txt | tee -a $O/summary.txt; pack
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
for shape in 11008x4096; do for b in o2655 s122; do
  [ $(( $(date +%s) - T0 )) -gt 200 ] && { echo "ncu $b $shape skipped (time)" | tee -a $O/summary.txt; continue; }
  timeout 75 "$NCU" --clock-control none -k regex:gemm_v --launch-skip 4000 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section InstructionStats --section ComputeWorkloadAnalysis \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_bytes.sum,launch__cluster_dim_x,launch__grid_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    /tmp/prebuilt/$b/w4a16_bench --shape $shape --ms 48 --ours-only --csv /tmp/ncu-$b.csv >$L/ncu-$b-$shape.txt 2>&1
  echo "ncu $b $shape: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
  grep -E "gemm_v|gpu__time|inst_executed.sum |Registers Per|Grid Size|Dynamic Shared|cluster_dim|No Eligible|Warp Cycles Per Issued" $L/ncu-$b-$shape.txt | head -12 | tee -a $O/summary.txt
  pack
done; done
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
