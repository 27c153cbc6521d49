#!/usr/bin/env bash
# The device call for bench/patches/session39-decode-variant.patch (kernel v1's decode variant: act-order calls gather
# x themselves, G = 64 / 32 affine plans with exact products plus o * the sums of x). Binaries in .carry/bins: s78 =
# main before the patch (4dbda21's kernels), s80 = main + the patch (`bench/prebuilt-gpu.sh --stage NAME build` after
# building each; `test/e2e/run-gpu.sh --stage`). Run with the device tool, carry [".carry"], about 8 minutes.
# Correctness first (gpu_test full: the act-order matrix's new decode-variant cases and the forced-sliced affine
# block at G = 128 / 64 / 32; graph_test; memcheck; racecheck of the v1-sliced class; the GPU e2e of the act-order and
# G = 64 / 32 examples), then the A/Bs: act-order gathered in the decode variant vs behind the gather launch
# (W4A16_GATHER_LAUNCH=1, same binary) vs plain at M = 1..8 on the N = 4096 LLaMA shapes; offsets G = 64 / 32 s78 vs
# s80 at M = 1 / 4; symmetric s78 vs s80 (unchanged code path: expect +-1 %).
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
mkdir -p /tmp/prebuilt/s80 && tar xJf .carry/bins/s80.tar.xz -C /tmp/prebuilt/s80 && B=/tmp/prebuilt/s80
t0=$(date +%s)
timeout 200 $B/w4a16_gpu_test > "$O/gpu_test-s80.log" 2>&1
echo "gpu_test s80: exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' "$O/gpu_test-s80.log") FAIL; $(tail -1 "$O/gpu_test-s80.log")"
grep -E "^FAIL|^PASS" "$O/gpu_test-s80.log" | head -12 | cut -c1-300
t0=$(date +%s)
timeout 60 $B/w4a16_graph_test > "$O/graph_test-s80.log" 2>&1
echo "graph_test s80: exit $? in $(( $(date +%s) - t0 )) s; $(tail -1 "$O/graph_test-s80.log")"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 90 "$SAN" --tool memcheck --error-exitcode 9 $B/w4a16_gpu_test --small > "$O/memcheck-s80.log" 2>&1
echo "memcheck: exit $?; $(grep 'ERROR SUMMARY' "$O/memcheck-s80.log" | tail -1)"
timeout 60 "$SAN" --tool racecheck --error-exitcode 9 $B/w4a16_graph_test --small --class v1-sliced > "$O/racecheck-s80.log" 2>&1
echo "racecheck v1-sliced: exit $?; $(grep 'RACECHECK SUMMARY' "$O/racecheck-s80.log" | tail -1)"
E2E_EXAMPLES="gptq_act_order gptq_act_order_const gguf_q4_0 gptq_group32 hqq_4bit hqq_group64 mlx_q4 onnx_matmul_nbits q4_1_offsets" \
  E2E_DRIVER=$B/e2e-driver timeout 90 bash test/e2e/run-gpu.sh > "$O/e2e.log" 2>&1
echo "e2e: exit $?; $(tail -1 "$O/e2e.log")"; grep -E "FAIL" "$O/e2e.log" | head -5
t0=$(date +%s)
OUT=$O/a MODES=graph ONE_M=1 MS=1,2,4,8 ROUNDS=1 SHAPES="4096x4096 11008x4096 14336x4096" timeout 90 bash bench/prebuilt-gpu.sh time \
  s80 s80,--act-order s80,--act-order,W4A16_GATHER_LAUNCH=1 > "$O/a.log" 2>&1
echo "act-order A/B: exit $? in $(( $(date +%s) - t0 )) s"
python3 bench/ab-table.py "$O/a" s80-graph s80-actorder-W4A16GATHERLAUNCH1-graph s80-actorder-graph --l2 cold | tee "$O/a-table.md"
t0=$(date +%s)
OUT=$O/g MODES=graph ONE_M=1 MS=1,4 ROUNDS=1 SHAPES="4096x4096 11008x4096 14336x4096" timeout 90 bash bench/prebuilt-gpu.sh time \
  s78 s80 s78,--offsets@--group@64 s80,--offsets@--group@64 s78,--offsets@--group@32 s80,--offsets@--group@32 > "$O/g.log" 2>&1
echo "affine A/B: exit $? in $(( $(date +%s) - t0 )) s"
python3 bench/ab-table.py "$O/g" s78-graph s80-graph s78-offsetsgroup64-graph s80-offsetsgroup64-graph s78-offsetsgroup32-graph s80-offsetsgroup32-graph --l2 cold | tee "$O/g-table.md"
(cd "$O" && tar czf raw.tgz a g && rm -r a g)
