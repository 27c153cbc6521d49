#!/usr/bin/env bash
# Session 42, call 1: main 55b4913 (s89). (1) ncu of one v3 launch, f16 vs bf16, 4096x12288 at M = 1 / 16
# (pipe utilisation: is bf16's extra ALU work where its ~0.5 us goes?); (2) the layer; (3) bf16 vs f16, forms,
# act-order tables (graph, one M per process, 1 round) as time allows.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O/r"
R=$O/r
mkdir -p /tmp/prebuilt/s89 && tar xJf .carry/bins/s89.tar.xz -C /tmp/prebuilt/s89 && B=/tmp/prebuilt/s89
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $R/gpu.txt
T0=$(date +%s)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
for m in 1 16; do
  for dt in f16 bf16; do
    flag=; [ $dt = bf16 ] && flag=--bf16
    timeout 90 "$NCU" --clock-control none -k regex:gemm_v3 --launch-skip 40 --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats \
      --section SchedulerStats --section MemoryWorkloadAnalysis \
      --metrics gpu__time_duration.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      $B/w4a16_bench --shape 4096x12288 --ms $m --ours-only $flag --csv /tmp/ncu.csv >$R/ncu-$dt-m$m.txt 2>&1
    echo "ncu $dt M=$m: exit $? ($(( $(date +%s) - T0 )) s)"
    grep -E "Duration|gpu__time_duration|pipe_alu|pipe_fma|inst_executed.sum|gmma|dram__throughput|Issue Slots Busy|Executed Ipc Active|No Eligible|Registers Per" $R/ncu-$dt-m$m.txt | head -20
  done
done
t0=$(date +%s)
timeout 200 $B/w4a16_layer_bench --ms 1,16,32 --csv $R/layer-s89.csv >$R/layer-s89.log 2>&1
echo "layer: exit $? in $(( $(date +%s) - t0 )) s"; sed -n '/^== /,$p' $R/layer-s89.log | head -40
# bf16, act-order and offsets against the plain f16 call, interleaved per (shape, M) so that drift hits all alike
for shape in 4096x12288 4096x11008 11008x4096 14336x4096 8192x8192 4096x4096 8192x28672 28672x8192; do
  for m in 1 16 32; do
    [ $(( $(date +%s) - T0 )) -gt ${BUDGET:-540} ] && { echo "tables: out of time at $shape M=$m"; break 2; }
    for v in ":" "-bf16:--bf16" "-actorder:--act-order" "-offsets:--offsets"; do
      label=${v%%:*} flag=${v#*:}
      timeout 60 $B/w4a16_bench --ours-only --graph $flag --shape $shape --ms $m --csv $R/bench-s89$label-graph-$shape-r1m$m.csv >/dev/null 2>&1 || echo "bench $label $shape $m failed"
    done
  done
done
echo "total $(( $(date +%s) - T0 )) s"
tar czf $O/results.tgz -C $O r
