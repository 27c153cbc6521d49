#!/usr/bin/env bash
# A/B of runtime builds in one device call (issue #5): gpu_test --small on the first, then the
# benchmark rows (--ours-only) alternating A, B, [C...], A, B, ... so that clock and power drift hit
# all of them. The SM clock and power are logged throughout (smi.csv).
#   bench/probes/ab.sh BUILD_A BUILD_B [BUILD_C ...] [M list]
set -uo pipefail
BUILDS=()
MS=1,16,32,64
for a in "$@"; do if [ -d "$a" ]; then BUILDS+=("$a"); else MS=$a; fi; done
O=${OUT:-/tmp/ab-out}
mkdir -p "$O"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
bash "$ROOT/bench/smi-log.sh" start "$O/smi.csv"
A=${BUILDS[0]}
timeout 120 "$A/bin/w4a16_gpu_test" --small >"$O/small.log" 2>&1
echo "A gpu_test --small: exit $? $(grep -E '^(PASS|FAIL)' "$O/small.log" | head -3 | tr '\n' ' ')"
for round in 1 2; do
  for i in "${!BUILDS[@]}"; do
    b=${BUILDS[$i]}; side=$(printf "\\x$(printf %x $((65 + i)))")
    timeout 200 "$b/bin/w4a16_bench" --ours-only --ms "$MS" --csv "$O/bench-$side$round.csv" >"$O/bench-$side$round.log" 2>&1
    echo "bench $side round $round ($b): exit $?"
    grep -E "^ *[0-9]+x[0-9]+" "$O/bench-$side$round.log" | awk '{print "  " $0}' | cut -c1-60
  done
done
bash "$ROOT/bench/smi-log.sh" stop "$O/smi.csv"
