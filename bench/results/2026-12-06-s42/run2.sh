#!/usr/bin/env bash
# Session 42, call 2: s90 = main + group 1's first unpacking moved ahead of group 0's scale_add (gemm_v3.cuh) vs s89
# (main): f16 and bf16 (graph, one M per process, interleaved), the layer (alternating), gpu_test full, graph_test.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O/r"; R=$O/r
for n in s89 s90; do mkdir -p /tmp/prebuilt/$n && tar xJf .carry/bins/$n.tar.xz -C /tmp/prebuilt/$n; done
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $R/gpu.txt
T0=$(date +%s)
for round in 1 2; do
for shape in 4096x12288 4096x11008 11008x4096 14336x4096 8192x8192 4096x4096 8192x28672 28672x8192; do
  for m in 1 16 32; do
    [ $(( $(date +%s) - T0 )) -gt ${BUDGET:-250} ] && { echo "A/B: out of time at round $round $shape M=$m"; break 3; }
    for n in s89 s90; do
      for v in ":" "-bf16:--bf16"; do
        label=${v%%:*} flag=${v#*:}
        timeout 60 /tmp/prebuilt/$n/w4a16_bench --ours-only --graph $flag --shape $shape --ms $m --csv $R/bench-$n$label-graph-$shape-r${round}m$m.csv >/dev/null 2>&1 || echo "bench $n$label $shape $m failed"
      done
    done
  done
done
done
echo "A/B done at $(( $(date +%s) - T0 )) s"
for pass in 1 2; do for n in s89 s90; do
  timeout 60 /tmp/prebuilt/$n/w4a16_layer_bench --ms 1,16,32 --csv $R/layer-$n-p$pass.csv >$R/layer-$n-p$pass.log 2>&1
  echo "layer $n pass $pass: $(grep -E '^ +(1|16|32) +merged' $R/layer-$n-p$pass.log | awk '{print $1": "$3}' | tr '\n' ' ')"
done; done
t0=$(date +%s); timeout 200 /tmp/prebuilt/s90/w4a16_gpu_test >$R/gpu_test-s90.log 2>&1
echo "gpu_test s90: exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' $R/gpu_test-s90.log) FAIL; $(tail -1 $R/gpu_test-s90.log)"
grep "^FAIL" $R/gpu_test-s90.log | head -3 | cut -c1-250
t0=$(date +%s); timeout 60 /tmp/prebuilt/s90/w4a16_graph_test >$R/graph_test-s90.log 2>&1
echo "graph_test s90: exit $? in $(( $(date +%s) - t0 )) s; $(tail -1 $R/graph_test-s90.log)"
echo "total $(( $(date +%s) - T0 )) s"
tar czf $O/results.tgz -C $O r
