#!/usr/bin/env bash
# Session 56, one device call: session 55's run8.sh (the checks and A/B of bench/patches/slot-is-split.patch, s131 =
# main c9ae29e + the patch) followed by run7.sh (8192x8192's M list with and without PDL; timelines of the layer at
# M = 48 before and after the ticket change). Predictions as in those scripts: every check of s131 passes, s131 within
# noise of s129; without PDL s127 = s129 to 1 point at M = 48. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init o2655p s127 s129 s131
call_step graph-s131 60 stdbuf -oL $P/s131/w4a16_graph_test
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
call_step racecheck-chain-s131 90 $SAN --tool racecheck --error-exitcode 9 $P/s131/w4a16_gpu_test --chain 1
call_step memcheck-graph-ws-s131 30 $SAN --tool memcheck --error-exitcode 9 $P/s131/w4a16_graph_test --small \
  --class v3-W4-workspace3
call_step gpu-test-s131 180 stdbuf -oL $P/s131/w4a16_gpu_test
mkdir -p $L/ab; OUT=$L/ab MODES="eager graph" ROUNDS=2 MS=16,48 SHAPES="11008x4096 14336x4096 28672x8192" \
  call_step ab 90 bash bench/prebuilt-gpu.sh time s129 s131
mkdir -p $L/layer; OUT=$L/layer MS=1,16,32,48 PASSES=2 call_step layer 30 bash bench/prebuilt-gpu.sh layer s129 s131
grep -E "merged" $L/layer.log | tee -a $S
mkdir -p $L/ab8k; OUT=$L/ab8k MODES=eager ROUNDS=2 MS=16,32,48,64 SHAPES=8192x8192 \
  call_step ab8k 60 bash bench/prebuilt-gpu.sh time o2655p s127 s129 s127,,W4A16_NO_PDL=1 s129,,W4A16_NO_PDL=1
for t in tl127 tl131; do
  mkdir -p $L/$t; OUT=$L/$t MS=48 REPS=20 call_step timeline-$t 20 bash bench/prebuilt-gpu.sh timeline $t
done
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
