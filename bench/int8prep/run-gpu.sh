#!/usr/bin/env bash
# Device run of issue #6 (on the GPU machine, from the repository root; no MLIR needed):
#   1. build runtime/int8prep only (-DW4A16_RUNTIME_ONLY=ON; the W4A16 kernels are not built),
#   2. its unit test with the CUDA kernel against the CPU reference bit for bit, plain and under
#      compute-sanitizer memcheck,
#   3. bench.py: raw-bit equality with PyTorch's eager chain and the timing table (see bench.py).
# Logs and tables go to $OUT (default bench/out/int8prep, git-ignored). A run commits its summary
# (int8prep_table.md, int8prep_bench.csv, gpu.txt) under bench/int8prep/results/DATE/; the logs
# (build, unit test, memcheck, int8prep_bench.log) stay in bench/out (bench/RESULTS.md, header).
set -uo pipefail
OUT=${OUT:-$PWD/bench/out/int8prep}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu-int8prep}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | tee "$OUT/gpu.txt"
cmake -G Ninja -S . -B "$BUILD" -DW4A16_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="${NVCC:-/usr/local/cuda/bin/nvcc}" > "$OUT/build.log" 2>&1 &&
  cmake --build "$BUILD" --target w4a16_int8prep_shared w4a16-int8prep-test >> "$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; echo "BUILD FAILED"; exit 1; }
status=0
"$BUILD/bin/w4a16-int8prep-test" --cuda 2>&1 | tee "$OUT/unit_test.log" || status=1
if command -v compute-sanitizer > /dev/null; then
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/bin/w4a16-int8prep-test" --cuda \
    > "$OUT/memcheck.log" 2>&1 && echo "memcheck: clean" || { echo "memcheck: FAILED (see memcheck.log)"; status=1; }
  tail -3 "$OUT/memcheck.log"
fi
python3 bench/int8prep/bench.py --lib "$BUILD/lib/libw4a16_int8prep.so" --out "$OUT" "$@" || status=1
exit $status
