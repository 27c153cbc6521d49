#!/usr/bin/env bash
# Session 55, call 4. Run 3: s130 (no epilogue staging for W = 2 at 48 tokens) is 2-4 points slower than s129: revert.
# With the rest of the device time, the numbers the closing note reports, on main's kernels (s129 = main d9de155's
# kernels, PTX byte-identical): #16's whole default sweep against 2655af8, 3 rounds (run 1 had 2), and the issues'
# forms against main's own symmetric f16 call (#17 offsets, #18 bf16, #22 act-order; graph, one M per process).
# Prediction: the sweep's rows over +2 % are run 1's seven less 8192x8192 M = 48 (noise there); the forms within a
# point of session 54's (s127): the workspace finish is the only change. carry [".carry"].
set -uo pipefail
cd "$(dirname "$0")/../../.."
. bench/device-call.sh
call_init o2655p s129
mkdir -p $L/ab; OUT=$L/ab MODES=eager ROUNDS=3 MS=1,16,18,24,31,32,48,64 \
  call_step ab-sweep 200 bash bench/prebuilt-gpu.sh time o2655p s129
mkdir -p $L/forms; OUT=$L/forms MODES=graph ROUNDS=1 ONE_M=1 MS=1,16,32 \
  call_step forms 200 bash bench/prebuilt-gpu.sh time s129 s129,--offsets s129,--bf16 s129,--act-order
echo "done at $(( $(date +%s) - T0 )) s" | tee -a $S; call_pack
