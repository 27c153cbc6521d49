/* The examples e2e-driver knows (examples/<name>.mlir): each function's arguments in order, with how to make
 * their data, the result's N, the number of fused chains its fused build must prepare, and the layers' K and
 * input RMS (to size the scales so that outputs are O(1)). The table is e2e_driver.c's; e2e_data.c takes the
 * types only (W4A16_E2E_TYPES_ONLY). */
#ifndef W4A16_E2E_EXAMPLES_H
#define W4A16_E2E_EXAMPLES_H

#include <stdbool.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------------------------------- */
/* The examples: one descriptor table per function signature (see examples/<name>.mlir).                 */
/* ---------------------------------------------------------------------------------------------------- */

typedef enum ArgKind {
  ARG_X,            /* (M, K) f16 or bf16 activations, uniform in [-2, 2] */
  ARG_CODES_PACKED, /* i32 words of 8 unsigned 4-bit codes (GPTQ (K/8, N)) */
  ARG_CODES_BYTES,  /* one unsigned 4-bit code per byte (i8 container or i4 as LLVM stores it) */
  ARG_CODE_PAIRS,   /* two 4-bit codes per byte: random bytes */
  ARG_SCALES,       /* f16 or bf16 group scales; magnitude from the layer so outputs are O(1), random sign */
  ARG_BIAS,         /* (N,) f16 or bf16 bias, uniform in [-0.5, 0.5] */
  ARG_FLOAT_ZEROS,  /* float zero points (HQQ), uniform in [6, 9], in the scales' type */
  ARG_GROUP_INDEX   /* act-order g_idx, (K,) i32: G rows per group (G from the example's scales: K * N / their
                       size), scattered over K at random */
} ArgKind;

enum { kMaxRank = 3, kMaxArgs = 10, kMaxLayers = 4 };
#define DYN_M (-1)

typedef struct ArgDesc {
  const char *name;
  ArgKind kind;
  int rank;
  int64_t shape[kMaxRank]; /* DYN_M = the batch dimension */
  int layer;               /* for ARG_SCALES: index into Example.layers */
} ArgDesc;

typedef struct Layer {
  int64_t K;        /* reduction length */
  double input_rms; /* typical RMS of the layer's input, to size its scales */
} Layer;

typedef struct Example {
  const char *name;
  int nargs;
  ArgDesc args[kMaxArgs];
  int64_t out_n;     /* result is (M, out_n) f16 */
  int fused_chains;  /* fused build: prepare makes one plan per fused op (merged siblings share one: issue #21) */
  Layer layers[kMaxLayers];
  int out_rank;      /* 1: the result is an (out_n) vector (a matvec: M = 1); 0 or 2: (M, out_n) */
  bool io_bf16;      /* x, bias and the result are bf16 (f16 otherwise) */
  bool scales_bf16;  /* the scales are bf16 (f16 otherwise) */
} Example;

#endif /* W4A16_E2E_EXAMPLES_H: the types */

