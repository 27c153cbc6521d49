// Command-line errors (unknown option, missing value, a second input, a value for a flag that takes none)
// print an error and the usage on stderr and exit with status 2, without reading the input.
//
// RUN: w4a16-opt --no-such-flag %s > %t.out 2> %t.err; test $? -eq 2
// RUN: count 0 < %t.out
// RUN: FileCheck %s < %t.err
// RUN: w4a16-opt -no-such-flag %s 2>&1; test $? -eq 2
// RUN: not w4a16-opt %s -o 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: w4a16-opt %s -o; test $? -eq 2
// RUN: not w4a16-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not w4a16-opt --w4a16-fuse=1 %s 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not w4a16-opt --verify-each=maybe %s 2>&1 | FileCheck %s --check-prefix=BOOL

// CHECK: w4a16-opt: error: unknown option '--no-such-flag'
// CHECK-NEXT: USAGE: w4a16-opt [options] [<input file>]
// MISSING: error: option '-o' requires a value
// TWO: error: more than one input file given
// VALUE: error: option '--w4a16-fuse=1' does not take a value
// BOOL: error: invalid value for --verify-each: 'maybe'
func.func @f() {
  return
}
