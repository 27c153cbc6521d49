#!/usr/bin/env bash
# Session 55, call 6. Run 5: in 8192x8192's whole M list, M = 48 (a W = 2 cluster of 2) is s127 +3.3 % / s129 +6.2 %
# over 2655af8, while s129 is 2-3 points faster at M = 18-32 and 64. Is the M = 48 difference in how calls overlap
# (PDL), as run 1 of session 54 found for the workspace rows? The same list with W4A16_NO_PDL=1 beside it.
# Prediction: without PDL s127 = s129 to 1 point at M = 48. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init o2655p s127 s129
mkdir -p $L/ab; OUT=$L/ab MODES=eager ROUNDS=2 MS=1,16,18,24,31,32,48,64 SHAPES=8192x8192 \
  call_step ab 100 bash bench/prebuilt-gpu.sh time o2655p s127 s129 s127,,W4A16_NO_PDL=1 s129,,W4A16_NO_PDL=1
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
