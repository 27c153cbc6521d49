#!/usr/bin/env bash
# One device call: same-run A/B of runtime source trees, with the candidate's correctness first.
#   bench/ab-gpu.sh CANDIDATE NAME=SRC...      e.g.  bench/ab-gpu.sh early base=.carry/trees/base head=. early=.carry/trees/early
# 1. builds every tree runtime-only (bench/compare-trees.sh build) into build-NAME;
# 2. on CANDIDATE: graph_test (every configuration class captured and replayed, bitwise against eager)
#    under a time limit;
# 3. times ours (w4a16_bench --ours-only, L2-cold and L2-hot, back-to-back) on SHAPES x M in {1, 16, 32, 64},
#    ROUNDS rounds, the trees interleaved in each round so drift hits every tree alike;
# 4. gpu_test --small on CANDIDATE (last: the call's time limit may cut it).
# Output in $OUT (default bench/out/ab-TIME, git-ignored): summary.txt (the lines a ledger row quotes) and
# raw.tgz (logs and CSVs). SHAPES (default "8192x8192 14336x4096 8192x28672 28672x8192") and ROUNDS (2) override.
# ZP_TREES="NAME..." also times those trees with zero points (w4a16_bench --zero-points) as NAME-zp, and
# BF16_TREES="NAME..." in bf16 (--bf16) as NAME-bf16, and VARIANTS="TREE,LABEL,FLAGS;..." any other
# w4a16_bench flags as LABEL (e.g. "head,head-g64,--group 64"; "head,head-act,--act-order" times the same shapes
# with a random act-order g_idx, to set against the tree's plain rows), in the same rounds; FULL_TEST=1 runs the
# candidate's full gpu_test (before the benchmarks) instead of --small.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
O=${OUT:-$ROOT/bench/out/ab-$(date -u +%Y%m%dT%H%M%SZ)}
R=$O/raw # the logs and CSVs, packed into raw.tgz at the end (one file to fetch)
mkdir -p "$R"
cand=$1; shift
names=(); for spec in "$@"; do names+=("${spec%%=*}"); done
S=$O/summary.txt
echo "== $(date -u +%FT%TZ) $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) trees: $*" | tee "$S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader | tee -a "$S"

t0=$(date +%s)
OUT=$R bash "$ROOT/bench/compare-trees.sh" build "$@" | tee -a "$S"
echo "build: $(( $(date +%s) - t0 )) s" | tee -a "$S"

B=$ROOT/build-$cand
t0=$(date +%s)
timeout 150 "$B/bin/w4a16_graph_test" >"$R/graph_test-$cand.log" 2>&1
echo "graph_test ($cand): exit $? in $(( $(date +%s) - t0 )) s; $(tail -1 "$R/graph_test-$cand.log")" | tee -a "$S"
if [ "${FULL_TEST:-0}" = 1 ]; then
  t0=$(date +%s)
  timeout 240 "$B/bin/w4a16_gpu_test" >"$R/gpu_test-full-$cand.log" 2>&1
  echo "gpu_test ($cand): exit $? in $(( $(date +%s) - t0 )) s; $(grep -c '^FAIL' "$R/gpu_test-full-$cand.log") FAIL lines;" \
    "$(grep 'oracle matrix' "$R/gpu_test-full-$cand.log"); $(tail -1 "$R/gpu_test-full-$cand.log")" | tee -a "$S"
fi
# bench_one TREE LABEL FLAGS...: one timing run of TREE's w4a16_bench as LABEL (shape and round from the loop)
bench_one() {
  local tree=$1 label=$2; shift 2
  timeout 120 "$ROOT/build-$tree/bin/w4a16_bench" "$@" --shape "$shape" --ms 1,16,32,64 \
    --csv "$R/bench-$label-$shape-r$r.csv" >"$R/bench-$label-$shape-r$r.log" 2>&1
  echo "bench $label $shape round $r: exit $?" >>"$R/bench-runs.txt"
}
for r in $(seq 1 "${ROUNDS:-2}"); do
  for shape in ${SHAPES:-8192x8192 14336x4096 8192x28672 28672x8192}; do
    for n in "${names[@]}"; do
      bench_one "$n" "$n" --ours-only
      case " ${ZP_TREES:-} " in *" $n "*) bench_one "$n" "$n-zp" --zero-points ;; esac
      case " ${BF16_TREES:-} " in *" $n "*) bench_one "$n" "$n-bf16" --bf16 ;; esac
    done
    IFS=';' read -ra variants <<<"${VARIANTS:-}"
    for v in "${variants[@]}"; do
      IFS=',' read -r vtree vlabel vflags <<<"$v"
      # shellcheck disable=SC2086 # the flags split into words
      [ -n "$vtree" ] && bench_one "$vtree" "$vlabel" $vflags
    done
  done
done
echo "bench: $(grep -c 'exit 0' "$R/bench-runs.txt") of $(wc -l <"$R/bench-runs.txt") runs ok" | tee -a "$S"
t0=$(date +%s)
timeout 100 "$B/bin/w4a16_gpu_test" --small >"$R/gpu_test-$cand.log" 2>&1
echo "gpu_test --small ($cand): exit $? in $(( $(date +%s) - t0 )) s; $(tail -1 "$R/gpu_test-$cand.log")" | tee -a "$S"
tar czf "$O/raw.tgz" -C "$O" raw && rm -rf "$R"
