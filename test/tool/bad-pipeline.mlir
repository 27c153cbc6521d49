// A malformed --pass-pipeline is a command-line error (exit 2) reported before any input is read; a pipeline
// anchored on another op than the top-level one is a located error (exit 1).
//
// RUN: w4a16-opt --pass-pipeline='builtin.module(no-such-pass)' %s > %t.out 2> %t.err; test $? -eq 2
// RUN: count 0 < %t.out
// RUN: FileCheck %s < %t.err
// RUN: not w4a16-opt --pass-pipeline='builtin.module(cse' %s 2>&1 | FileCheck %s --check-prefix=PAREN
// RUN: not w4a16-opt --pass-pipeline='func.func(cse)' %s 2>&1 | FileCheck %s --check-prefix=ANCHOR

// CHECK: w4a16-opt: error: invalid --pass-pipeline 'builtin.module(no-such-pass)'
// CHECK: 'no-such-pass' does not refer to a registered pass or pass pipeline
// CHECK: USAGE: w4a16-opt
// PAREN: error: invalid --pass-pipeline 'builtin.module(cse'
// PAREN: unbalanced
// ANCHOR: bad-pipeline.mlir:0:0: error: --pass-pipeline 'func.func(cse)' is anchored on 'func.func' but the top-level operation is 'builtin.module'
func.func @f() {
  return
}
