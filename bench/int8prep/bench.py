#!/usr/bin/env python3
"""Device benchmark of issue #6: the LLM.int8 correction-operand preparation as one launch
(runtime/int8prep, loaded with ctypes) against PyTorch's eager chain

    subA = A[:, cols]
    subB = (CB[:, cols].float() * SCB[:, None] * 7.874015718698502e-3).half().t()

1. Raw-bit equality (no tolerance) with the eager chain on the data of issue #6: every int8 code against
   8192 scales (zero, normal, near FLT_MIN, f32-subnormal, f32-overflowing, around the f16 overflow
   boundary, in the f16-subnormal range), L in {1, 2, 5, 16, 64} with first/last/unsorted, repeated,
   descending and sorted columns; and on every timed cell.
2. Device time of the preparation alone (CUDA-graph replay of R back-to-back preparations, CUDA events),
   baseline and candidate samples interleaved (alternating order), >= 200 warm-up preparations each;
   median and p10-p90 per preparation, over M x (K = N) x L.
3. L = 0: the candidate launches nothing (launch counter); the device time of the whole correction
   (preparation + torch.addmm(out, subA, subB)) is compared with the eager chain + the same addmm.

    python3 bench/int8prep/bench.py --lib build/lib/libw4a16_int8prep.so --out DIR
"""
import argparse
import ctypes
import math
import os
import statistics
import sys
import time

import torch

SCALE = 7.874015718698502e-3  # PyTorch multiplies in f32: float32(SCALE) is 0x3C010204


def eager(A, CB, SCB, cols):
    subA = A[:, cols]
    subB = (CB[:, cols].float() * SCB[:, None] * SCALE).half().t()
    return subA, subB


class Prep:
    """The library's CUDA entry point on torch tensors (device pointers, the current stream)."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        f = self.lib.w4a16_int8prep_cuda
        f.restype = ctypes.c_int
        f.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int64] * 4 + [ctypes.c_void_p] * 3
        self.lib.w4a16_int8prep_launches.restype = ctypes.c_int64
        self.fn = f

    def __call__(self, A, CB, SCB, cols, subA, subB):
        M, K = A.shape
        N = CB.shape[0]
        L = cols.shape[0]
        status = self.fn(A.data_ptr(), CB.data_ptr(), SCB.data_ptr(), cols.data_ptr(), M, N, K, L,
                         subA.data_ptr(), subB.data_ptr(), torch.cuda.current_stream().cuda_stream)
        if status != 0:
            raise RuntimeError(f"w4a16_int8prep_cuda returned {status}")

    def launches(self):
        return self.lib.w4a16_int8prep_launches()


def poisoned(shape):
    t = torch.empty(shape, dtype=torch.float16, device="cuda")
    t.view(torch.int16).fill_(0x7E01)  # a NaN no correct output holds
    return t


def run_ours(prep, A, CB, SCB, cols):
    subA = poisoned((A.shape[0], cols.shape[0]))
    subB = poisoned((cols.shape[0], CB.shape[0]))
    prep(A, CB, SCB, cols, subA, subB)
    return subA, subB


def differing(x, y):
    """Elements whose bits differ (shapes must match)."""
    if tuple(x.shape) != tuple(y.shape):
        return -1
    return int((x.contiguous().view(torch.int16) != y.contiguous().view(torch.int16)).sum().item())


def bits_f32(values):
    return torch.tensor(values, dtype=torch.int64).to(torch.int32).view(torch.float32)


def issue_scb(N, gen):
    """SCB over the categories of issue #6, cycling with n % 8."""
    n = torch.arange(N)
    u = torch.rand(N, generator=gen, dtype=torch.float64)
    r = torch.randint(0, 1 << 22, (N,), generator=gen)
    cats = [
        torch.zeros(N, dtype=torch.float32),                                    # zero
        (0.5 + 100.0 * u).float(),                                              # normal absmax
        bits_f32((0x00800000 + r % 4096).tolist()),                             # near FLT_MIN
        bits_f32((1 + r % 0x7FFFFF).tolist()),                                  # f32 subnormal
        (torch.finfo(torch.float32).max / (1 + (r % 1000)).double()).float(),   # large finite: f32 inf
        (65504.0 + (r % 2000).double()).float(),                                # f16 overflow boundary
        ((1 + u) * torch.pow(2.0, -8 - (r % 10)).double()).float(),             # f16 subnormal results
        bits_f32((0x3C000000 + r % 0x3000000).tolist()),                        # random mantissas
    ]
    out = torch.empty(N, dtype=torch.float32)
    for c in range(8):
        out[n % 8 == c] = cats[c][n % 8 == c]
    return out


def issue_cols(L, K, pattern, gen):
    if pattern == "first/last/unsorted":
        c = torch.randint(0, K, (L,), generator=gen)
        c[0] = 0
        if L > 1:
            c[1] = K - 1
    elif pattern == "repeated":
        c = torch.randint(0, 3, (L,), generator=gen)
    elif pattern == "descending":
        c = K - 1 - torch.arange(L)
    else:  # sorted distinct, as LLM.int8's outlier detection produces
        c = torch.randperm(K, generator=gen)[:L].sort().values
    return c.to(torch.int64)


