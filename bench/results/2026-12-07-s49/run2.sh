#!/usr/bin/env bash
# Session 49, call 2. s109 = a467206 (main after run 1: the compact epilogue). s111 = ed4b2ac (branch div32): the
# split ranges in unsigned 32-bit divisions instead of 64-bit ones (v3 64.4 -> 56.4 KB, v1 decode 32.6 -> 28.8 KB).
# s112 = 32d1a1c (branch one-site): s111 + one store_tile call site in v3 for both split-K finishes (v3 -> 47.7 KB).
# s113 = f709608 (branch one-site): s112 + v1's decode variant with split / splits as constants (v1 decode -> 22.3 KB).
# Stage: a W4A16_RUNTIME_ONLY RelWithDebInfo build of each (ninja w4a16_layer_bench w4a16_bench w4a16_gpu_test
# w4a16_graph_test), bench/prebuilt-gpu.sh --stage sNNN DIR/build-rt; device call: bash
# bench/results/2026-12-07-s49/run2.sh, carry [".carry"].
#  1. Layer (graph, L2-cold, M = 1 / 16 / 32), s109 / s111 / s112 / s113 interleaved, 3 passes.
#  2. gpu_test --small of s111, s112, s113; graph_test of s113 (the workspace finish changed).
#  3. Single calls (graph, one M per process), s109 / s113, 8 shapes x M = 1 / 16 / 32 (s111, s112 left out: device time).
#  4. M = 64 on four shapes (s111 spills more there).
#  5. compute-sanitizer memcheck of s113's gpu_test --small.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
BS="s109 s111 s112 s113"
for b in $BS; do [ -f .carry/bins/$b.tar.xz ] && mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
OUT=$L PASSES=3 timeout 120 bash bench/prebuilt-gpu.sh layer $BS >$L/layer.txt 2>&1
grep -E "^s1" $L/layer.txt >>$O/summary.txt
echo "layer done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
pack
for b in s111 s112 s113; do
  [ -x /tmp/prebuilt/$b/w4a16_gpu_test ] || continue
  timeout 60 /tmp/prebuilt/$b/w4a16_gpu_test --small >$L/gpu_test_small-$b.txt 2>&1
  echo "gpu_test --small $b: exit $?; $(grep -c '^FAIL' $L/gpu_test_small-$b.txt) FAIL; $(tail -1 $L/gpu_test_small-$b.txt)" | tee -a $O/summary.txt
done
timeout 60 /tmp/prebuilt/s113/w4a16_graph_test >$L/graph_test-s113.txt 2>&1
echo "graph_test s113: exit $?; $(tail -1 $L/graph_test-s113.txt)" | tee -a $O/summary.txt
pack
OUT=$L/calls MODES=graph ROUNDS=1 ONE_M=1 MS=1,16,32 timeout 200 \
  bash bench/prebuilt-gpu.sh time s109 s113 >$L/calls.txt 2>&1
echo "calls: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; tail -2 $L/calls.txt >>$O/summary.txt
pack
# s111's build spills more in v3's 49-64-token kernels (32-48 bytes against 28-36): M = 64 on four shapes.
OUT=$L/calls64 MODES=graph ROUNDS=1 ONE_M=1 MS=64 SHAPES="4096x4096 4096x12288 8192x8192 8192x28672" timeout 100 \
  bash bench/prebuilt-gpu.sh time s109 s113 >$L/calls64.txt 2>&1
echo "calls64: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
pack
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 100 "$SAN" --tool memcheck --error-exitcode 9 /tmp/prebuilt/s113/w4a16_gpu_test --small >$L/memcheck-s113.txt 2>&1
echo "memcheck s113 gpu_test --small: exit $?; $(grep -E 'ERROR SUMMARY' $L/memcheck-s113.txt | tail -1)" | tee -a $O/summary.txt
pack
