#!/usr/bin/env bash
# One device call for tuning (issue #5): build, quick correctness (gpu_test), then time kernel variants
# side by side on the target rows (M in {16, 32, 64} on the 4 shapes, ours only, L2-cold and L2-hot),
# a sweep of every M for the default variant, the SASS counts and an ncu profile of the default.
#   bench/variants.sh ["NAME:ENV=V ENV=V" ...]   (default list below)
# Everything lands in $OUT (default bench/out/variants-TIME, git-ignored): variants.txt (the side-by-side
# table: the summary a ledger row may commit) and exp.tgz (all logs and CSVs: raw, never committed).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
O=${OUT:-$ROOT/bench/out/variants-$(date -u +%Y%m%dT%H%M%SZ)}
B=$ROOT/build-gpu
L=$O/exp
mkdir -p "$L"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export PATH=$PATH:$(dirname "$NVCC")
TARGETS="w4a16_runtime w4a16_gpu_test w4a16_bench"
# PREBUILT=dir: binaries built elsewhere (dir/bin); used if the loader finds everything they need.
if [ -n "${PREBUILT:-}" ] && [ -x "$PREBUILT/bin/w4a16_bench" ] && ! ldd "$PREBUILT/bin/w4a16_bench" "$PREBUILT/bin/w4a16_gpu_test" 2>&1 | grep -q "not found"; then
  B=$PREBUILT; echo "using prebuilt binaries in $B"
else
t0=$(date +%s)
{ cmake -G Ninja -S "$ROOT" -B "$B" -DW4A16_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CUDA_COMPILER="$NVCC" && cmake --build "$B" -j "$(nproc)" --target $TARGETS; } >"$L/build.log" 2>&1 \
  || { tail -60 "$L/build.log"; tar czf "$O/exp.tgz" -C "$O" exp; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader

t0=$(date +%s)
timeout 150 "$B/bin/w4a16_gpu_test" >"$L/gpu_test.log" 2>&1
echo "gpu_test exit $? in $(( $(date +%s) - t0 )) s: $(grep -E '^(PASS|FAIL)' "$L/gpu_test.log" | tr '\n' ' ' | cut -c1-600)"
grep -E "^FAIL" "$L/gpu_test.log" | head -20

if [ $# -eq 0 ]; then
  set -- "v3:" "v3-W2:W4A16_FORCE_WG=2" "v3-W4:W4A16_FORCE_WG=4" "v1:W4A16_FORCE_KERNEL=v1"
fi
for spec in "$@"; do
  name=${spec%%:*}
  envs=${spec#*:}
  if [ "${SMALL_TEST_EACH:-0}" = 1 ]; then  # quick oracle check of this variant first
    env $envs timeout 60 "$B/bin/w4a16_gpu_test" --small >"$L/$name-small.log" 2>&1
    echo "variant $name: gpu_test --small exit $?: $(grep -E '^(PASS|FAIL)' "$L/$name-small.log" | head -3 | tr '\n' ' ' | cut -c1-300)"
  fi
  t0=$(date +%s)
  env $envs timeout 120 "$B/bin/w4a16_bench" --ours-only --ms "${VARIANT_MS:-16,32,64}" --csv "$L/$name.csv" >"$L/$name.log" 2>&1
  echo "variant $name ($envs): exit $? in $(( $(date +%s) - t0 )) s"
done
if [ "${SKIP_SWEEP:-0}" != 1 ]; then
  t0=$(date +%s)
  timeout 100 "$B/bin/w4a16_bench" --ours-only --ms 1 --sweep "$L/sweep.csv" --csv "$L/sweep-main.csv" >"$L/sweep.log" 2>&1
  echo "sweep exit $? in $(( $(date +%s) - t0 )) s"; grep -E "^sweep|bandwidth" "$L/sweep.log"
fi

python3 - "$L" "$@" <<'PY' | tee "$O/variants.txt"
import csv, sys, os
L = sys.argv[1]
names = [s.split(":", 1)[0] for s in sys.argv[2:]]
data = {}
for n in names:
    p = os.path.join(L, n + ".csv")
    if not os.path.exists(p):
        continue
    for r in csv.DictReader(open(p)):
        data[(n, r["K"], r["N"], int(r["M"]), r["l2"])] = r
keys = sorted({(k[1], k[2], k[3]) for k in data}, key=lambda t: (int(t[0]) * 100000 + int(t[1]), t[2]))
print("K x N M | " + " | ".join(f"{n} cold/hot us (xfloor, disp)" for n in names))
for K, N, M in keys:
    cells = []
    for n in names:
        c, h = data.get((n, K, N, M, "cold")), data.get((n, K, N, M, "hot"))
        if not c:
            cells.append("-")
            continue
        cells.append(f"{float(c['median_us']):.1f}/{float(h['median_us']) if h else 0:.1f} ({float(c['x_floor']):.2f}, {float(c['max_over_min']):.3f})")
    print(f"{K}x{N} {M} | " + " | ".join(cells))
for n in names:
    for k, r in data.items():
        if k[0] == n and k[3] == 32 and k[4] == "cold":
            print(n, r["config"])
# per token count: which variant is fastest (L2-cold), summed over shapes relative to the best
Ms = sorted({k[3] for k in data})
for M in Ms:
    tot = {}
    for n in names:
        vals = [float(r["median_us"]) for k, r in data.items() if k[0] == n and k[3] == M and k[4] == "cold"]
        if vals: tot[n] = sum(vals)
    if tot:
        print(f"M={M}: " + ", ".join(f"{n} {v:.1f}" for n, v in sorted(tot.items(), key=lambda t: t[1])))
PY
cuobjdump -sass -arch sm_90a "$(find "$B" -name 'gemm_v3.cu.o' | head -1)" >"$L/sass_v3.txt" 2>&1
echo "SASS v3: HGMMA $(grep -c HGMMA "$L/sass_v3.txt") UTMALDG $(grep -c UTMALDG "$L/sass_v3.txt") LDGSTS $(grep -c LDGSTS "$L/sass_v3.txt") LDL/STL $(grep -cE '\b(LDL|STL)\b' "$L/sass_v3.txt") WARPGROUP $(grep -c 'WARPGROUP' "$L/sass_v3.txt")"
gzip -f "$L/sass_v3.txt"
[ "${SKIP_NCU:-0}" = 1 ] || bash "$ROOT/bench/ncu.sh" "$B" "$L"
tar czf "$O/exp.tgz" -C "$O" exp && rm -rf "$L"
