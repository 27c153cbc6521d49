#!/usr/bin/env bash
# Session 48, call 3 (prepared; not run: the session's device time ran out in failed starts). The epilogue in two
# copies. s107 / s108 = branch relu-gelu-erf with store_item split: the first copy (none, silu, gelu_tanh) is the code
# of before the new activations, the second (relu, gelu_erf) a template twin of it, out of line (s107,
# bench/patches/epilogue-two-copies-noinline.patch) or inlined behind the uniform branch (s108,
# bench/patches/epilogue-two-copies-inline.patch). s105 = 0ebc84d (run 2's baseline; main's kernels are the same).
# Stage: git worktree add X relu-gelu-erf, git -C X apply the patch, in X a W4A16_RUNTIME_ONLY RelWithDebInfo build
# (ninja w4a16_layer_bench w4a16_bench w4a16_gpu_test), bench/prebuilt-gpu.sh --stage sNNN X/build-rt; device
# call: bash bench/results/2026-12-07-s48/run3.sh, carry [".carry"].
#  1. Layer (graph, L2-cold, M = 1 / 16 / 32), s105 / s107 / s108 interleaved, 2 passes (device time: 249 s left).
#  2. gpu_test --small of s107 and s108 (every activation on every kernel path; NaN propagation).
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in s105 s107 s108; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
for pass in 1 2; do
  for b in s105 s107 s108; do
    tag=$b-p$pass
    timeout 60 /tmp/prebuilt/$b/w4a16_layer_bench --ms 1,16,32 --csv $L/layer-$tag.csv >$L/layer-$tag.log 2>&1
    echo "layer $tag: exit $?" >>$O/summary.txt
    grep -E "^ +(1|16|32) +merged +[0-9.]+/" $L/layer-$tag.log | sed "s/^/$tag /" | tee -a $O/summary.txt
  done
done
echo "layer done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
pack
for b in s107 s108; do
  timeout 40 /tmp/prebuilt/$b/w4a16_gpu_test --small >$L/gpu_test_small-$b.txt 2>&1
  echo "gpu_test --small $b: exit $?; $(grep -c '^FAIL' $L/gpu_test_small-$b.txt) FAIL; $(tail -1 $L/gpu_test_small-$b.txt)" | tee -a $O/summary.txt
done
pack
