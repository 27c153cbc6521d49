#!/usr/bin/env bash
# Session 47, call 1 (prepared, never ran: no device machine could be started): weights fetched into L2 before the grid
# dependency wait (s103 = main + bench/patches/l2-prefetch-ahead.patch, as committed in 9607f7a and reverted from
# main unmeasured: sm90::prefetch_l2_ahead in kernel v3 and v1's decode variant, a budget of W4A16_L2_PREFETCH_KB for
# all CTAs of a call, default 16 MB). To run it: git apply bench/patches/l2-prefetch-ahead.patch, build, then
# bench/prebuilt-gpu.sh --stage s103 build and E2E_EXAMPLES="megatron_glu_bias llama_mlp_bias" test/e2e/run-gpu.sh
# --stage; device call: bash bench/results/2026-12-06-s47/run1.sh with carry [".carry"].
# Same binary, A/B by environment: 0 (off = main's behaviour), 16384 (default), 32768. In order of value, each step's
# results packed as soon as it ends (the call may be cut short):
#  1. The LLaMA-7B layer (graph, L2-cold), the three budgets interleaved, 2 passes each.
#  2. gpu_test --small with the default (the kernels still compute what they did).
#  3. GPU e2e of examples/megatron_glu_bias.mlir (never run on a GPU) and llama_mlp_bias, driver from s103.
#  4. Single calls, graph, L2-cold, one M per process, M = 1/16/32, 8 shapes, 2 rounds: off / 16 MB.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
B=/tmp/prebuilt/s103; mkdir -p $B && tar xJf .carry/bins/s103.tar.xz -C $B
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
for pass in 1 2; do for kb in 0 16384 32768; do
  W4A16_L2_PREFETCH_KB=$kb timeout 60 $B/w4a16_layer_bench --ms 1,16,32 --csv $L/layer-kb$kb-p$pass.csv >$L/layer-kb$kb-p$pass.log 2>&1
  echo "layer kb=$kb pass $pass: exit $?" >>$O/summary.txt
  grep -E "^ +(1|16|32) +merged" $L/layer-kb$kb-p$pass.log | sed "s/^/kb=$kb p$pass /" | tee -a $O/summary.txt
done; done
echo "layer done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
tar czf $O/results.tgz -C $L .
timeout 90 $B/w4a16_gpu_test --small >$L/gpu_test_small.txt 2>&1
echo "gpu_test --small: exit $? at $(( $(date +%s) - T0 )) s; $(grep -c '^FAIL' $L/gpu_test_small.txt) FAIL; $(tail -1 $L/gpu_test_small.txt)" | tee -a $O/summary.txt
tar czf $O/results.tgz -C $L .
E2E_DRIVER=$B/e2e-driver E2E_EXAMPLES="megatron_glu_bias llama_mlp_bias" timeout 80 test/e2e/run-gpu.sh >$L/e2e.txt 2>&1
echo "e2e: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; grep -E "PASS|FAIL|MISMATCH" $L/e2e.txt | tail -8 >>$O/summary.txt
tar czf $O/results.tgz -C $L .
OUT=$L/calls MODES=graph ROUNDS=2 ONE_M=1 MS=1,16,32 timeout 200 \
  bash bench/prebuilt-gpu.sh time s103,,W4A16_L2_PREFETCH_KB=0 s103 >$L/calls.txt 2>&1
echo "calls: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt; tail -2 $L/calls.txt >>$O/summary.txt
tar czf $O/results.tgz -C $L .
