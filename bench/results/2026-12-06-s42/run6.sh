#!/usr/bin/env bash
# Session 42, call 6: #16's A/B re-measured -- o2655 (2655af8 runtime-only: #16's baseline) vs s92 (main 8ad69ce's
# kernels = 55b4913's), back-to-back launches (2655af8's bench has no graph mode), 8 shapes x M = 1/16/32/64, 2 rounds.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
OUT=/tmp/ab MODES=eager ROUNDS=2 MS=1,16,32,64 timeout 540 bash bench/prebuilt-gpu.sh time o2655 s92 2>&1 | tail -5
tar czf "$O/ab.tgz" -C /tmp ab
