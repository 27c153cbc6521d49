#!/usr/bin/env bash
# One device call (issue #5, session 6): what is the ~9 us per call that t = a + b * bytes leaves as the
# intercept? (1) per-CTA timelines (bench/probes/timeline.cu, a -DW4A16_TIMELINE build) on the benchmark
# shapes, with and without programmatic dependent launch; (2) the benchmark at K = 2048..16384 for
# N = 28672, ours only, to fit a and b per M.
#   bench/probes/fixed-cost.sh BUILD_DIR TIMELINE_BUILD_DIR
set -uo pipefail
B=$1; TL=$2
O=${OUT:-/tmp/fixed-cost}
mkdir -p "$O"
for a in "8192 28672 1" "8192 28672 16" "8192 28672 32" "28672 8192 32" "8192 8192 1" "8192 8192 32" "14336 4096 32"; do
  set -- $a
  timeout 60 "$TL/bin/timeline" $1 $2 $3 300 "$O/timeline-$1x$2-M$3.csv"
done 2>&1 | tee "$O/timeline.txt"
for a in "8192 28672 16" "8192 8192 32"; do
  set -- $a
  W4A16_NO_PDL=1 timeout 60 "$TL/bin/timeline" $1 $2 $3 300 "$O/timeline-nopdl-$1x$2-M$3.csv"
done 2>&1 | sed 's/^timeline/timeline (no PDL)/' | tee -a "$O/timeline.txt"
[ "${TIMELINE_ONLY:-0}" = 1 ] && exit 0
for k in 2048 4096 8192 16384; do
  timeout 100 "$B/bin/w4a16_bench" --ours-only --shape ${k}x28672 --ms 1,16,32,64 >"$O/kscale-$k.log" 2>&1
  grep -E "^ *[0-9]+x[0-9]+" "$O/kscale-$k.log"
done 2>&1 | tee "$O/kscale.txt"
