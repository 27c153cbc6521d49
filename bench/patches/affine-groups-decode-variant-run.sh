#!/usr/bin/env bash
# Session 39 call 4 (about 330 s of device time left): s79 = s78 + G = 64 / 32 affine plans on kernel v1's decode
# variant. Cheapest first: s78 vs s79 offsets G = 64 / 32 at M = 1 on the N = 4096 shapes, the GPU e2e of the G = 64 / 32
# examples, then gpu_test full (the forced-sliced affine matrix at G = 128 / 64 / 32) for whatever time is left.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
mkdir -p /tmp/prebuilt/s79 && tar xJf .carry/bins/s79.tar.xz -C /tmp/prebuilt/s79 && B=/tmp/prebuilt/s79
t0=$(date +%s)
OUT=$O/t MODES=graph ONE_M=1 MS=1 ROUNDS=1 SHAPES="4096x4096 11008x4096 14336x4096" timeout 40 bash bench/prebuilt-gpu.sh time \
  s79 s78,--offsets@--group@64 s79,--offsets@--group@64 s78,--offsets@--group@32 s79,--offsets@--group@32 > "$O/t.log" 2>&1
echo "A/B: exit $? in $(( $(date +%s) - t0 )) s"
python3 bench/ab-table.py "$O/t" s79-graph s78-offsetsgroup64-graph s79-offsetsgroup64-graph s78-offsetsgroup32-graph s79-offsetsgroup32-graph --l2 cold | tee "$O/t-table.md"
python3 bench/ab-table.py "$O/t" s79-graph s78-offsetsgroup64-graph s79-offsetsgroup64-graph s78-offsetsgroup32-graph s79-offsetsgroup32-graph --l2 hot > "$O/t-table-hot.md"
(cd "$O" && tar czf raw.tgz t && rm -r t)
t0=$(date +%s)
E2E_EXAMPLES="gguf_q4_0 gptq_group32 hqq_4bit hqq_group64 mlx_q4 onnx_matmul_nbits q4_1_offsets" \
  E2E_DRIVER=$B/e2e-driver timeout 60 bash test/e2e/run-gpu.sh > "$O/e2e.log" 2>&1
echo "e2e: exit $? in $(( $(date +%s) - t0 )) s; $(tail -1 "$O/e2e.log")"; grep -E "FAIL" "$O/e2e.log" | head -5
t0=$(date +%s)
timeout 175 $B/w4a16_gpu_test > "$O/gpu_test-s79.log" 2>&1
echo "gpu_test s79: exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' "$O/gpu_test-s79.log") FAIL; $(tail -1 "$O/gpu_test-s79.log")"
grep -E "^FAIL|^PASS" "$O/gpu_test-s79.log" | head -8 | cut -c1-300
