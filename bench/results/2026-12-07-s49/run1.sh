#!/usr/bin/env bash
# Session 49, call 1. s105 = 0ebc84d's runtime (main's kernels). s109 = a467206 (branch compact-epilogue): the
# epilogue in one copy per store site (store_item; the activation in a loop of two turns of four elements), same
# arithmetic, v3 / v1 kernels ~23 % less code. s110 = eb0ba5d (branch acts-compact): s109 on branch relu-gelu-erf
# (relu and gelu_erf added to the one activation copy; ~17 % less code than s105).
# Stage: a W4A16_RUNTIME_ONLY RelWithDebInfo build of each (ninja w4a16_layer_bench w4a16_bench w4a16_gpu_test
# w4a16_graph_test), bench/prebuilt-gpu.sh --stage sNNN DIR/build-rt; device call: bash
# bench/results/2026-12-07-s49/run1.sh, carry [".carry"].
#  1. Layer (graph, L2-cold, M = 1 / 16 / 32), s105 / s109 / s110 interleaved, 3 passes.
#  2. gpu_test --small of s109 and s110 (every activation on every kernel path, GLU and split outputs; NaN).
#  3. graph_test of s109.
#  4. Single calls (graph, L2-cold, one M per process), s105 / s109 / s110, 8 shapes x M = 1 / 16 / 32.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
BS="s105 s109 s110"
for b in $BS; do [ -f .carry/bins/$b.tar.xz ] && mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
for pass in 1 2 3; do
  for b in $BS; do
    [ -x /tmp/prebuilt/$b/w4a16_layer_bench ] || continue
    tag=$b-p$pass
    timeout 60 /tmp/prebuilt/$b/w4a16_layer_bench --ms 1,16,32 --csv $L/layer-$tag.csv >$L/layer-$tag.log 2>&1
    echo "layer $tag: exit $?" >>$O/summary.txt
    grep -E "^ +(1|16|32) +merged +[0-9.]+/" $L/layer-$tag.log | sed "s/^/$tag /" | tee -a $O/summary.txt
  done
done
echo "layer done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
pack
for b in s109 s110; do
  [ -x /tmp/prebuilt/$b/w4a16_gpu_test ] || continue
  timeout 60 /tmp/prebuilt/$b/w4a16_gpu_test --small >$L/gpu_test_small-$b.txt 2>&1
  echo "gpu_test --small $b: exit $?; $(grep -c '^FAIL' $L/gpu_test_small-$b.txt) FAIL; $(tail -1 $L/gpu_test_small-$b.txt)" | tee -a $O/summary.txt
done
timeout 60 /tmp/prebuilt/s109/w4a16_graph_test >$L/graph_test-s109.txt 2>&1
echo "graph_test s109: exit $?; $(tail -1 $L/graph_test-s109.txt)" | tee -a $O/summary.txt
pack
OUT=$L/calls MODES=graph ROUNDS=1 ONE_M=1 MS=1,16,32 timeout 200 \
  bash bench/prebuilt-gpu.sh time $(for b in $BS; do [ -f .carry/bins/$b.tar.xz ] && printf '%s ' $b; done) >$L/calls.txt 2>&1
echo "calls: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; tail -2 $L/calls.txt >>$O/summary.txt
pack
