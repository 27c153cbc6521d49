#!/usr/bin/env python3
"""Where each us of a layer goes: summarises w4a16_layer_bench --timeline's per-CTA stamps (runtime/src/timeline.cuh).

Per launch (the CTAs sharing a plan weight pointer in one replay), times in us:
  start     first CTA entry, relative to the previous instrumented launch's last CTA done (< 0: PDL overlap)
  wait      median over CTAs of (grid dependency wait done - entry): the time a CTA sat waiting for the
            previous kernel (with PDL the CTAs enter early, so this includes the previous kernel's tail)
  weights   median of (first weights in shared memory - entry): the prefetch issued before the wait
  first_x   median of (first x stage landed - wait done): x's first bytes after the dependency is released
  loop      median of (main loop done - first x landed)
  skew      max - median of main loop done: the slowest CTA's lag
  exchange  last CTA done - last main loop done: split-K exchange and epilogue on the critical path
  span      last CTA done - previous launch's last CTA done: this launch's share of the layer time
Medians over the layer copies and replays. Kernel v3's and kernel v1's CTAs stamp (v1, and its decode variant, since
session 34: its first weights and first x land in one cp.async stage, so `weights` and `first_x` share that stamp, and
`exchange` is the slices' and the cluster's reduction plus the epilogue); other kernels (the separate configuration's
GLU product) fall into the next launch's span.
  bench/timeline.py TIMELINE.csv [--names merged=qkv,o,gateup,down separate=q,k,v,o,gate,up,down]"""
import csv
import statistics
import sys
from collections import defaultdict

NAMES = {"merged": ["qkv", "o", "gateup", "down"], "separate": ["q", "k", "v", "o", "gate", "up", "down"]}
COLS = ["ctas", "start", "wait", "weights", "first_x", "loop", "skew", "exchange", "span"]


def launches(rows):
    """(M, config, replay) -> launches ordered by first entry, each a list of CTA rows."""
    by = defaultdict(lambda: defaultdict(list))
    for r in rows:
        by[(int(r["M"]), r["config"], int(r["replay"]))][r["launch"]].append(r)
    return {k: sorted(v.values(), key=lambda ctas: min(int(c["entry_ns"]) for c in ctas)) for k, v in by.items()}


def metrics(ctas, prev_done):
    t = lambda c, f: int(c[f])
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    entry = min(t(c, "entry_ns") for c in ctas)
    done = max(t(c, "done_ns") for c in ctas)
    loop = [t(c, "loop_done_ns") for c in ctas if t(c, "loop_done_ns")]
    first_x = [t(c, "first_x_ns") - t(c, "waited_ns") for c in ctas if t(c, "first_x_ns")]
    base = prev_done if prev_done is not None else entry
    return {
        "ctas": len(ctas),
        "start": (entry - base) / 1e3,
        "wait": med([t(c, "waited_ns") - t(c, "entry_ns") for c in ctas]) / 1e3,
        "weights": med([t(c, "first_weights_ns") - t(c, "entry_ns") for c in ctas if t(c, "first_weights_ns")]) / 1e3,
        "first_x": med(first_x) / 1e3,
        "loop": med([t(c, "loop_done_ns") - t(c, "first_x_ns") for c in ctas if t(c, "first_x_ns")]) / 1e3,
        "skew": (max(loop) - med(loop)) / 1e3 if loop else float("nan"),
        "exchange": (done - max(loop)) / 1e3 if loop else float("nan"),
        "span": (done - base) / 1e3,
    }, done


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        rows = list(csv.DictReader(f))
    table = defaultdict(lambda: defaultdict(list))  # (M, config) -> name -> [metrics]
    for (m, cfg, _), ls in launches(rows).items():
        names = NAMES.get(cfg, [])
        prev = None
        for i, ctas in enumerate(ls):
            mt, prev = metrics(ctas, prev)
            if i == 0:
                continue  # no previous launch in this replay: its start and span mean nothing
            table[(m, cfg)][names[i % len(names)] if names else str(i)].append(mt)
    print("us, medians over layer copies and replays (bench/timeline.py's docstring defines the columns)")
    for (m, cfg) in sorted(table):
        print(f"\nM={m} {cfg}")
        print(f"{'launch':8s}" + "".join(f"{c:>9s}" for c in COLS))
        total = 0.0
        for name in NAMES.get(cfg, sorted(table[(m, cfg)])):
            ms = table[(m, cfg)].get(name)
            if not ms:
                continue
            row = {c: statistics.median(x[c] for x in ms) for c in COLS}
            total += row["span"]
            print(f"{name:8s}" + "".join(f"{row[c]:9.0f}" if c == "ctas" else f"{row[c]:9.2f}" for c in COLS))
        print(f"{'layer':8s}" + " " * 9 * (len(COLS) - 1) + f"{total:9.2f}")


if __name__ == "__main__":
    main()
