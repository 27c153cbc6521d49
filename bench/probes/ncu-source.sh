#!/usr/bin/env bash
# ncu profile of the default kernel (8192x28672, M given) with per-instruction stall samples.
#   bench/probes/ncu-source.sh BUILD_BIN_DIR M   (writes $OUT/ncu-M.txt and $OUT/source-M.csv.gz;
#   $OUT defaults to bench/out/ncu-source, git-ignored: raw, the printed lines are the summary)
set -uo pipefail
B=$1; M=$2
O=${OUT:-$(cd "$(dirname "$0")/../.." && pwd)/bench/out/ncu-source}
mkdir -p "$O"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || echo ncu)
timeout 200 "$NCU" --clock-control none -k regex:gemm_v3 --launch-skip 300 --launch-count 1 --set full \
  --import-source yes -o "$O/rep-$M" "$B/w4a16_bench" --shape 8192x28672 --ms "$M" --ours-only > "$O/ncu-run-$M.txt" 2>&1
echo "ncu exit $?"
"$NCU" -i "$O/rep-$M.ncu-rep" > "$O/ncu-$M.txt" 2>&1
"$NCU" -i "$O/rep-$M.ncu-rep" --page source --csv --print-source sass > "$O/source-$M.csv" 2>&1
grep -E "Duration|DRAM Throughput|Warp Cycles Per Issued|Issued Warp|No Eligible|Registers|Achieved Occ" "$O/ncu-$M.txt" | head -20
gzip -f "$O/source-$M.csv"; rm -f "$O/rep-$M.ncu-rep"
