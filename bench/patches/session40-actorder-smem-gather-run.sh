#!/usr/bin/env bash
# Session 40, call 4: s82 = main + act-order x gathered inside kernel v1's decode variant from x's rows copied into
# shared memory (2 stages). Correctness first, then act-order (in-kernel vs W4A16_GATHER_LAUNCH=1, same binary) vs plain.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
mkdir -p /tmp/prebuilt/s82 && tar xJf .carry/bins/s82.tar.xz -C /tmp/prebuilt/s82 && B=/tmp/prebuilt/s82
t0=$(date +%s)
OUT=$O/a MODES=graph ONE_M=1 MS=1,2,4,8 ROUNDS=1 SHAPES="4096x4096 11008x4096 14336x4096" timeout 100 bash bench/prebuilt-gpu.sh time \
  s82 s82,--act-order s82,--act-order,W4A16_GATHER_LAUNCH=1 > "$O/a.log" 2>&1
echo "act-order A/B: exit $? in $(( $(date +%s) - t0 )) s"
python3 bench/ab-table.py "$O/a" s82-graph s82-actorder-W4A16GATHERLAUNCH1-graph s82-actorder-graph --l2 cold | tee "$O/a-table.md"
python3 bench/ab-table.py "$O/a" s82-graph s82-actorder-W4A16GATHERLAUNCH1-graph s82-actorder-graph --l2 hot > "$O/a-table-hot.md"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 60 "$SAN" --tool memcheck --error-exitcode 9 $B/w4a16_gpu_test --small > "$O/memcheck-s82.log" 2>&1
echo "memcheck: exit $?; $(grep 'ERROR SUMMARY' "$O/memcheck-s82.log" | tail -1)"
t0=$(date +%s)
timeout 230 $B/w4a16_gpu_test > "$O/gpu_test-s82.log" 2>&1
echo "gpu_test s82: exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' "$O/gpu_test-s82.log") FAIL; $(tail -1 "$O/gpu_test-s82.log")"
grep -E "^FAIL|^PASS" "$O/gpu_test-s82.log" | head -12 | cut -c1-400
t0=$(date +%s)
timeout 60 $B/w4a16_graph_test > "$O/graph_test-s82.log" 2>&1
echo "graph_test s82: exit $? in $(( $(date +%s) - t0 )) s; $(tail -1 "$O/graph_test-s82.log")"
(cd "$O" && tar czf raw.tgz a && rm -r a)
