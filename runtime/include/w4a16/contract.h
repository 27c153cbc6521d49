/* The w4a16 op's contract, stated once (docs/contract.md §1, §2): what the fused op computes, the
 * operand layouts and element types it accepts, and the shapes the runtime can run. Plain C, no MLIR or
 * CUDA dependency: the dialect verifier, the fuse pass (to decline what the runtime cannot run), the
 * lowering, the compiled-code ABI, the CPU reference and both CUDA kernels include it.
 *
 *   out[m, n] = act(sum_k x[m, k] * W[k, n] + bias[n]) + residual[m, n]
 *   W[k, n]   = (code(k, n) - W4A16_ZERO_POINT) * scales[k / group_size, n]
 *
 * IR attributes spell the enums below as strings; w4a16_*_name / w4a16_*_from_name are the one table
 * between the two. */
#ifndef W4A16_CONTRACT_H
#define W4A16_CONTRACT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- activation: act(v) applied after the bias ------------------------------------------------- */
typedef enum w4a16_activation {
  W4A16_ACT_NONE = 0,
  W4A16_ACT_SILU = 1,      /* v * sigmoid(v) */
  W4A16_ACT_GELU_TANH = 2  /* 0.5 v (1 + tanh(C0 (v + C1 v^3))) */
} w4a16_activation;
#define W4A16_ACT_COUNT 3
#define W4A16_GELU_C0 0.7978845608028654f /* sqrt(2 / pi) */
#define W4A16_GELU_C1 0.044715f

/* --- weight codes: 4-bit unsigned, value = code - zero point ------------------------------------ */
#define W4A16_CODE_BITS 4
#define W4A16_ZERO_POINT 8

/* How the weight operand stores code(k, n). */
typedef enum w4a16_weight_layout {
  W4A16_WEIGHT_PACKED_K8_N = 0, /* (K/8, N) i32: nibble k % 8 of word [k/8, n], least significant first */
  W4A16_WEIGHT_K_N = 1,         /* (K, N) one code per i4 or i8 element */
  W4A16_WEIGHT_N_K = 2,         /* (N, K) likewise, transposed */
  W4A16_WEIGHT_PACKED_K_N8 = 3, /* (K, N/8) i32 packed along N: nibble n % 8 of word [k, n/8] */
  W4A16_WEIGHT_PACKED_K_N8_AWQ = 4, /* likewise in AWQ's order: nibble i holds column 8j + {0,2,4,6,1,3,5,7}[i] */
  /* Two codes per byte (i8 or u8 elements): */
  W4A16_WEIGHT_PACKED_N_K2 = 5, /* (N, K/2): byte [n, k/2], even k in the low nibble, as GGML packs its nibbles */
  W4A16_WEIGHT_PACKED_K2_N = 6, /* (K/2, N): byte [k/2, n], even k in the low nibble */
  W4A16_WEIGHT_Q4_0_BLOCKS = 7, /* (N, K/2) in GGML Q4_0 blocks of 32 k: byte 16 (k/32) + k % 16 of row n, the
                                   low nibble for k % 32 < 16, the high one for the block's second half */
  W4A16_WEIGHT_PACKED_N_K2_HI = 8, /* like PACKED_N_K2 with even k in the high nibble (torchao's bit packing) */
  W4A16_WEIGHT_PACKED_K2_N_HI = 9, /* like PACKED_K2_N with even k in the high nibble */
  W4A16_WEIGHT_HALVES_N_K = 10,    /* (N/2, K): byte [n mod N/2, k], the high nibble for n < N/2, else the low one:
                                      the (N, K) codes' first half paired with their second (HQQ's 4-bit packing,
                                      whatever its grouped view: it pairs element e with e + N*K/2) */
  W4A16_WEIGHT_PACKED_N_K8 = 11,   /* (N, K/8) i32: nibble k % 8 of word [n, k/8], least significant first (MLX's
                                      4-bit mx.quantize) */
  W4A16_WEIGHT_HALVES_N_K_LO = 12  /* like HALVES_N_K with the first half in the low nibble (optimum-quanto's
                                      PackedTensor: row r of the grouped view in the low nibble, r + R/2 in the high) */
} w4a16_weight_layout;
#define W4A16_WEIGHT_LAYOUT_COUNT 13
/* Or-ed into the weight layout code the runtime entry points take: the stored 4-bit values are two's-
 * complement signed s, W = s * scale, i.e. code = s XOR 8 with zero point 8 (the op's signed_codes). */
