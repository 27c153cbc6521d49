#!/usr/bin/env bash
# Session 45, call 3: GPU e2e of the act-order examples on main d38ea77 (s98: plan creation waits for its upload).
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
mkdir -p /tmp/prebuilt/s98 && tar xJf .carry/bins/s98.tar.xz -C /tmp/prebuilt/s98
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/e2e.txt
t0=$(date +%s)
E2E_DRIVER=/tmp/prebuilt/s98/e2e-driver E2E_EXAMPLES="gptq_act_order gptq_act_order_const" timeout 240 test/e2e/run-gpu.sh >>$O/e2e.txt 2>&1
echo "e2e exit $? in $(( $(date +%s) - t0 )) s" | tee -a $O/e2e.txt
tail -15 $O/e2e.txt
