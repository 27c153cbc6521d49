#!/usr/bin/env bash
# Session 53, call 3 (the last device minutes): ncu of 2655af8 (o2655p: its benchmark with --profile added) and main
# (s126: 9883c03's runtime, f5a4166's benchmark) on 11008x4096 at M = 48, one launch of the timed L2-cold groups each
# (w4a16_bench --profile, ncu --profile-from-start off): both run W = 2 with 4 splits through the workspace and main
# is 6 % slower (run 1). carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs3; mkdir -p $L
for b in o2655p s126; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
T0=$(date +%s)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
for b in o2655p s126; do
  timeout 60 "$NCU" --clock-control none --profile-from-start off -k regex:gemm_v --launch-skip 100 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section InstructionStats \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_bytes.sum,launch__grid_size,launch__registers_per_thread,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    /tmp/prebuilt/$b/w4a16_bench --shape 11008x4096 --ms 48 --ours-only --profile --csv /tmp/ncu-$b.csv >$L/ncu-$b.txt 2>&1
  echo "ncu $b: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
  grep -E "gemm_v|gpu__time|inst_executed.sum |Registers Per|Grid Size|Dynamic Shared|No Eligible|Warp Cycles Per Issued" $L/ncu-$b.txt | head -10 | tee -a $O/summary.txt
  pack
done
