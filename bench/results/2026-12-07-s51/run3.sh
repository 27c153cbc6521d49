#!/usr/bin/env bash
# Session 51, call 3. s113 = main's kernels (f709608 = main 613dc14's runtime). o2655 = 2655af8 runtime-only
# (#16's baseline; rebuilt this session from a worktree). s117 = branch acts-s51 (d2b8577: acts-rare's relu /
# gelu_erf, one element per turn in a loop of their own, merged with main's s113 changes). carry [".carry"].
#  1. #16's A/B: o2655 vs s113, back-to-back (2655af8's bench has no graph mode), 8 shapes x M = 1/16/32/64, 2 rounds.
#  2. s117 vs s113: layer (3 passes), gpu_test --small + graph_test, single calls (graph, M = 1/16/32), the new
#     activations on four shapes, memcheck.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in s113 o2655 s117; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
OUT=$L PASSES=3 timeout 60 bash bench/prebuilt-gpu.sh layer s113 s117 >$L/layer.txt 2>&1
grep -E "merged" $L/layer.txt >>$O/summary.txt; pack
for b in s117; do
  timeout 60 /tmp/prebuilt/$b/w4a16_gpu_test --small >$L/gpu_test_small-$b.txt 2>&1
  echo "gpu_test --small $b: exit $?; $(grep -c '^FAIL' $L/gpu_test_small-$b.txt) FAIL; $(tail -1 $L/gpu_test_small-$b.txt)" | tee -a $O/summary.txt
  timeout 60 /tmp/prebuilt/$b/w4a16_graph_test >$L/graph_test-$b.txt 2>&1
  echo "graph_test $b: exit $?; $(tail -1 $L/graph_test-$b.txt)" | tee -a $O/summary.txt
done; pack
OUT=$L/ab16 MODES=eager ROUNDS=2 MS=1,16,32,64 timeout 260 bash bench/prebuilt-gpu.sh time o2655 s113 >$L/ab16.txt 2>&1
echo "ab16: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/ab16.txt)" | tee -a $O/summary.txt; pack
OUT=$L/calls MODES=graph ROUNDS=1 ONE_M=1 MS=1,16,32 timeout 100 bash bench/prebuilt-gpu.sh time s113 s117 >$L/calls.txt 2>&1
echo "calls: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/calls.txt)" | tee -a $O/summary.txt; pack
OUT=$L/acts MODES=graph ROUNDS=1 ONE_M=1 MS=1,32 SHAPES="4096x11008 11008x4096 8192x8192 4096x4096" timeout 60 \
  bash bench/prebuilt-gpu.sh time s117 s117,--act@relu s117,--act@gelu_erf >$L/acts.txt 2>&1
echo "acts: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/acts.txt)" | tee -a $O/summary.txt; pack
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 60 "$SAN" --tool memcheck --error-exitcode 9 /tmp/prebuilt/s117/w4a16_gpu_test --small >$L/memcheck-s117.txt 2>&1
echo "memcheck s117 gpu_test --small: exit $?; $(grep -E 'ERROR SUMMARY' $L/memcheck-s117.txt | tail -1)" | tee -a $O/summary.txt
pack
