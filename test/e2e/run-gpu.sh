#!/usr/bin/env bash
# GPU end to end (issue #4): the AOT-compiled examples run with the runtime's CUDA backend and are compared
# with (1) the unfused build (upstream MLIR lowering only, on the CPU) and (2) the same fused build on the
# runtime's CPU backend, within docs/contract.md §1 tolerance; and (3) the GPU-target build (`w4a16-compile
# --target=gpu`: device memrefs, a stream, every op on the GPU) is compared by `e2e-driver --gpu-target` with
# the fused build on the CPU backend (itself checked against the unfused build in (1); the unfused build
# takes about 1 s per row of M on the larger examples, which at M = 16 and 32 would more than double this
# script's time: GPU_TARGET_REF=unfused uses it anyway). The driver also checks that repeated calls reuse the
# same device buffer and allocate nothing, and that a call captured into a CUDA graph replays bitwise equal
# to the eager call.
#
# The device machine has CUDA but no MLIR, so the shared objects are compiled on the build machine and
# carried over in the git-ignored folder .carry/e2e/:
#
#   1. on the build machine (after `make build`):
#        test/e2e/run-gpu.sh --stage
#      compiles the examples below (EXAMPLES) with build/bin/w4a16-compile, --mcpu=x86-64-v3
#      (AVX2 + F16C, any x86 server CPU since 2015: the device CPU may differ from this one; generic x86-64
#      would do f16 conversions in libgcc calls and make the unfused reference ~10x slower), into
#        .carry/e2e/<example>.fused.so     fused build, calls _mlir_ciface_w4a16_rt_matmul_* and w4a16_rt_enter/leave (resolved from
#                                          e2e-driver at dlopen time)
#        .carry/e2e/<example>.unfused.so   reference build, upstream lowering only
#        .carry/e2e/<example>.gpu.so       GPU-target build (--target=gpu; PTX JIT-loaded on the device)
#        .carry/e2e/<example>.h            generated C header (for reference)
#      (about 500 KB in total);
#   2. on the device (device tool: command "test/e2e/run-gpu.sh", carry [".carry"]):
#        test/e2e/run-gpu.sh
#      builds the runtime (CUDA backend), w4a16_rt_abi and e2e-driver with CMake from test/e2e/gpu
#      (W4A16_RUNTIME_ONLY=ON) into build-e2e-gpu/, then runs the comparisons below. Exit status 0 iff all
#      pass. Set M_UNFUSED / M_BACKENDS / M_GPU_TARGET to change the batch sizes, E2E_DRIVER to use a
#      prebuilt e2e-driver (with the CUDA backend) instead of building one. An example staged without a
#      .gpu.so (a staging older than --target=gpu) skips (3) with a line saying so.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CARRY="$ROOT/.carry/e2e"
# Every example runs on the CUDA kernels: gptq_group32, gptq_asym (zero points up to 16), q4_1_offsets,
# hqq_group64, torchao_bf16 and gguf_q4_0 in their affine form (W = (code - zi) * s + o).
EXAMPLES=(llama_mlp llama_block gpt_mlp iree_i4 decode_matvec decode_rmsnorm iree_signed_i4
          gptq_group32 gptq_asym autogptq_v1_torch awq_gemm q4_1_offsets hqq_group64 gptq_bf16 torchao_bf16 llama_rmsnorm_proj
          gguf_q4_0 torchao_uint4_packed gptq_act_order gptq_act_order_const hqq_4bit qwen2_qkv gemma_mlp phi3_mlp gpt2_conv1d
          gptq_embedded onnx_matmul_nbits mlx_q4 quanto_int4 quanto_mlp compressed_tensors_asym
          iree_signed_zero_points tp_shard_rank3 llama_mlp_bias megatron_glu_bias attn_o_proj_heads)
# E2E_EXAMPLES="a b": only those
[[ -n "${E2E_EXAMPLES:-}" ]] && read -ra EXAMPLES <<<"$E2E_EXAMPLES"

