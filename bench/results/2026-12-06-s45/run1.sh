#!/usr/bin/env bash
# Session 45, call 1: (a) the new first-call test (fresh act-order plans called first on a non-blocking stream beside
# busy copies) on s97 (plan creation waits for its perm upload) and s97nofix (main's act_order_cuda.cu); (b) the
# chained tests, main's harness (m272: g_put without a sync) vs s97 (g_put waits); (c) sanitizers; (d) s97 full.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for n in m272 s97 s97nofix; do mkdir -p /tmp/prebuilt/$n && tar xJf .carry/bins/$n.tar.xz -C /tmp/prebuilt/$n; done
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
run() { local name=$1 lim=$2; shift 2; local t0=$(date +%s); timeout $lim "$@" >$L/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc in $(( $(date +%s) - t0 )) s; $(grep -c '^ok' $L/$name.log) ok, $(grep -c '^FAIL' $L/$name.log) FAIL; $(tail -1 $L/$name.log)" | tee -a $O/summary.txt
  grep "^FAIL" $L/$name.log | head -5 | tee -a $O/summary.txt
  tar czf $O/results.tgz -C $L .; }
P=/tmp/prebuilt
run first-nofix 90 $P/s97nofix/w4a16_gpu_test --first-call 50
run first-s97 90 $P/s97/w4a16_gpu_test --first-call 50
run chain-m272 100 $P/m272/w4a16_gpu_test --chain 60
run chain-s97 100 $P/s97/w4a16_gpu_test --chain 60
run racecheck-chain 100 compute-sanitizer --tool racecheck $P/s97/w4a16_gpu_test --chain 1
run memcheck-first 60 compute-sanitizer --tool memcheck $P/s97/w4a16_gpu_test --first-call 3
tail -4 $L/racecheck-chain.log $L/memcheck-first.log >> $O/summary.txt
run full-s97 170 $P/s97/w4a16_gpu_test