def random_f16_bits(shape, gen):
    """Finite f16 of every exponent and sign."""
    b = torch.randint(0, 1 << 16, shape, generator=gen, dtype=torch.int32)
    exp = (b >> 10) & 31
    b = torch.where(exp == 31, b & ~(1 << 14), b)  # Inf/NaN exponent -> a finite one
    return b.to(torch.int16).view(torch.float16)


def correctness(prep, log):
    gen = torch.Generator().manual_seed(6)
    total = bad = 0
    # Every code against 8192 scales: CB[n, k] = k - 128, all 256 columns gathered.
    N, K = 8192, 256
    CB = (torch.arange(K) - 128).to(torch.int8).repeat(N, 1).cuda()
    SCB = issue_scb(N, gen).cuda()
    A = random_f16_bits((4, K), gen).cuda()
    cols = torch.randperm(K, generator=gen).to(torch.int64).cuda()
    ref = eager(A, CB, SCB, cols)
    got = run_ours(prep, A, CB, SCB, cols)
    d = differing(got[0], ref[0]) + differing(got[1], ref[1])
    log(f"every int8 code x 8192 scales (L = 256, N = 8192): {got[1].numel()} subB elements, {d} differ")
    total += got[0].numel() + got[1].numel()
    bad += d
    for KN in (3584, 4096):
        CB = torch.randint(-128, 128, (KN, KN), generator=gen, dtype=torch.int8).cuda()
        SCB = issue_scb(KN, gen).cuda()
        for M in (1, 8, 64):
            A = random_f16_bits((M, KN), gen).cuda()
            for L in (1, 2, 5, 16, 64):
                for pattern in ("first/last/unsorted", "repeated", "descending", "sorted"):
                    cols = issue_cols(L, KN, pattern, gen).cuda()
                    ref = eager(A, CB, SCB, cols)
                    got = run_ours(prep, A, CB, SCB, cols)
                    d = differing(got[0], ref[0]) + differing(got[1], ref[1])
                    total += got[0].numel() + got[1].numel()
                    bad += d
                    if d:
                        log(f"  DIFFER: K=N={KN} M={M} L={L} {pattern}: {d} elements")
    torch.cuda.synchronize()
    log(f"raw-bit check against the eager chain: {total} elements, {bad} differ "
        f"(every code x 8192 scales; K=N in 3584/4096, M in 1/8/64, L in 1/2/5/16/64, 4 column patterns)")
    return bad


def capture(fn, reps):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    torch.cuda.synchronize()
    return g


def time_interleaved(graphs, reps, samples, warmup):
    """graphs: {name: CUDAGraph of `reps` preparations}. Microseconds per preparation, per sample."""
    for g in graphs.values():
        for _ in range(math.ceil(warmup / reps)):
            g.replay()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out = {name: [] for name in graphs}
    names = list(graphs)
    for s in range(samples):
        for name in (names if s % 2 == 0 else names[::-1]):
            start.record()
            graphs[name].replay()
            stop.record()
            stop.synchronize()
            out[name].append(start.elapsed_time(stop) * 1000.0 / reps)
    return out


