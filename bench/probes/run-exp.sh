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
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
bash "$ROOT/bench/smi-log.sh" start "$O/smi.csv"
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
bash "$ROOT/bench/smi-log.sh" stop "$O/smi.csv"