#define W4A16_WEIGHT_SIGNED_CODES 16

/* How the scales operand stores scale(g, n), g = k / group_size. */
typedef enum w4a16_scales_layout {
  W4A16_SCALES_G_N = 0, /* (K/G, N) */
  W4A16_SCALES_N_G = 1  /* (N, K/G) */
} w4a16_scales_layout;
#define W4A16_SCALES_LAYOUT_COUNT 2

/* How a zero-point tensor stores z(g, n) (the op's optional zero_points operand; without it z is the
 * constant W4A16_ZERO_POINT). The value used is the element (or nibble) plus zero_point_offset (GPTQ's
 * v1 format stores z - 1 and adds 1 back). */
typedef enum w4a16_zero_point_layout {
  W4A16_ZP_G_N = 0,           /* (K/G, N), integer or float */
  W4A16_ZP_N_G = 1,           /* (N, K/G) */
  W4A16_ZP_PACKED_G_N8 = 2,   /* (K/G, N/8) i32: nibble n % 8 of word [g, n/8], least significant first */
  W4A16_ZP_PACKED_G_N8_AWQ = 3, /* likewise, AWQ's order: nibble i holds column 8j + {0,2,4,6,1,3,5,7}[i] */
  W4A16_ZP_PACKED_N_G2 = 4,     /* (N, ceil(K/G / 2)) i8: nibble g % 2 of byte [n, g/2], low first (ONNX
                                   Runtime's MatMulNBits) */
  W4A16_ZP_PACKED_N8_G = 5      /* (N/8, K/G) i32: nibble n % 8 of word [n/8, g], least significant first
                                   (compressed-tensors' pack-quantized zero points, packed along dim 0) */
} w4a16_zero_point_layout;
#define W4A16_ZP_LAYOUT_COUNT 6
/* Or-ed into the zero-point layout code the runtime entry points take: the tensor holds additive offsets
 * m, W = (code - zero_point) * scale + m (the op's zero_points_are_offsets; GGUF Q4_1, torchao). */
#define W4A16_ZP_OFFSETS 16
/* Or-ed into it too: the integer zero point is (stored + zero_point_offset) mod 16 (the op's
 * zero_point_offset_wraps; AutoGPTQ's v1 torch path masks z - 1 + 1 to 4 bits, so a stored 15 is 0). */
#define W4A16_ZP_WRAPS 32
/* Or-ed in beside W4A16_ZP_OFFSETS: the offsets are subtracted, W = (code - zero_point) * scale - m (the op's
 * offsets_subtracted; GGUF's K-quants subtract their minimum, optimum-quanto its float shift). */
#define W4A16_ZP_SUBTRACTED 64
/* Or-ed in beside W4A16_WEIGHT_SIGNED_CODES: the integer zero points are two's-complement 4-bit values s_z (the low
 * nibble of the element, or the nibble a packed layout names), z = s_z + 8, so that W = (s - s_z) * scale for signed
 * codes s (the op's zero_points_signed; IREE's signed i4 weights with signed i4 zero points). */
#define W4A16_ZP_SIGNED 128
#define W4A16_ZP_FLAGS (W4A16_ZP_OFFSETS | W4A16_ZP_WRAPS | W4A16_ZP_SUBTRACTED | W4A16_ZP_SIGNED)
/* Nibble of a word packed along N that holds column n (c = n % 8): sequential, or in AWQ's order. */
static inline int w4a16_nibble_of_column(int awqOrder, int c) {
  static const int awq[8] = {0, 4, 1, 5, 2, 6, 3, 7}; /* inverse of {0, 2, 4, 6, 1, 3, 5, 7} */
  return awqOrder ? awq[c & 7] : c & 7;
}

/* Where a weight layout keeps code(k, n): the weight operand as a row-major (rows, cols) tensor of
 * elements that are i32 words (8 codes), bytes holding 2 codes, or one code each (i4 or i8). */
