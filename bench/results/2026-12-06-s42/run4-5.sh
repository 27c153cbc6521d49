#!/usr/bin/env bash
# Session 42, calls 4-5: GPU e2e of every example compiled by main 8cba1b9 (the matcher of sessions 42), with s92's
# e2e-driver. HALF=1 or 2 picks half of the list.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-/tmp/out}; mkdir -p "$O"
mkdir -p /tmp/prebuilt/s92 && tar xJf .carry/bins/s92.tar.xz -C /tmp/prebuilt/s92 && B=/tmp/prebuilt/s92
ALL=(llama_mlp llama_block gpt_mlp iree_i4 decode_matvec iree_signed_i4
     gptq_group32 gptq_asym autogptq_v1_torch awq_gemm q4_1_offsets hqq_group64 gptq_bf16 torchao_bf16 llama_rmsnorm_proj
     gguf_q4_0 torchao_uint4_packed gptq_act_order gptq_act_order_const hqq_4bit qwen2_qkv gemma_mlp phi3_mlp gpt2_conv1d
     gptq_embedded onnx_matmul_nbits mlx_q4 quanto_int4 quanto_mlp compressed_tensors_asym iree_signed_zero_points
     tp_shard_rank3)
n=${#ALL[@]}; h=$(( (n + 1) / 2 ))
if [ "${HALF:-1}" = 1 ]; then SEL=("${ALL[@]:0:$h}"); else SEL=("${ALL[@]:$h}"); fi
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
E2E_EXAMPLES="${SEL[*]}" E2E_DRIVER=$B/e2e-driver timeout 290 bash test/e2e/run-gpu.sh >"$O/e2e-half${HALF:-1}-s92.log" 2>&1
echo "e2e half ${HALF:-1} (${#SEL[@]} examples): exit $? in $(( $(date +%s) - t0 )) s"
grep -E "^e2e [a-z_0-9]+: (PASS|FAIL)" "$O/e2e-half${HALF:-1}-s92.log" | sed 's/(max rel.*//' | sort | uniq -c | awk '{print $1, $2, $3, $4, $5, $6}' | head -60
grep -E "ALL PASS|FAIL" "$O/e2e-half${HALF:-1}-s92.log" | tail -3
