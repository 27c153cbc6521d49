#!/usr/bin/env bash
# Session 51, call 7 (what the device time left allows): compute-sanitizer memcheck of s118's gpu_test --small (it runs
# W = 2 at 64 tokens with a residual: the newly staged epilogue), then the layer at M = 48 / 64, s113 vs s118.
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in s113 s118; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 70 "$SAN" --tool memcheck --error-exitcode 9 /tmp/prebuilt/s118/w4a16_gpu_test --small >$L/memcheck-s118.txt 2>&1
echo "memcheck s118 gpu_test --small: exit $?; $(grep -E 'ERROR SUMMARY' $L/memcheck-s118.txt | tail -1); $(grep -E '^(PASS|FAIL)' $L/memcheck-s118.txt | tail -1)" | tee -a $O/summary.txt
tar czf $O/results.tgz -C $L .
OUT=$L MS=48,64 PASSES=1 timeout 40 bash bench/prebuilt-gpu.sh layer s113 s118 >$L/layer.txt 2>&1
grep -E "^ +[0-9]+ +merged|^== layer" $L/layer-s113.log $L/layer-s118.log | tee -a $O/summary.txt
tar czf $O/results.tgz -C $L .