typedef enum { W4A16_CODES_IN_WORDS, W4A16_CODES_IN_BYTE_PAIRS, W4A16_CODES_ONE_PER_ELEMENT } w4a16_code_container;
static inline w4a16_code_container w4a16_weight_container(int layout) {
  if (layout == W4A16_WEIGHT_PACKED_K8_N || layout == W4A16_WEIGHT_PACKED_K_N8 ||
      layout == W4A16_WEIGHT_PACKED_K_N8_AWQ || layout == W4A16_WEIGHT_PACKED_N_K8)
    return W4A16_CODES_IN_WORDS;
  if (layout == W4A16_WEIGHT_PACKED_N_K2 || layout == W4A16_WEIGHT_PACKED_K2_N || layout == W4A16_WEIGHT_Q4_0_BLOCKS ||
      layout == W4A16_WEIGHT_PACKED_N_K2_HI || layout == W4A16_WEIGHT_PACKED_K2_N_HI || layout == W4A16_WEIGHT_HALVES_N_K ||
      layout == W4A16_WEIGHT_HALVES_N_K_LO)
    return W4A16_CODES_IN_BYTE_PAIRS;
  return W4A16_CODES_ONE_PER_ELEMENT;
}
static inline void w4a16_weight_shape(int layout, int64_t K, int64_t N, int64_t *rows, int64_t *cols) {
  switch (layout) {
  case W4A16_WEIGHT_PACKED_K8_N: *rows = K / 8, *cols = N; return;
  case W4A16_WEIGHT_PACKED_K_N8:
  case W4A16_WEIGHT_PACKED_K_N8_AWQ: *rows = K, *cols = N / 8; return;
  case W4A16_WEIGHT_N_K: *rows = N, *cols = K; return;
  case W4A16_WEIGHT_PACKED_N_K2:
  case W4A16_WEIGHT_PACKED_N_K2_HI:
  case W4A16_WEIGHT_Q4_0_BLOCKS: *rows = N, *cols = K / 2; return;
  case W4A16_WEIGHT_PACKED_K2_N:
  case W4A16_WEIGHT_PACKED_K2_N_HI: *rows = K / 2, *cols = N; return;
  case W4A16_WEIGHT_HALVES_N_K:
  case W4A16_WEIGHT_HALVES_N_K_LO: *rows = N / 2, *cols = K; return;
  case W4A16_WEIGHT_PACKED_N_K8: *rows = N, *cols = K / 8; return;
  default: *rows = K, *cols = N; return; /* W4A16_WEIGHT_K_N */
  }
}
/* The linear index (row-major over that shape) of the element holding code(k, n), and in *nibble which of
 * its nibbles (0: bits 0-3). */
static inline int64_t w4a16_code_element(int layout, int64_t k, int64_t n, int64_t K, int64_t N, int *nibble) {
  *nibble = 0;
  switch (layout) {
  case W4A16_WEIGHT_PACKED_K8_N: *nibble = (int)(k % 8); return (k / 8) * N + n;
  case W4A16_WEIGHT_PACKED_K_N8:
  case W4A16_WEIGHT_PACKED_K_N8_AWQ:
    *nibble = w4a16_nibble_of_column(layout == W4A16_WEIGHT_PACKED_K_N8_AWQ, (int)(n % 8));
    return k * (N / 8) + n / 8;
  case W4A16_WEIGHT_N_K: return n * K + k;
  case W4A16_WEIGHT_PACKED_N_K2: *nibble = (int)(k % 2); return n * (K / 2) + k / 2;
  case W4A16_WEIGHT_PACKED_K2_N: *nibble = (int)(k % 2); return (k / 2) * N + n;
  case W4A16_WEIGHT_PACKED_N_K2_HI: *nibble = 1 - (int)(k % 2); return n * (K / 2) + k / 2;
  case W4A16_WEIGHT_PACKED_K2_N_HI: *nibble = 1 - (int)(k % 2); return (k / 2) * N + n;
  case W4A16_WEIGHT_Q4_0_BLOCKS: *nibble = (int)(k % 32 / 16); return n * (K / 2) + (k / 32) * 16 + k % 16;
  case W4A16_WEIGHT_HALVES_N_K: *nibble = n < N / 2; return (n % (N / 2)) * K + k;
  case W4A16_WEIGHT_HALVES_N_K_LO: *nibble = n >= N / 2; return (n % (N / 2)) * K + k;
  case W4A16_WEIGHT_PACKED_N_K8: *nibble = (int)(k % 8); return n * (K / 8) + k / 8;
  default: return k * N + n; /* W4A16_WEIGHT_K_N */
  }
}
static inline int w4a16_zp_nibble(int layout, int c) {
  return w4a16_nibble_of_column(layout == W4A16_ZP_PACKED_G_N8_AWQ, c);
}
/* Zero-point layouts (flags ignored): whether rows are columns n (N-major), the bits of the element that packs
 * nibbles (32: i32 words, 8: bytes; 0: one zero point per element, any type), the tensor's (rows, cols) for
 * `groups` = K/G and N, and the linear index of the element holding z(g, n) with, in *nibble, which of its
 * nibbles (-1: the whole element). */
