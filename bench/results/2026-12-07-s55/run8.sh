#!/usr/bin/env bash
# Prepared in session 55 for the next one (not run): the checks of bench/patches/slot-is-split.patch (s131 = main
# c9ae29e + the patch). Since the ticket change, split q's partial sums are always in slot q, so the finishing CTA's
# slot_of table in shared memory and the flags' split + 1 are derived state: the patch drops them (flags are 1 or 0,
# the reads index slot q). Same additions in the same order, so the output bits must not change. ptxas: the same
# registers and spills as main, 32 bytes less static shared memory. Prediction: every check passes; single calls and
# the layer within noise of s129 (= main's kernels). carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init s129 s131
call_step graph-s131 90 stdbuf -oL $P/s131/w4a16_graph_test
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
call_step racecheck-chain-s131 120 $SAN --tool racecheck --error-exitcode 9 $P/s131/w4a16_gpu_test --chain 1
call_step memcheck-graph-ws-s131 60 $SAN --tool memcheck --error-exitcode 9 $P/s131/w4a16_graph_test --small \
  --class v3-W4-workspace3
mkdir -p $L/ab; OUT=$L/ab MODES="eager graph" ROUNDS=2 MS=16,24,48 SHAPES="11008x4096 14336x4096 28672x8192" \
  call_step ab 120 bash bench/prebuilt-gpu.sh time s129 s131
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32,48 PASSES=2 call_step layer 60 bash bench/prebuilt-gpu.sh layer s129 s131
grep -E "merged" $L/layer.log | tee -a $S
call_step gpu-test-s131 300 stdbuf -oL $P/s131/w4a16_gpu_test
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