if [[ "${1:-}" == "--stage" ]]; then
  COMPILE="${W4A16_COMPILE:-$ROOT/build/bin/w4a16-compile}"
  [[ -x "$COMPILE" ]] || { echo "run-gpu.sh: $COMPILE not found: run 'make build' first" >&2; exit 2; }
  mkdir -p "$CARRY"
  for ex in "${EXAMPLES[@]}"; do
    "$COMPILE" "$ROOT/examples/$ex.mlir" --mcpu=x86-64-v3 -o "$CARRY/$ex.fused.so" --header "$CARRY/$ex.h"
    "$COMPILE" "$ROOT/examples/$ex.mlir" --mcpu=x86-64-v3 --no-fuse -o "$CARRY/$ex.unfused.so"
    "$COMPILE" "$ROOT/examples/$ex.mlir" --mcpu=x86-64-v3 --target=gpu -o "$CARRY/$ex.gpu.so"
  done
  ls -l "$CARRY"
  echo "run-gpu.sh: staged in $CARRY; on the device run test/e2e/run-gpu.sh with carry [\".carry\"]"
  exit 0
fi

for ex in "${EXAMPLES[@]}"; do
  for kind in fused unfused; do
    [[ -f "$CARRY/$ex.$kind.so" ]] || { echo "run-gpu.sh: missing $CARRY/$ex.$kind.so: run 'test/e2e/run-gpu.sh --stage' on the build machine and carry .carry" >&2; exit 2; }
  done
done

# E2E_DRIVER: an e2e-driver built elsewhere with the CUDA backend (the build below takes minutes of device time).
DRIVER="${E2E_DRIVER:-}"
if [[ -z "$DRIVER" ]]; then
  BUILD="$ROOT/build-e2e-gpu"
  NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
  GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
  echo "== build: runtime (CUDA backend) + w4a16_rt_abi + e2e-driver in $BUILD"
  cmake "${GEN[@]}" -S "$ROOT/test/e2e/gpu" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" >/dev/null
  cmake --build "$BUILD" --target e2e-driver -j "$(nproc)"
  DRIVER="$BUILD/bin/e2e-driver"
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L || true

M_UNFUSED="${M_UNFUSED:-1,3,5}"
M_BACKENDS="${M_BACKENDS:-1,3,5,16,17,32}"
M_GPU_TARGET="${M_GPU_TARGET:-1,16,32}"
status=0 gpu_runs=0 gpu_skipped=0
for ex in "${EXAMPLES[@]}"; do
  echo "== $ex: fused on CUDA vs unfused (upstream MLIR, CPU), M = $M_UNFUSED"
  "$DRIVER" --example "$ex" --backend cuda --m "$M_UNFUSED" \
      --test "$CARRY/$ex.fused.so" --ref "$CARRY/$ex.unfused.so" || status=1
  echo "== $ex: fused on CUDA vs fused on the CPU backend, M = $M_BACKENDS"
  "$DRIVER" --example "$ex" --backend cuda --ref-backend cpu --m "$M_BACKENDS" \
      --test "$CARRY/$ex.fused.so" --ref "$CARRY/$ex.fused.so" || status=1
  if [[ ! -f "$CARRY/$ex.gpu.so" ]]; then
    echo "== $ex: GPU target: SKIPPED (no $CARRY/$ex.gpu.so: staged before --target=gpu; re-run --stage)"
    gpu_skipped=$((gpu_skipped + 1))
    continue
  fi
  # The driver forces M = 1 for static-shape examples; --min-time 0.05 keeps the timing loops short.
  if [[ "${GPU_TARGET_REF:-}" == unfused ]]; then
    echo "== $ex: GPU target (--target=gpu) vs unfused (upstream MLIR, CPU), M = $M_GPU_TARGET"
    ref=(--ref "$CARRY/$ex.unfused.so")
  else
    echo "== $ex: GPU target (--target=gpu) vs fused on the CPU backend, M = $M_GPU_TARGET"
    ref=(--ref "$CARRY/$ex.fused.so" --ref-backend cpu)
  fi
  rc=0
  "$DRIVER" --gpu-target --example "$ex" --m "$M_GPU_TARGET" --min-time 0.05 \
      --test "$CARRY/$ex.gpu.so" "${ref[@]}" || rc=$?
  # exit 1 has printed its FAIL line; other failures (setup, CUDA, consistency) may have stopped before it
  [[ $rc -ne 0 && $rc -ne 1 ]] && echo "e2e $ex: FAIL (GPU target: e2e-driver exit $rc, see above)"
  [[ $rc -ne 0 ]] && status=1
  gpu_runs=$((gpu_runs + 1))
done
gpu_note="GPU target: $gpu_runs examples run, $gpu_skipped skipped"
if [[ $status -eq 0 ]]; then echo "run-gpu.sh: ALL PASS ($gpu_note)"; else echo "run-gpu.sh: FAILURES (see above; $gpu_note)"; fi
exit $status
