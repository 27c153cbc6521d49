#!/usr/bin/env bash
# Device run of the kernel probes (issue #5): probe tables for M = 1 and 32, and an ncu profile of
# the default kernel (8192x28672, M = 32) with per-instruction stall samples.
#   bench/probes/run-probe.sh PROBE_BINARY BUILD_BIN_DIR   (writes $OUT/probe.txt, $OUT/ncu.txt, $OUT/source.csv)
set -uo pipefail
P=$1
B=$2
O=${OUT:-/tmp/probe-out}
mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
for m in 1 32; do timeout 200 "$P" $m; done 2>&1 | tee "$O/probe.txt" | grep -E "stream|plain-read|v3"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || echo ncu)
timeout 200 "$NCU" --clock-control none -k regex:gemm_v3 --launch-skip 300 --launch-count 1 --set full \
  --import-source yes -o "$O/v3" "$B/w4a16_bench" --shape 8192x28672 --ms 32 --ours-only > "$O/ncu-run.txt" 2>&1
echo "ncu exit $?"
"$NCU" -i "$O/v3.ncu-rep" > "$O/ncu.txt" 2>&1
"$NCU" -i "$O/v3.ncu-rep" --page source --csv --print-source sass > "$O/source.csv" 2>&1
grep -E "Duration|DRAM Throughput|Warp Cycles Per Issued|Issued Warp|No Eligible|Stall" "$O/ncu.txt" | head -20
gzip -f "$O/source.csv"; rm -f "$O/v3.ncu-rep"
