#!/usr/bin/env bash
# Session 51, call 5: the full checks of main's kernels (s113 = f709608, merged as 613dc14), whose split-K finish
# changed (one store_tile for the cluster and the workspace): gpu_test in full, the chained-calls tests (x = the
# previous call's out) over fresh plans, and racecheck of those. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
mkdir -p /tmp/prebuilt/s113 && tar xJf .carry/bins/s113.tar.xz -C /tmp/prebuilt/s113
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
run() { local name=$1 lim=$2; shift 2; local t0=$(date +%s); timeout $lim "$@" >$L/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' $L/$name.log) FAIL; $(tail -1 $L/$name.log)" | tee -a $O/summary.txt
  grep "^FAIL" $L/$name.log | head -5 | tee -a $O/summary.txt
  tar czf $O/results.tgz -C $L .; }
P=/tmp/prebuilt/s113
run gpu_test-full 240 $P/w4a16_gpu_test
run chain 100 $P/w4a16_gpu_test --chain 30
run racecheck-chain 120 compute-sanitizer --tool racecheck --error-exitcode 9 $P/w4a16_gpu_test --chain 1
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $L/racecheck-chain.log | tail -2 | tee -a $O/summary.txt
tar czf $O/results.tgz -C $L .
