#!/usr/bin/env python3
"""Robustness driver for w4a16-opt: no input may crash it.

Takes every .mlir file of the suite (test/fuse and test/explain by default), splits it into its
`// -----` chunks and derives mutated variants with a fixed seed: dropped op lines, ops bypassed (their
result replaced by an operand), changed integer/float constants, one shape dim changed, one dim value
changed consistently everywhere, swapped operands, swapped op names of the same signature, changed affine
maps, changed element types and changed w4a16 attributes. Each variant is run through
`w4a16-opt --w4a16-fuse --split-input-file` (every third one with --w4a16-explain), and must

  * exit 0, or exit 1 with at least one located `<file>:<line>:<col>: error:` on stderr;
  * never die from a signal, exit with another status, hang, or print an assertion / stack dump /
    "LLVM ERROR" / sanitizer report;
  * when it exits 0, print IR that w4a16-opt accepts again, and running the pass on that output must
    reproduce it byte for byte (idempotence).

--suite-only skips the mutations and checks the unmutated suite files (no crash; for files the tool accepts,
fuse twice == fuse once). --pipelines runs the variants through the whole lowering instead, alternating
--w4a16-pipeline and --w4a16-gpu-pipeline (same crash and located-error rules; no idempotence: the output is
the LLVM dialect).

Prints a summary line `mutate: variants: N, clean: A, located errors: B, failures: F` and exits 1 if F > 0,
listing each failure with the path of the variant kept under --tmp.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys

SPLIT_RE = re.compile(r"^// -----\s*$", re.M)
LOCATED_ERROR_RE = re.compile(r"^[^\s:][^:]*:\d+:\d+: error: ", re.M)
CRASH_MARKERS = ("Assertion", "assertion failed", "Stack dump", "PLEASE submit a bug report", "LLVM ERROR",
                 "Segmentation fault", "UNREACHABLE", "AddressSanitizer", "UndefinedBehaviorSanitizer",
                 "core dumped", "double free", "free(): ", "malloc(): ")
TIMEOUT_S = 30

OPNAME_GROUPS = [
    ["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf", "arith.minimumf"],
    ["arith.addi", "arith.subi", "arith.muli", "arith.divui", "arith.remui", "arith.shrui", "arith.shrsi",
     "arith.shli", "arith.andi", "arith.ori", "arith.xori"],
    ["math.exp", "math.tanh", "math.erf", "arith.negf", "math.absf", "math.sqrt"],
    ["arith.extui", "arith.extsi"],
    ["arith.uitofp", "arith.sitofp"],
    ["linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.max"],
]
CONST_VALUES_INT = ["0", "1", "2", "3", "4", "7", "8", "9", "15", "16", "31", "64", "127", "128", "255", "-1", "-8",
                    "2147483647"]
CONST_VALUES_FLOAT = ["0.000000e+00", "1.000000e+00", "-1.000000e+00", "7.000000e+00", "8.000000e+00",
                      "9.000000e+00", "5.000000e-01", "4.471500e-02", "7.978850e-01", "1.702000e+00",
                      "6.550400e+04", "0x7C00", "1.000000e-08"]
DIM_VALUES = ["1", "2", "7", "8", "16", "32", "63", "64", "100", "127", "128", "129", "192", "200", "256", "4096",
              "?", "0"]
ELEM_TYPES = ["f16", "f32", "bf16", "i4", "i8", "i32", "f64", "i1", "index"]
ATTR_STRINGS = ['"none"', '"silu"', '"gelu_tanh"', '"relu"', '"packed_k8_n"', '"k_n"', '"n_k"', '"g_n"', '"n_g"',
                '""']

TENSOR_RE = re.compile(r"tensor<([^<>]*)>")
OP_LINE_RE = re.compile(r"^\s*(%[\w.$-]+(?::\d+)?(?:, %[\w.$-]+)*\s*=\s*)?[\"a-z_][\w.\"]*")
BYPASS_RE = re.compile(r"^\s*(%[\w.$-]+) = (?:arith|math)\.\w+ (%[\w.$-]+)(?:, (%[\w.$-]+))? : ([\w<>x?]+)\s*$")
BINARY_RE = re.compile(r"((?:arith|math)\.\w+) (%[\w.$-]+), (%[\w.$-]+)")
INS_RE = re.compile(r"ins\((%[\w.$-]+), (%[\w.$-]+) : ([^,()]+(?:<[^<>]*>)?), ([^()]+?)\)")
CONST_RE = re.compile(r"(arith\.constant )(-?(?:0x[0-9A-Fa-f]+|\d+(?:\.\d+)?(?:e[+-]?\d+)?))")
DENSE_RE = re.compile(r"(dense<)(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(>)")
MAP_RE = re.compile(r"affine_map<\(([^()]*)\) -> \(([^()]*)\)>")


def code_lines(chunk):
    lines = chunk.split("\n")
    return lines, [i for i, l in enumerate(lines) if l.strip() and not l.lstrip().startswith("//")]


# Each mutation takes (text, rng) and returns (new_text, description) or None when it does not apply.

def m_drop_line(text, rng):
    lines, idx = code_lines(text)
    cand = [i for i in idx if OP_LINE_RE.match(lines[i]) and not lines[i].lstrip().startswith(("func.func", "}"))]
    if not cand:
        return None
    i = rng.choice(cand)
    desc = "drop line %d: %s" % (i + 1, lines[i].strip()[:80])
    del lines[i]
    return "\n".join(lines), desc


def m_bypass_op(text, rng):
    lines, idx = code_lines(text)
    cand = [i for i in idx if BYPASS_RE.match(lines[i])]
    if not cand:
        return None
    i = rng.choice(cand)
    m = BYPASS_RE.match(lines[i])
    res, opnd = m.group(1), m.group(2) if rng.random() < 0.5 or not m.group(3) else m.group(3)
    rest = "\n".join(lines[i + 1:])
    rest = re.sub(re.escape(res) + r"(?![\w.$-])", opnd, rest)
    return "\n".join(lines[:i]) + "\n" + rest, "bypass %s -> %s (line %d)" % (res, opnd, i + 1)


def m_change_const(text, rng):
    hits = list(CONST_RE.finditer(text)) + list(DENSE_RE.finditer(text))
    if not hits:
        return None
    h = rng.choice(hits)
    old = h.group(2)
    is_float = any(c in old for c in ".eE") or old.startswith("0x")
    new = rng.choice(CONST_VALUES_FLOAT if is_float else CONST_VALUES_INT)
    s, e = h.span(2)
    return text[:s] + new + text[e:], "constant %s -> %s" % (old, new)


def m_change_dim_once(text, rng):
    hits = [h for h in TENSOR_RE.finditer(text) if re.search(r"(^|x)(\d+|\?)x", h.group(1) + "x")]
    if not hits:
        return None
    h = rng.choice(hits)
    parts = h.group(1).split("x")
    dims = [k for k, p in enumerate(parts[:-1]) if re.fullmatch(r"\d+|\?", p)]
    if not dims:
        return None
    k = rng.choice(dims)
    old = parts[k]
    parts[k] = rng.choice([v for v in DIM_VALUES if v != old])
    s, e = h.span(1)
    return text[:s] + "x".join(parts) + text[e:], "dim %s -> %s in one tensor type" % (old, parts[k])


def m_change_dim_everywhere(text, rng):
    dims = sorted({p for h in TENSOR_RE.finditer(text) for p in h.group(1).split("x")[:-1] if p.isdigit()})
    if not dims:
        return None
    old = rng.choice(dims)
    new = rng.choice([v for v in DIM_VALUES if v != old and v != "0"])

    def fix(h):
        parts = h.group(1).split("x")
        return "tensor<" + "x".join(new if (p == old and j < len(parts) - 1) else p
                                    for j, p in enumerate(parts)) + ">"
    out = TENSOR_RE.sub(fix, text)
    # Keep expand_shape output_shape lists in step with the types where the literal matches.
    out = re.sub(r"(output_shape \[[^\]]*\])", lambda m: re.sub(r"\b%s\b" % old, new, m.group(1)) if new != "?"
                 else m.group(1), out)
    return out, "dim %s -> %s in every tensor type" % (old, new)


def m_swap_operands(text, rng):
    cands = [("bin", h) for h in BINARY_RE.finditer(text)] + [("ins", h) for h in INS_RE.finditer(text)]
    if not cands:
        return None
    kind, h = rng.choice(cands)
    if kind == "bin":
        new = "%s %s, %s" % (h.group(1), h.group(3), h.group(2))
    else:
        new = "ins(%s, %s : %s, %s)" % (h.group(2), h.group(1), h.group(4).strip(), h.group(3).strip())
    return text[:h.start()] + new + text[h.end():], "swap operands: %s" % h.group(0)[:80]


def m_swap_opname(text, rng):
    hits = []
    for group in OPNAME_GROUPS:
        for name in group:
            for h in re.finditer(re.escape(name) + r"(?![\w.])", text):
                hits.append((h, group))
    if not hits:
        return None
    h, group = rng.choice(hits)
    new = rng.choice([n for n in group if n != h.group(0)])
    return text[:h.start()] + new + text[h.end():], "op %s -> %s" % (h.group(0), new)


def m_change_map(text, rng):
    hits = list(MAP_RE.finditer(text))
    if not hits:
        return None
    h = rng.choice(hits)
    dims = [d.strip() for d in h.group(1).split(",") if d.strip()]
    res = [r.strip() for r in h.group(2).split(",") if r.strip()]
    choice = rng.random()
    if res and choice < 0.4 and len(res) >= 2:
        i, j = rng.sample(range(len(res)), 2)
        res[i], res[j] = res[j], res[i]
        what = "swap results"
    elif res and dims and choice < 0.8:
        i = rng.randrange(len(res))
        res[i] = rng.choice(dims + ["0", dims[0] + " floordiv 64", dims[-1] + " mod 128"])
        what = "replace a result"
    elif res:
        res.pop(rng.randrange(len(res)))
        what = "drop a result"
    else:
        return None
    new = "affine_map<(%s) -> (%s)>" % (", ".join(dims), ", ".join(res))
    return text[:h.start()] + new + text[h.end():], "map %s: %s" % (what, new)


ELEM_RE = r"\b(%s)\b"


def m_change_elem_type(text, rng):
    # Dense-array element types too: `array<index: ...>` crashes the MLIR 22 attribute parser (mlir-opt too),
    # and w4a16-opt must report it as a located error before parsing (tools/common/parse_guard.h).
    hits = list(re.finditer(ELEM_RE % "f16|f32|bf16|i4|i8|i32", text))
    if not hits:
        return None
    if rng.random() < 0.5:
        h = rng.choice(hits)
        new = rng.choice([t for t in ELEM_TYPES if t != h.group(1)])
        return text[:h.start()] + new + text[h.end():], "element type %s -> %s once" % (h.group(1), new)
    old = rng.choice(sorted({h.group(1) for h in hits}))
    new = rng.choice([t for t in ELEM_TYPES if t != old])
    return re.sub(ELEM_RE % old, new, text), "element type %s -> %s everywhere" % (old, new)


def m_change_attr(text, rng):
    hits = [h for h in re.finditer(r'"(none|silu|gelu_tanh|packed_k8_n|k_n|n_k|g_n|n_g)"', text)]
    hits += list(re.finditer(r"array<i32: ([\d, ]+)>", text))
    hits += list(re.finditer(r"group_size = (\d+) : i64", text))
    if not hits:
        return None
    h = rng.choice(hits)
    if h.group(0).startswith('"'):
        new = rng.choice([a for a in ATTR_STRINGS if a != h.group(0)])
        return text[:h.start()] + new + text[h.end():], "attribute %s -> %s" % (h.group(0), new)
    if h.group(0).startswith("array"):
        nums = [n.strip() for n in h.group(1).split(",")]
        nums[rng.randrange(len(nums))] = rng.choice(["0", "1", "2"])
        new = "array<i32: %s>" % ", ".join(nums)
        return text[:h.start()] + new + text[h.end():], "operandSegmentSizes -> %s" % new
    new = "group_size = %s : i64" % rng.choice(["0", "64", "129", "-128"])
    return text[:h.start()] + new + text[h.end():], new


MUTATIONS = [m_drop_line, m_bypass_op, m_bypass_op, m_change_const, m_change_const, m_change_dim_once,
             m_change_dim_everywhere, m_swap_operands, m_swap_opname, m_swap_opname, m_change_map,
             m_change_elem_type, m_change_attr]


def mutate(chunk, rng):
    descs = []
    text = chunk
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        for _attempt in range(8):
            r = rng.choice(MUTATIONS)(text, rng)
            if r is not None and r[0] != text:
                text, d = r
                descs.append(d)
                break
    return text, descs


def run(cmd, stdin_path=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % TIMEOUT_S


def crashed(rc, err):
    if rc is None:
        return "hang (timeout)"
    if rc < 0:
        return "killed by signal %d" % -rc
    if rc >= 128:
        return "exit status %d (signal?)" % rc
    for m in CRASH_MARKERS:
        if m in err:
            return "crash marker %r on stderr" % m
    if rc not in (0, 1):
        return "unexpected exit status %d" % rc
    return None


def check_variant(tool, path, flags, idempotence=True):
    """Returns ('clean'|'error', None) or ('fail', reason)."""
    rc, out, err = run([tool] + flags + ["--split-input-file", path])
    bad = crashed(rc, err)
    if bad:
        return "fail", bad + "\n" + err[-2000:]
    if rc == 1:
        if not LOCATED_ERROR_RE.search(err):
            return "fail", "exit 1 without a located '<file>:<line>:<col>: error:'\n" + err[-2000:]
        return "error", None
    if not idempotence:
        return "clean", None
    once = path + ".out.mlir"
    with open(once, "w") as f:
        f.write(out)
    rc2, out2, err2 = run([tool, "--w4a16-fuse", "--split-input-file", once])
    bad = crashed(rc2, err2)
    if bad:
        return "fail", "re-running on the output: " + bad + "\n" + err2[-2000:]
    if rc2 != 0:
        return "fail", "the output of a successful run does not parse/verify again:\n" + err2[-2000:]
    if out2 != out:
        twice = path + ".out2.mlir"
        with open(twice, "w") as f:
            f.write(out2)
        return "fail", "not idempotent: fuse(fuse(x)) != fuse(x); see %s vs %s" % (once, twice)
    return "clean", None


def suite_files(suite, dirs):
    """The .mlir files of the suite's directories dirs (names relative to suite), sorted per directory."""
    files = []
    for d in dirs:
        root = os.path.join(suite, d)
        files += sorted(os.path.join(root, f) for f in os.listdir(root) if f.endswith(".mlir"))
    return files


