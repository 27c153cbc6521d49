// Pass flags and --pass-pipeline strings run in the order they appear on the command line, all in one pass
// manager (the verifier runs after each pass).
//
// RUN: w4a16-opt --mlir-print-ir-before-all --pass-pipeline='builtin.module(cse)' --w4a16-fuse \
// RUN:   --pass-pipeline='builtin.module(canonicalize)' --w4a16-verify %s 2>&1 >/dev/null | FileCheck %s
// RUN: w4a16-opt --mlir-print-ir-before-all --w4a16-verify --pass-pipeline=canonicalize --w4a16-explain \
// RUN:   %s 2>&1 >/dev/null | FileCheck %s --check-prefix=OTHER

// CHECK:      IR Dump Before CSE (cse)
// CHECK:      IR Dump Before W4a16Fuse (w4a16-fuse)
// CHECK:      IR Dump Before Canonicalizer (canonicalize)
// CHECK:      IR Dump Before W4a16Verify (w4a16-verify)
// CHECK-NOT:  IR Dump Before

// OTHER:      IR Dump Before W4a16Verify (w4a16-verify)
// OTHER:      IR Dump Before Canonicalizer (canonicalize)
// OTHER:      IR Dump Before W4a16Fuse (w4a16-fuse)
// OTHER:      IR Dump Before W4a16MergeSiblings (w4a16-merge-siblings)
// OTHER-NOT:  IR Dump Before

func.func @f(%a: i32) -> i32 {
  return %a : i32
}
