#!/usr/bin/env python3
"""Turns bench.csv into a markdown table (stdout + table.md) and a PNG of latency vs M against the floor.
Usage: report.py bench.csv OUTDIR [sweep.csv]"""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
outdir = sys.argv[2] if len(sys.argv) > 2 else "."
fig = defaultdict(dict)  # (K,N) -> M -> {(impl,l2): row}
for r in rows:
    fig[(int(r["K"]), int(r["N"]))].setdefault(int(r["M"]), {})[(r["impl"], r["l2"])] = r

PLAIN, CUBLAS = "plain_direct_w4", "cublas_f16+epilogue"
OURS = "w4a16" if any(r["impl"] == "w4a16" for r in rows) else "w4a16_tc_v1"  # the 2026-11-30 v1 CSVs
lines = ["| K×N | M | ours L2-cold µs (min–max) | ours L2-hot µs (min–max) | × floor (cold) | floor µs | plain W4 µs | vs plain | cuBLAS+epi µs | vs cuBLAS |",
         "|---|---|---|---|---|---|---|---|---|---|"]
for (K, N), per_m in fig.items():
    for M in sorted(per_m):
        d = per_m[M]
        oc, oh = d.get((OURS, "cold")), d.get((OURS, "hot"))
        pc, cc = d.get((PLAIN, "cold")), d.get((CUBLAS, "cold"))
        f = float(oc["floor_us"])
        med = float(oc["median_us"])
        hot = f"{float(oh['median_us']):.1f} ({float(oh['min_us']):.1f}–{float(oh['max_us']):.1f})" if oh else "–"
        base = (f"{float(pc['median_us']):.1f} | {float(pc['median_us']) / med:.2f}× | "
                f"{float(cc['median_us']):.1f} | {float(cc['median_us']) / med:.2f}× |") if pc and cc else "– | – | – | – |"
        lines.append(
            f"| {K}×{N} | {M} | {med:.1f} ({float(oc['min_us']):.1f}–{float(oc['max_us']):.1f}) | "
            f"{hot} | {med / f:.2f} | {f:.1f} | {base}")
table = "\n".join(lines)
print(table)
open(f"{outdir}/table.md", "w").write(table + "\n")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except Exception as e:  # the table is the primary output
    print("no plot:", e)
    sys.exit(0)
# optional third argument: the --sweep CSV (every M in 1..64, ours, L2-cold)
sweep = defaultdict(dict)
if len(sys.argv) > 3:
    for r in csv.DictReader(open(sys.argv[3])):
        sweep[(int(r["K"]), int(r["N"]))][int(r["M"])] = float(r["median_us"])
shapes = list(fig)
fig_, axes = plt.subplots(1, len(shapes), figsize=(5 * len(shapes), 4.2), squeeze=False)
for ax, (K, N) in zip(axes[0], shapes):
    per_m = fig[(K, N)]
    Ms = sorted(per_m)
    def series(impl, l2):
        return [float(per_m[m][(impl, l2)]["median_us"]) if (impl, l2) in per_m[m] else None for m in Ms]
    ax.plot(Ms, [float(per_m[m][(OURS, "cold")]["floor_us"]) for m in Ms], "k--", label="floor (HBM read)")
    ax.plot(Ms, series(OURS, "cold"), "o-", label="ours, L2-cold")
    ax.plot(Ms, series(OURS, "hot"), "o:", label="ours, L2-hot")
    if (K, N) in sweep:
        sm = sorted(sweep[(K, N)])
        ax.plot(sm, [sweep[(K, N)][m] for m in sm], "-", lw=0.8, alpha=0.7, label="ours, L2-cold, every M")
    ax.plot(Ms, series(PLAIN, "cold"), "s-", label="plain direct-W4, L2-cold")
    ax.plot(Ms, series(CUBLAS, "cold"), "^-", label="cuBLAS f16 + epilogue, L2-cold")
    ax.set_title(f"K×N = {K}×{N}")
    ax.set_xlabel("M (tokens)")
    ax.set_ylabel("µs per call (median of 11×512)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
axes[0][0].legend(fontsize=7)
fig_.tight_layout()
# 90 dpi: ~100 KB, so that a run's committed summary (table, CSVs, this plot) stays under 200 KB.
fig_.savefig(f"{outdir}/latency_vs_M.png", dpi=90)
print(f"wrote {outdir}/latency_vs_M.png")
