#!/usr/bin/env bash
# GPU checks for the runtime, run on the device machine:
#   runtime/test/run-gpu.sh [BUILD_DIR]
# Builds runtime-only (cmake + ninja + nvcc) if BUILD_DIR has no gpu_test yet, then runs
#   1. gpu_test: the oracle matrix on the GPU (bitwise repeat, inputs unchanged, forced split counts,
#      M > 64), CUDA alignment errors, concurrent streams, device memory over 10 000 calls vs docs/contract.md §2;
#   2. graph_test: every configuration class captured in CUDA graphs and replayed (issue #16);
#   3. compute-sanitizer memcheck and racecheck on gpu_test --small (racecheck also on --act-order-small, the
#      act-order gathers alone) and on graph replays;
#   4. the CPU ctest suite (in the background, on the device's spare cores);
#   5. a SASS check of the sm_90a kernels (HGMMA/UTMALDG/LDGSTS in v3, HMMA/LDSM/LDGSTS in v1, local memory).
# Logs go to $LOGDIR (default $OUT/logs, or BUILD_DIR/gpu-logs); the exit status is non-zero on any failure.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build-gpu}
L=${LOGDIR:-${OUT:+$OUT/logs}}
L=${L:-$B/gpu-logs}
mkdir -p "$L"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
# Only this component's targets: the rest of the tree may be mid-change and is not needed here.
TARGETS="w4a16_runtime w4a16_gpu_test w4a16_graph_test w4a16_bench w4a16_test_half w4a16_test_cpu_matrix w4a16_test_bad_inputs w4a16_test_checker_fails w4a16_test_cpu_threads w4a16_test_zero_points w4a16_test_act_order w4a16_test_outputs w4a16_test_gpu_target"
export PATH=$PATH:$(dirname "$NVCC")
if [ ! -x "$B/bin/w4a16_gpu_test" ]; then
  { cmake -G Ninja -S "$ROOT" -B "$B" -DW4A16_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CUDA_COMPILER="$NVCC" && cmake --build "$B" --target $TARGETS; } >"$L/build.log" 2>&1 \
    || { tail -40 "$L/build.log"; echo "FAIL: build"; exit 1; }
fi
status=0
if [ -f "$B/CTestTestfile.cmake" ]; then
  (cd "$B" && ctest -L runtime --output-on-failure >"$L/ctest.log" 2>&1; echo "ctest exit $?" >>"$L/ctest.log") &
  ctest_pid=$!
else  # prebuilt binaries only (no build tree): the CPU suite runs where they were built
  echo "no build tree in $B: CPU ctest skipped here" >"$L/ctest.log"
  ctest_pid=
fi

timeout 240 "$B/bin/w4a16_gpu_test" >"$L/gpu_test.log" 2>&1 || status=1
grep -E "^(FAIL|PASS|memory|device)" "$L/gpu_test.log" | head -40

timeout 300 "$B/bin/w4a16_graph_test" >"$L/graph_test.log" 2>&1 || status=1
echo "graph_test: $(grep -E '^FAIL' "$L/graph_test.log" | head -5) $(tail -1 "$L/graph_test.log")"

SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
sanitize() {  # tool log args...
  local tool=$1 log=$2; shift 2
  timeout 330 "$SAN" --tool $tool --error-exitcode 9 "$@" >"$L/$log.log" 2>&1
  local rc=$?
  echo "compute-sanitizer $tool $log: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/$log.log" | tail -1)"
  [ $rc -eq 0 ] || status=1
}
sanitize memcheck memcheck "$B/bin/w4a16_gpu_test" --small
sanitize racecheck racecheck "$B/bin/w4a16_gpu_test" --small
sanitize racecheck racecheck-act-order "$B/bin/w4a16_gpu_test" --act-order-small  # the gathering kernels alone
# graph replays: memcheck on every configuration class, racecheck on one per path
sanitize memcheck memcheck-graph --report-api-errors no "$B/bin/w4a16_graph_test" --small
for cls in v3-W4-S1 v3-W4-cluster3 v3-W4-workspace3 v1-cluster2; do
  sanitize racecheck "racecheck-graph-$cls" "$B/bin/w4a16_graph_test" --small --class $cls
done

if command -v cuobjdump >/dev/null; then
  : >"$L/sass_sm90a.txt"
  for obj in $(find "$B/runtime" -name '*.cu.o' | sort); do
    echo "### $obj" >>"$L/sass_sm90a.txt"
    cuobjdump -sass -arch sm_90a "$obj" >>"$L/sass_sm90a.txt" 2>&1
  done
  S=$L/sass_sm90a.txt
  echo "SASS sm_90a: HGMMA $(grep -c HGMMA "$S"), HMMA $(grep -c 'HMMA\.' "$S"), UTMALDG $(grep -c UTMALDG "$S"), UBLKCP $(grep -c UBLKCP "$S"), LDSM $(grep -c LDSM "$S"), LDGSTS $(grep -c LDGSTS "$S"), local ld/st $(grep -cE '\b(LDL|STL)\b' "$S"), createpolicy $(grep -ciE 'createpolicy' "$S")"
  grep -B30 -E '\b(LDL|STL)\b' "$S" | grep -E '###|Function|LDL|STL' > "$L/local_memory.txt"
  cuobjdump -lelf -lptx "$(find "$B/runtime" -name 'gemm_v3.cu.o' | head -1)" 2>&1 | tee "$L/fatbin_contents.txt"
  gzip -f "$S"
fi

if [ -n "$ctest_pid" ]; then
  wait $ctest_pid
  echo "CPU ctest on the device: $(grep -E 'tests passed|tests failed' "$L/ctest.log")"
  grep -q "ctest exit 0" "$L/ctest.log" || status=1
else
  echo "CPU ctest: skipped on the device (prebuilt binaries, no build tree)"
fi
echo "run-gpu.sh: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
exit $status
