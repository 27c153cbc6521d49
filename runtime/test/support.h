/* Test support shared by the CPU tests (ctest) and the GPU test (run-gpu.sh): data generators
 * including docs/contract.md §1's adversarial data, the f64 oracle, the docs/contract.md §1 comparison, and a case runner
 * that drives either backend through the public API. */
#ifndef W4A16_TEST_SUPPORT_H
#define W4A16_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "w4a16/runtime.h"

typedef enum {
  W4T_RANDOM = 0,      /* codes uniform 0..15, small positive scales, |x| <= 2 */
  W4T_CODES0,          /* every code 0 (value -8), |x| up to 8 with random signs */
  W4T_CODES15_LARGE,   /* every code 15 (+7), x in [0, 8], scales as large as keeps out finite */
  W4T_ALTERNATING,     /* codes 0/15 alternating along k and n, x alternating sign, |x| in [4, 8] */
  W4T_OPPOSITE_RES,    /* random weights, residual = -u * act(...) with u in [0.5, 1.5] (cancellation) */
  W4T_KIND_COUNT
} w4t_kind;
const char *w4t_kind_name(w4t_kind k);

uint64_t w4t_rand(uint64_t *state);
double w4t_uniform(uint64_t *state, double lo, double hi);

/* Zero points of the generated weight (w4a16_plan_create_zp): none (the constant 8), random integers
 * 0..15, or the extremes 0 and 15 (alternating by group and column); then the forms the CUDA kernels run
 * as affine (issue #17): fractional zero points in [0, 15] (HQQ), zero points 16 and random 0..15
 * alternating by group and column (GPTQ's v1 format unmasked), and offsets W = code * s + m (zero points
 * 0; GGUF Q4_1, torchao). With zero points or offsets the scales are halved, so that |W| <= 16 s keeps each
 * kind's accumulator bound (see w4t_make_weights). */
typedef enum {
  W4T_ZP_NONE = 0, W4T_ZP_RANDOM, W4T_ZP_EXTREME, W4T_ZP_COUNT,
  W4T_ZP_FRACTIONAL = W4T_ZP_COUNT, W4T_ZP_SIXTEEN, W4T_OFFSETS, W4T_FORM_COUNT
} w4t_zp;
const char *w4t_zp_name(w4t_zp z);

/* The form of a case: zero points (or offsets), group size, element types of x/bias/residual/out (io)
 * and of the scales. */
typedef struct {
  w4t_zp zp;
  int64_t group;  /* 32, 64 or 128 */
  w4a16_element_type io, scales;
} w4t_form;

/* Host-side problem data. */
typedef struct {
  int64_t K, N, group;
  int32_t *qweight;     /* (K/8, N) */
  uint16_t *scales;     /* (K/group, N), of scales_type */
  uint16_t *zero_points;/* (K/group, N) f16, or NULL: 8 */
  uint16_t *offsets;    /* (K/group, N) f16, or NULL: 0 */
  w4a16_element_type scales_type;
} w4t_weights;

/* 16-bit encodings (f16 or bf16 bits) of a value, rounded to nearest even, and back. */
uint16_t w4t_encode(double v, w4a16_element_type type);
double w4t_decode(uint16_t bits, w4a16_element_type type);
/* Whether exactly row nan_row of the (M, cols) result out is NaN, every element of it, and no other element is. */
int w4t_only_row_nan(const uint16_t *out, int64_t M, int64_t cols, int64_t nan_row, w4a16_element_type type);

void w4t_make_weights(w4t_weights *w, int64_t K, int64_t N, w4t_kind kind, uint64_t seed);
void w4t_make_weights_zp(w4t_weights *w, int64_t K, int64_t N, w4t_kind kind, w4t_zp zp, uint64_t seed);
void w4t_make_weights_form(w4t_weights *w, int64_t K, int64_t N, w4t_kind kind, const w4t_form *form,
                           uint64_t seed);
void w4t_free_weights(w4t_weights *w);
/* The GLU plan's weight (w4a16_plan_run_outputs with glu, runtime.h) from a gate and an up weight of the same
 * K, N = Nh (Nh % 4 == 0), group size and form: glu is (K, 2 Nh), its column 8j + e gate's column 4j + e and column
 * 8j + 4 + e up's, e = 0..3, in qweight, scales, zero points and offsets alike (allocated; w4t_free_weights). */
void w4t_glu_interleave(const w4t_weights *gate, const w4t_weights *up, w4t_weights *glu);
/* The same interleave of two vectors of Nh 16-bit values each (e.g. the biases) into 2 Nh values. */
void w4t_glu_interleave_vec(const uint16_t *gate, const uint16_t *up, int64_t Nh, uint16_t *glu);
void w4t_make_x(uint16_t *x, int64_t M, int64_t K, w4t_kind kind, uint64_t seed);
void w4t_make_x_typed(uint16_t *x, int64_t M, int64_t K, w4t_kind kind, w4a16_element_type type, uint64_t seed);
void w4t_make_vec(uint16_t *v, int64_t n, double lo, double hi, uint64_t seed);
void w4t_make_vec_typed(uint16_t *v, int64_t n, double lo, double hi, w4a16_element_type type, uint64_t seed);

/* acc[m,n] = sum_k x[m,k] * ((code[k,n]-z[g,n]) * scale[g,n] + m[g,n]) in f64, g = k / group (z = 8
 * without zero points, m = 0 without offsets). */
