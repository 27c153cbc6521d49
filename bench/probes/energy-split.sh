#!/usr/bin/env bash
# Where the power budget goes (issue #5): energy per call through the runtime (energy.cu) and for
# kernel_probe.cu's modes (the real kernel, copy pipelines only, compute only, tensor only, integer
# only) on 8192x28672, each in a sustained run. Needs BUILD/bin/energy and BUILD/bin/kernel_probe.
#   bench/probes/energy-split.sh BUILD [M list for the probe, default "1 16 32"] [seconds, default 2]
set -uo pipefail
B=$1; MS=${2:-1 16 32}; SEC=${3:-2}
O=${OUT:-/tmp/energy-out}
mkdir -p "$O"
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader
timeout 120 "$B/bin/energy" 8192 28672 1,16,32,64 "$SEC" 2>&1 | tee "$O/energy.txt"
for m in $MS; do
  KP_ENERGY=$SEC timeout 150 "$B/bin/kernel_probe" "$m" 0 2>&1 | grep -v "cp.async stream"
done | tee "$O/probe-energy.txt"
