#!/usr/bin/env bash
# A/B of runtime builds or settings in one device call (issue #5): gpu_test --small on the first,
# then the benchmark rows (--ours-only) alternating A, B, [C...], A, B, ... so that clock and power
# drift hit all of them. The sides are the build directories given, or, when VAR=value settings are
# given (several joined by '+'), the first build run under each of them. The SM clock and power are
# logged (smi.csv).
#   bench/probes/ab.sh BUILD_A BUILD_B [BUILD_C ...] [M list]
#   bench/probes/ab.sh BUILD W4A16_NO_PDL=0 W4A16_NO_PDL=1 [M list]
# Files go to $OUT (default bench/out/ab-TIME, git-ignored): all raw; the printed lines are the summary.
set -uo pipefail
BUILDS=(); ENVS=()
MS=1,16,32,64
for a in "$@"; do
  if [ -d "$a" ]; then BUILDS+=("$a")
  elif [[ $a == *=* ]]; then ENVS+=("${a//+/ }")
  else MS=$a; fi
done
FIRST=${BUILDS[0]}
SIDES=()  # "build|env": the builds, or the first build under each environment setting
if [ ${#ENVS[@]} -gt 0 ]; then for e in "${ENVS[@]}"; do SIDES+=("$FIRST|$e"); done
else for b in "${BUILDS[@]}"; do SIDES+=("$b|"); done; fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
O=${OUT:-$ROOT/bench/out/ab-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$O"
bash "$ROOT/bench/smi-log.sh" start "$O/smi.csv"
timeout 120 "$FIRST/bin/w4a16_gpu_test" --small >"$O/small.log" 2>&1
echo "A gpu_test --small: exit $? $(grep -E '^(PASS|FAIL)' "$O/small.log" | head -3 | tr '\n' ' ')"
for round in 1 2; do
  for i in "${!SIDES[@]}"; do
    b=${SIDES[$i]%%|*}; env_=${SIDES[$i]#*|}; side=$(printf "\\x$(printf %x $((65 + i)))")
    env $env_ timeout 200 "$b/bin/w4a16_bench" --ours-only --ms "$MS" --csv "$O/bench-$side$round.csv" >"$O/bench-$side$round.log" 2>&1
    echo "bench $side round $round ($b${env_:+ $env_}): exit $?"
    grep -E "^ *[0-9]+x[0-9]+" "$O/bench-$side$round.log" | awk '{print "  " $0}' | cut -c1-60
  done
done
bash "$ROOT/bench/smi-log.sh" stop "$O/smi.csv"
