#!/usr/bin/env bash
# Session 40, call 2: s79 (= main + bench/patches/affine-groups-decode-variant.patch, the part of s80 that lands)
# checked on its own, then #17's forms table on s79 (8 shapes x M = 1/16/32, graph, one M per process, L2-cold).
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
mkdir -p /tmp/prebuilt/s79 && tar xJf .carry/bins/s79.tar.xz -C /tmp/prebuilt/s79 && B=/tmp/prebuilt/s79
t0=$(date +%s)
timeout 220 $B/w4a16_gpu_test > "$O/gpu_test-s79.log" 2>&1
echo "gpu_test s79: exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' "$O/gpu_test-s79.log") FAIL; $(tail -1 "$O/gpu_test-s79.log")"
grep -E "^FAIL|^PASS" "$O/gpu_test-s79.log" | head -12 | cut -c1-400
t0=$(date +%s)
timeout 60 $B/w4a16_graph_test > "$O/graph_test-s79.log" 2>&1
echo "graph_test s79: exit $? in $(( $(date +%s) - t0 )) s; $(tail -1 "$O/graph_test-s79.log")"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 60 "$SAN" --tool memcheck --error-exitcode 9 $B/w4a16_gpu_test --small > "$O/memcheck-s79.log" 2>&1
echo "memcheck: exit $?; $(grep 'ERROR SUMMARY' "$O/memcheck-s79.log" | tail -1)"
timeout 40 "$SAN" --tool racecheck --error-exitcode 9 $B/w4a16_graph_test --small --class v1-sliced > "$O/racecheck-s79.log" 2>&1
echo "racecheck v1-sliced: exit $?; $(grep 'RACECHECK SUMMARY' "$O/racecheck-s79.log" | tail -1)"
E2E_EXAMPLES="gptq_act_order gptq_act_order_const gguf_q4_0 gptq_group32 hqq_4bit hqq_group64 mlx_q4 onnx_matmul_nbits q4_1_offsets torchao_uint4_packed torchao_bf16 quanto_int4 compressed_tensors_asym" \
  E2E_DRIVER=$B/e2e-driver timeout 90 bash test/e2e/run-gpu.sh > "$O/e2e.log" 2>&1
echo "e2e: exit $?; $(tail -1 "$O/e2e.log")"; grep -E "FAIL" "$O/e2e.log" | head -5
t0=$(date +%s)
OUT=$O/f MODES=graph ONE_M=1 MS=1,16,32 ROUNDS=1 timeout 230 bash bench/prebuilt-gpu.sh time \
  s79 s79,--zero-points s79,--offsets s79,--offsets@--group@64 s79,--offsets@--group@32 > "$O/f.log" 2>&1
echo "forms table: exit $? in $(( $(date +%s) - t0 )) s"
python3 bench/ab-table.py "$O/f" s79-graph s79-zeropoints-graph s79-offsets-graph s79-offsetsgroup64-graph s79-offsetsgroup32-graph --l2 cold | tee "$O/f-table.md"
python3 bench/ab-table.py "$O/f" s79-graph s79-zeropoints-graph s79-offsets-graph s79-offsetsgroup64-graph s79-offsetsgroup32-graph --l2 hot > "$O/f-table-hot.md"
(cd "$O" && tar czf raw.tgz f && rm -r f)
