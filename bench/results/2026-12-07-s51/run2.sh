#!/usr/bin/env bash
# Session 51, call 2. Call 1 (session 50's run1.sh) ranked the layer s113 < s109 < s114 < s116 at M = 16 / 32, and
# s116's single calls were 3-15 % slower than s109's: the rolled main loop costs more than its smaller code saves.
# This call: s113 (branch one-site) against s109 (main's kernels) on single calls, then the forms of issues #17, #18,
# #22 on both. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
for b in s109 s113; do mkdir -p /tmp/prebuilt/$b && tar xJf .carry/bins/$b.tar.xz -C /tmp/prebuilt/$b; done
pack() { tar czf $O/results.tgz -C $L .; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s)
calls() { local tag=$1; shift
  OUT=$L/$tag MODES=graph ROUNDS=1 ONE_M=1 MS=1,16,32 timeout 150 bash bench/prebuilt-gpu.sh time "$@" >$L/$tag.txt 2>&1
  echo "$tag: exit $? at $(( $(date +%s) - T0 )) s; $(tail -1 $L/$tag.txt)" | tee -a $O/summary.txt; pack; }
calls calls s109 s113
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 100 "$SAN" --tool memcheck --error-exitcode 9 /tmp/prebuilt/s113/w4a16_gpu_test --small >$L/memcheck-s113.txt 2>&1
echo "memcheck s113 gpu_test --small: exit $?; $(grep -E 'ERROR SUMMARY' $L/memcheck-s113.txt | tail -1)" | tee -a $O/summary.txt
OUT=$L PASSES=2 timeout 60 bash bench/prebuilt-gpu.sh layer s109 s113 >$L/layer.txt 2>&1
grep -E "merged" $L/layer.txt >>$O/summary.txt; pack
calls offsets s109,--offsets s113,--offsets
calls bf16 s109,--bf16 s113,--bf16
calls actorder s109,--act-order s113,--act-order
