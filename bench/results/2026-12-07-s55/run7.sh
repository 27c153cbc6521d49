#!/usr/bin/env bash
# Prepared in session 55 for the next one (not run): run6.sh's question plus per-CTA timelines of main.
# 1. 8192x8192's M list (M = 48: a W = 2 cluster of 2, +6.0 % over 2655af8 in the sweep's process, +1.2 % alone),
#    o2655p / s127 / s129, each also with W4A16_NO_PDL=1. Prediction: without PDL s127 = s129 to 1 point at M = 48.
# 2. Timelines of main's layer at M = 48 (tl131 = main a39a51c built with -DW4A16_TIMELINE=ON; its down projection is
#    11008x4096 through the workspace, the row still +2.1..+2.7 % over 2655af8), beside session 55's tl127 (before the
#    ticket change): which phase the ticket moved, and where the remaining ~1 us is. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init o2655p s127 s129
mkdir -p $L/ab; OUT=$L/ab MODES=eager ROUNDS=2 MS=1,16,18,24,31,32,48,64 SHAPES=8192x8192 \
  call_step ab 120 bash bench/prebuilt-gpu.sh time o2655p s127 s129 s127,,W4A16_NO_PDL=1 s129,,W4A16_NO_PDL=1
for t in tl127 tl131; do
  mkdir -p $L/$t; OUT=$L/$t MS=48 REPS=20 call_step timeline-$t 60 bash bench/prebuilt-gpu.sh timeline $t
done
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
