/* The runtime's test-only interface: what tests and benchmarks use to reach configurations that the
 * runtime would not pick by itself. Not installed and not part of the public ABI; link the target
 * w4a16_testing to include it.
 *
 * Environment overrides, read by the CUDA backend at w4a16_plan_create (unset = the runtime's choice):
 *   W4A16_FORCE_KERNEL=v1   kernel v1 on sm_90 too (v3 is the default there)
 *   W4A16_FORCE_KERNEL=v3   sm_90: kernel v3 only, never v1's decode variant (K sliced inside the CTA, M <= 8)
 *   W4A16_FORCE_KERNEL=sliced  sm_90: v1's decode variant at every M <= 8 where its grid fits in one wave
 *                           (by default only where v3 would split K; any W4A16_FORCE_WG/_SPLITS/_GLOBAL pins v3)
 *   W4A16_FORCE_SPLITS=s    split K over s CTAs (1..8, at most K/128)
 *   W4A16_FORCE_WG=2|4      kernel v3: warpgroups per CTA
 *   W4A16_FORCE_GLOBAL=1|0  kernel v3: reduce split-K through the plan's workspace (1) or clusters (0)
 *   W4A16_NO_PDL=1          kernels v3 and v1's decode variant: launch without programmatic dependent launch
 *   W4A16_GATHER_LAUNCH=1   act-order: gather x in a launch of its own, never in the GEMM
 *   W4A16_GATHER_SLICES=P   act-order gather launch: P CTAs per row at every M (0: one 1024-thread CTA per row)
 *   W4A16_GATHER_ROWS_FROM=R   act-order gather launch: x's rows staged in shared memory from R rows (default 2) */
#ifndef W4A16_TESTING_H
#define W4A16_TESTING_H

#ifdef __cplusplus
extern "C" {
#endif

/* Compiled code's runtime calls apply `activation` (a w4a16_activation) instead of the one compiled in;
 * -1 honours the call again. Exists for the test that proves the end-to-end comparison can fail. */
void w4a16_testing_force_activation(int activation);

#ifdef __cplusplus
}
#endif
#endif
