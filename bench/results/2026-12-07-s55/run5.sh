#!/usr/bin/env bash
# Session 55, call 5. Runs 1 and 4 timed 8192x8192 at M = 48 (a W = 2 cluster of 2, a path s129 leaves alone) at
# +5.5 / +6.0 % over 2655af8 inside the whole sweep (all eight M in one process), run 2 at +1.2 % (s127 +0.9 %) with
# M = 48 alone. Did s129 cost that row in the sweep's context? 8192x8192's whole M list, o2655p / s127 / s129, 2 rounds.
# Prediction: s127 = s129 to 1 point (the cluster path's PTX is the same but for the workspace branch). carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init o2655p s127 s129
mkdir -p $L/ab; OUT=$L/ab MODES=eager ROUNDS=2 MS=1,16,18,24,31,32,48,64 SHAPES=8192x8192 \
  call_step ab 100 bash bench/prebuilt-gpu.sh time o2655p s127 s129
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
