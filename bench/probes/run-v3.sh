#!/usr/bin/env bash
# One device call while tuning kernel v3 (issue #5): SASS of v3, gpu_test --small on v3, the probe's
# v3 modes (full / memory side only / compute side only) and the benchmark rows for v3.
#   bench/probes/run-v3.sh BUILD_BIN_DIR KERNEL_PROBE_BINARY V3_OBJECT [M list]
set -uo pipefail
B=$1; P=$2; OBJ=$3; MS=${4:-1,16,32,64}
O=${OUT:-/tmp/v3-out}
mkdir -p "$O"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader
cuobjdump -sass "$OBJ" > "$O/v3.sass" 2>&1; gzip -f "$O/v3.sass"
timeout 90 "$B/w4a16_gpu_test" --small > "$O/small.log" 2>&1
echo "small exit $?: $(grep -E '^(PASS|FAIL)' "$O/small.log" | head -3 | tr '\n' ' ')"
for m in 1 32; do for sh in 0 1 2; do for mode in 4 5 6; do timeout 60 "$P" $m $sh $mode | grep -E "v3"; done; done; done | tee "$O/probe.txt"
timeout 120 "$B/w4a16_bench" --ours-only --ms "$MS" --csv "$O/v3.csv" > "$O/v3.log" 2>&1
echo "bench exit $?"; grep -E "tc-v3" "$O/v3.log"
