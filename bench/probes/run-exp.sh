#!/usr/bin/env bash
# One device call for a kernel experiment (issue #5): the SM clock and power logged every 200 ms
# while it runs (smi.csv), gpu_test --small, the probe's modes on chosen shapes, and the benchmark
# rows with the experiment's switch on and off.
#   bench/probes/run-exp.sh BUILD_DIR 'PROBE_ARGS;PROBE_ARGS...' 'ENV_OFF' [M list]
# e.g. bench/probes/run-exp.sh build-pre '32 0;1 0' 'W4A16_NO_PDL=1' 1,16,32,64
set -uo pipefail
B=$1; PROBES=$2; OFF=$3; MS=${4:-1,16,32,64}
O=${OUT:-/tmp/exp-out}
mkdir -p "$O"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv -lms 200 >"$O/smi.csv" 2>&1 &
SMI=$!
timeout 120 "$B/bin/w4a16_gpu_test" --small >"$O/small.log" 2>&1
echo "gpu_test --small: exit $? $(grep -E '^(PASS|FAIL)' "$O/small.log" | head -3 | tr '\n' ' ')"
if [ -n "$PROBES" ] && [ -x "$B/bin/kernel_probe" ]; then
  IFS=';' read -ra P <<<"$PROBES"
  for a in "${P[@]}"; do timeout 90 "$B/bin/kernel_probe" $a; done 2>&1 | tee "$O/probe.txt"
fi
for side in on off; do
  if [ $side = on ]; then env_=""; else env_=$OFF; fi
  env $env_ timeout 200 "$B/bin/w4a16_bench" --ours-only --ms "$MS" --csv "$O/bench-$side.csv" >"$O/bench-$side.log" 2>&1
  echo "bench ($side${env_:+: $env_}): exit $?"
  grep -E "^ *[0-9]+x[0-9]+|w4a16 " "$O/bench-$side.log" | head -40
done
kill $SMI 2>/dev/null
awk -F', ' 'NR>1 && $2+0>0 {n++; s+=$2; if(min==""||$2<min)min=$2; if($2>max)max=$2; p+=$3} END {if(n) printf "SM clock over the run: mean %.0f MHz (min %d max %d), power mean %.0f W, %d samples\n", s/n, min, max, p/n, n}' "$O/smi.csv"