static inline int w4a16_zp_by_column(int layout) {
  return layout == W4A16_ZP_N_G || layout == W4A16_ZP_PACKED_N_G2 || layout == W4A16_ZP_PACKED_N8_G;
}
static inline int w4a16_zp_container_bits(int layout) {
  return layout == W4A16_ZP_PACKED_G_N8 || layout == W4A16_ZP_PACKED_G_N8_AWQ || layout == W4A16_ZP_PACKED_N8_G ? 32
         : layout == W4A16_ZP_PACKED_N_G2                                     ? 8
                                                                              : 0;
}
/* Element (row-major index) of the scale of group g and column n (groups = K / G). */
static inline int64_t w4a16_scale_element(int layout, int64_t g, int64_t n, int64_t groups, int64_t N) {
  return layout == W4A16_SCALES_N_G ? n * groups + g : g * N + n;
}
static inline void w4a16_zp_shape(int layout, int64_t groups, int64_t N, int64_t *rows, int64_t *cols) {
  switch (layout) {
  case W4A16_ZP_N_G: *rows = N, *cols = groups; return;
  case W4A16_ZP_PACKED_G_N8:
  case W4A16_ZP_PACKED_G_N8_AWQ: *rows = groups, *cols = N / 8; return;
  case W4A16_ZP_PACKED_N_G2: *rows = N, *cols = (groups + 1) / 2; return;
  case W4A16_ZP_PACKED_N8_G: *rows = N / 8, *cols = groups; return;
  default: *rows = groups, *cols = N; return; /* W4A16_ZP_G_N */
  }
}
static inline int64_t w4a16_zp_element(int layout, int64_t g, int64_t n, int64_t groups, int64_t N, int *nibble) {
  *nibble = -1;
  switch (layout) {
  case W4A16_ZP_N_G: return n * groups + g;
  case W4A16_ZP_PACKED_G_N8:
  case W4A16_ZP_PACKED_G_N8_AWQ: *nibble = w4a16_zp_nibble(layout, (int)(n % 8)); return g * (N / 8) + n / 8;
  case W4A16_ZP_PACKED_N_G2: *nibble = (int)(g % 2); return n * ((groups + 1) / 2) + g / 2;
  case W4A16_ZP_PACKED_N8_G: *nibble = (int)(n % 8); return (n / 8) * groups + g;
  default: return g * N + n; /* W4A16_ZP_G_N */
  }
}

/* Element type of x, bias, residual and out (one type per op), and independently of the scales; the
 * kernels accumulate in f32. */
typedef enum w4a16_element_type { W4A16_ELEM_F16 = 0, W4A16_ELEM_BF16 = 1 } w4a16_element_type;

/* --- group size ------------------------------------------------------------------------------------ */
/* K per scale group: 32, 64 or 128 (GGUF blocks are 32, GPTQ checkpoints use 32, 64 and 128). Both
 * backends run all three (see w4a16_plan_create in runtime.h). */
#define W4A16_DEFAULT_GROUP_SIZE 128
#define W4A16_MIN_GROUP_SIZE 32
static inline int w4a16_group_size_supported(int64_t group_size) {
  return group_size == 32 || group_size == 64 || group_size == 128;
}

/* --- shapes the runtime can run -------------------------------------------------------------------- */
#define W4A16_N_MULTIPLE 8                   /* the kernels move 8 output columns per vector */
#define W4A16_MAX_DIM ((int64_t)1 << 30)     /* K, N and M: keeps every per-row index in int32 */
#define W4A16_MAX_M ((int64_t)64 * 65535)    /* CUDA: 64-token chunks on grid.z */
#define W4A16_MAX_MERGED 4                   /* sibling weights one w4a16.merged_matmul (one launch) may hold */

