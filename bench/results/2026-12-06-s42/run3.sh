#!/usr/bin/env bash
# Session 42, call 3: GPU e2e of the new example tp_shard_rank3 (column windows + residual behind a row reshape) and
# of rows-regrouped neighbours, with s91 = main 9a3cc7c's e2e-driver (knows the example); gpu_test --chooser.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
mkdir -p /tmp/prebuilt/s91 && tar xJf .carry/bins/s91.tar.xz -C /tmp/prebuilt/s91 && B=/tmp/prebuilt/s91
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
E2E_EXAMPLES="tp_shard_rank3" E2E_DRIVER=$B/e2e-driver timeout 200 bash test/e2e/run-gpu.sh >"$O/e2e-s91.log" 2>&1
echo "e2e: exit $? in $(( $(date +%s) - t0 )) s"; grep -E "PASS|FAIL|max rel" "$O/e2e-s91.log" | head -20
