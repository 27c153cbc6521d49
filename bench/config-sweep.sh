#!/usr/bin/env bash
# Times every forced v3 configuration (CTA width W4A16_FORCE_WG x split count W4A16_FORCE_SPLITS x reduction
# W4A16_FORCE_GLOBAL) of prebuilt binaries NAME (bench/prebuilt-gpu.sh --stage) with w4a16_bench FLAGS, as
# CUDA-graph replays, on SHAPES x M = MS, widths WS (default 2 3 4) and split counts SPLITS (default 1-8); one CSV row
# per run with the L2-cold median and the configuration the runtime reports (it falls back to its own choice where a
# forced one is not possible). On the device:
#   bench/config-sweep.sh NAME "--act-order"   ->  $OUT/sweep-NAME.csv
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
name=$1 flags=${2:-}
B=/tmp/prebuilt/$name
[ -x "$B/w4a16_bench" ] || { mkdir -p "$B" && tar xJf "$ROOT/.carry/bins/$name.tar.xz" -C "$B"; } || exit 1
O=${OUT:-$ROOT/bench/out}; mkdir -p "$O"
csv=$O/sweep-$name${flags:+-${flags//[-@ ]/}}.csv tmp=$(mktemp)
echo "K,N,M,wg,splits,global,cold_us,config" >"$csv"
for shape in ${SHAPES:-4096x4096 11008x4096 14336x4096 8192x8192}; do
  for w in ${WS:-2 3 4}; do for s in ${SPLITS:-1 2 3 4 5 6 7 8}; do for g in 0 1; do
    # shellcheck disable=SC2086 # the flags split into words
    W4A16_FORCE_WG=$w W4A16_FORCE_SPLITS=$s W4A16_FORCE_GLOBAL=$g timeout 60 "$B/w4a16_bench" --ours-only --graph \
      $flags --shape "$shape" --ms "${MS:-16,32}" --csv "$tmp" >/dev/null 2>&1 || { echo "$shape $w $s $g: failed" >&2; continue; }
    # K,N,M,impl,l2,median_us,...,"config": the cold rows
    awk -F, -v w=$w -v s=$s -v g=$g '$5 == "cold" { match($0, /"[^"]*"$/); print $1","$2","$3","w","s","g","$6","substr($0, RSTART) }' "$tmp" >>"$csv"
  done; done; done
done
rm -f "$tmp"
echo "$csv: $(($(wc -l <"$csv") - 1)) rows"