void w4t_oracle_acc(const w4t_weights *w, const uint16_t *x, int64_t M, double *acc);
double w4t_oracle_act(double v, w4a16_activation act);
/* ref = act(acc + bias) + residual (bias/residual may be NULL), all in f64. */
void w4t_oracle_out(const double *acc, int64_t M, int64_t N, const uint16_t *bias, const uint16_t *residual,
                    w4a16_activation act, double *ref);

/* Act-order (w4a16_plan_create_act_order): g_idx[k] = pi[k] / group with pi a random permutation of 0 .. K-1, so
 * each group holds `group` rows scattered over K (as GPTQ's desc_act assigns groups in the order of its sort). */
void w4t_make_g_idx(int32_t *g_idx, int64_t K, int64_t group, uint64_t seed);
/* acc[m,n] = sum_k x[m,k] W[k,n] in f64, x of type io, row k in group g = g_idx[k] (g_idx NULL: k / group):
 * W[k,n] = (code[k,n] - z[g,n]) * scale[g,n] + m[g,n] straight from the formula, row by row, no permutation;
 * abs_acc (or NULL) gets sum_k |x W| for the bf16 bound. */
void w4t_oracle_acc_gidx(const w4t_weights *w, const int32_t *g_idx, const uint16_t *x, w4a16_element_type io,
                         int64_t M, double *acc, double *abs_acc);
/* The act-order plan's design, done by the test its own way: perm lists each group's rows in ascending k, group
 * after group (a stable sort by g_idx, found by scanning K once per group), and sorted (K/8, N) holds the codes of
 * qweight's row perm[i] as row i. A plain plan of sorted run on x[:, perm] must give the act-order plan's bits. */
void w4t_sort_by_g_idx(const int32_t *qweight, const int32_t *g_idx, int64_t K, int64_t N, int64_t group,
                       int32_t *perm, int32_t *sorted);
/* w4t_oracle_out with bias and residual of type io. */
void w4t_oracle_out_typed(const double *acc, int64_t M, int64_t N, const uint16_t *bias, const uint16_t *residual,
                          w4a16_activation act, w4a16_element_type io, double *ref);

typedef struct {
  double rel_norm;      /* ||out - ref|| / ||ref|| */
  double max_elem_ratio;/* max |out - ref| / (1e-2 (1 + |ref|)); <= 1 passes */
  int64_t bad_elems;    /* elements over the per-element bound */
  int64_t nonfinite;    /* NaN/Inf in out */
  int64_t first_bad;    /* index of the first failing element, -1 if none */
  int pass;
} w4t_cmp;
/* docs/contract.md §1: rel-norm <= 2e-3, every element within 1e-2 (1 + |ref|), no NaN/Inf. */
w4t_cmp w4t_compare(const uint16_t *out, const double *ref, int64_t count);
/* The same for io type io: bf16 is judged by docs/contract.md §1's bf16 tolerance (see w4t_run_case_form), with
 * abs_acc from w4t_oracle_acc_gidx and the residual (or NULL) of the call. */
w4t_cmp w4t_compare_typed(const uint16_t *out, const double *ref, int64_t count, w4a16_element_type io,
                          const double *abs_acc, const uint16_t *residual);

uint64_t w4t_hash(const void *data, size_t bytes);

/* How a backend's buffers are made and read; the CPU one uses host memory. */
typedef struct {
  w4a16_backend backend;
  void *(*alloc)(size_t bytes);
  void (*release)(void *p);
  void (*put)(void *dst, const void *host, size_t bytes);
  void (*get)(void *host, const void *src, size_t bytes);
  void (*poison)(void *dst, size_t bytes); /* fill with 0xFF bytes: f16 NaN everywhere */
  void (*sync)(void *stream);
  void *stream;
} w4t_ops;
extern const w4t_ops w4t_cpu_ops;

typedef struct {
  int64_t runs, failures;
  double worst_rel_norm, worst_elem_ratio;
} w4t_stats;

/* One (shape, M, data kind) case: builds a plan (freeing the uploaded weight right after, as the API
 * allows), then for every activation x bias present/absent x residual present/absent poisons out,
 * runs, compares against the oracle, runs again and checks bitwise equality, and checks that no
 * input changed. Prints one line per failure. Returns the number of failures. */
int64_t w4t_run_case(const w4t_ops *ops, int64_t K, int64_t N, int64_t M, w4t_kind kind, uint64_t seed,
                     w4t_stats *stats, int verbose);
/* The same with zero points of the given form (plan through w4a16_plan_create_zp). */
int64_t w4t_run_case_zp(const w4t_ops *ops, int64_t K, int64_t N, int64_t M, w4t_kind kind, w4t_zp zp,
                        uint64_t seed, w4t_stats *stats, int verbose);
/* The same for any form (plan through w4a16_plan_create_typed). A bf16 io type is judged by
 * docs/contract.md §1's bf16 tolerance: relative L2 <= 1.6e-2, every element within
 * 2^-8 (|ref| + S + |residual|) + 1e-3, S = sum_k |x W|. */
int64_t w4t_run_case_form(const w4t_ops *ops, int64_t K, int64_t N, int64_t M, w4t_kind kind, const w4t_form *form,
                          uint64_t seed, w4t_stats *stats, int verbose);

#endif
