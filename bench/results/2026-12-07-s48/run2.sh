#!/usr/bin/env bash
# Session 48, call 2: is the layer slower with relu / gelu_erf in the epilogue? s105 = 0ebc84d's runtime (main before
# 42dad42: RelWithDebInfo, W4A16_RUNTIME_ONLY, targets w4a16_layer_bench and w4a16_bench), s104 = 42dad42 + 3688126.
# Run 1 compared s104 with s103 (the L2-prefetch patch built in, off), which is not main's binary. s106 = s104 with
# relu and gelu_erf in a __noinline__ function (activation_other), in case the inlined longer switch is what costs.
# Stage: bench/prebuilt-gpu.sh --stage s105 <0ebc84d build-rt>; device: bash bench/results/2026-12-07-s48/run2.sh,
# carry [".carry"].
#  1. Layer (graph, L2-cold, M = 1 / 16 / 32), s105, s104 and s106 interleaved, 3 passes each.
#  2. gpu_test (full) of s104: every activation on every shape and kernel path of the full matrix.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in s104 s105 s106; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
for pass in 1 2 3; do
  for b in s105 s104 s106; do
    tag=$b-p$pass
    timeout 60 /tmp/prebuilt/$b/w4a16_layer_bench --ms 1,16,32 --csv $L/layer-$tag.csv >$L/layer-$tag.log 2>&1
    echo "layer $tag: exit $?" >>$O/summary.txt
    grep -E "^ +(1|16|32) +merged" $L/layer-$tag.log | sed "s/^/$tag /" | tee -a $O/summary.txt
  done
done
echo "layer done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
pack
timeout 100 /tmp/prebuilt/s104/w4a16_gpu_test >$L/gpu_test.txt 2>&1
echo "gpu_test: exit $? at $(( $(date +%s) - T0 )) s; $(grep -c '^FAIL' $L/gpu_test.txt) FAIL; $(tail -1 $L/gpu_test.txt)" | tee -a $O/summary.txt
grep -E '^FAIL' $L/gpu_test.txt | head -20 >>$O/summary.txt
pack
