/* w4a16-expand-f8: arith.extf from and arith.truncf to the two FP8 formats checkpoints and KV caches use
 * (f8E4M3FN: OCP / NVIDIA e4m3, no infinities, 0x7f / 0xff NaN; f8E5M2: the top byte of an f16) become calls
 * of private functions that do the conversion in integer arithmetic on the byte (`inline` then removes the
 * calls). Why: nothing upstream lowers them -- arith-to-llvm leaves an f8 value as an i8 with a cast LLVM cannot
 * translate, and arith-expand covers f8E8M0 and f4E2M1 only. Semantics are arith's (LLVM APFloat's): extf is
 * exact; truncf rounds to nearest even, a NaN stays NaN, and what overflows becomes NaN in e4m3 (it has no
 * infinity) and infinity in e5m2. Scalars only, wherever they are (a linalg body, a loop): the pipeline runs
 * this after convert-elementwise-to-linalg, which turns extf / truncf on whole tensors into bodies. Other FP8
 * formats (the FNUZ ones, f8E4M3, f8E3M4, f8E8M0FNU) and f64 sources (f64 -> f32 -> f8 would round twice) are
 * left as they are, and the pipeline's check names the op that remains. */
#include "call_template.h"
#include "ir_build.h"
#include "ir_query.h"
#include "stateless_pass.h"
#include "w4a16/lowering.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { kNotF8, kE4M3FN, kE5M2 } F8Format;

static F8Format formatOf(MlirType t) {
  return mlirTypeIsAFloat8E4M3FN(t) ? kE4M3FN : mlirTypeIsAFloat8E5M2(t) ? kE5M2 : kNotF8;
}

/* f16, bf16 or f32: what the byte is converted from or to (through f32). */
static bool isWideFloat(MlirType t) { return mlirTypeIsAF16(t) || mlirTypeIsABF16(t) || mlirTypeIsAF32(t); }

static bool isConversion(MlirOperation op, void *unused) {
  (void)unused;
  if (mlirOperationGetNumOperands(op) != 1 || mlirOperationGetNumResults(op) != 1)
    return false;
  MlirType from = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType to = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (opIs(op, "arith.extf"))
    return formatOf(from) != kNotF8 && (isWideFloat(to) || mlirTypeIsAF64(to));
  if (opIs(op, "arith.truncf")) {
    MlirAttribute mode = attr(op, "roundingmode"); /* set: a mode other than the default's nearest-even */
    return formatOf(to) != kNotF8 && isWideFloat(from) && mlirAttributeIsNull(mode);
  }
  return false;
}

/* %f : f32 (the byte's value; %b : i8 the byte) from e4m3's sign, exponent (bias 7) and 3-bit mantissa. A
 * normal value's exponent and mantissa shifted into f32's fields, rebiased by 120; a subnormal one (exponent 0) is
 * mantissa * 2^-9; 0x7f is NaN. */
static const char kE4M3FNToF32[] =
    "    %u = arith.extui %b : i8 to i32\n"
    "    %c127 = arith.constant 127 : i32\n"
    "    %em = arith.andi %u, %c127 : i32\n"
    "    %c20 = arith.constant 20 : i32\n"
    "    %fields = arith.shli %em, %c20 : i32\n"
    "    %rebias = arith.constant 1006632960 : i32\n" /* 120 << 23 */
    "    %normalBits = arith.addi %fields, %rebias : i32\n"
    "    %normal = arith.bitcast %normalBits : i32 to f32\n"
    "    %c8 = arith.constant 8 : i32\n"
    "    %isSubnormal = arith.cmpi ult, %em, %c8 : i32\n"
    "    %m = arith.uitofp %em : i32 to f32\n"
    "    %ulp = arith.constant 0.001953125 : f32\n" /* 2^-9 */
    "    %subnormal = arith.mulf %m, %ulp : f32\n"
    "    %finite = arith.select %isSubnormal, %subnormal, %normal : f32\n"
    "    %isNan = arith.cmpi eq, %em, %c127 : i32\n"
    "    %nan = arith.constant 0x7FC00000 : f32\n"
    "    %magnitude = arith.select %isNan, %nan, %finite : f32\n"
    "    %c128 = arith.constant 128 : i32\n"
    "    %s = arith.andi %u, %c128 : i32\n"
    "    %c24 = arith.constant 24 : i32\n"
    "    %sign = arith.shli %s, %c24 : i32\n"
    "    %mbits = arith.bitcast %magnitude : f32 to i32\n"
    "    %fbits = arith.ori %mbits, %sign : i32\n"
    "    %f = arith.bitcast %fbits : i32 to f32\n";

