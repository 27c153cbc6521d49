#!/usr/bin/env bash
# Session 46, call 1: every forced v3 configuration (CTA width W x splits S x reduction: cluster 0 / workspace 1)
# next to the chooser's own pick ("-"), on main's kernels (s98 = a20554e; main 0b6a5fa changed tests only), L2-cold:
#  part a: f16, back-to-back (as #16's A/B against 2655af8 is timed), the shapes of #16's seven rows over +2 %
#          (4096x11008 M = 1/16/64, 8192x8192 M = 16, 4096x4096 M = 64, 14336x4096 M = 32/64);
#  part b: f16 and bf16, CUDA graph, 4096x12288 and 14336x4096 at M = 1/16 (does bf16 prefer other configurations?);
#  part c: the offsets form (G = 128), graph, the same rows as b.
# First: the GPU e2e of examples/llama_mlp_bias.mlir and the other merged examples on s99 (3f945d3).
# One CSV (sweep.csv): part,K,N,M,dtype,W,S,global,cold_us,config (the configuration the runtime reports: a forced one
# it cannot run falls back to its own choice).
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=/tmp/logs; mkdir -p $L
B=/tmp/prebuilt/s98; mkdir -p $B && tar xJf .carry/bins/s98.tar.xz -C $B
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader | tee $O/summary.txt
T0=$(date +%s) BUDGET=${BUDGET:-545}
# GPU e2e of the new glu-with-biases example (s99 = 3f945d3) and the other merged-glu / merged-outputs examples
mkdir -p /tmp/prebuilt/s99 && tar xJf .carry/bins/s99.tar.xz -C /tmp/prebuilt/s99
E2E_DRIVER=/tmp/prebuilt/s99/e2e-driver E2E_EXAMPLES="llama_mlp_bias gemma_mlp qwen2_qkv phi3_mlp" timeout 150 \
  test/e2e/run-gpu.sh >$L/e2e-s99.txt 2>&1; echo "e2e s99: exit $? at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
grep -E "PASS|FAIL|MISMATCH" $L/e2e-s99.txt | tail -12 >>$O/summary.txt
csv=$L/sweep.csv; echo "part,K,N,M,dtype,W,S,global,cold_us,config" >$csv
one() {  # part dtype shape ms mode flags W S global
  local part=$1 dt=$2 shape=$3 ms=$4 mode=$5 flags=$6 w=$7 s=$8 g=$9 tmp=$L/one.csv
  local env=()
  [ "$w" != - ] && env=(W4A16_FORCE_WG=$w W4A16_FORCE_SPLITS=$s W4A16_FORCE_GLOBAL=$g)
  # shellcheck disable=SC2086
  env "${env[@]}" timeout 40 $B/w4a16_bench --ours-only $mode $flags --shape $shape --ms $ms --csv $tmp >/dev/null 2>&1 ||
    { echo "$part $dt $shape $w $s $g: failed" >>$L/failed.txt; return; }
  awk -F, -v p=$part -v d=$dt -v w=$w -v s=$s -v g=$g '$5 == "cold" { match($0, /"[^"]*"$/); print p","$1","$2","$3","d","w","s","g","$6","substr($0, RSTART) }' $tmp >>$csv
}
sweep() {  # part dtype shape ms mode flags widths
  local part=$1 dt=$2 shape=$3 ms=$4 mode=$5 flags=$6 widths=$7
  one $part $dt $shape $ms "$mode" "$flags" - - -
  for w in $widths; do for s in 1 2 3 4 5 6 7 8; do for g in 0 1; do
    [ $s = 1 ] && [ $g = 1 ] && continue
    [ $(( $(date +%s) - T0 )) -gt $BUDGET ] && { echo "out of time at $part $dt $shape W=$w S=$s" | tee -a $O/summary.txt; return 1; }
    one $part $dt $shape $ms "$mode" "$flags" $w $s $g
  done; done; done
  one $part $dt $shape $ms "$mode" "$flags" - - -  # the chooser's pick again: drift over the sweep
  echo "$part $dt $shape done at $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
  tar czf $O/results.tgz -C $L .
}
sweep a f16 14336x4096 32,64 "" "" "2 3 4" &&
sweep a f16 4096x11008 1,16,64 "" "" "2 3 4" &&
sweep a f16 4096x4096 64 "" "" "2 4" &&
sweep a f16 8192x8192 16 "" "" "2 3 4" &&
for shape in 4096x12288 14336x4096; do
  sweep b f16 $shape 1,16 --graph "" "3 4" && sweep b bf16 $shape 1,16 --graph --bf16 "3 4" || break
done &&
for shape in 4096x12288 14336x4096; do sweep c offsets $shape 1,16 --graph --offsets "2 3 4" || break; done
echo "total $(( $(date +%s) - T0 )) s" | tee -a $O/summary.txt
cp $csv $O/sweep.csv
tar czf $O/results.tgz -C $L .
