#!/usr/bin/env bash
# Session 44, call 1: s95 = main + bf16 magic-number mma (v3 T=8 W>=3 M<=4; v1 decode variant) vs o7bd (main 7bd1a3e):
# f16 and bf16, graph, one M per process, interleaved; layer bf16/f16; gpu_test full; memcheck --small; e2e bf16.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O/r"; R=$O/r
for n in o7bd s95; do mkdir -p /tmp/prebuilt/$n && tar xJf .carry/bins/$n.tar.xz -C /tmp/prebuilt/$n; done
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $R/gpu.txt
T0=$(date +%s)
t0=$(date +%s); timeout 200 /tmp/prebuilt/s95/w4a16_gpu_test >$R/gpu_test-s95.log 2>&1
echo "gpu_test s95: exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' $R/gpu_test-s95.log) FAIL; $(tail -1 $R/gpu_test-s95.log)"
grep "^FAIL\|bf16 oracle" $R/gpu_test-s95.log | head -4 | cut -c1-300
for round in 1 2; do
for shape in 4096x12288 4096x11008 11008x4096 14336x4096 8192x8192 4096x4096 8192x28672 28672x8192; do
  for m in 1 4; do
    [ $(( $(date +%s) - T0 )) -gt ${BUDGET:-300} ] && { echo "A/B: out of time at round $round $shape M=$m"; break 3; }
    for n in o7bd s95; do
      for v in ":" "-bf16:--bf16"; do
        label=${v%%:*} flag=${v#*:}
        timeout 60 /tmp/prebuilt/$n/w4a16_bench --ours-only --graph $flag --shape $shape --ms $m --csv $R/bench-$n$label-graph-$shape-r${round}m$m.csv >/dev/null 2>&1 || echo "bench $n$label $shape $m failed"
      done
    done
  done
done
done
echo "A/B done at $(( $(date +%s) - T0 )) s"
for n in o7bd s95; do for b in "" "--bf16"; do
  timeout 60 /tmp/prebuilt/$n/w4a16_layer_bench --ms 1 $b --csv $R/layer-$n$b.csv >$R/layer-$n$b.log 2>&1
  echo "layer $n $b: $(grep -E '^ +1 +merged' $R/layer-$n$b.log | awk '{print $1": "$3}' | tr '\n' ' ')"
done; done
t0=$(date +%s); E2E_EXAMPLES="gptq_bf16 torchao_bf16" E2E_DRIVER=/tmp/prebuilt/s95/e2e-driver timeout 100 bash test/e2e/run-gpu.sh >$R/e2e-s95.log 2>&1
echo "e2e bf16: exit $? in $(( $(date +%s) - t0 )) s; $(tail -1 $R/e2e-s95.log)"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t0=$(date +%s); timeout $(( 430 - $(date +%s) + T0 > 20 ? 430 - $(date +%s) + T0 : 20 )) $SAN --tool memcheck --error-exitcode 9 /tmp/prebuilt/s95/w4a16_gpu_test --small >$R/memcheck-s95.log 2>&1
echo "memcheck --small: exit $? in $(( $(date +%s) - t0 )) s; $(grep 'ERROR SUMMARY' $R/memcheck-s95.log | tail -1)"
echo "total $(( $(date +%s) - T0 )) s"
tar czf $O/results.tgz -C $O r