#if !defined(W4A16_E2E_TYPES_ONLY) && !defined(W4A16_E2E_EXAMPLE_TABLE)
#define W4A16_E2E_EXAMPLE_TABLE
static const Example kExamples[] = {
    {"llama_mlp",
     7,
     {{"x", ARG_X, 2, {DYN_M, 4096}, 0},
      {"gate_qweight", ARG_CODES_PACKED, 2, {512, 11008}, 0},
      {"gate_scales", ARG_SCALES, 2, {32, 11008}, 0},
      {"up_qweight", ARG_CODES_PACKED, 2, {512, 11008}, 0},
      {"up_scales", ARG_SCALES, 2, {32, 11008}, 1},
      {"down_qweight", ARG_CODES_PACKED, 2, {1376, 4096}, 0},
      {"down_scales", ARG_SCALES, 2, {86, 4096}, 2}},
     4096,
     2, /* gate and up merged */
     {{4096, 1.155}, {4096, 1.155}, {11008, 0.6}},
     2, false, false},
    {"gpt_mlp",
     7,
     {{"x", ARG_X, 2, {DYN_M, 4096}, 0},
      {"fc1_weight", ARG_CODES_BYTES, 3, {16384, 32, 128}, 0},
      {"fc1_scales", ARG_SCALES, 2, {16384, 32}, 0},
      {"fc1_bias", ARG_BIAS, 1, {16384}, 0},
      {"fc2_weight", ARG_CODES_BYTES, 3, {4096, 128, 128}, 0},
      {"fc2_scales", ARG_SCALES, 2, {4096, 128}, 1},
      {"fc2_bias", ARG_BIAS, 1, {4096}, 0}},
     4096,
     2,
     {{4096, 1.155}, {16384, 0.65}},
     2, false, false},
    {"decode_matvec",
     5,
     {{"x", ARG_X, 1, {4096}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {512, 4096}, 0},
      {"scales", ARG_SCALES, 2, {32, 4096}, 0},
      {"bias", ARG_BIAS, 1, {4096}, 0},
      {"residual", ARG_BIAS, 1, {4096}, 0}},
     4096,
     1,
     {{4096, 1.155}},
     1, false, false},
    {"gptq_group32",
     4,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {256, 2048}, 0},
      {"scales", ARG_SCALES, 2, {64, 2048}, 0},
      {"bias", ARG_BIAS, 1, {2048}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, false, false},
    {"gptq_asym",
     5,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {256, 2048}, 0},
      {"scales", ARG_SCALES, 2, {16, 2048}, 0},
      {"qzeros", ARG_CODES_PACKED, 2, {16, 256}, 0},
      {"bias", ARG_BIAS, 1, {2048}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, false, false},
    {"gptq_embedded", /* the weight, scales, zero points and bias are constants of the IR (dense_resource) */
     1,
     {{"x", ARG_X, 2, {DYN_M, 512}, 0}},
     256,
     1,
     {{512, 1.155}},
     2, false, false},
    {"autogptq_v1_torch",
     5,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {256, 2048}, 0},
      {"qzeros", ARG_CODES_PACKED, 2, {16, 256}, 0},
      {"scales", ARG_SCALES, 2, {16, 2048}, 0},
      {"bias", ARG_BIAS, 1, {2048}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, false, false},
    {"awq_gemm",
     5,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {2048, 256}, 0},
      {"scales", ARG_SCALES, 2, {16, 2048}, 0},
      {"qzeros", ARG_CODES_PACKED, 2, {16, 256}, 0},
      {"bias", ARG_BIAS, 1, {2048}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, false, false},
    {"iree_signed_i4",
     3,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"weight", ARG_CODES_BYTES, 3, {2048, 16, 128}, 0},
      {"scales", ARG_SCALES, 2, {2048, 16}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, false, false},
    {"q4_1_offsets",
     5,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {256, 2048}, 0},
      {"scales", ARG_SCALES, 2, {64, 2048}, 0},
      {"mins", ARG_SCALES, 2, {64, 2048}, 0},
      {"bias", ARG_BIAS, 1, {2048}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, false, false},
    {"onnx_matmul_nbits",
     5,
     {{"x", ARG_X, 2, {DYN_M, 512}, 0},
      {"B", ARG_CODE_PAIRS, 3, {256, 16, 16}, 0},
      {"scales", ARG_SCALES, 1, {4096}, 0},
      {"zero_points", ARG_CODE_PAIRS, 2, {256, 8}, 0},
      {"bias", ARG_BIAS, 1, {256}, 0}},
     256,
     1,
     {{512, 1.155}},
     2, false, false},
    {"gguf_q4_0",
     3,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"q", ARG_CODE_PAIRS, 3, {2048, 64, 16}, 0},
      {"scales", ARG_SCALES, 2, {2048, 64}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, false, false},
    {"torchao_uint4_packed",
     3,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"q", ARG_CODE_PAIRS, 2, {2048, 1024}, 0},
      {"scales", ARG_SCALES, 2, {2048, 16}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, true, true},
    {"gptq_bf16",
     4,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {256, 2048}, 0},
      {"scales", ARG_SCALES, 2, {16, 2048}, 0},
      {"bias", ARG_BIAS, 1, {2048}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2,
     true,
     false},
    {"torchao_bf16",
     4,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"weight", ARG_CODES_BYTES, 2, {2048, 2048}, 0},
      {"scales", ARG_SCALES, 2, {2048, 16}, 0},
      {"zeros", ARG_SCALES, 2, {2048, 16}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2,
     true,
     true},
    {"llama_block",
     8,
     {{"x", ARG_X, 2, {DYN_M, 4096}, 0},
      {"norm_weight", ARG_BIAS, 1, {4096}, 0},
      {"gate_qweight", ARG_CODES_PACKED, 2, {512, 11008}, 0},
      {"gate_scales", ARG_SCALES, 2, {32, 11008}, 0},
      {"up_qweight", ARG_CODES_PACKED, 2, {512, 11008}, 0},
      {"up_scales", ARG_SCALES, 2, {32, 11008}, 1},
      {"down_qweight", ARG_CODES_PACKED, 2, {1376, 4096}, 0},
      {"down_scales", ARG_SCALES, 2, {86, 4096}, 2}},
     4096,
     2, /* gate and up merged */
     {{4096, 0.289}, {4096, 0.289}, {11008, 0.6}}, /* RMSNorm's output (weights uniform in [-0.5, 0.5]) */
     2,
     false,
     false},
    {"llama_rmsnorm_proj",
     4,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"norm_weight", ARG_BIAS, 1, {2048}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {256, 2048}, 0},
      {"scales", ARG_SCALES, 2, {16, 2048}, 0}},
     2048,
     1,
     {{2048, 0.289}}, /* RMSNorm's output: unit RMS times weights uniform in [-0.5, 0.5] */
     2,
     false,
     false},
    {"gemma_mlp", /* GeGLU: gate and up merged with up * gelu_tanh(gate) into one launch (issue #21) */
     7,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"gate_qweight", ARG_CODES_PACKED, 2, {256, 8192}, 0},
      {"gate_scales", ARG_SCALES, 2, {16, 8192}, 0},
      {"up_qweight", ARG_CODES_PACKED, 2, {256, 8192}, 0},
      {"up_scales", ARG_SCALES, 2, {16, 8192}, 1},
      {"down_qweight", ARG_CODES_PACKED, 2, {1024, 2048}, 0},
      {"down_scales", ARG_SCALES, 2, {64, 2048}, 2}},
     2048,
     2, /* gate and up merged, down */
     {{2048, 1.155}, {2048, 1.155}, {8192, 0.6}},
     2,
     false,
     false},
    {"gpt2_conv1d", /* Conv1D weights [K, N] as i4; addmm's bias becomes the matmul's init after fold-add-into-dest */
     7,
     {{"x", ARG_X, 2, {DYN_M, 768}, 0},
      {"fc_weight", ARG_CODES_BYTES, 2, {768, 3072}, 0},
      {"fc_scales", ARG_SCALES, 2, {6, 3072}, 0},
      {"fc_bias", ARG_BIAS, 1, {3072}, 0},
      {"proj_weight", ARG_CODES_BYTES, 2, {3072, 768}, 0},
      {"proj_scales", ARG_SCALES, 2, {24, 768}, 1},
      {"proj_bias", ARG_BIAS, 1, {768}, 0}},
     768,
     2,
     {{768, 1.155}, {3072, 0.65}},
     2, false, false},
    {"phi3_mlp", /* gate and up in one weight of 2I columns, chunked: split into column windows, one glu launch */
     6,
     {{"x", ARG_X, 2, {DYN_M, 256}, 0},
      {"gate_up_qweight", ARG_CODES_PACKED, 2, {32, 1024}, 0},
      {"gate_up_qzeros", ARG_CODES_PACKED, 2, {2, 128}, 0},
      {"gate_up_scales", ARG_SCALES, 2, {2, 1024}, 0},
      {"down_qweight", ARG_CODES_PACKED, 2, {64, 256}, 0},
      {"down_scales", ARG_SCALES, 2, {4, 256}, 1}},
     256,
     2, /* gate_up's halves merged into one plan, down */
     {{256, 1.155}, {512, 0.6}},
     2,
     false,
     false},
    {"qwen2_qkv", /* q, k and v with biases, merged into one launch (issue #21) */
     10,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"q_qweight", ARG_CODES_PACKED, 2, {256, 2048}, 0},
      {"q_scales", ARG_SCALES, 2, {16, 2048}, 0},
      {"q_bias", ARG_BIAS, 1, {2048}, 0},
      {"k_qweight", ARG_CODES_PACKED, 2, {256, 256}, 0},
      {"k_scales", ARG_SCALES, 2, {16, 256}, 0},
      {"k_bias", ARG_BIAS, 1, {256}, 0},
      {"v_qweight", ARG_CODES_PACKED, 2, {256, 256}, 0},
      {"v_scales", ARG_SCALES, 2, {16, 256}, 0},
      {"v_bias", ARG_BIAS, 1, {256}, 0}},
     2560,
     1, /* one plan for the three weights */
     {{2048, 1.155}},
     2,
     false,
     false},
    {"hqq_group64",
     4,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"weight", ARG_CODES_BYTES, 2, {2048, 2048}, 0},
      {"scales", ARG_SCALES, 2, {2048, 32}, 0},
      {"zeros", ARG_FLOAT_ZEROS, 2, {2048, 32}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2,
     false,
     false},
    {"hqq_4bit",
     4,
     {{"x", ARG_X, 2, {DYN_M, 512}, 0},
      {"wq", ARG_CODE_PAIRS, 2, {2048, 64}, 0},
      {"scale", ARG_SCALES, 2, {4096, 1}, 0},
      {"zero", ARG_FLOAT_ZEROS, 2, {4096, 1}, 0}},
     512,
     1,
     {{512, 1.155}},
     2, false, false},
    {"gptq_act_order",
     6,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {256, 2048}, 0},
      {"qzeros", ARG_CODES_PACKED, 2, {16, 256}, 0},
      {"scales", ARG_SCALES, 2, {16, 2048}, 0},
      {"g_idx", ARG_GROUP_INDEX, 1, {2048}, 0},
      {"bias", ARG_BIAS, 1, {2048}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, false, false},
    {"gptq_act_order_const",
     5,
     {{"x", ARG_X, 2, {DYN_M, 2048}, 0},
      {"qweight", ARG_CODES_PACKED, 2, {256, 2048}, 0},
      {"qzeros", ARG_CODES_PACKED, 2, {16, 256}, 0},
      {"scales", ARG_SCALES, 2, {16, 2048}, 0},
      {"bias", ARG_BIAS, 1, {2048}, 0}},
     2048,
     1,
     {{2048, 1.155}},
     2, false, false},
    {"iree_i4",
     3,
     {{"x", ARG_X, 2, {DYN_M, 4096}, 0},
      {"weight", ARG_CODES_BYTES, 3, {11008, 32, 128}, 0},
      {"scales", ARG_SCALES, 2, {11008, 32}, 0}},
     11008,
     1,
     {{4096, 1.155}},
     2, false, false},
};
static const int kNumExamples = (int)(sizeof kExamples / sizeof kExamples[0]);
#endif
