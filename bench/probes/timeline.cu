// Where does a call's time go between its CTAs? (issue #5)
//
// The benchmark rows fit t = a + b * bytes with a ~9 us intercept (bench/RESULTS.md, session 6): a
// fixed cost per call as large as a quarter of the big shapes' time. This probe runs back-to-back
// calls through the runtime (L2-cold: rotating plans, as bench.c) built with -DW4A16_TIMELINE, whose
// kernel v3 records per CTA the global timer at eight points from entry to exit (gemm_v3.cuh,
// TimelineStamp). Per call, relative to its first CTA's
// entry, it prints min / median / max of each stamp, averaged over the steady-state calls, and the
// period between calls; with a CSV path, every CTA of one call.
//
//   cmake -S . -B build-tl -G Ninja -DW4A16_RUNTIME_ONLY=ON -DCMAKE_CUDA_FLAGS=-DW4A16_TIMELINE ... &&
//   ninja -C build-tl w4a16_runtime
//   nvcc -O2 -std=c++17 -DW4A16_TIMELINE -Iruntime/include -o build-tl/bin/timeline bench/probes/timeline.cu \
//        build-tl/lib/libw4a16_runtime.a -lcuda
//   build-tl/bin/timeline K N M [calls [csv]]
#include "../../runtime/src/gemm_v3.cuh"
#include "probe_calls.cuh"

#include <algorithm>
#include <map>

using w4a16::v3::TimelineRecord;
extern "C" int w4a16_timeline_read(TimelineRecord *dst, unsigned long long *count);

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s K N M [calls [csv]]\n", argv[0]);
    return 2;
  }
  const int K = atoi(argv[1]), N = atoi(argv[2]), M = atoi(argv[3]);
  const int calls = argc > 4 ? atoi(argv[4]) : 200;
  const char *csv = argc > 5 ? argv[5] : nullptr;
  probe::Calls cs(K, N, M);
  const int R = cs.rotated();
  char desc[256];
  cs.describe(desc, sizeof desc);

  // TL_ACT=0|1|2 (none, silu, gelu_tanh; default silu), TL_NO_BIAS=1, TL_NO_RESIDUAL=1: what the
  // epilogue's parts cost.
  const char *act_env = getenv("TL_ACT");
  const w4a16_activation act = act_env ? (w4a16_activation)atoi(act_env) : W4A16_ACT_SILU;
  cs.act = act, cs.use_bias = !getenv("TL_NO_BIAS"), cs.use_residual = !getenv("TL_NO_RESIDUAL");
  auto run = [&](int i) { cs.run(i); };
  for (int i = 0; i < 2 * R + 10; ++i) run(i);
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0));
  for (int i = 0; i < calls; ++i) run(i);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));

  std::vector<TimelineRecord> rec(w4a16::v3::kTimelineRecords);
  unsigned long long count = 0;
  if (w4a16_timeline_read(rec.data(), &count) < 0) {
    fprintf(stderr, "timeline read failed (built without -DW4A16_TIMELINE?)\n");
    return 1;
  }
  rec.resize(std::min<unsigned long long>(count, rec.size()));
  std::map<unsigned long long, std::vector<TimelineRecord>> by_grid;
  for (const auto &r : rec) by_grid[r.grid].push_back(r);
  // Complete calls only (the ring may have cut the oldest), and not the first or last few.
  size_t ctas = 0;
  for (auto &g : by_grid) ctas = std::max(ctas, g.second.size());
  std::vector<std::vector<TimelineRecord> *> steady;
  for (auto &g : by_grid)
    if (g.second.size() == ctas) steady.push_back(&g.second);
  if (steady.size() < 8) {
    fprintf(stderr, "only %zu complete calls recorded\n", steady.size());
    return 1;
  }
  steady.erase(steady.begin(), steady.begin() + 3);
  steady.resize(steady.size() - 3);

  // Per stamp: min, median, max over a call's CTAs (all of them, or only the last split's, which
  // finish the tiles), relative to the call's first entry, averaged over the calls.
  using w4a16::v3::kStamps;
  unsigned last_split = 0;
  for (auto &r : *steady[0]) last_split = std::max(last_split, r.split);
  auto summarise = [&](const char *who, bool last_only) {
    double stats[kStamps][3] = {};
    for (auto *call : steady) {
      unsigned long long first = ~0ull;
      for (auto &r : *call) first = std::min(first, r.t[0]);
      for (int s = 0; s < kStamps; ++s) {
        std::vector<double> t;
        for (auto &r : *call)
          if (!last_only || r.split == last_split) t.push_back((double)(r.t[s] - first) * 1e-3);
        std::sort(t.begin(), t.end());
        stats[s][0] += t.front(), stats[s][1] += t[t.size() / 2], stats[s][2] += t.back();
      }
    }
    const double n = (double)steady.size();
    static const char *names[kStamps] = {"entry",          "dependency released", "first weights landed",
                                         "x issued", "first x landed", "thread 0 loop done",  "all warps done",
                                         "partials ready", "exit"};
    printf("  %s:\n", who);
    for (int s = 0; s < kStamps; ++s)
      printf("    %-22s min %6.2f  median %6.2f  max %6.2f us\n", names[s], stats[s][0] / n, stats[s][1] / n,
             stats[s][2] / n);
  };
  double period = 0, handoff = 0, dep_release = 0;
  unsigned long long prev_first = 0, prev_exit = 0;
  int periods = 0;
  for (auto *call : steady) {
    unsigned long long first = ~0ull, last_exit = 0, first_release = ~0ull;
    for (auto &r : *call)
      first = std::min(first, r.t[0]), last_exit = std::max(last_exit, r.t[kStamps - 1]),
      first_release = std::min(first_release, r.t[1]);
    if (prev_first) {
      period += (double)(first - prev_first) * 1e-3;
      handoff += (double)((long long)first - (long long)prev_exit) * 1e-3;
      dep_release += (double)((long long)first_release - (long long)prev_exit) * 1e-3;
      ++periods;
    }
    prev_first = first, prev_exit = last_exit;
  }
  printf("timeline K=%d N=%d M=%d act=%d%s%s: %s; %zu CTAs, %d plans rotated, %.2f us per call (events, %d calls); "
         "%zu steady calls\n",
         K, N, M, (int)act, cs.use_bias ? "" : " no-bias", cs.use_residual ? "" : " no-residual", desc, ctas, R, ms * 1e3 / calls, calls, steady.size());
  summarise("all CTAs", false);
  if (last_split > 0) summarise("CTAs of the last split", true);
  printf("  period (first entry to next first entry) %.2f us; next call's first entry - this call's last exit "
         "%.2f us; next call's first release - last exit %.2f us\n",
         period / periods, handoff / periods, dep_release / periods);
  if (csv) {
    FILE *f = fopen(csv, "w");
    if (f) {
      const auto &v = *steady[steady.size() / 2];
      unsigned long long first = ~0ull;
      for (auto &r : v) first = std::min(first, r.t[0]);
      fprintf(f, "cta,sm,tile,split,entry,released,weights0,x_issued,first_x,loop_done,all_warps,partials,exit\n");
      for (auto &r : v) {
        fprintf(f, "%u,%u,%u,%u", r.cta, r.sm, r.tile, r.split);
        for (int s = 0; s < kStamps; ++s) fprintf(f, ",%.3f", (r.t[s] - first) * 1e-3);
        fprintf(f, "\n");
      }
      fclose(f);
    }
  }
  return 0;
}
