/* w4a16_gpu_test: the configuration the host chooses for plain and affine plans (run by gpu_test, and alone by
 * gpu_test --chooser). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"
#include "w4a16/runtime.h"

/* ---- the configuration the host chooses (docs/kernel.md, "How the host chooses the configuration") ----
 * On sm_90 a plain plan of the LLaMA-7B projection shapes runs whole-SM CTAs (W = 4 or 3) up to M = 32, and splits
 * K through the workspace, not clusters, wherever the workspace takes a split: in a model each call follows
 * another kernel, and a kernel of half-SM CTAs (W = 2) behind one of whole-SM CTAs, or clusters, start late behind
 * it (bench/RESULTS.md sessions 20-21). 4096x12288 and 4096x22016 (qkv and gate/up) take W = 3 there: 128 and 115
 * CTAs of 192 columns instead of 96 and 86 of 256 on 132 SMs (session 33: 6-12 % faster). From 17 tokens a one-wave
 * cluster replaces the workspace pick where it has the same width and as many splits (sessions 34-35): checked
 * against a plan forced to the workspace (W4A16_FORCE_GLOBAL=1), and taken by 4096x12288 at M = 24, 32 and by
 * 4096x4096 at 32; up to 48 tokens since session 53, taken by 4096x11008 and 4096x12288 at 48 (W = 4). From 48
 * tokens the cost model's mix of widths and of reductions is faster, in the layer too: 4096x4096 and 11008x4096
 * take W = 2 there, and 4096x4096 a cluster (session 27: 18-20 % faster than the workspace at M = 48-64). The v3
 * rule is checked with W4A16_FORCE_KERNEL=v3. By default the N = 4096 shapes, where that v3 configuration splits K,
 * run kernel v1's decode variant instead (K sliced inside the CTA) at M <= 2, and up to 8 tokens where K = 4096
 * (session 31); the wider shapes keep v3's configuration. */
/* The integer after key in a plan description ("W=", "splits="), -1 if absent. */
static int desc_int(const char *desc, const char *key) {
  const char *at = strstr(desc, key);
  return at ? atoi(at + strlen(key)) : -1;
}
/* The cluster rule's replacement: desc3 a cluster of the width of descw (a workspace pick), with at least its
   splits. */
static int replaces_workspace_pick(const char *desc3, const char *descw) {
  return strstr(desc3, "cluster") && strstr(descw, "workspace") && desc_int(desc3, " W=") == desc_int(descw, " W=") &&
         desc_int(desc3, "splits=") >= desc_int(descw, "splits=");
}

