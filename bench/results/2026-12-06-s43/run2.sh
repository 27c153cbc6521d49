#!/usr/bin/env bash
# Session 43: GPU e2e of every example (33: decode_rmsnorm new) compiled by main + session 43's pipeline changes
# (w4a16-decompose-aggregates, complex, math-to-llvm, w4a16-gpu-serial-kernels, w4a16-check-lowered), s94's e2e-driver.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
mkdir -p /tmp/prebuilt/s94 && tar xJf .carry/bins/s94.tar.xz -C /tmp/prebuilt/s94 && B=/tmp/prebuilt/s94
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
E2E_EXAMPLES="${E2E_EXAMPLES:-}" E2E_DRIVER=$B/e2e-driver timeout 420 bash test/e2e/run-gpu.sh >"$O/e2e-s94.log" 2>&1
echo "e2e: exit $? in $(( $(date +%s) - t0 )) s"
grep -E "^e2e [a-z_0-9]+: (PASS|FAIL)" "$O/e2e-s94.log" | sed 's/(max rel.*//' | sort | uniq -c | awk '{print $1, $2, $3, $4, $5, $6}' | head -80
grep -E "ALL PASS|FAIL|GPU target" "$O/e2e-s94.log" | tail -6
