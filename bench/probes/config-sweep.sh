#!/usr/bin/env bash
# Times forced v3 configurations (W4A16_FORCE_WG / _SPLITS / _GLOBAL) next to the cost model's own
# choice, L2-cold, ours only, one line per shape x M x configuration (issue #5: is choose_v3 still
# right once calls overlap through programmatic dependent launch?).
#   [SHAPES='8192x8192 ...'] bench/probes/config-sweep.sh BUILD_DIR [M list]
set -uo pipefail
B=$1; MS=${2:-16,32,64}
run() {  # shape, then "W S G" triples
  local shape=$1; shift
  for cfg in "model" "$@"; do
    if [ "$cfg" = model ]; then envs=""; else set -- $cfg; envs="W4A16_FORCE_WG=$1 W4A16_FORCE_SPLITS=$2 W4A16_FORCE_GLOBAL=$3"; fi
    env $envs timeout 60 "$B/bin/w4a16_bench" --ours-only --shape "$shape" --ms "$MS" 2>&1 |
      grep -E "^[0-9]+x[0-9]+ +[0-9]+ \|" | awk -v c="$cfg" '{printf "%-8s %-10s M=%-3s cold %6s hot %6s disp %s  %s\n", c, $1, $2, $4, $5, $7, substr($0, index($0, "tc-v3"))}'
  done
}
SHAPES=${SHAPES:-8192x8192 14336x4096 8192x28672 28672x8192}
for s in $SHAPES; do
  case $s in
    8192x8192) run $s "4 3 0" "4 3 1" "4 4 1" "2 2 0" "2 2 1" "2 3 0" "2 4 0" ;;
    14336x4096) run $s "2 7 0" "2 8 0" "4 6 0" "4 7 1" "4 8 1" "2 4 1" ;;
    8192x28672) run $s "2 1 0" "4 2 1" "2 2 0" ;;
    28672x8192) run $s "4 3 0" "4 5 1" "2 4 0" "2 8 1" ;;
  esac
done
