#!/usr/bin/env bash
# Session 54, call 1: (a) gpu_test --chooser of main 816030f (s127: the review's shared cluster-rule check, not run
# yet); (b) main's LLaMA-7B layer wherever this call lands (#21's target is on the H200); (c) session 53's run3: ncu
# of 2655af8 (o2655p: its benchmark patched with --profile) and main's runtime (s126) on 11008x4096 and 14336x4096 at
# M = 48, one launch inside the timed L2-cold groups (--profile-from-start off). If ncu's kernel durations match,
# main's 6-7 % loss at M = 48 lies between the launches (PDL overlap), not in the kernel. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs-s54-1; rm -rf $L; mkdir -p $L
for b in o2655p s126 s127; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
timeout 40 /tmp/prebuilt/s127/w4a16_gpu_test --chooser >$L/chooser-s127.txt 2>&1
echo "gpu_test --chooser s127: exit $?; $(grep -c '^FAIL' $L/chooser-s127.txt) FAIL lines; $(tail -1 $L/chooser-s127.txt)" | tee -a $O/summary.txt
grep -E "^FAIL" $L/chooser-s127.txt | cut -c1-200 | head -5 | tee -a $O/summary.txt
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32,48 PASSES=2 timeout 90 bash bench/prebuilt-gpu.sh layer s127 >$L/layer.txt 2>&1
echo "layer: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
grep -E "^ *s127-p[12] +[0-9]+ +(merged|separate) +[0-9]" $L/layer.txt | tee -a $O/summary.txt; pack
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
for shape in 11008x4096 14336x4096; do for b in o2655p s126; do
  timeout 60 "$NCU" --clock-control none --profile-from-start off -k regex:gemm_v --launch-skip 100 --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section InstructionStats --section SourceCounters \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_bytes.sum,launch__grid_size,launch__registers_per_thread,launch__cluster_dim_x,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    /tmp/prebuilt/$b/w4a16_bench --shape $shape --ms 48 --ours-only --profile --csv /tmp/ncu-$b.csv >$L/ncu-$b-$shape.txt 2>&1
  echo "ncu $b $shape: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
  grep -E "gemm_v|gpu__time|inst_executed.sum |Registers Per|Grid Size|cluster_dim|No Eligible|Warp Cycles Per Issued" $L/ncu-$b-$shape.txt | head -10 | tee -a $O/summary.txt
  pack
done; done
# the same two builds timed back-to-back and as graph replays at M = 48 (L2-cold and hot in the CSVs), with and
# without programmatic dependent launch: if main's loss goes away without PDL, it is in the overlap of the calls
mkdir -p $L/time; OUT=$L/time SHAPES="11008x4096 14336x4096" MS=48 ROUNDS=2 MODES="eager graph" timeout 200 \
  bash bench/prebuilt-gpu.sh time o2655p s126 o2655p,,W4A16_NO_PDL=1 s126,,W4A16_NO_PDL=1 >$L/time.txt 2>&1
echo "time: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; tail -12 $L/time.txt | tee -a $O/summary.txt
pack
# (d) the issues' forms on main against its own symmetric f16 call (#17 offsets <= +5 %, #18 bf16 <= +3 %, #22
# act-order <= +10 %): graph, one M per process, L2-cold; on the H200 these would be the first since session 46
if [ $(( $(date +%s) - T0 )) -lt 300 ]; then
  OUT=$L/forms MODES=graph ROUNDS=1 ONE_M=1 MS=1,16,32 timeout 200 bash bench/prebuilt-gpu.sh time \
    s127 s127,--offsets s127,--bf16 s127,--act-order >$L/forms.txt 2>&1
  echo "forms: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/forms.txt)" | tee -a $O/summary.txt
fi
pack; echo "done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
