#!/usr/bin/env bash
# Session 50, call 1 (session 49's prepared run2.sh plus s114, s116). s109 = a467206 (main's kernels: the compact
# epilogue). s111 = ed4b2ac (branch div32): 32-bit split ranges (v3 M = 1 kernel 64.4 -> 56.4 KB, v1 decode
# 32.6 -> 28.8 KB). s112 = 32d1a1c (branch one-site): + one store_tile call site in v3 (v3 -> 47.7 KB).
# s113 = f709608 (branch one-site): + v1's decode variant never split (v1 decode -> 22.3 KB).
# s114 = branch rolled (on s113): v3's main loop not unrolled by the ring depth, one copy of the step with the
# stage index at run time (v3 M = 1 kernel 47.7 -> 33.8 KB; no kernel spills).
# s116 = cb521bd (branch rolled2, on s114): the step's two scale groups in one loop that is not unrolled (every form
# but the offsets form's kSums kernels, where ptxas then serialised the wgmma: C7512), the first weight loads in one
# copy (v3 M = 1 kernel -> 31.0 KB; f16 v3 kernels -6 %, affine -7 %; no spills, no serialised wgmma).
# (s115 = 13e0054, staged during session 50, had that C7512 serialisation in two offsets kernels: superseded.)
# Not run in session 50 (no machine in 11 tries): for the next session.
# Stage: W4A16_RUNTIME_ONLY RelWithDebInfo builds, bench/prebuilt-gpu.sh --stage sNNN DIR/build-rt; device call:
# bash bench/results/2026-12-07-s50/run1.sh, carry [".carry"].
#  1. Layer (graph, L2-cold, M = 1 / 16 / 32), s109 / s113 / s114 / s116 interleaved, 3 passes.
#  2. gpu_test --small and graph_test of s116 (s114, s113 after step 3; s113 holds s111-s112).
#  3. Single calls (graph, one M per process), s109 / s116, 8 shapes x M = 1 / 16 / 32.
#  4. compute-sanitizer memcheck of s116's gpu_test --small (s116 holds every change of s111-s114).
#  5. M = 64 on four shapes, s109 / s114 / s116 (s111's build spilled more in v3's 49-64-token kernels).
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
BS="s109 s113 s114 s116"  # s111, s112 left out (device time): s113 holds them
for b in $BS; do [ -f .carry/bins/$b.tar.xz ] && mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
OUT=$L PASSES=3 timeout 120 bash bench/prebuilt-gpu.sh layer $BS >$L/layer.txt 2>&1
grep -E "^s1" $L/layer.txt >>$O/summary.txt
echo "layer done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
pack
tests() { for b in "$@"; do
  [ -x /tmp/prebuilt/$b/w4a16_gpu_test ] || continue
  timeout 60 /tmp/prebuilt/$b/w4a16_gpu_test --small >$L/gpu_test_small-$b.txt 2>&1
  echo "gpu_test --small $b: exit $?; $(grep -c '^FAIL' $L/gpu_test_small-$b.txt) FAIL; $(tail -1 $L/gpu_test_small-$b.txt)" | tee -a $O/summary.txt
  timeout 60 /tmp/prebuilt/$b/w4a16_graph_test >$L/graph_test-$b.txt 2>&1
  echo "graph_test $b: exit $?; $(tail -1 $L/graph_test-$b.txt)" | tee -a $O/summary.txt
done; pack; }
tests s116
OUT=$L/calls MODES=graph ROUNDS=1 ONE_M=1 MS=1,16,32 timeout 200 \
  bash bench/prebuilt-gpu.sh time s109 s116 >$L/calls.txt 2>&1
echo "calls: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; tail -2 $L/calls.txt >>$O/summary.txt
pack
tests s114 s113
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 100 "$SAN" --tool memcheck --error-exitcode 9 /tmp/prebuilt/s116/w4a16_gpu_test --small >$L/memcheck-s116.txt 2>&1
echo "memcheck s116 gpu_test --small: exit $?; $(grep -E 'ERROR SUMMARY' $L/memcheck-s116.txt | tail -1)" | tee -a $O/summary.txt
pack
OUT=$L/calls64 MODES=graph ROUNDS=1 ONE_M=1 MS=64 SHAPES="4096x4096 4096x12288 8192x8192 8192x28672" timeout 130 \
  bash bench/prebuilt-gpu.sh time s109 s114 s116 >$L/calls64.txt 2>&1
echo "calls64: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
pack
