#!/usr/bin/env python3
"""Differential check of the matcher: fusion never changes what a function computes.

mutate.py checks that no input crashes w4a16-opt; this checks the other half of "never silent wrong output".
It takes the chunks of the suite's .mlir files (test/fuse and test/explain by default, --dirs), mutates them with
mutate.py's mutations (changed constants, element types, maps, op names, dims, dropped or bypassed ops), keeps the
variants in which w4a16-compile --explain reports a fused chain (or w4a16-opt a fused LLM.int8 preparation), and
compiles each twice: the fused build and the reference (--no-fuse: upstream lowering only, of the IR with upstream's
runtime verification, mlir-opt --generate-runtime-verification, where mlir-opt takes the IR: an input that breaks
the IR's own shape rules, such as a dynamic size that must equal another, makes the reference fail and the function
is skipped, since both builds' results are undefined there). Both run on the same random inputs (packed words with random bits;
i4 and, in half the variants, i8 elements in 0..15 as real codes and zero points are, else i8 random bytes; floats
of magnitude 1/16..1 and random sign; every dynamic dim 3) through their w4a16c_run_<f>
entry points, the fused build on the CPU runtime (a shared copy of it, --runtime-lib); the results must agree
within 5e-2 relative L2, or have fewer than 5 % of their elements off by more than 2e-2 (1 + |ref|) (the reference
accumulates in the IR's own type, f16 included, so the bounds are loose: a matcher that takes a different formula
moves most elements by O(1); where the IR accumulates in bf16, whose 8 bits leave the reference itself off by ~7 %
over K = 4096, the bound is 25 % relative L2). A 1-D i32/i64 argument is taken for GPTQ's g_idx: the
group numbers k / 128, shuffled (act-order); another 1-D i64 argument for a column list (the LLM.int8
correction's cols): random indices below every static last dim of a matrix argument. Variants with other 1-D
integer arguments (a gather index read at random would be out of bounds), or an input of more than --max-elems elements (16x that for integers, generated
in bulk), are skipped,
and so is a fused build that refuses its inputs with an error status (a clear error is allowed; a crash, a wrong
or non-finite result is not).

Prints `differential: variants: N, fused and compared: C, skipped: S, mismatches: F` and exits 1 if F > 0,
keeping each mismatching variant under --tmp.
"""
import argparse
import ctypes
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402  (the suite's mutations)

FUNC_RE = re.compile(r"func\.func @([\w$.]+)\(([^)]*)\)\s*->\s*(\([^)]*\)|tensor<[^>]*>)\s*\{")
RESULT_TYPE_RE = re.compile(r"tensor<[^>]*>")
ARG_TYPE_RE = re.compile(r"%[\w$.-]+\s*:\s*(tensor<[^>]*>)")
ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i4": 1, "i8": 1, "i32": 4, "i64": 8}
DYN = 3  # every dynamic dim
RUNTIME = None  # the shared runtime (--runtime-lib), for the message of a refused call
MLIR_OPT = None  # upstream's mlir-opt (--mlir-opt), for the reference's runtime verification
# A reduction (a generic with a reduction loop, or a named matmul) whose accumulator is bf16.
BF16_ACCUMULATOR_RE = re.compile(r'(?:"reduction"[^\n]*|linalg\.(?:batch_)?matmul[^\n]*)outs\([^)]*xbf16>\)')


def accumulates_in_bf16(text, fname):
    """Whether function `fname` of `text` reduces into a bf16 accumulator (the reference's own error is large)."""
    head = re.search(r"^\s*func\.func @%s\(" % re.escape(fname), text, re.M)  # the definition, not a CHECK line
    if not head:
        return False
    tail = re.search(r"^\s*func\.func @", text[head.end():], re.M)
    return bool(BF16_ACCUMULATOR_RE.search(text[head.start():head.end() + tail.start() if tail else len(text)]))


def parse_tensor(t):
    parts = t[len("tensor<"):-1].split("x")
    return [DYN if p == "?" else int(p) for p in parts[:-1]], parts[-1]


LOW_NIBBLE = bytes(b & 15 for b in range(256))


def random_bytes(elem, n, rng, narrow):
    if elem == "i4" or (elem == "i8" and narrow):  # narrow: the 0..15 of real 4-bit codes and zero points
        return (rng.getrandbits(8 * n).to_bytes(n, "little") if n else b"").translate(LOW_NIBBLE)
    if elem in ("i8", "i32", "i64"):
        return rng.getrandbits(8 * n * ELEM_BYTES[elem]).to_bytes(n * ELEM_BYTES[elem], "little") if n else b""
    vals = [rng.choice((-1.0, 1.0)) * rng.uniform(1 / 16, 1.0) for _ in range(n)]
    if elem == "f16":
        return struct.pack("<%de" % n, *vals)
    if elem == "bf16":
        return b"".join(struct.pack("<f", v)[2:] for v in vals)
    return struct.pack("<%d%s" % (n, "f" if elem == "f32" else "d"), *vals)


def to_floats(elem, data, n):
    if elem == "f16":
        return list(struct.unpack("<%de" % n, data))
    if elem == "bf16":
        return [struct.unpack("<f", b"\0\0" + data[2 * i:2 * i + 2])[0] for i in range(n)]
    if elem in ("f32", "f64"):
        return list(struct.unpack("<%d%s" % (n, "f" if elem == "f32" else "d"), data))
    return None


def memref_type(rank):
    return type("Memref%d" % rank, (ctypes.Structure,), {"_fields_": [
        ("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64),
        ("sizes", ctypes.c_int64 * max(rank, 1)), ("strides", ctypes.c_int64 * max(rank, 1))]})


def run_build(so, fname, args, result):
    """Calls w4a16c_prepare_<fname>, then w4a16c_run_<fname> of so on args [(shape, elem, bytes)] (prepare also for
    the reference: the input may hold w4a16 ops already); returns (the results' bytes, their element count), or
    (the message, -status) when a call returned a nonzero status."""
    lib = ctypes.CDLL(so, mode=ctypes.RTLD_LOCAL)
    keep, ptrs = [], []
    for shape, _, data in args:
        buf = ctypes.create_string_buffer(data, max(len(data), 1))
        m = memref_type(len(shape))()
        m.allocated = m.aligned = ctypes.addressof(buf)
        stride = 1
        for d in range(len(shape) - 1, -1, -1):
            m.sizes[d], m.strides[d] = shape[d], stride
            stride *= shape[d]
        keep += [buf, m]
        ptrs.append(ctypes.cast(ctypes.pointer(m), ctypes.c_void_p))
    # the results, one memref descriptor each, back to back (every field is 8 bytes: no padding)
    ret = type("Results", (ctypes.Structure,), {"_fields_": [
        ("r%d" % i, memref_type(len(shape))) for i, (shape, _) in enumerate(result)]})()
    for entry in ("w4a16c_prepare_" + fname, "w4a16c_run_" + fname):
        fn = getattr(lib, entry)
        fn.restype = ctypes.c_int32
        fn.argtypes = [ctypes.c_void_p] * (1 + len(ptrs))
        status = fn(ctypes.cast(ctypes.pointer(ret), ctypes.c_void_p), *ptrs)
        if status != 0:  # a clear error status, not a result: its message instead
            msg = RUNTIME.w4a16_rt_last_error() if RUNTIME else b""
            return msg or b"", -status
    data, total = b"", 0
    for i, (shape, elem) in enumerate(result):
        m = getattr(ret, "r%d" % i)
        n = math.prod(m.sizes[d] for d in range(len(shape)))
        data += ctypes.string_at(m.aligned + m.offset * ELEM_BYTES[elem], n * ELEM_BYTES[elem])
        total += n
    return data, total


def inputs_for(func, rng, max_elems, narrow):
    """Random arguments [(shape, elem, bytes)] and the result types [(shape, elem)] of func (one element type:
    they are compared as one list), or a reason to skip it."""
    _, arg_text, result_type = func
    args = []
    arg_types = [parse_tensor(t) for t in ARG_TYPE_RE.findall(arg_text)]
    # a column list (the LLM.int8 correction's cols): indices into the last dim of every matrix argument
    trailing = [shape[-1] for shape, elem in arg_types if len(shape) == 2 and shape[-1] != DYN]
    for shape, elem in arg_types:
        if elem not in ELEM_BYTES:
            return "skip: argument type"
        n = math.prod(shape)
        if n > (max_elems if elem[0] in "fb" else 16 * max_elems):  # integers are generated in bulk: 16x more
            return "skip: inputs too large"
        if elem in ("i32", "i64") and len(shape) == 1:  # an index vector
            if n % 128 == 0:  # GPTQ's g_idx: shuffled groups of 128
                index = [k // 128 for k in range(n)]
                rng.shuffle(index)
            elif elem == "i64" and trailing and min(trailing) > 0:  # a column list
                index = [rng.randrange(min(trailing)) for _ in range(n)]
            else:
                return "skip: argument type"
            args.append((shape, elem, struct.pack("<%d%s" % (n, "i" if elem == "i32" else "q"), *index)))
            continue
        if elem[0] == "i" and len(shape) == 1:
            return "skip: argument type"
        args.append((shape, elem, random_bytes(elem, n, rng, narrow)))
    results = [parse_tensor(t) for t in RESULT_TYPE_RE.findall(result_type)]
    if not results or any(elem != results[0][1] or elem not in ("f16", "bf16", "f32") for _, elem in results):
        return "skip: result types"
    return args, results


def compare(fused_so, ref_so, fname, args, result, bf16_accumulator=False):
    """'ok', a skip reason, or what differs between the two builds' results."""
    # Each build runs in a child process: a crash of compiled code must not take the harness with it.
    got = call_in_child(fused_so, fname, args, result)
    want = call_in_child(ref_so, fname, args, result)
    if want is None or want[1] < 0:
        return "skip: the reference failed (a crash, or its runtime verification: inputs outside the IR's shape rules)"
    if got is None:
        return "@%s: the fused build crashed where the reference ran" % fname
    if got[1] < 0:  # a clear error (never-silent is the rule; out-of-contract inputs may be refused)
        return "skip: the fused build refused the inputs: " + re.sub(r"^[^:]*: ", "", got[0].decode(errors="replace"))[:160]
    g, w = to_floats(result[0][1], *got), to_floats(result[0][1], *want)
    if len(g) != len(w):
        return "@%s: result sizes differ: %d vs %d" % (fname, len(g), len(w))
    if any(not math.isfinite(v) for v in w):
        return "skip: the reference is not finite"
    if any(not math.isfinite(v) for v in g):
        return "@%s: the fused result has NaN/Inf where the reference is finite" % fname
    num = math.sqrt(sum((a - b) ** 2 for a, b in zip(g, w)))
    den = math.sqrt(sum(b * b for b in w)) or 1.0
    off = sum(abs(a - b) > 2e-2 * (1 + abs(b)) for a, b in zip(g, w)) / len(w)
    # Both: a reference that accumulates in f16 over K = 4096 is itself off by a few %, and an epilogue the chain
    # does not take (y / (1 - y) after a bypassed exp) magnifies that at a few elements (rel L2 0.97 with 2.3 % of
    # them off); a different formula moves most elements.
    if num / den <= 5e-2 or off < 0.05 or (bf16_accumulator and num / den <= 0.25):
        return "ok"
    return "@%s: rel L2 %.3e, %.1f %% of the elements off by more than 2e-2 (1 + |ref|)" % (fname, num / den, 100 * off)


def check_variant(text, path_base, tool_dir, rng, max_elems):
    """'ok' (every function that could be run agreed), a skip reason, or a mismatch description."""
    src = path_base + ".mlir"
    with open(src, "w") as fh:
        fh.write(text)
    runnable = []
    reason = "skip: no function with tensor results"
    narrow = rng.random() < 0.5
    for func in FUNC_RE.findall(text):
        r = inputs_for(func, rng, max_elems, narrow)
        if isinstance(r, str):
            reason = r
        else:
            runnable.append((func[0],) + r)
    if not runnable:
        return reason
    compile_ = os.path.join(tool_dir, "w4a16-compile")
    fused = subprocess.run([compile_, src, "--explain", "-o", path_base + ".fused.so"], capture_output=True,
                           text=True, timeout=120)
    prep = subprocess.run([os.path.join(tool_dir, "w4a16-opt"), src, "--w4a16-explain-int8-prep", "-o", os.devnull],
                          capture_output=True, text=True, timeout=120)
    if fused.returncode != 0 or not (re.search(r"remark: w4a16: (fused as|merged)", fused.stderr) or
                                     "remark: w4a16-int8-prep: fused as" in prep.stderr):
        return "skip: nothing fused"
    if "out of bounds" in fused.stderr:  # the matcher saw the IR read out of bounds: both builds' results undefined
        return "skip: the IR reads out of bounds"
    ref_src = path_base + ".verified.mlir"
    verified = subprocess.run([MLIR_OPT, src, "--generate-runtime-verification", "-o", ref_src], capture_output=True,
                              text=True, timeout=120)
    if verified.returncode != 0:  # IR mlir-opt does not know (w4a16 ops already in it): the reference as written
        ref_src = src
    ref = subprocess.run([compile_, ref_src, "--no-fuse", "-o", path_base + ".ref.so"], capture_output=True, text=True,
                         timeout=120)
    if ref.returncode != 0:
        return "skip: the reference does not compile"
    verdicts = [compare(path_base + ".fused.so", path_base + ".ref.so", *f, bf16_accumulator=accumulates_in_bf16(text, f[0]))
                for f in runnable]
    bad = [v for v in verdicts if v != "ok" and not v.startswith("skip")]
    return "; ".join(bad) if bad else "ok" if "ok" in verdicts else verdicts[0]


def call_in_child(so, fname, args, result):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(2, 1)  # what compiled code prints (a failed runtime verification) goes to stderr, not the report
        try:
            out = run_build(so, fname, args, result)
            payload = struct.pack("<q", out[1]) + out[0]
            with os.fdopen(w, "wb") as fh:
                fh.write(payload)
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        payload = fh.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or len(payload) < 8:
        return None
    return payload[8:], struct.unpack("<q", payload[:8])[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool-dir", required=True, help="directory holding w4a16-compile")
    ap.add_argument("--runtime-lib", required=True, help="shared library exporting the w4a16 runtime's symbols")
    ap.add_argument("--mlir-opt", default=shutil.which("mlir-opt") or "/usr/lib/llvm-22/bin/mlir-opt",
                    help="upstream's mlir-opt (default: on PATH, else LLVM 22's)")
    ap.add_argument("--suite", required=True, help="the test/ directory")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variants", type=int, default=100)
    ap.add_argument("--max-elems", type=int, default=1 << 22)
    ap.add_argument("--dirs", default="fuse,explain", help="the suite's folders to draw chunks from")
    ap.add_argument("--files", nargs="+", help="check every chunk of these files, unmutated, instead of --variants "
                                               "random chunks of the suite")
    opts = ap.parse_args()
    global RUNTIME, MLIR_OPT
    MLIR_OPT = opts.mlir_opt
    RUNTIME = ctypes.CDLL(opts.runtime_lib, mode=ctypes.RTLD_GLOBAL)  # the fused builds' runtime calls resolve here
    RUNTIME.w4a16_rt_last_error.restype = ctypes.c_char_p
    os.makedirs(opts.tmp, exist_ok=True)
    rng = random.Random(opts.seed)
    chunks = mutate.file_chunks(opts.files or [f for f in mutate.suite_files(opts.suite, tuple(opts.dirs.split(",")))
                                               if not os.path.basename(f).startswith("invalid")])
    # Chunks of hundreds of linalg ops (explain/too-deep-to-analyse.mlir's 210-op chains) are the matcher's depth
    # test, not a formula: LLVM's -O3 takes minutes on that many loop nests, past the compile timeout.
    chunks = [c for c in chunks if c[2].count("linalg.") <= 150]
    if opts.files:
        opts.variants = len(chunks)
    counts = {"ok": 0, "skip": 0}
    skips, failures = {}, []
    for i in range(opts.variants):
        path, _, chunk = chunks[i] if opts.files else rng.choice(chunks)
        variant = chunk if opts.files or i % 2 == 0 else mutate.mutate(chunk, rng)[0]
        base = os.path.join(opts.tmp, "variant%03d" % i)
        verdict = check_variant(variant, base, opts.tool_dir, rng, opts.max_elems)
        if verdict == "ok" or verdict.startswith("skip"):
            counts[verdict.split(":")[0]] += 1
            if verdict != "ok":
                skips[verdict] = skips.get(verdict, 0) + 1
            for suffix in (".mlir", ".verified.mlir", ".fused.so", ".ref.so"):
                if os.path.exists(base + suffix):
                    os.remove(base + suffix)
        else:
            failures.append("%s.mlir (from %s): %s" % (base, os.path.basename(path), verdict))
    print("differential: variants: %d, fused and compared: %d, skipped: %d, mismatches: %d"
          % (opts.variants, counts["ok"], counts["skip"], len(failures)))
    for reason, n in sorted(skips.items()):
        print("  %4d %s" % (n, reason))
    for f in failures:
        print("  MISMATCH " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