/* %h : f16 from e5m2's byte %b: it is the top byte of the f16 with the same value (infinities and NaN too). */
static const char kE5M2ToF16[] =
    "    %u = arith.extui %b : i8 to i16\n"
    "    %c8 = arith.constant 8 : i16\n"
    "    %hbits = arith.shli %u, %c8 : i16\n"
    "    %h = arith.bitcast %hbits : i16 to f16\n";

/* %b : i8 from %x : f32, rounded to nearest even; `shift` = 23 - mantissa bits, `rebias` = (127 - bias) <<
 * mantissa bits, `minNormal` the bits of the least normal value, `subnormalScale` 1 / the subnormal step,
 * `overflow` what a too large magnitude (and an infinity) becomes, `nan` what a NaN becomes, `maxFinite` the
 * largest finite magnitude's byte. Normal values: adding 2^(shift-1) - 1 plus the lowest kept bit and shifting
 * rounds the mantissa to nearest even in integer arithmetic, and a carry into the exponent is right. Subnormal
 * values: |x| times 1 / step plus 2^23 rounds to an integer in f32 (nearest even) that is the byte itself. */
static void appendTruncF32(Text *t, int shift, long rebias, unsigned minNormal, const char *subnormalScale,
                           unsigned overflow, unsigned nan, unsigned maxFinite) {
  append(t,
         "    %%u = arith.bitcast %%x : f32 to i32\n"
         "    %%absMask = arith.constant 2147483647 : i32\n"
         "    %%a = arith.andi %%u, %%absMask : i32\n"
         "    %%shift = arith.constant %d : i32\n"
         "    %%kept = arith.shrui %%a, %%shift : i32\n"
         "    %%one = arith.constant 1 : i32\n"
         "    %%odd = arith.andi %%kept, %%one : i32\n"
         "    %%half = arith.constant %u : i32\n"
         "    %%biased = arith.addi %%a, %%half : i32\n"
         "    %%rounded = arith.addi %%biased, %%odd : i32\n"
         "    %%roundedKept = arith.shrui %%rounded, %%shift : i32\n"
         "    %%rebias = arith.constant %ld : i32\n"
         "    %%normal = arith.subi %%roundedKept, %%rebias : i32\n",
         shift, (1u << (shift - 1)) - 1, rebias);
  append(t,
         "    %%af = arith.bitcast %%a : i32 to f32\n"
         "    %%scale = arith.constant %s : f32\n"
         "    %%scaled = arith.mulf %%af, %%scale : f32\n"
         "    %%magic = arith.constant 8388608.0 : f32\n" /* 2^23 */
         "    %%sum = arith.addf %%scaled, %%magic : f32\n"
         "    %%sumBits = arith.bitcast %%sum : f32 to i32\n"
         "    %%magicBits = arith.constant 1258291200 : i32\n" /* bits of 2^23 */
         "    %%subnormal = arith.subi %%sumBits, %%magicBits : i32\n"
         "    %%minNormal = arith.constant %u : i32\n"
         "    %%isSubnormal = arith.cmpi ult, %%a, %%minNormal : i32\n"
         "    %%finite = arith.select %%isSubnormal, %%subnormal, %%normal : i32\n"
         "    %%maxFinite = arith.constant %u : i32\n"
         "    %%overflows = arith.cmpi ugt, %%finite, %%maxFinite : i32\n"
         "    %%overflow = arith.constant %u : i32\n"
         "    %%bounded = arith.select %%overflows, %%overflow, %%finite : i32\n"
         "    %%infBits = arith.constant 2139095040 : i32\n" /* 0x7f800000 */
         "    %%isNan = arith.cmpi ugt, %%a, %%infBits : i32\n"
         "    %%nan = arith.constant %u : i32\n"
         "    %%magnitude = arith.select %%isNan, %%nan, %%bounded : i32\n"
         "    %%signShift = arith.constant 24 : i32\n"
         "    %%signWord = arith.shrui %%u, %%signShift : i32\n"
         "    %%signMask = arith.constant 128 : i32\n"
         "    %%sign = arith.andi %%signWord, %%signMask : i32\n"
         "    %%byte = arith.ori %%magnitude, %%sign : i32\n"
         "    %%b = arith.trunci %%byte : i32 to i8\n",
         subnormalScale, minNormal, maxFinite, overflow, nan);
}