def summary(xs):
    xs = sorted(xs)
    q = lambda p: xs[min(len(xs) - 1, max(0, int(round(p * (len(xs) - 1)))))]
    return statistics.median(xs), q(0.1), q(0.9)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", default=".")
    ap.add_argument("--reps", type=int, default=20, help="preparations per graph replay")
    ap.add_argument("--samples", type=int, default=21, help="timed replays per variant and cell")
    ap.add_argument("--warmup", type=int, default=200, help="warm-up preparations per variant and cell")
    ap.add_argument("--M", default="1,8,64,512,2048")
    ap.add_argument("--KN", default="3584,4096,8192,14336")
    ap.add_argument("--L", default="0,1,5,16,64")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "int8prep_bench.log"), "w")

    def log(msg):
        print(msg, flush=True)
        logf.write(msg + "\n")
        logf.flush()

    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    prep = Prep(args.lib)
    p = torch.cuda.get_device_properties(0)
    log(f"device: {p.name}, {p.multi_processor_count} SMs; torch {torch.__version__}, CUDA {torch.version.cuda}")
    bad = correctness(prep, log)

    Ms = [int(x) for x in args.M.split(",")]
    KNs = [int(x) for x in args.KN.split(",")]
    Ls = [int(x) for x in args.L.split(",")]
    gen = torch.Generator(device="cuda").manual_seed(1234)
    rows = []
    csv = open(os.path.join(args.out, "int8prep_bench.csv"), "w")
    csv.write("M,KN,L,eager_us_median,eager_us_p10,eager_us_p90,ours_us_median,ours_us_p10,ours_us_p90,speedup,"
              "bits_differ,what\n")
    t_start = time.time()
    for KN in KNs:
        CB = torch.randint(-128, 128, (KN, KN), device="cuda", dtype=torch.int8, generator=gen)
        SCB = (torch.rand(KN, device="cuda", generator=gen) * 8 + 0.5).float()
        for M in Ms:
            A = torch.randn(M, KN, device="cuda", dtype=torch.float16, generator=gen)
            out = torch.randn(M, KN, device="cuda", dtype=torch.float16, generator=gen)
            for L in Ls:
                cols = torch.randperm(KN, device="cuda", generator=gen)[:L].sort().values.to(torch.int64)
                subA = poisoned((M, L))
                subB = poisoned((L, KN))
                ours = lambda: prep(A, CB, SCB, cols, subA, subB)
                base = lambda: eager(A, CB, SCB, cols)
                ours()
                ref = base()
                d = differing(subA, ref[0]) + differing(subB, ref[1])
                if L > 0:
                    g = {"eager": capture(base, args.reps), "ours": capture(ours, args.reps)}
                    what = "prep"
                else:
                    # Nothing to time for the preparation itself: check that nothing is launched and time
                    # the whole correction (prep + addmm) against the eager chain + the same addmm.
                    before = prep.launches()
                    for _ in range(10):
                        ours()
                    torch.cuda.synchronize()
                    if prep.launches() != before:
                        log(f"  L = 0 LAUNCHED {prep.launches() - before} kernels (M={M}, K=N={KN})")
                        bad += 1
                    g = {"eager": capture(lambda: torch.addmm(out, *base()), args.reps),
                         "ours": capture(lambda: (ours(), torch.addmm(out, subA, subB)), args.reps)}
                    what = "prep+addmm"
                t = time_interleaved(g, args.reps, args.samples, args.warmup)
                del g
                e, o = summary(t["eager"]), summary(t["ours"])
                rows.append((M, KN, L, e, o, e[0] / o[0], d, what))
                bad += d != 0
                csv.write(f"{M},{KN},{L},{e[0]:.3f},{e[1]:.3f},{e[2]:.3f},{o[0]:.3f},{o[1]:.3f},{o[2]:.3f},"
                          f"{e[0] / o[0]:.3f},{d},{what}\n")
                csv.flush()
                log(f"M={M:5d} K=N={KN:5d} L={L:2d} {what:10s} eager {e[0]:7.2f} us ({e[1]:.2f}-{e[2]:.2f})  "
                    f"ours {o[0]:7.2f} us ({o[1]:.2f}-{o[2]:.2f})  x{e[0] / o[0]:.2f}  bits differ: {d}")
    log(f"timed {len(rows)} cells in {time.time() - t_start:.0f} s")

    # Host cost of one call at L = 0 (no device work on either side).
    A = torch.randn(8, 4096, device="cuda", dtype=torch.float16)
    CB = torch.randint(-128, 128, (4096, 4096), device="cuda", dtype=torch.int8)
    SCB = torch.rand(4096, device="cuda")
    cols = torch.empty(0, dtype=torch.int64, device="cuda")
    subA, subB = poisoned((8, 0)), poisoned((0, 4096))
    host = {}
    for name, fn in (("ours", lambda: prep(A, CB, SCB, cols, subA, subB)), ("eager", lambda: eager(A, CB, SCB, cols))):
        for _ in range(200):
            fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(2000):
            fn()
        torch.cuda.synchronize()
        host[name] = (time.perf_counter() - t0) / 2000 * 1e6
    log(f"L = 0 host time per call (M=8, K=N=4096): ours {host['ours']:.2f} us (a ctypes call that returns at once), "
        f"eager {host['eager']:.2f} us")

    # Markdown table: one row per (K=N, L), the M columns giving eager / ours median device times.
    md = ["| K=N | L | " + " | ".join(f"M={m}: eager / ours µs (×)" for m in Ms) + " |",
          "|---|---|" + "---|" * len(Ms)]
    for KN in KNs:
        for L in Ls:
            cells = []
            for M in Ms:
                r = next(r for r in rows if r[0] == M and r[1] == KN and r[2] == L)
                cells.append(f"{r[3][0]:.2f} / {r[4][0]:.2f} ({r[5]:.2f}×)")
            md.append(f"| {KN} | {L}{' (+addmm)' if L == 0 else ''} | " + " | ".join(cells) + " |")
    with open(os.path.join(args.out, "int8prep_table.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    by_l = {}
    for r in rows:
        by_l.setdefault(r[2], []).append(r)
    log("summary by L (median over M and K=N of the per-cell medians; speedup = eager / ours):")
    for L in Ls:
        rs = by_l[L]
        sp = sorted(r[5] for r in rs)
        log(f"  L={L:2d}{' (prep+addmm)' if L == 0 else '              '}: eager {statistics.median(r[3][0] for r in rs):6.2f} us, "
            f"ours {statistics.median(r[4][0] for r in rs):6.2f} us, speedup median {statistics.median(sp):.2f} "
            f"(min {sp[0]:.2f}, max {sp[-1]:.2f})")
    log("\n".join(md))
    log("RESULT: " + ("PASS" if bad == 0 else f"FAIL ({bad} problems)"))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
