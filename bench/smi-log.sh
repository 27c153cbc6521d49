#!/usr/bin/env bash
# SM clock and power while a measurement runs: the H200 runs this kernel at its power cap, so the same
# code measures differently as the power controller moves the clock (bench/RESULTS.md, session 3).
#   bench/smi-log.sh start FILE   logs every 200 ms into FILE in the background (prints nothing)
#   bench/smi-log.sh stop FILE    stops that logger and prints one summary line
set -uo pipefail
cmd=$1; f=$2
case $cmd in
  start)
    command -v nvidia-smi >/dev/null || exit 0
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv -lms 200 \
      >"$f" 2>&1 &
    echo $! >"$f.pid" ;;
  stop)
    [ -f "$f.pid" ] && kill "$(cat "$f.pid")" 2>/dev/null
    rm -f "$f.pid"
    [ -f "$f" ] || exit 0
    # Samples with the SM clock above idle (> 1000 MHz); bit 0x4 of the throttle reasons is "SW power cap".
    awk -F', ' 'NR > 1 { split($2, c, " "); split($3, p, " ");
                 if (c[1] + 0 > 1000) { n++; s += c[1]; w += p[1]; if (min == "" || c[1] + 0 < min) min = c[1] + 0;
                                        if (c[1] + 0 > max) max = c[1] + 0; r = $4; sub(/[ \r]+$/, "", r); if (index("4567cdefCDEF", substr(r, length(r), 1))) capped++ } }
                 END { if (n) printf "SM clock while busy: mean %.0f MHz (min %d, max %d), power mean %.0f W; SW power cap in %d of %d samples\n",
                                      s / n, min, max, w / n, capped, n }' "$f" ;;
esac
