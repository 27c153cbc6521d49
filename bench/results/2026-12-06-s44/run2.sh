#!/usr/bin/env bash
# Session 44, call 2: does main's gpu_test (o7bd = 7bd1a3e) also fail the chained split-K workspace test that s95's did?
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O/r"; R=$O/r
for n in o7bd s95; do mkdir -p /tmp/prebuilt/$n && tar xJf .carry/bins/$n.tar.xz -C /tmp/prebuilt/$n; done
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $R/gpu.txt
for n in o7bd s95; do
  t0=$(date +%s); timeout 200 /tmp/prebuilt/$n/w4a16_gpu_test >$R/gpu_test-$n.log 2>&1
  echo "gpu_test $n: exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' $R/gpu_test-$n.log) FAIL; $(tail -1 $R/gpu_test-$n.log)"
  grep "^FAIL\|chained" $R/gpu_test-$n.log | cut -c1-250
done
tar czf $O/results.tgz -C $O r
