#!/usr/bin/env bash
# Session 48, call 1. s104 = main at 42dad42 + bench --act (activations relu and gelu_erf in the kernels' epilogue,
# NaN tests); s103 = session 47's L2 weight prefetch (bench/patches/l2-prefetch-ahead.patch on 0ebc84d's runtime, the
# same runtime as main before 42dad42). Stage: bench/prebuilt-gpu.sh --stage s104 build (s103: see
# bench/results/2026-12-06-s47/run1.sh), E2E_EXAMPLES="opt_mlp neox_mlp megatron_glu_bias llama_mlp_bias"
# test/e2e/run-gpu.sh --stage; device call: bash bench/results/2026-12-07-s48/run1.sh with carry [".carry"].
# In order of value, each step's results packed as soon as it ends (the call may be cut short):
#  1. gpu_test --small (s104): every activation on every kernel path against the f64 oracle, NaN propagation.
#  2. GPU e2e (s104's driver): opt_mlp (relu), neox_mlp (gelu_erf) -- new -- and megatron_glu_bias (never on a GPU),
#     llama_mlp_bias.
#  3. The LLaMA-7B layer (graph, L2-cold), 2 passes: s103 with the prefetch off (main's kernels before 42dad42) and
#     at 16 MB, and s104 (does the longer epilogue switch cost the layer anything?).
#  4. Single calls, graph, L2-cold, one M per process, M = 1/16/32, 8 shapes, 1 round: s103 off / 16 MB / s104.
#  5. s104's activations on two shapes, M = 1 / 32: silu, gelu_tanh, relu, gelu_erf.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in s103 s104; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
A=/tmp/prebuilt/s104 B=/tmp/prebuilt/s103
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
timeout 150 $A/w4a16_gpu_test --small >$L/gpu_test_small.txt 2>&1
echo "gpu_test --small: exit $? at $(( $(date +%s) - T0 )) s; $(grep -c '^FAIL' $L/gpu_test_small.txt) FAIL; $(tail -1 $L/gpu_test_small.txt)" | tee -a $O/summary.txt
grep -E '^FAIL' $L/gpu_test_small.txt | head -20 >>$O/summary.txt
pack
E2E_DRIVER=$A/e2e-driver E2E_EXAMPLES="opt_mlp neox_mlp megatron_glu_bias llama_mlp_bias" timeout 120 test/e2e/run-gpu.sh >$L/e2e.txt 2>&1
echo "e2e: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; grep -E "PASS|FAIL|MISMATCH|SKIP" $L/e2e.txt | tail -12 >>$O/summary.txt
pack
for pass in 1 2; do
  for run in "s103 0" "s103 16384" "s104 0"; do
    set -- $run; bin=/tmp/prebuilt/$1; tag=$1-kb$2-p$pass
    W4A16_L2_PREFETCH_KB=$2 timeout 60 $bin/w4a16_layer_bench --ms 1,16,32 --csv $L/layer-$tag.csv >$L/layer-$tag.log 2>&1
    echo "layer $tag: exit $?" >>$O/summary.txt
    grep -E "^ +(1|16|32) +merged" $L/layer-$tag.log | sed "s/^/$tag /" | tee -a $O/summary.txt
  done
done
echo "layer done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
pack
OUT=$L/calls MODES=graph ROUNDS=1 ONE_M=1 MS=1,16,32 timeout 220 \
  bash bench/prebuilt-gpu.sh time s103,,W4A16_L2_PREFETCH_KB=0 s103 s104 >$L/calls.txt 2>&1
echo "calls: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; tail -2 $L/calls.txt >>$O/summary.txt
pack
OUT=$L/acts MODES=graph ROUNDS=1 ONE_M=1 MS=1,32 SHAPES="4096x11008 8192x28672" timeout 90 \
  bash bench/prebuilt-gpu.sh time s104 s104,--act@gelu_tanh s104,--act@relu s104,--act@gelu_erf >$L/acts.txt 2>&1
echo "acts: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; tail -2 $L/acts.txt >>$O/summary.txt
pack
