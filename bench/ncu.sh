#!/usr/bin/env bash
# ncu profile of our kernel on SHAPE (default 8192x28672) at M = MS (default 32), L2-cold: one launch of the timed
# L2-cold groups, after the warm-up (w4a16_bench --profile opens the profiler range around them only: a launch count
# from the start of the process landed on a launch of another M in session 53), clocks left alone (--clock-control
# none, METHOD.md). Writes LOGDIR/ncu.txt; prints the headline figures. BUILD_DIR holds bin/w4a16_bench (BENCH=path
# overrides it).
#   [SHAPE=KxN] [MS=M] bench/ncu.sh BUILD_DIR LOGDIR [extra env for the bench, e.g. W4A16_FORCE_WG=2]
B=$1
L=$2
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || echo ncu)
timeout 240 "$NCU" --clock-control none --profile-from-start off -k regex:gemm_v --launch-skip 100 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
  --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
  --metrics dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,gpu__time_duration.sum,lts__t_bytes.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active \
  "${BENCH:-$B/bin/w4a16_bench}" --shape "${SHAPE:-8192x28672}" --ms "${MS:-32}" --ours-only --profile \
  --csv /tmp/ncu-bench.csv >"$L/ncu.txt" 2>&1
echo "ncu exit $?"
grep -E "gemm_v|Duration|DRAM Throughput|dram__bytes_read.sum|dram__throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|gmma|lts__t_bytes|Stall|Issued Warp" "$L/ncu.txt" | head -40
