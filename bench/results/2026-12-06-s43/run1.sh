#!/usr/bin/env bash
# Session 43, call 1: where bf16's extra time goes -- the layer in f16 and bf16 with the per-CTA timeline (s93tl,
# instrumented), then the plain build's layer bench (s93) in f16 and bf16, alternating, 2 rounds.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; R=/tmp/r32; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader | tee $R/summary.txt
for n in s93tl s93; do mkdir -p /tmp/prebuilt/$n && tar xJf .carry/bins/$n.tar.xz -C /tmp/prebuilt/$n; done
for t in f16 bf16; do
  f=$([ $t = bf16 ] && echo --bf16)
  t0=$(date +%s)
  timeout 150 /tmp/prebuilt/s93tl/w4a16_layer_bench --ms 1,16,32 --reps 40 --no-split $f --timeline $R/tl-$t.csv >$R/tl-$t.log 2>&1
  echo "timeline $t: exit $? in $(( $(date +%s) - t0 )) s" | tee -a $R/summary.txt
  grep -E "^M=[0-9]+: graph" $R/tl-$t.log | tee -a $R/summary.txt
  python3 bench/timeline.py $R/tl-$t.csv > $R/tl-$t.txt 2>&1; xz -T2 $R/tl-$t.csv
done
for r in 1 2; do for t in f16 bf16; do
  f=$([ $t = bf16 ] && echo --bf16)
  t0=$(date +%s)
  timeout 150 /tmp/prebuilt/s93/w4a16_layer_bench --ms 1,16,32 $f --csv $R/layer-$t-r$r.csv >$R/layer-$t-r$r.log 2>&1
  echo "layer $t round $r: exit $? in $(( $(date +%s) - t0 )) s" | tee -a $R/summary.txt
  sed -n '/^== /,$p' $R/layer-$t-r$r.log | head -40 >> $R/summary.txt
done; done
tar czf $O/r32.tgz -C /tmp r32