def file_chunks(files):
    """(file, chunk number, text) of every `// -----` chunk of files that holds a function."""
    chunks = []
    for f in files:
        with open(f) as fh:
            parts = SPLIT_RE.split(fh.read())
        chunks += [(f, k, c) for k, c in enumerate(parts) if "func.func" in c]
    return chunks


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", default="w4a16-opt")
    ap.add_argument("--suite", required=True, help="the test/ directory")
    ap.add_argument("--dirs", default="fuse,explain")
    ap.add_argument("--tmp", required=True, help="scratch directory (recreated)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variants", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--suite-only", action="store_true")
    ap.add_argument("--pipelines", action="store_true", help="host and GPU pipelines instead of the fuse pass")
    args = ap.parse_args()

    tool = shutil.which(args.tool) or args.tool
    if not os.path.exists(tool):
        print("mutate: tool %s not found" % args.tool)
        return 2
    files = suite_files(args.suite, args.dirs.split(","))
    if not files:
        print("mutate: no .mlir files under %s" % args.suite)
        return 2
    shutil.rmtree(args.tmp, ignore_errors=True)
    os.makedirs(args.tmp)

    jobs = []  # (path, flags, description)
    if args.suite_only:
        for f in files:
            dst = os.path.join(args.tmp, os.path.basename(f))
            shutil.copyfile(f, dst)
            jobs.append((dst, ["--w4a16-fuse"], "unmutated " + os.path.relpath(f, args.suite)))
    else:
        rng = random.Random(args.seed)
        chunks = file_chunks(files)
        order = list(range(len(chunks)))
        rng.shuffle(order)
        for v in range(args.variants):
            f, k, chunk = chunks[order[v % len(order)]]
            text, descs = mutate(chunk, rng)
            name = "%03d-%s-%d.mlir" % (v, os.path.splitext(os.path.basename(f))[0], k)
            dst = os.path.join(args.tmp, name)
            with open(dst, "w") as fh:
                fh.write("// mutated from %s chunk %d: %s\n" % (os.path.relpath(f, args.suite), k, "; ".join(descs)))
                fh.write(text)
            if args.pipelines:
                flags = ["--w4a16-gpu-pipeline"] if v % 2 else ["--w4a16-pipeline"]
            else:
                flags = ["--w4a16-explain"] if v % 3 == 2 else ["--w4a16-fuse"]
            jobs.append((dst, flags, "; ".join(descs)))

    counts = {"clean": 0, "error": 0, "fail": 0}
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {ex.submit(check_variant, tool, p, fl, not args.pipelines): (p, fl, d) for p, fl, d in jobs}
        for fut in concurrent.futures.as_completed(futs):
            p, fl, d = futs[fut]
            status, reason = fut.result()
            counts[status] += 1
            if status == "fail":
                failures.append((p, fl, d, reason))
    failures.sort()
    for p, fl, d, reason in failures:
        print("FAIL: %s %s --split-input-file %s\n  mutation: %s\n  %s" % (
            os.path.basename(tool), " ".join(fl), p, d, reason.replace("\n", "\n  ")))
    print("mutate: variants: %d, clean: %d, located errors: %d, failures: %d" % (
        len(jobs), counts["clean"], counts["error"], counts["fail"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
