#!/usr/bin/env python3
"""A/B table from an ab-gpu.sh run: ab-table.py RAW_DIR REF LABEL... [--l2 cold|hot]
RAW_DIR holds bench-LABEL-KxN-rR.csv, or bench-LABEL-KxN-rRmM.csv with one M per process (raw.tgz unpacked).
For each shape and M: REF's median (over rounds, of each run's median) and every LABEL's ratio to it in percent,
with the rounds' spread."""
import csv
import glob
import os
import statistics
import sys
from collections import defaultdict

args = [a for a in sys.argv[1:] if not a.startswith("--")]
l2 = sys.argv[sys.argv.index("--l2") + 1] if "--l2" in sys.argv else "cold"
args = [a for a in args if a != l2]
raw, ref, labels = args[0], args[1], args[2:]
runs = defaultdict(list)  # (label, shape, M) -> [median_us per round]
for path in glob.glob(os.path.join(raw, "bench-*-r*.csv")):
    name = os.path.basename(path)[len("bench-"):-len(".csv")]
    label, shape, _ = name.rsplit("-", 2)
    for r in csv.DictReader(open(path)):
        if r["l2"] == l2 and r["impl"] == "w4a16":
            runs[(label, shape, int(r["M"]))].append(float(r["median_us"]))
shapes = sorted({k[1] for k in runs}, key=lambda s: [int(v) for v in s.split("x")])
print(f"| K×N | M | {ref} µs (L2-{l2}) | " + " | ".join(f"{l} vs {ref}" for l in labels) + " |")
print("|---|---|---|" + "---|" * len(labels))
for shape in shapes:
    for M in sorted({k[2] for k in runs if k[1] == shape}):
        base = runs.get((ref, shape, M))
        if not base:
            continue
        b = statistics.median(base)
        cells = []
        for l in labels:
            v = runs.get((l, shape, M))
            if not v:
                cells.append("–")
                continue
            spread = f" ({min(v) / b * 100 - 100:+.1f}..{max(v) / b * 100 - 100:+.1f})" if len(v) > 1 else ""
            cells.append(f"{statistics.median(v) / b * 100 - 100:+.1f} %{spread}")
        print(f"| {shape} | {M} | {b:.2f} ({min(base):.2f}–{max(base):.2f}) | " + " | ".join(cells) + " |")