/* func.func private @name(%in : from) -> to, converting as isConversion accepted. */
static void writeFunction(Text *t, MlirOperation op, const char *name) {
  MlirType from = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType to = mlirValueGetType(mlirOperationGetResult(op, 0));
  char fromText[32], toText[32];
  typeName(from, fromText, sizeof fromText);
  typeName(to, toText, sizeof toText);
  /* truncf's f32 source is the %x the rounding reads; other sources are widened to it */
  const bool f32Source = opIs(op, "arith.truncf") && mlirTypeIsAF32(from);
  append(t, "func.func private @%s(%%%s: %s) -> %s {\n", name, f32Source ? "x" : "in", fromText, toText);
  if (opIs(op, "arith.extf")) {
    append(t, "    %%b = arith.bitcast %%in : %s to i8\n", fromText);
    /* the value as f16 (e5m2) or f32 (e4m3), then widened or narrowed to `to`: exact, every FP8 value fits */
    const bool e5m2 = formatOf(from) == kE5M2;
    append(t, "%s", e5m2 ? kE5M2ToF16 : kE4M3FNToF32);
    const char *have = e5m2 ? "f16" : "f32", *value = e5m2 ? "%h" : "%f";
    if (strcmp(have, toText) == 0)
      append(t, "    return %s : %s\n}\n", value, toText);
    else if (mlirTypeIsABF16(to) && e5m2)
      append(t, "    %%w = arith.extf %%h : f16 to f32\n    %%r = arith.truncf %%w : f32 to bf16\n"
                "    return %%r : bf16\n}\n");
    else
      append(t, "    %%r = arith.%s %s : %s to %s\n    return %%r : %s\n}\n",
             mlirTypeIsAF64(to) || (e5m2 && mlirTypeIsAF32(to)) ? "extf" : "truncf", value, have, toText, toText);
    return;
  }
  if (!f32Source)
    append(t, "    %%x = arith.extf %%in : %s to f32\n", fromText);
  if (formatOf(to) == kE4M3FN) /* 3 mantissa bits, bias 7; 2^-6 least normal; 448 (0x7e) the largest */
    appendTruncF32(t, 20, 120L << 3, 0x3c800000u, "512.0", 0x7f, 0x7f, 0x7e);
  else /* e5m2: 2 mantissa bits, bias 15; 2^-14 least normal; 57344 (0x7b) the largest, 0x7c infinity */
    appendTruncF32(t, 21, 112L << 2, 0x38800000u, "65536.0", 0x7c, 0x7e, 0x7b);
  append(t, "    %%r = arith.bitcast %%b : i8 to %s\n    return %%r : %s\n}\n", toText, toText);
}

/* One function per (op, source, result) types, shared by every such op of the module. */
static bool rewrite(MlirOperation module, MlirOperation op, int index) {
  (void)index;
  char from[32], to[32], name[96];
  typeName(mlirValueGetType(mlirOperationGetOperand(op, 0)), from, sizeof from);
  typeName(mlirValueGetType(mlirOperationGetResult(op, 0)), to, sizeof to);
  snprintf(name, sizeof name, "w4a16_%s_%s_to_%s", opIs(op, "arith.extf") ? "extf" : "truncf", from, to);
  Text t = {NULL, 0, 0};
  if (!hasSymbol(module, mlirStringRefCreateFromCString(name)))
    writeFunction(&t, op, name);
  const bool replaced = replaceWithTemplateCall(module, op, name, t.buf, "w4a16-expand-f8");
  free(t.buf);
  return replaced;
}

static void run(MlirOperation root, MlirExternalPass pass) { rewriteEach(root, pass, isConversion, rewrite); }

static _Alignas(8) char passId;
static const StatelessPassSpec kExpandF8Pass = {
    &passId, "W4a16ExpandF8", "w4a16-expand-f8",
    "arith.extf / truncf between f8E4M3FN or f8E5M2 and f16, bf16, f32 (extf also f64) -> integer arithmetic",
    "builtin.module", NULL, run, NULL};

MlirPass w4a16CreateExpandF8Pass(void) { return createStatelessPass(&kExpandF8Pass); }