typedef enum w4a16_shape_rule {
  W4A16_SHAPE_OK = 0,
  W4A16_SHAPE_GROUP_SIZE,     /* group size not supported */
  W4A16_SHAPE_K_NOT_GROUPED,  /* K not a positive multiple of the group size */
  W4A16_SHAPE_N_MULTIPLE,     /* N not a positive multiple of 8 */
  W4A16_SHAPE_TOO_LARGE       /* K or N above W4A16_MAX_DIM */
} w4a16_shape_rule;

/* The first rule (K, N, group_size) breaks, or W4A16_SHAPE_OK. M is checked per call. */
static inline w4a16_shape_rule w4a16_check_shape(int64_t K, int64_t N, int64_t group_size) {
  if (!w4a16_group_size_supported(group_size)) return W4A16_SHAPE_GROUP_SIZE;
  if (K <= 0 || K % group_size != 0) return W4A16_SHAPE_K_NOT_GROUPED;
  if (N <= 0 || N % W4A16_N_MULTIPLE != 0) return W4A16_SHAPE_N_MULTIPLE;
  if (K > W4A16_MAX_DIM || N > W4A16_MAX_DIM) return W4A16_SHAPE_TOO_LARGE;
  return W4A16_SHAPE_OK;
}

/* The rule in words, for diagnostics ("not fused: N = 7: N must be a positive multiple of 8"). */
static inline const char *w4a16_shape_rule_text(w4a16_shape_rule rule) {
  switch (rule) {
  case W4A16_SHAPE_OK: return "ok";
  case W4A16_SHAPE_GROUP_SIZE: return "the group size must be 32, 64 or 128";
  case W4A16_SHAPE_K_NOT_GROUPED: return "K must be a positive multiple of the group size";
  case W4A16_SHAPE_N_MULTIPLE: return "N must be a positive multiple of 8";
  case W4A16_SHAPE_TOO_LARGE: return "K and N must be at most 2^30";
  }
  return "unknown shape rule";
}

/* --- IR attribute strings <-> enums: the one table ------------------------------------------------- */
static inline const char *w4a16_activation_name(int act) {
  static const char *const names[W4A16_ACT_COUNT] = {"none", "silu", "gelu_tanh"};
  return act >= 0 && act < W4A16_ACT_COUNT ? names[act] : NULL;
}
static inline const char *w4a16_weight_layout_name(int layout) {
  static const char *const names[W4A16_WEIGHT_LAYOUT_COUNT] = {"packed_k8_n", "k_n",         "n_k",
                                                               "packed_k_n8", "packed_k_n8_awq", "packed_n_k2",
                                                               "packed_k2_n", "q4_0_blocks",   "packed_n_k2_hi",
                                                               "packed_k2_n_hi", "halves_n_k",  "packed_n_k8",
                                                               "halves_n_k_lo"};
  return layout >= 0 && layout < W4A16_WEIGHT_LAYOUT_COUNT ? names[layout] : NULL;
}
static inline const char *w4a16_scales_layout_name(int layout) {
  static const char *const names[W4A16_SCALES_LAYOUT_COUNT] = {"g_n", "n_g"};
  return layout >= 0 && layout < W4A16_SCALES_LAYOUT_COUNT ? names[layout] : NULL;
}

static inline const char *w4a16_zero_point_layout_name(int layout) {
  static const char *const names[W4A16_ZP_LAYOUT_COUNT] = {"g_n", "n_g", "packed_g_n8", "packed_g_n8_awq",
                                                            "packed_n_g2", "packed_n8_g"};
  return layout >= 0 && layout < W4A16_ZP_LAYOUT_COUNT ? names[layout] : NULL;
}

/* The value whose name(value) is the `len` bytes at `s` (not NUL-terminated), or -1. */
static inline int w4a16_value_of(const char *(*name)(int), const char *s, size_t len) {
  for (int v = 0; name(v); ++v)
    if (strlen(name(v)) == len && memcmp(name(v), s, len) == 0) return v;
  return -1;
}

#ifdef __cplusplus
}
#endif
#endif