void test_chooser(int sm90_132) {
  static const int64_t shapes[][2] = {{4096, 4096}, {4096, 11008}, {11008, 4096}, {4096, 12288}, {4096, 22016}};
  static const int64_t Ms[] = {1, 2, 3, 8, 16, 24, 32, 48, 64};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
    const int64_t K = shapes[i][0], N = shapes[i][1];
    const int wide_from_48 = N != 4096;  // the N = 4096 shapes take W = 2 from 48 tokens
    /* K = 4096 gives 4096x11008 splits of 16 groups: W = 3 with 2 splits up to 24 tokens on 132 SMs (session 52;
       a cluster from 17 tokens) */
    const int short_range = sm90_132 && K == 4096 && N == 11008;
    const int cluster_at_48 = sm90_132 && K == 4096 && (N == 11008 || N == 12288);
    void *dq, *ds;
    w4a16_plan *plan = make_plan(K, N, 300 + i, &dq, &ds), *v3 = NULL, *ws = NULL;
    set_kernel("v3");
    if (plan) w4a16_plan_create(W4A16_BACKEND_CUDA, dq, ds, K, N, 128, &v3);
    set_global(1); /* the workspace wherever it takes a split: what the cluster rule replaces */
    if (plan) w4a16_plan_create(W4A16_BACKEND_CUDA, dq, ds, K, N, 128, &ws);
    set_global(0), set_kernel(NULL);
    int ok = plan && v3 && ws, sliced = 0;
    char desc[256] = "", desc3[256] = "", descw[256] = "", got[800] = "";
    for (size_t m = 0; ok && m < sizeof Ms / sizeof Ms[0]; ++m) {
      w4a16_plan_describe(v3, Ms[m], desc3, sizeof desc3);
      w4a16_plan_describe(plan, Ms[m], desc, sizeof desc);
      w4a16_plan_describe(ws, Ms[m], descw, sizeof descw);
      const int cluster = strstr(desc3, "cluster") != NULL;
      const int three = N == 12288 || N == 22016;  // W = 3 up to 32 tokens
      const int short_w3 = short_range && Ms[m] <= 24;
      if (Ms[m] <= 32) {
        /* a cluster from 17 tokens, of the workspace pick's width and with as many splits; else the workspace pick */
        const int expect_cluster = (N == 12288 && Ms[m] > 16) || (N == 4096 && K == 4096 && Ms[m] == 32);
        ok = cluster ? Ms[m] > 16 && replaces_workspace_pick(desc3, descw) : !strcmp(desc3, descw) && !expect_cluster;
        ok = ok && (three ? strstr(desc3, " W=3 ") != NULL : strstr(desc3, " W=4 ") || strstr(desc3, " W=3 "));
        ok = ok && (!short_w3 || (strstr(desc3, " W=3 ") && desc_int(desc3, "splits=") == 2));
      } else {
        ok = strstr(desc3, wide_from_48 ? " W=4 " : " W=2 ") && (K != 4096 || N != 4096 || cluster);
        /* the cluster rule reaches 48 tokens (session 53): these two take the workspace pick's W = 4 split as a
           cluster */
        const int rule_48 = cluster_at_48 && Ms[m] == 48;
        ok = ok && (!rule_48 || (replaces_workspace_pick(desc3, descw) &&
                                 desc_int(desc3, "splits=") == desc_int(descw, "splits=")));
      }
      const int expect_sliced = N == 4096 && (Ms[m] <= 2 || (Ms[m] <= 8 && K <= 4096));
      if (ok && expect_sliced) ok = strstr(desc3, "split-K") && strstr(desc, "k-slices"), sliced = 1;
      else if (ok) ok = !strcmp(desc, desc3);
      if (!ok) snprintf(got, sizeof got, "%s (v3: %s; the workspace's: %s)", desc, desc3, descw);
    }
    char what[1400];
    snprintf(what, sizeof what,
             "chooser: %lldx%lld plain plan, v3 W = %s at M = 1..32 (a cluster only from 17 tokens, as wide and with as many "
             "splits as the workspace's pick), W = %d at 48, 64%s; %s%s%s%s",
             (long long)K, (long long)N,
             N == 12288 || N == 22016 ? "3"
             : short_range ? "3 with 2 splits up to 24 tokens, 4 or 3 beyond"
                           : "4 or 3",
             wide_from_48 ? 4 : 2,
             K == 4096 && N == 4096 ? " (a cluster)" : "",
             cluster_at_48 ? "a cluster at 48 with the workspace pick's splits; " : "",
             !sliced ? "v3 at every M" : K <= 4096 ? "v1 sliced at M = 1..8 (v3 splits K there)"
                                                   : "v1 sliced at M = 1, 2 (v3 splits K there), v3 at 3 and 8",
             ok ? "" : "; got: ", ok ? "" : got);
    check(ok, what);
    w4a16_plan_destroy(plan);
    w4a16_plan_destroy(v3);
    w4a16_plan_destroy(ws);
    g_release(dq), g_release(ds);
  }
}

/* Affine plans (offsets) of groups of 128, 64 and 32 take kernel v1's decode variant exactly where the plain plan of
 * the same shape does (choose_slices' one rule since session 40: the variant computes every affine form with exact
 * products plus o * the sums of x per scale group). Offsets make a plan affine whatever their values. */
void test_affine_chooser(void) {
  static const int64_t shapes[][2] = {{4096, 4096}, {11008, 4096}, {14336, 4096}, {4096, 11008}};
  static const int64_t Ms[] = {1, 2, 3, 8, 16};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
    const int64_t K = shapes[i][0], N = shapes[i][1];
    void *dq, *ds;
    w4a16_plan *plain = make_plan(K, N, 400 + i, &dq, &ds);
    for (int64_t G = 128; G >= 32; G /= 2) {
      const size_t meta = (size_t)(K / G) * N;
      uint16_t *h = malloc(meta * 2);
      for (size_t e = 0; e < meta; ++e) h[e] = 0x2c00; /* 1/16: a scale and an offset */
      void *dscales = g_alloc(meta * 2), *doffsets = g_alloc(meta * 2);
      g_put(dscales, h, meta * 2), g_put(doffsets, h, meta * 2);
      free(h);
      w4a16_plan *affine = NULL;
      int ok = plain && w4a16_plan_create_offsets(W4A16_BACKEND_CUDA, dq, dscales, NULL, doffsets, K, N, G, &affine) ==
                            W4A16_OK;
      char got[600] = "", desc[256], descp[256];
      for (size_t m = 0; ok && m < sizeof Ms / sizeof Ms[0]; ++m) {
        w4a16_plan_describe(plain, Ms[m], descp, sizeof descp);
        w4a16_plan_describe(affine, Ms[m], desc, sizeof desc);
        ok = (strstr(desc, "k-slices") != NULL) == (strstr(descp, "k-slices") != NULL);
        if (!ok)
          snprintf(got, sizeof got, "; at M = %lld got: %s (plain: %s)", (long long)Ms[m], desc, descp);
      }
      char what[900];
      snprintf(what, sizeof what, "chooser: %lldx%lld offsets plan, G = %lld, takes the decode variant where the plain "
               "plan does (M = 1, 2, 3, 8, 16)%s", (long long)K, (long long)N, (long long)G, got);
      check(ok, what);
      w4a16_plan_destroy(affine);
      g_release(dscales), g_release(doffsets);
    }
    w4a16_plan_destroy(plain);
    g_release(dq), g_release(ds);
  }
}
